"""`manage.py agreement`: the dashboards' agreement figures from a CSV, so researchers can
analyse ratings collected elsewhere, or this site's own `export_scores` file.

The file is read by `ratings.table`, the reader of every ratings CSV. The plain layout has
the columns `item,rater,dimension,score` (and an optional `status`); rater `jury` marks the
jury, every other name is a clinician. The `export_scores` layout
(`conversation,rater_kind,rater,dimension,score,status,…`) is recognised by its header:
`conversation` is the item, `rater_kind` says jury or clinician, and judges' rows are skipped
(the jury's verdict already stands for them). An `export_study` file is read as its study's
clinicians, item by item. A jury score may be a
fraction (the mean of its judges) in either layout: it is kept as it is for MAE, bias and the
correlations and meets whole scores by `--tie-rule` elsewhere; how many there were is
reported. The figures are `annotation.pure.agreement`'s, the verdict `annotation.pure.envelope`'s,
and beside it the alt-test's (`annotation.pure.alt_test`): on the scores and on pass/fail, each
dimension on its own (`alt_test_…`) and within the family of every dimension in the file
(`alt_test_…_family_…`, Benjamini–Yekutieli across all their clinicians).
"""

from __future__ import annotations

import json
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from annotation.pure import alt_test as alt
from annotation.pure.agreement import (
    INSIDE,
    LEVEL,
    MARGIN,
    MIN_ITEMS,
    MODES,
    RATER_MODES,
    RESAMPLES,
    TIE_RULES,
    VERDICT_RESAMPLES,
    DimensionAgreement,
    agreement,
)
from annotation.pure.envelope import MIN_INTERVAL_ITEMS, RESAMPLED, offered
from jury.rubrics import named
from patientagentbench.analysis.statistics import jsonable
from ratings.rubric import Rubric, RubricError
from ratings.table import RatingsFile, RatingsFileError, read_ratings_file
from ratings.ties import DEFAULT_TIE_RULE, TIE_RULE_WORDS

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
        "delete-one-clinician jackknife (docs/agreement.md), and beside it the alt-test (can the "
        "jury stand in for a clinician? leave one clinician out, paired t-test per clinician "
        "with margin --epsilon, Benjamini-Yekutieli; on scores and on pass/fail, each "
        "dimension alone and within the family of all dimensions). Each figure has "
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
            "--epsilon",
            type=float,
            default=alt.EPSILON,
            help="The alt-test's cost-benefit margin: how much less often than a clinician "
            "the jury may align with the other clinicians (the paper: 0.2 for experts, 0.15 "
            "skilled annotators, 0.1 crowd workers; smaller when clinicians agree less) "
            "(default %(default)s)",
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
        parser.add_argument(
            "--rubric",
            default="",
            metavar="NAME[@VERSION]",
            help="The rubric the file's scores are on: its scale bounds them and its pass mark "
            "decides pass/fail (default: the newest patientagentbench rubric)",
        )
        parser.add_argument(
            "--unqualified",
            action="store_true",
            help="Show the envelope verdict where the file's qualified column says the jury has "
            "not passed a calibration round on the dimension (withheld otherwise); the output "
            "then says so beside the verdict",
        )

    def handle(self, *args, **options):
        scale = _rubric(options["rubric"] or "patientagentbench").scale
        if min(options["margin"], options["resamples"], options["verdict_resamples"]) < 0:
            raise CommandError("--margin and the resamples must not be negative.")
        if not 0 <= options["epsilon"] < 1:
            raise CommandError("--epsilon must be at least 0 and below 1.")
        if options["min_items"] < MIN_INTERVAL_ITEMS:
            raise CommandError(
                f"--min-items must be {MIN_INTERVAL_ITEMS} or more: a verdict stands on "
                "bootstrap intervals, which on fewer items cover far less often than they say."
            )
        try:
            read = read_ratings_file(options["ratings"], scale)
            ratings = read.ratings + read.jury(options["panel"])
        except RatingsFileError as error:
            raise CommandError(str(error)) from error
        panel = options["panel"] or next(iter(read.panels), "")
        options["unqualified_dimensions"] = read.unqualified.get(panel, set())
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
                epsilon=options["epsilon"],
                scale=scale,
            )
        except ValueError as error:
            raise CommandError(str(error)) from error
        if options["format"] == "json":
            payload = {
                d: r.summary() | _offered(r, options) | {"detail": r.as_dict()}
                for d, r in results.items()
            }
            self.stdout.write(json.dumps(jsonable(payload), indent=2, allow_nan=False))
            for note in _notes(read, options):
                self.stderr.write(note)
        else:
            self.stdout.write(render_table(results, read, options))


def _rubric(text: str) -> Rubric:
    try:
        return named(text)
    except RubricError as error:
        raise CommandError(f"--rubric {text}: {error}") from error


# --- writing -------------------------------------------------------------------------------------


