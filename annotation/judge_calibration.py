"""Judges take calibration rounds as clinicians do (issue 21): a panel scores a round's
reference items, and each judge, and the panel's own verdict, gets the per-dimension result a
clinician gets — exact and adjacent agreement with the references against the round's
thresholds, computed by the clinician's own `calibration.round_report` — stored once as a
`JudgeQualification` for the rubric version and each track.

The round's alpha is not a judge's test: it asks whether the clinicians read the rubric alike,
which no judge can fix, so a judge passes a dimension on its own rates (`rates_passed`). A
track passes when every dimension of it that carries a numeric reference passes; a dimension
the judge never answered fails it.

Here, not in the jury, because it reads the review app's rounds (imports point one way).
"""

from __future__ import annotations

from collections import defaultdict
from decimal import Decimal

from django.db import transaction

from annotation.models import Item, Study
from annotation.pure.calibration import Thresholds, round_report
from annotation.qualification import references_of
from jury import verdicts
from jury.models import JudgeQualification, JuryRun, Panel, Verdict
from jury.qualification import panel_signature
from jury.scoring import JuryError, launch_jury
from patientagentbench.models import Trace
from ratings.rating import JURY, NOT_APPLICABLE, OK, Rating
from ratings.rubric import cached_rubric

PANEL_RATER = "\x00panel"  # the panel verdict as a rater: no judge can be named this


class CalibrationError(ValueError):
    pass


def reference_items(round_: Study) -> dict[int, str]:
    """trace id -> item key (as `references_of` keys them) of the round's reference items."""
    return {
        trace_id: str(pk)
        for pk, trace_id in Item.objects.filter(study=round_, reference__isnull=False)
        .order_by("pk")
        .values_list("pk", "trace_id")
    }


def _check(panel: Panel, round_: Study) -> dict[int, str]:
    if not round_.is_calibration:
        raise CalibrationError(f"{round_.name} is not a calibration round.")
    if (round_.rubric_name, round_.rubric_version) != (panel.rubric_name, panel.rubric_version):
        raise CalibrationError(
            f"The round uses rubric {round_.rubric_name} v{round_.rubric_version}; panel "
            f"{panel.name} scores v{panel.rubric_version}."
        )
    items = reference_items(round_)
    if not items:
        raise CalibrationError(f"{round_.name} has no reference items yet.")
    return items


def launch(
    panel: Panel, round_: Study, *, created_by=None, spend_limit: Decimal | None = None
) -> list[JuryRun]:
    """Score the round's reference items with the panel, once each (one scoring per run the
    items come from; items already scored by this panel are not asked again)."""
    items = _check(panel, round_)
    by_run: dict[int, list[int]] = defaultdict(list)
    for trace_id, run_id in Trace.objects.filter(pk__in=list(items)).values_list("pk", "run_id"):
        by_run[run_id].append(trace_id)
    try:
        return [
            launch_jury(
                panel=panel,
                run=Trace.objects.get(pk=trace_ids[0]).run,
                repeat=1,
                spend_limit=spend_limit,
                created_by=created_by,
                trace_ids=trace_ids,
            )
            for _run_id, trace_ids in sorted(by_run.items())
        ]
    except JuryError as exc:
        raise CalibrationError(str(exc)) from exc


def ratings(panel: Panel, round_: Study) -> dict[str, list[Rating]]:
    """rater -> its ratings of the round's reference items: each judge's first reading, and
    the panel verdict (its repetitions averaged, the mean rounded half up as the dashboards
    meet whole scores). A
    failed answer is no rating; not applicable is one (None)."""
    items = _check(panel, round_)
    scored = {d.key for d in cached_rubric(panel.rubric_name, panel.rubric_version).scored}
    found: dict[str, list[Rating]] = defaultdict(list)
    answers = verdicts.verdicts_of(panel, trace_ids=list(items)).filter(repetition=0)
    for judge, trace_id, dimension, status, score in answers.values_list(
        "judge__name", "trace_id", "dimension", "status", "score"
    ):
        if dimension in scored and status in (Verdict.Status.OK, Verdict.Status.NOT_APPLICABLE):
            found[judge].append(_rating(judge, items[trace_id], dimension, status, score))
    for record in verdicts.panel_records(verdicts.Source(panel), trace_ids=list(items)):
        status, score = record["status"], record["score"]
        if record["dimension"] in scored and status in ("ok", "not_applicable"):
            rounded = None if score is None else int(score + 0.5)
            found[PANEL_RATER].append(
                _rating(
                    PANEL_RATER, items[record["conversation"]], record["dimension"], status, rounded
                )
            )
    return found


