"""Task correctness from a task's `correctness_criteria` (office-19 and later suites).

Every criterion becomes one or more named checks and every check's verdict is kept, so a
failed trace says which requirement it missed (DESIGN §4, Correctness). A trace passes when
all checks pass (the rule "all_checks"), or, where the criteria say `"pass_rule": "paper"`
(office-19), by the paper's own rule: every tool check passes (required tools, order, minimum
counts) and at least half of the argument checks do; `output_pattern` is recorded but never
gates (the paper's `evaluate_correctness.py`; its text says "all applicable criteria", its
code does not). Both verdicts are kept, so either can be shown beside the other.

Criterion keys (office-19's, from the paper's release, plus side effects):

- `required_tools`: each tool called at least once (one check per tool);
- `required_tools_any`: a list of tool sets; at least one set called in full;
- `required_tool_sequence_contains`: these tools called in this order (a subsequence);
- `arg_checks`: [{tool, key, pattern}]: some call of `tool` has `key` whose str value
  matches `pattern` (re.search);
- `output_pattern`: re.search on the final response;
- `min_<tool>_calls` (and office-19's `min_send_emails`, `min_weather_calls`): at least n
  calls of the tool;
- `side_effects`: [{kind, min=1, max=None, where={field: pattern}}]: between min and max
  recorded side effects of that kind whose fields match.

`description` is documentation and `pass_rule` picks the rule. Any other key raises
ValueError: a misspelt criterion must not pass silently. Under the paper's rule side-effect
checks gate like tool checks (office-19 has none).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypedDict

Call = tuple[str, Mapping[str, Any] | None]

# office-19 names two minimum counts after what they count rather than the tool.
_MIN_COUNT_ALIASES = {"min_send_emails": "send_email", "min_weather_calls": "get_weather"}
_MIN_CALLS = re.compile(r"^min_(?P<tool>\w+)_calls$")


ALL_CHECKS = "all_checks"
PAPER = "paper"
PASS_RULES = {
    ALL_CHECKS: "every check passes",
    PAPER: "the paper's rule: every tool check and at least half of the argument checks",
}
_META_KEYS = {"description", "pass_rule"}


class Check(TypedDict):
    name: str
    passed: bool
    detail: str


@dataclass(slots=True)
class Verdict:
    passed: bool
    checks: list[Check] = field(default_factory=list)
    rule: str = ALL_CHECKS
    passed_all_checks: bool | None = None
    passed_paper: bool | None = None
    tools_correct: bool | None = None
    args_correct: float | None = None

    def as_dict(self) -> dict[str, Any]:
        """What a trace stores: the verdict under its rule, both rules, and every check."""
        return {
            "passed": self.passed,
            "rule": self.rule,
            "passed_all_checks": self.passed_all_checks,
            "passed_paper": self.passed_paper,
            "tools_correct": self.tools_correct,
            "args_correct": self.args_correct,
            "checks": list(self.checks),
        }


def judge(checks: Sequence[Mapping[str, Any]], rule: str = ALL_CHECKS) -> Verdict:
    """Both pass rules over a trace's checks; `passed` is the one `rule` names."""
    if rule not in PASS_RULES:
        raise ValueError(f"unknown pass rule {rule!r}; one of {', '.join(PASS_RULES)}")
    arg_checks = [c for c in checks if c["name"].startswith("arg:")]
    gating = [
        c for c in checks if not c["name"].startswith("arg:") and c["name"] != "output_pattern"
    ]
    tools_correct = all(c["passed"] for c in gating)
    args_correct = (
        sum(bool(c["passed"]) for c in arg_checks) / len(arg_checks) if arg_checks else 1.0
    )
    all_checks = all(c["passed"] for c in checks)
    paper = tools_correct and args_correct >= 0.5
    return Verdict(
        passed=paper if rule == PAPER else all_checks,
        checks=[dict(c) for c in checks],
        rule=rule,
        passed_all_checks=all_checks,
        passed_paper=paper,
        tools_correct=tools_correct,
        args_correct=args_correct,
    )


@dataclass(frozen=True, slots=True)
class _Trace:
    names: list[str]
    calls: list[tuple[str, Mapping[str, Any]]]
    final_response: str
    side_effects: list[Mapping[str, Any]]


def evaluate(
    criteria: Mapping[str, Any],
    calls: Sequence[Call],
    final_response: str,
    side_effects: Iterable[Mapping[str, Any]] = (),
) -> Verdict:
    """Check one trace against a task's criteria; raises ValueError for an unknown criterion."""
    trace = _Trace(
        names=[name for name, _ in calls],
        calls=[(name, args if isinstance(args, Mapping) else {}) for name, args in calls],
        final_response=final_response or "",
        side_effects=list(side_effects),
    )
    checks: list[Check] = []
    for key, check in _checkers(criteria):
        checks.extend(check(criteria[key], trace))
    return judge(checks, criteria.get("pass_rule", ALL_CHECKS))


