"""Correctness per trace: the office-19 criteria, or a scenario's outcome checks."""

from __future__ import annotations

import json
from collections.abc import Mapping

from patientagentbench.analysis import correctness
from patientagentbench.analysis.metrics import TraceData
from patientagentbench.analysis.outcomes import evaluate_outcome

# How an analysis treats a run with a malformed tool call (arguments that were not JSON):
# the paper's runner fails the whole run (`json.loads` raises), so "error" is the default;
# "keep" analyses the run with that call's arguments empty.
MALFORMED_MODES = {
    "error": "a run with a malformed tool call counts as an errored run (the paper's runner)",
    "keep": "a run with a malformed tool call is kept, the call's arguments counted as empty",
}
DEFAULT_MALFORMED = "error"
MALFORMED_ERROR = "malformed tool-call arguments"


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
    trace.correctness = verdict.as_dict()
    trace.correct = verdict.passed


def trace_data(trace, malformed: str = DEFAULT_MALFORMED) -> TraceData:
    if malformed not in MALFORMED_MODES:
        raise ValueError(f"malformed must be one of {', '.join(MALFORMED_MODES)}")
    calls = [(c["name"], _arguments(c)) for c in trace.tool_calls]
    error = trace.error or None
    if error is None and malformed == "error" and any(_is_malformed(c) for c in trace.tool_calls):
        error = MALFORMED_ERROR
    return TraceData(
        calls=calls,
        final_response=trace.final_response,
        error=error,
        **_verdicts(trace),
    )


def _arguments(call: Mapping):
    """The call's arguments in the order the model wrote them. PostgreSQL's jsonb reorders
    object keys, and AC compares `str()` of nested values (the paper's Definition 4), so the
    stored raw text is read back when it holds an object."""
    raw = call.get("raw_arguments")
    if isinstance(raw, str) and raw.startswith("{") and isinstance(call.get("arguments"), Mapping):
        try:
            parsed = json.loads(raw)
        except ValueError:
            return call.get("arguments")
        if isinstance(parsed, dict):
            return parsed
    return call.get("arguments")


def _is_malformed(call: Mapping) -> bool:
    return bool(call.get("malformed")) or not isinstance(call.get("arguments"), Mapping)


def _verdicts(trace) -> dict:
    """The stored verdict under the task's pass rule, re-judged from its checks so traces
    scored before a rule changed are read by today's rule."""
    stored = trace.correctness or {}
    checks = stored.get("checks")
    criteria = trace.task.criteria or {}
    if checks is None or not criteria:
        return {"correct": trace.correct, "correct_all_checks": trace.correct}
    verdict = correctness.judge(checks, criteria.get("pass_rule", correctness.ALL_CHECKS))
    return {
        "correct": verdict.passed,
        "correct_all_checks": verdict.passed_all_checks,
        "tools_correct": verdict.tools_correct,
        "args_correct": verdict.args_correct,
    }


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
