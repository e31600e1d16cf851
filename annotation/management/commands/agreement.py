"""`manage.py agreement`: the dashboards' agreement figures from a CSV, so researchers can
analyse ratings collected elsewhere, or this site's own `export_scores` file.

Two layouts are read. The plain one has the columns `item,rater,dimension,score` (and an
optional `status`); rater `jury` marks the jury, every other name is a clinician. The
`export_scores` layout (`conversation,rater_kind,rater,dimension,score,status,…`) is
recognised by its header: `conversation` is the item, `rater_kind` says jury or clinician,
and judges' rows are skipped (the jury's verdict already stands for them). A jury score may be a
fraction (the mean of its judges) in either layout: it is kept as it is for MAE, bias and the
correlations and meets whole scores by `--tie-rule` elsewhere; how many there were is
reported. The figures are `annotation.pure.agreement`'s, the verdict `annotation.pure.envelope`'s.
"""

from __future__ import annotations

import csv
import json
from dataclasses import dataclass, field
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from annotation.pure.agreement import (
    CLINICIAN,
    JURY,
    LEVEL,
    MARGIN,
    MIN_ITEMS,
    MODES,
    NOT_APPLICABLE,
    OK,
    RATER_MODES,
    RESAMPLES,
    SCORES,
    STATUSES,
    TIE_RULES,
    VERDICT_RESAMPLES,
    DimensionAgreement,
    Rating,
    agreement,
)
from annotation.pure.envelope import RESAMPLED
from patientagentbench.analysis.statistics import jsonable
from ratings.ties import DEFAULT_TIE_RULE, TIE_RULE_WORDS

PLAIN = ("item", "rater", "dimension", "score")
EXPORT = ("conversation", "rater_kind", "rater", "dimension", "score", "status")
NOT_APPLICABLE_TEXT = ("", "na", "n/a", "not applicable")
MODE_LABELS = {
    "every_pair": "every pair",
    "clinician_mean": "vs mean",
    "mean_within_1": "mean, outliers >1 out",
    "mean_within_2": "mean, outliers >2 out",
}
FIGURE_LABELS = {
    "adjacent": "adjacent (±1)",
    "exact": "exact",
    "weighted_kappa": "kappa (quadratic)",
    "pearson": "Pearson r",
    "spearman": "Spearman rho",
    "mae": "MAE",
    "bias": "bias (jury − clin.)",
}


@dataclass
class _Read:
    ratings: list[Rating] = field(default_factory=list)
    panels: dict[str, list[Rating]] = field(default_factory=dict)  # jury rows per panel
    judge_rows: int = 0
    fractional: int = 0  # jury scores between two whole scores (a panel's mean)
    seen: dict[tuple[str, str, str], int] = field(default_factory=dict)  # → line first given