def _notes(read: RatingsFile, options: dict) -> list[str]:
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
        f"Alt-test: leave one clinician out; per item the jury's and that clinician's alignment "
        f"with the rest (−RMSE on scores, accuracy on pass/fail); one-sided paired t-test per "
        f"clinician with ε = {options['epsilon']:g}; Benjamini–Yekutieli at q = {alt.Q:g} "
        f"across the clinicians (and, for the family line, across every dimension's); stands "
        f"in when it wins against half of them or more; {alt.MIN_ITEMS}+ items per clinician "
        f"and {alt.MIN_CLINICIANS}+ clinicians. The envelope tests each dimension on its own "
        "(95%, no correction across dimensions).",
        f"Means between two scores (clinicians' means, panels' means): "
        f"{TIE_RULE_WORDS[options['tie_rule']]} for exact, adjacent and kappa; MAE, bias and "
        "correlations use the means unrounded.",
    ]
    if read.panels and not read.says_qualified:
        notes.append(
            "The file does not say whether the jury passed a calibration round (export_scores "
            "writes a qualified column); its verdicts are shown as for a qualified jury."
        )
    elif options["unqualified_dimensions"]:
        shown = "shown by --unqualified" if options["unqualified"] else "withheld"
        notes.append(
            f"The jury is not qualified on {', '.join(sorted(options['unqualified_dimensions']))}"
            f" (the file's qualified column): those verdicts are {shown}."
        )
    if read.judge_rows:
        notes.append(f"{read.judge_rows} judge rows skipped (their panel's verdict is used).")
    if read.fractional:
        notes.append(
            f"{read.fractional} jury scores are means between two scores (kept unrounded for "
            "MAE, bias and correlations)."
        )
    return notes


def _offered(result: DimensionAgreement, options: dict) -> dict:
    """The verdict the file lets us offer: withheld where its `qualified` column says the
    jury had not passed calibration on the dimension, unless --unqualified (then said)."""
    if result.envelope is None:
        return {}
    qualified = result.dimension not in options["unqualified_dimensions"]
    verdict, note = offered(result.envelope.verdict, qualified, options["unqualified"])
    shown = {"verdict": verdict, "verdict_computed": result.envelope.verdict, "verdict_note": note}
    # The alt-test's verdicts are gated alike: a jury earns them by the same calibration.
    for key, computed in _alt_verdicts(result).items():
        shown |= {key: offered(computed, qualified, options["unqualified"])[0]}
        shown |= {f"{key}_computed": computed}
    return shown


def _alt_verdicts(result: DimensionAgreement) -> dict[str, str]:
    out = {}
    for scale, test in result.alt_test.items():
        prefix = "alt_test" if scale == alt.ORDINAL else "alt_test_pass_fail"
        out[f"{prefix}_verdict"] = test.verdict
        out[f"{prefix}_family_verdict"] = result.alt_test_family[scale].verdict
    return out


def render_table(results: dict[str, DimensionAgreement], read: RatingsFile, options: dict) -> str:
    blocks = [_dimension_block(result, options) for result in results.values()]
    family = _family_lines(results, options)
    return "\n\n".join([*blocks, *family, "\n".join(_notes(read, options))]) + "\n"


def _family_lines(results: dict[str, DimensionAgreement], options: dict) -> list[str]:
    """The sentence across dimensions, with its family-wise framing said."""
    judged = [r for r in results.values() if r.alt_test]
    if not judged:
        return []
    lines = [
        f"Across the {len(judged)} dimension{'s' if len(judged) != 1 else ''} with jury scores"
    ]
    for scale, words in ((alt.ORDINAL, "scores"), (alt.PASS_FAIL, "pass/fail")):
        shown = [_offered(r, options)[_alt_key(scale, family=True)] for r in judged]
        comparisons = sum(r.alt_test_family[scale].n_clinicians for r in judged)
        lines.append(
            f"  alt-test on {words}: {alt.STANDS_IN} on {shown.count(alt.STANDS_IN)} of "
            f"{len(judged)} (Benjamini–Yekutieli across all {comparisons} clinician comparisons "
            f"of the {len(judged)}, q = {alt.Q:g})"
        )
    inside = sum(_offered(r, options)["verdict"] == INSIDE for r in judged)
    lines.append(
        f"  envelope: inside on {inside} of {len(judged)}, each dimension tested on its own "
        "(95%, no correction across dimensions)"
    )
    return ["\n".join(lines)]


def _alt_key(scale: str, family: bool = False) -> str:
    prefix = "alt_test" if scale == alt.ORDINAL else "alt_test_pass_fail"
    return f"{prefix}_family_verdict" if family else f"{prefix}_verdict"


def _dimension_block(result: DimensionAgreement, options: dict) -> str:
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
        lines += ["  Jury vs clinicians", *_mode_lines(result), _envelope_line(result, options)]
        lines += _alt_lines(result, options)
    return "\n".join(lines)


def _alt_lines(result: DimensionAgreement, options: dict) -> list[str]:
    shown = _offered(result, options)
    test = result.alt_test[alt.ORDINAL]
    lines = [
        f"  Alt-test (ε = {test.epsilon:g}; {test.n_items} items with 2+ clinicians): can the "
        "jury stand in for a clinician?"
    ]
    for scale, words in ((alt.ORDINAL, "scores (−RMSE)"), (alt.PASS_FAIL, "pass/fail (accuracy)")):
        test = result.alt_test[scale]
        verdict = shown[_alt_key(scale)]
        said = test.reason if verdict == test.verdict else "--unqualified shows it"
        rho = "-" if test.advantage is None else f"{test.advantage:.3f}"
        family = shown[_alt_key(scale, family=True)]
        lines.append(
            f"    {words:<21} {verdict}: {said}; ρ {rho}; within the family of dimensions: {family}"
        )
    return lines


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


def _envelope_line(result: DimensionAgreement, options: dict) -> str:
    envelope = result.envelope
    assert envelope is not None
    margin = " (at the margin)" if envelope.at_the_margin else ""
    shown = _offered(result, options)
    verdict = f"{envelope.verdict}{margin}: {envelope.reason}"
    if shown["verdict"] != envelope.verdict:
        verdict = f"{shown['verdict']} ({shown['verdict_note']}; --unqualified shows it)"
    elif shown["verdict_note"]:
        verdict += f" [{shown['verdict_note']}]"
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
            f"    verdict (margin ±{envelope.margin:g}): {verdict}",
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