def _rating(rater: str, item: str, dimension: str, status: str, score) -> Rating:
    if status != Verdict.Status.OK:
        return Rating(item, rater, dimension, None, NOT_APPLICABLE, JURY)
    return Rating(item, rater, dimension, score, OK, JURY)


def unanswered(panel: Panel, round_: Study) -> int:
    """Reference items some judge of the panel has not answered yet (scoring unfinished)."""
    items = _check(panel, round_)
    answered = (
        verdicts.verdicts_of(panel, trace_ids=list(items))
        .filter(repetition=0)
        .values_list("judge_id", "trace_id")
        .distinct()
    )
    done = set(answered)
    return sum(
        (judge, trace) not in done
        for judge in panel.judges.values_list("pk", flat=True)
        for trace in items
    )


def results(panel: Panel, round_: Study) -> dict[str, dict[str, dict]]:
    """rater -> track -> {"passed": bool, "results": dimension -> the clinician's result}."""
    rubric = cached_rubric(panel.rubric_name, panel.rubric_version)
    references = references_of(round_)
    thresholds = Thresholds(round_.min_exact, round_.min_adjacent, round_.min_alpha)
    required: dict[str, list[str]] = defaultdict(list)  # track -> dimensions with a reference
    for dimension in rubric.scored:
        if any(ref.get(dimension.key) is not None for ref in references.values()):
            required[dimension.track].append(dimension.key)
    out: dict[str, dict[str, dict]] = {}
    for rater, rated in sorted(ratings(panel, round_).items()):
        # One rater at a time: the round's alpha among judges means nothing here.
        report = round_report(rated, references, thresholds, rubric.scale).clinicians.get(rater, {})
        out[rater] = {
            track: _track_result(report, dimensions) for track, dimensions in required.items()
        }
    return out


def _track_result(report: dict, dimensions: list[str]) -> dict:
    per_dimension = {}
    for key in dimensions:
        result = report.get(key)
        if result is None:
            per_dimension[key] = {
                "passed": False, "n": 0, "exact": None, "adjacent": None, "excluded": 0,
                "reason": "the judge gave no answer on this dimension",
            }  # fmt: skip
            continue
        reason = None if result.rates_passed else (result.reason or "").split("; the round")[0]
        per_dimension[key] = {
            "passed": result.rates_passed,
            "n": result.n,
            "exact": result.exact,
            "adjacent": result.adjacent,
            "excluded": result.excluded,
            "reason": reason,
        }
    return {"passed": all(r["passed"] for r in per_dimension.values()), "results": per_dimension}


def record(panel: Panel, round_: Study, *, by=None) -> list[JudgeQualification]:
    """Write each judge's and the panel verdict's result per track, once: a record already
    written for this round, track and prompt version is kept as it is, never rewritten."""
    if missing := unanswered(panel, round_):
        raise CalibrationError(
            f"Panel {panel.name} has not finished scoring the round's reference items "
            f"({missing} judge × item answers missing)."
        )
    judges = {j.name: j for j in panel.judges.all()}
    written = []
    with transaction.atomic():
        for rater, tracks in results(panel, round_).items():
            judge = judges.get(rater)
            if judge is None and rater != PANEL_RATER:
                continue  # a judge since removed from the panel
            version = judge.prompt_version if judge else panel_signature(panel)
            for track, outcome in tracks.items():
                row, _created = JudgeQualification.objects.get_or_create(
                    panel=panel,
                    judge=judge,
                    round=round_,
                    track=track,
                    prompt_version=version,
                    defaults={
                        "rubric_name": panel.rubric_name,
                        "rubric_version": panel.rubric_version,
                        "results": outcome["results"],
                        "passed": outcome["passed"],
                        "recorded_by": by,
                    },
                )
                written.append(row)
    return written