class Command(BaseCommand):
    help = (
        "Agreement between the jury and clinicians and among clinicians, per dimension, from a "
        "CSV: Krippendorff's alpha (ordinal on 1-5; pass/fail at 3 or more; nominal), Fleiss' "
        "kappa, and with jury rows adjacent (within 1) and exact agreement, quadratic-weighted "
        "kappa, Pearson, Spearman, MAE and bias in four modes (every jury-clinician pair; jury "
        "vs the clinicians' mean; the same leaving out clinicians more than 1 or 2 from that "
        "mean), and the human-envelope verdict: inside, below, above, inconclusive or not "
        "enough evidence, from adjacent agreement and mean pairwise Cohen kappa compared in "
        "one paired bootstrap over items, widened for the sampling of clinicians by a "
        "delete-one-clinician jackknife (docs/agreement.md). Each figure has "
        "a 95% bootstrap interval. The CSV has the columns "
        "item,rater,dimension,score (rater 'jury' marks jury rows; an empty score or 'na' is "
        "not applicable), or is export_scores output (conversation,rater_kind,rater,...; judge "
        "rows are skipped)."
    )

    def add_arguments(self, parser):
        parser.add_argument("--ratings", type=Path, required=True, help="The CSV file to read")
        parser.add_argument("--format", choices=("table", "json"), default="table")
        parser.add_argument(
            "--margin",
            type=float,
            default=MARGIN,
            help="Equivalence margin on the adjacent-agreement difference (default %(default)s)",
        )
        parser.add_argument("--seed", type=int, default=0, help="Bootstrap seed (default 0)")
        parser.add_argument(
            "--resamples",
            type=int,
            default=RESAMPLES,
            help="Bootstrap resamples; 0 for point estimates only (default %(default)s)",
        )
        parser.add_argument(
            "--verdict-resamples",
            type=int,
            default=VERDICT_RESAMPLES,
            help="Resamples of the envelope's bootstrap (default %(default)s)",
        )
        parser.add_argument(
            "--min-items",
            type=int,
            default=MIN_ITEMS,
            help="Fewest items for a verdict other than 'not enough evidence' (default %(default)s)",
        )
        parser.add_argument(
            "--raters",
            choices=RATER_MODES,
            default=RESAMPLED,
            help="The envelope's bootstrap: resample clinicians too (resampled: the clinicians "
            "are a sample) or keep these clinicians (fixed) (default %(default)s)",
        )
        parser.add_argument(
            "--tie-rule",
            choices=TIE_RULES,
            default=DEFAULT_TIE_RULE,
            help="How a mean between two scores meets whole scores in exact, adjacent and "
            "kappa (default %(default)s)",
        )
        parser.add_argument(
            "--panel",
            default="",
            help="export_scores files with several jury panels: the panel to compare",
        )

    def handle(self, *args, **options):
        if min(options["margin"], options["resamples"], options["verdict_resamples"]) < 0:
            raise CommandError("--margin and the resamples must not be negative.")
        if options["min_items"] < 2:
            raise CommandError("--min-items must be 2 or more.")
        read = read_ratings(options["ratings"])
        ratings = read.ratings + _panel_rows(read, options["panel"])
        try:
            results = agreement(
                ratings,
                margin=options["margin"],
                seed=options["seed"],
                n_resamples=options["resamples"],
                verdict_resamples=options["verdict_resamples"],
                min_items=options["min_items"],
                raters=options["raters"],
                tie_rule=options["tie_rule"],
            )
        except ValueError as error:
            raise CommandError(str(error)) from error
        if options["format"] == "json":
            payload = {d: r.summary() | {"detail": r.as_dict()} for d, r in results.items()}
            self.stdout.write(json.dumps(jsonable(payload), indent=2, allow_nan=False))
            for note in _notes(read, options):
                self.stderr.write(note)
        else:
            self.stdout.write(render_table(results, read, options))


# --- reading -------------------------------------------------------------------------------------


def read_ratings(path: Path) -> _Read:
    if not path.is_file():
        raise CommandError(f"No such file: {path}")
    try:
        with path.open(newline="", encoding="utf-8-sig") as handle:
            return _read_rows(csv.DictReader(handle), path)
    except UnicodeDecodeError as error:
        raise CommandError(f"{path} is not UTF-8 text: {error}") from error
    except csv.Error as error:
        raise CommandError(f"{path} is not a readable CSV: {error}") from error


def _read_rows(reader: csv.DictReader, path: Path) -> _Read:
    header = [name.strip() for name in reader.fieldnames or []]
    reader.fieldnames = header
    layout = _layout(header, path)
    read = _Read()
    for row in reader:
        line = reader.line_num
        rating = _export_rating(row, line, read) if layout == EXPORT else _plain_rating(row, line)
        if rating is None:
            continue
        if layout != EXPORT:
            _count_fractional(read, rating)
        _check_once(rating, line, read)
        if rating.kind == JURY:
            read.panels.setdefault(rating.rater, []).append(rating)
        else:
            read.ratings.append(rating)
    if not read.ratings and not read.panels:
        raise CommandError(f"{path} holds no ratings.")
    return read


def _layout(header: list[str], path: Path) -> tuple[str, ...]:
    if set(EXPORT) <= set(header):
        return EXPORT
    if set(PLAIN) <= set(header):
        return PLAIN
    missing = [name for name in PLAIN if name not in header]
    raise CommandError(
        f"{path}, line 1: missing column(s) {', '.join(missing)}; expected "
        f"{','.join(PLAIN)} or export_scores output ({','.join(EXPORT)},...)"
    )


def _plain_rating(row: dict, line: int) -> Rating:
    item, rater, dimension = (_required(row, name, line) for name in PLAIN[:3])
    kind = JURY if rater.lower() == JURY else CLINICIAN
    status = _status(row, line) if "status" in row else None
    score, status = _score(row, line, kind, status)
    return Rating(item, JURY if kind == JURY else rater, dimension, score, status, kind)


