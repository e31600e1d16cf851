"""Correctness per trace: the office-19 criteria, or a scenario's outcome checks."""

from __future__ import annotations

from patientagentbench.analysis import correctness
from patientagentbench.analysis.metrics import TraceData
from patientagentbench.analysis.outcomes import evaluate_outcome


def score_trace(trace) -> None:
    """Keep every criterion's verdict, not only the total."""
    if trace.task.case is not None and trace.task.suite.has_patients:
        _score_outcome(trace)
        return
    criteria = trace.task.criteria
    if not criteria:
        trace.correctness, trace.correct = None, None
        return
    verdict = correctness.evaluate(
        criteria,
        [(c["name"], c["arguments"]) for c in trace.tool_calls],
        trace.final_response,
        trace.side_effects,
    )
    trace.correctness = {"passed": verdict.passed, "checks": list(verdict.checks)}
    trace.correct = verdict.passed


def trace_data(trace) -> TraceData:
    return TraceData(
        calls=[(c["name"], c.get("arguments")) for c in trace.tool_calls],
        final_response=trace.final_response,
        error=trace.error or None,
        correct=trace.correct,
    )


def _score_outcome(trace) -> None:
    """Scenario cases: checks on the final clinic state and the agent's actions."""
    verdict = evaluate_outcome(
        trace.task.case,
        [(c["name"], c["arguments"]) for c in trace.tool_calls],
        trace.final_state,
        trace.side_effects,
        [m["content"] for m in trace.messages if m["role"] == "assistant" and m["content"]],
        end_reason=trace.end_reason,
        messages=trace.messages,
    )
    trace.correctness = {"passed": verdict.passed, "checks": list(verdict.checks)}
    trace.correct = verdict.passed