def _checkers(criteria: Mapping[str, Any]) -> list[tuple[str, Callable[[Any, _Trace], list]]]:
    known, unknown = [], []
    for key in criteria:
        if key in _META_KEYS:
            continue
        checker = _CHECKERS.get(key) or _min_calls_checker(key)
        if checker is None:
            unknown.append(key)
        else:
            known.append((key, checker))
    if unknown:
        raise ValueError(f"unknown correctness criteria: {', '.join(sorted(unknown))}")
    return known


def _check(name: str, passed: bool, detail: str) -> Check:
    return {"name": name, "passed": bool(passed), "detail": detail}


def _required_tools(tools: list[str], trace: _Trace) -> list[Check]:
    called = set(trace.names)
    return [
        _check(
            f"required_tool:{tool}",
            tool in called,
            "called" if tool in called else "never called",
        )
        for tool in tools
    ]


def _required_tools_any(tool_sets: list[list[str]], trace: _Trace) -> list[Check]:
    called = set(trace.names)
    satisfied = [tools for tools in tool_sets if set(tools) <= called]
    options = " or ".join("+".join(tools) for tools in tool_sets)
    detail = f"called {'+'.join(satisfied[0])}" if satisfied else f"called none of {options}"
    return [_check("required_tools_any", bool(satisfied), detail)]


def _required_sequence(sequence: list[str], trace: _Trace) -> list[Check]:
    remaining = iter(trace.names)
    # `in` on an iterator consumes it up to the match: an in-order subsequence test.
    found = all(tool in remaining for tool in sequence)
    order = " -> ".join(sequence)
    detail = f"{order} in order" if found else f"{order} not called in that order"
    return [_check("required_tool_sequence", found, detail)]


def _arg_checks(specs: list[Mapping[str, str]], trace: _Trace) -> list[Check]:
    checks = []
    for spec in specs:
        tool, key, pattern = _arg_spec(spec)
        # A call without the key is tested as "" (the paper's `.get(key, "")`).
        values = [str(args.get(key, "")) for name, args in trace.calls if name == tool]
        matched = next((v for v in values if re.search(pattern, v)), None)
        if matched is not None:
            detail = f"{key}={matched!r} matches"
        elif values:
            detail = f"no {key} of {len(values)} {tool} call(s) matches"
        else:
            detail = f"no {tool} call"
        checks.append(_check(f"arg:{tool}.{key}~{pattern}", matched is not None, detail))
    return checks


def _arg_spec(spec: Any) -> tuple[str, str, str]:
    if not isinstance(spec, Mapping) or not {"tool", "key", "pattern"} <= set(spec):
        raise ValueError(f"arg_checks entries need tool, key and pattern: {spec!r}")
    return spec["tool"], spec["key"], spec["pattern"]


def _output_pattern(pattern: str, trace: _Trace) -> list[Check]:
    found = re.search(pattern, trace.final_response) is not None
    return [_check("output_pattern", found, f"{pattern!r} {'found' if found else 'not found'}")]


def _min_calls_checker(key: str) -> Callable[[Any, _Trace], list[Check]] | None:
    tool = _MIN_COUNT_ALIASES.get(key)
    if tool is None and (match := _MIN_CALLS.match(key)):
        tool = match["tool"]
    if tool is None:
        return None

    def check(minimum: int, trace: _Trace) -> list[Check]:
        count = Counter(trace.names)[tool]
        return [_check(f"min_calls:{tool}", count >= minimum, f"{count} of at least {minimum}")]

    return check


def _side_effects(specs: list[Mapping[str, Any]], trace: _Trace) -> list[Check]:
    checks = []
    for spec in specs:
        if not isinstance(spec, Mapping) or "kind" not in spec:
            raise ValueError(f"side_effects entries need a kind: {spec!r}")
        kind, minimum, maximum = spec["kind"], spec.get("min", 1), spec.get("max")
        where = spec.get("where", {})
        count = sum(
            effect.get("kind") == kind and _fields_match(effect, where)
            for effect in trace.side_effects
        )
        passed = count >= minimum and (maximum is None or count <= maximum)
        bounds = f"at least {minimum}" + ("" if maximum is None else f", at most {maximum}")
        checks.append(_check(f"side_effect:{kind}", passed, f"{count} recorded; {bounds}"))
    return checks


def _fields_match(effect: Mapping[str, Any], where: Mapping[str, str]) -> bool:
    return all(
        field in effect and re.search(pattern, str(effect[field])) is not None
        for field, pattern in where.items()
    )


_CHECKERS: dict[str, Callable[[Any, _Trace], list[Check]]] = {
    "required_tools": _required_tools,
    "required_tools_any": _required_tools_any,
    "required_tool_sequence_contains": _required_sequence,
    "arg_checks": _arg_checks,
    "output_pattern": _output_pattern,
    "side_effects": _side_effects,
}