def _count_fractional(read: _Read, rating: Rating) -> None:
    if rating.kind == JURY and rating.score is not None and not float(rating.score).is_integer():
        read.fractional += 1


def _export_rating(row: dict, line: int, read: _Read) -> Rating | None:
    kind = (row.get("rater_kind") or "").strip()
    if kind == "judge":
        read.judge_rows += 1
        return None
    if kind not in (JURY, CLINICIAN):
        raise CommandError(
            f"line {line}, column rater_kind: expected jury, judge or clinician, got {kind!r}"
        )
    item = _required(row, "conversation", line)
    rater, dimension = _required(row, "rater", line), _required(row, "dimension", line)
    score, status = _score(row, line, kind, _status(row, line))
    if kind == JURY and score is not None and not float(score).is_integer():
        read.fractional += 1
    return Rating(item, rater, dimension, score, status, kind)


def _required(row: dict, column: str, line: int) -> str:
    value = (row.get(column) or "").strip()
    if not value:
        raise CommandError(f"line {line}, column {column}: empty")
    return value


def _status(row: dict, line: int) -> str:
    status = (row.get("status") or "").strip() or OK
    if status not in STATUSES:
        raise CommandError(
            f"line {line}, column status: expected one of {', '.join(STATUSES)}, got {status!r}"
        )
    return status


def _score(row: dict, line: int, kind: str, status: str | None) -> tuple[float | None, str]:
    """The score and the status it stands under; an empty score is not applicable."""
    text = (row.get("score") or "").strip()
    if status not in (None, OK):
        return None, status
    if text.lower() in NOT_APPLICABLE_TEXT:
        if status == OK and "status" in row and "rater_kind" in row:
            raise CommandError(f"line {line}, column score: status ok needs a score")
        return None, NOT_APPLICABLE
    return _number(text, line, kind), OK


def _number(text: str, line: int, kind: str) -> float:
    where = f"line {line}, column score"
    try:
        value = float(text)
    except ValueError:
        raise CommandError(f"{where}: expected a score from 1 to 5, got {text!r}") from None
    if not SCORES[0] <= value <= SCORES[-1]:
        raise CommandError(f"{where}: expected a score from 1 to 5, got {text!r}")
    if kind == CLINICIAN and not value.is_integer():
        raise CommandError(f"{where}: a clinician's score is a whole number, got {text!r}")
    return int(value) if value.is_integer() else value


def _check_once(rating: Rating, line: int, read: _Read) -> None:
    key = (rating.item, f"{rating.kind}:{rating.rater}", rating.dimension)
    first = read.seen.setdefault(key, line)
    if first != line:
        raise CommandError(
            f"line {line}: {rating.rater} already rated item {rating.item} on "
            f"{rating.dimension} (line {first}); give one score per rater, item and dimension"
        )


def _panel_rows(read: _Read, panel: str) -> list[Rating]:
    if panel:
        if panel not in read.panels:
            known = ", ".join(sorted(read.panels)) or "none"
            raise CommandError(f"No jury rows from panel {panel!r} (panels in the file: {known}).")
        return read.panels[panel]
    if len(read.panels) > 1:
        raise CommandError(
            f"The file holds jury rows from {len(read.panels)} panels "
            f"({', '.join(sorted(read.panels))}); choose one with --panel."
        )
    return next(iter(read.panels.values()), [])


# --- writing -------------------------------------------------------------------------------------


def _notes(read: _Read, options: dict) -> list[str]:
    who = (
        "items, widened by a delete-one-clinician jackknife"
        if options["raters"] == RESAMPLED
        else "items; these clinicians only"
    )
    notes = [
        f"Intervals: {LEVEL:.0%} bootstrap over items (BCa; percentile where BCa is "
        f"undefined), {options['resamples']} resamples, seed {options['seed']}.",
        f"Verdict: percentile bootstrap over {who}, {options['verdict_resamples']} resamples; "
        f"at least {options['min_items']} items; margin ±{options['margin']:g} on both "
        "differences (TOST, 2.5% per side). See docs/agreement.md.",
        f"Means between two scores (clinicians' means, panels' means): "
        f"{TIE_RULE_WORDS[options['tie_rule']]} for exact, adjacent and kappa; MAE, bias and "
        "correlations use the means unrounded.",
    ]
    if read.judge_rows:
        notes.append(f"{read.judge_rows} judge rows skipped (their panel's verdict is used).")
    if read.fractional:
        notes.append(
            f"{read.fractional} jury scores are means between two scores (kept unrounded for "
            "MAE, bias and correlations)."
        )
    return notes


