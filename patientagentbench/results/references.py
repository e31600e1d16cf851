"""Reference traces: set from a run's repetitions, and every later trace compared with them.

The comparison is computed when a page asks, from the tool calls already stored on each
finished trace, not stored per trace: it costs one Levenshtein per trace against a sequence a
few calls long, it cannot go stale when a reference is set again, and it needs no hook in the
execution path (so nothing to keep idempotent). A trace is checked once it has finished, which
is when its tool calls are saved.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db import transaction

from patientagentbench.analysis.reference_traces import (
    PAPER_EARLY_SHARE,
    PAPER_RISK_RATIO,
    REFERENCE_RULE,
    Deviation,
    choose_reference,
    deviation,
    early_share,
    risk_ratio,
)
from patientagentbench.models import ReferenceTrace, Run, Trace
from patientagentbench.results.cells import cells_of

MIN_REFERENCE_REPETITIONS = 2  # a medoid of one repetition is no reference
DEVIATING_SHOWN = 20  # the newest; the count says how many more


def names_of(tool_calls) -> tuple[str, ...]:
    return tuple(call["name"] for call in tool_calls)


def _finished(run: Run):
    return (
        run.traces.filter(status=Trace.Status.DONE)
        .select_related("task")
        .only(
            "pk",
            "run_id",
            "task__task_id",
            "model_name",
            "temperature",
            "repetition",
            "tool_calls",
            "correct",
            "finished_at",
        )
    )


def set_references(run: Run, actor=None) -> dict:
    """One reference per cell of the run with at least MIN_REFERENCE_REPETITIONS finished
    repetitions, replacing any earlier reference of that cell; says which cells it skipped."""
    made, skipped = 0, []
    with transaction.atomic():
        for (task_id, model_name, temperature), members in cells_of(_finished(run)):
            if len(members) < MIN_REFERENCE_REPETITIONS:
                skipped.append((task_id, model_name, temperature, len(members)))
                continue
            chosen = choose_reference([names_of(t.tool_calls) for t in members])
            ReferenceTrace.objects.update_or_create(
                task_key=task_id,
                model_name=model_name,
                temperature=temperature,
                defaults={
                    "sequence": list(chosen.sequence),
                    "run": run,
                    "set_by": actor,
                    "chosen": {
                        "rule": chosen.rule,
                        "repetitions": chosen.n,
                        "following_it": chosen.count,
                        "mean_tss": chosen.mean_tss,
                        "tied": chosen.tied,
                        "trace_ids": [t.pk for t in members],
                    },
                },
            )
            made += 1
    return {"set": made, "skipped": skipped}


@dataclass(frozen=True)
class Checked:
    trace: Trace
    reference: ReferenceTrace
    deviation: Deviation


def references_for(run: Run) -> dict[tuple, ReferenceTrace]:
    cells = run.traces.values_list("task__task_id", "model_name").distinct()
    task_ids = {task_id for task_id, _ in cells}
    models = {model for _, model in cells}
    found = ReferenceTrace.objects.filter(task_key__in=task_ids, model_name__in=models)
    return {(r.task_key, r.model_name, r.temperature): r for r in found}


def check_run(run: Run, references: dict[tuple, ReferenceTrace] | None = None) -> list[Checked]:
    """Every finished trace of the run whose cell has a reference, against it."""
    references = references_for(run) if references is None else references
    if not references:
        return []
    checked = []
    for trace in _finished(run):
        reference = references.get((trace.task.task_id, trace.model_name, trace.temperature))
        if reference is not None:
            found = deviation(names_of(trace.tool_calls), reference.sequence)
            checked.append(Checked(trace, reference, found))
    return checked


def deviating_trace_ids(run: Run) -> list[int]:
    return [c.trace.pk for c in check_run(run) if c.deviation.deviates]


def monitor(run: Run) -> dict:
    """What the run page shows: the deviating traces, and the validation of the paper's two
    figures on this run (computed, or "not enough evidence")."""
    references = references_for(run)
    checked = check_run(run, references)
    deviating = [c for c in checked if c.deviation.deviates]
    deviating.sort(key=lambda c: (c.trace.finished_at is None, c.trace.finished_at), reverse=True)
    graded = [c for c in checked if c.trace.correct is not None]
    risk = _risk(graded, lambda d: d.deviates)
    risk_first_two = _risk(graded, lambda d: not d.first_two_match)
    return {
        "references": len(references),
        "in_sample": any(r.run_id == run.pk for r in references.values()),
        "reference_runs": sorted({r.run_id for r in references.values()}),
        "checked": len(checked),
        "deviating": deviating[:DEVIATING_SHOWN],
        "n_deviating": len(deviating),
        "more_deviating": max(len(deviating) - DEVIATING_SHOWN, 0),
        "n_first_two_differ": sum(not c.deviation.first_two_match for c in checked),
        "risk": risk,
        "risk_first_two": risk_first_two,
        "risk_rows": [
            ("Failure risk ratio: left the reference vs followed it", risk),
            ("Failure risk ratio: first two calls differ vs match", risk_first_two),
        ],
        "early_share": early_share([c.deviation.departure_step for c in deviating]),
        "paper_risk": PAPER_RISK_RATIO,
        "paper_early_share": PAPER_EARLY_SHARE,
        "rule": REFERENCE_RULE,
    }


def _risk(graded: list[Checked], deviates) -> dict:
    flagged = [c for c in graded if deviates(c.deviation)]
    matching = [c for c in graded if not deviates(c.deviation)]
    return risk_ratio(
        sum(c.trace.correct is False for c in flagged),
        len(flagged),
        sum(c.trace.correct is False for c in matching),
        len(matching),
    )