def render_table(results: dict[str, DimensionAgreement], read: _Read, options: dict) -> str:
    blocks = [_dimension_block(result) for result in results.values()]
    return "\n\n".join([*blocks, "\n".join(_notes(read, options))]) + "\n"


def _dimension_block(result: DimensionAgreement) -> str:
    jury = "with jury scores" if result.has_jury else "no jury scores"
    lines = [f"{result.dimension}: {result.n_items} items, {result.n_raters} clinicians, {jury}"]
    if result.excluded:
        left_out = "; ".join(
            f"{kind} {reason} {count}"
            for kind, reasons in result.excluded.items()
            for reason, count in reasons.items()
        )
        lines.append(f"  left out: {left_out}")
    lines += ["  Clinicians among themselves", *_reliability_lines(result)]
    if result.envelope is not None:
        lines += ["  Jury vs clinicians", *_mode_lines(result), _envelope_line(result)]
    return "\n".join(lines)


def _reliability_lines(result: DimensionAgreement) -> list[str]:
    rows = [
        ("Krippendorff's alpha, ordinal", result.alpha.ordinal),
        ("Krippendorff's alpha, pass/fail", result.alpha.pass_fail),
        ("Krippendorff's alpha, nominal", result.alpha.nominal),
        (f"Fleiss' kappa ({result.fleiss_raters_per_item or '-'} per item)", result.fleiss_kappa),
        ("adjacent agreement (±1)", result.clinicians.adjacent),
        ("exact agreement", result.clinicians.exact),
        ("kappa (quadratic, mean of pairs)", result.clinicians.weighted_kappa),
    ]
    if result.alpha_with_jury is not None:
        rows.append(("alpha, ordinal, jury as a rater", result.alpha_with_jury.ordinal))
    return [f"    {label:<34} {_cell(estimate)}" for label, estimate in rows]


def _mode_lines(result: DimensionAgreement) -> list[str]:
    header = f"    {'':<20}" + "".join(f"{MODE_LABELS[m]:<23}" for m in MODES)
    pairs = f"    {'pairs (items)':<20}" + "".join(
        f"{f'{result.modes[m].n_pairs} ({result.modes[m].n_items})':<23}" for m in MODES
    )
    left_out = f"    {'outliers (no mean)':<20}" + "".join(
        f"{f'{result.modes[m].left_out} ({result.modes[m].items_without_mean})':<23}" for m in MODES
    )
    rows = [
        f"    {label:<20}"
        + "".join(f"{_cell(getattr(result.modes[m], figure)):<23}" for m in MODES)
        for figure, label in FIGURE_LABELS.items()
    ]
    return [line.rstrip() for line in (header, pairs, left_out, *rows)]


def _envelope_line(result: DimensionAgreement) -> str:
    envelope = result.envelope
    assert envelope is not None
    margin = " (at the margin)" if envelope.at_the_margin else ""
    return "\n".join(
        [
            f"  Human envelope ({envelope.n_items} items with 2+ clinicians, "
            f"{envelope.n_clinicians} clinicians):",
            f"    adjacent: jury {_cell(envelope.jury_adjacent)} vs clinicians "
            f"{_cell(envelope.clinician_adjacent)}; difference "
            f"{_cell(envelope.adjacent_difference, signed=True)}",
            f"    kappa:    jury {_cell(envelope.jury_kappa)} vs clinicians "
            f"{_cell(envelope.clinician_kappa)}; difference "
            f"{_cell(envelope.kappa_difference, signed=True)}",
            f"    verdict (margin ±{envelope.margin:g}): {envelope.verdict}{margin}: "
            f"{envelope.reason}",
        ]
    )


def _cell(estimate, signed: bool = False) -> str:
    """An Estimate or an envelope Figure: value [low, high]."""
    if estimate.value is None:
        return "-"
    form = "+.3f" if signed else ".3f"
    value = format(estimate.value, form)
    if estimate.ci is None:
        return value
    return f"{value} [{estimate.ci[0]:.2f}, {estimate.ci[1]:.2f}]"
