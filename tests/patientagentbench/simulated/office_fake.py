"""Just enough of the office-19 sandbox, and of the agent loop, to drive the simulated agent.

The real sandbox and loop are written elsewhere; these stay small on purpose and return the
same shapes (lists of records, {"status": ..., ...} for actions, {"error": ...} on failure).
"""

from __future__ import annotations

import ast
import copy
import dataclasses
import json
import operator
import re
from pathlib import Path
from typing import Any

from patientagentbench.providers.types import CallContext, Completion, Message, ToolCall

SUITE = json.loads(
    (Path(__file__).resolve().parents[3] / "fixtures/suites/office-19.json").read_text()
)
TASKS = {task["id"]: task for task in SUITE["tasks"]}
CRITERIA = SUITE["correctness_criteria"]
TOOLS = SUITE["tools"]


class ToolFailure(Exception):
    pass


class FakeOffice:
    def __init__(self) -> None:
        self.env = copy.deepcopy(SUITE["environment"])

    def call(self, name: str, arguments: dict[str, Any] | None) -> tuple[str, str]:
        if arguments is None:
            return "error", json.dumps({"error": "arguments are not a JSON object"})
        try:
            result = getattr(self, name)(**arguments)
        except (AttributeError, TypeError, KeyError, ToolFailure, ValueError) as exc:
            return "error", json.dumps({"error": f"{name}: {exc}"})
        return "ok", json.dumps(result)

    def search_contacts(self, query):
        q = query.lower()
        return [
            {"id": key, **c}
            for key, c in self.env["contacts"].items()
            if any(q in c[f].lower() for f in ("name", "role", "company"))
        ]

    def get_contact(self, name):
        key = name.strip().lower()
        if key not in self.env["contacts"]:
            raise ToolFailure(f"no contact {name!r}")
        return {"id": key, **self.env["contacts"][key]}

    def list_calendar_events(self, start_date=None, end_date=None):
        for value in (start_date, end_date):
            if value is not None and not re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
                raise ToolFailure(f"bad date {value!r}")
        return [
            e
            for e in self.env["calendar"]
            if (start_date is None or e["date"] >= start_date)
            and (end_date is None or e["date"] <= end_date)
        ]

    def create_calendar_event(self, title, date, start_time, end_time, attendees=()):
        if not re.fullmatch(r"\d{2}:\d{2}", start_time) or not re.fullmatch(
            r"\d{2}:\d{2}", end_time
        ):
            raise ToolFailure("times must be HH:MM")
        event = {"title": title, "date": date, "start": start_time, "end": end_time}
        self.env["calendar"].append({**event, "attendees": list(attendees)})
        return {"status": "created", "event": event}

    def send_email(self, to, subject, body):
        if "@" not in to:
            raise ToolFailure(f"bad address {to!r}")
        return {"status": "sent", "to": to}

    def search_emails(self, query):
        q = query.lower()
        return [
            e for e in self.env["emails"] if q in e["subject"].lower() or q in e["body"].lower()
        ]

    def search_products(self, query):
        q = query.lower()
        return [p for p in self.env["products"] if q in p["name"].lower() or q in p["category"]]

    def calculate(self, expression):
        return {
            "expression": expression,
            "result": _evaluate(ast.parse(expression, mode="eval").body),
        }

    def get_weather(self, city):
        key = city.lower().replace(" ", "_")
        return {"city": key, **self.env["weather"][key]}

    def create_note(self, title, content):
        return {"status": "created", "title": title}


_OPERATORS = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.Pow: operator.pow,
    ast.Mod: operator.mod,
}


def _evaluate(node: ast.AST) -> float:
    if isinstance(node, ast.Constant) and isinstance(node.value, int | float):
        return node.value
    if isinstance(node, ast.BinOp) and type(node.op) in _OPERATORS:
        return _OPERATORS[type(node.op)](_evaluate(node.left), _evaluate(node.right))
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return -_evaluate(node.operand)
    raise ToolFailure("unsupported expression")


def run_task(
    provider, task_id: str, seed: int, temperature: float = 1.0, max_iterations: int = 20
) -> tuple[list[Completion], list[Message]]:
    """One conversation, the way the loop runs it: call, execute, feed back, until text."""
    task = TASKS[task_id]
    office = FakeOffice()
    messages = [
        Message(role="system", content="You are a helpful assistant."),
        Message(role="user", content=task["task"]),
    ]
    completions = []
    for _ in range(max_iterations):
        completion = provider.complete(
            messages, TOOLS, temperature, CallContext(seed=seed, task=task)
        )
        completions.append(completion)
        calls = _renumbered(completion.tool_calls, messages)
        messages.append(Message(role="assistant", content=completion.text, tool_calls=calls))
        if not completion.tool_calls:
            break
        for call in calls:
            status, content = office.call(call.name, call.arguments)
            messages.append(
                Message(
                    role="tool",
                    content=content,
                    tool_call_id=call.id,
                    tool_name=call.name,
                    status=status,
                )
            )
    return completions, messages


def _renumbered(calls: list[ToolCall], messages: list[Message]) -> list[ToolCall]:
    """Neutral ids "t1", "t2", ... across the conversation, as the real loop assigns them."""
    done = len(tool_calls(messages))
    return [dataclasses.replace(call, id=f"t{done + n}") for n, call in enumerate(calls, 1)]


def tool_calls(messages: list[Message]):
    return [call for m in messages if m.role == "assistant" for call in m.tool_calls]


def criteria_failures(task_id: str, messages: list[Message]) -> list[str]:
    """The criteria of office-19 this conversation misses (a small stand-in for the engine)."""
    criteria = CRITERIA[task_id]
    calls = tool_calls(messages)
    names = [c.name for c in calls]
    final = messages[-1].content
    failures = [f"missing tool {t}" for t in criteria.get("required_tools", []) if t not in names]
    if criteria.get("required_tools_any") and not any(
        all(t in names for t in group) for group in criteria["required_tools_any"]
    ):
        failures.append("none of required_tools_any")
    if not _is_subsequence(criteria.get("required_tool_sequence_contains", []), names):
        failures.append("tool order")
    for check in criteria.get("arg_checks", []):
        values = [
            str((c.arguments or {}).get(check["key"], "")) for c in calls if c.name == check["tool"]
        ]
        if not any(re.search(check["pattern"], v) for v in values):
            failures.append(f"arg {check['tool']}.{check['key']} !~ {check['pattern']}")
    if "output_pattern" in criteria and not re.search(criteria["output_pattern"], final):
        failures.append(f"output !~ {criteria['output_pattern']}")
    if names.count("send_email") < criteria.get("min_send_emails", 0):
        failures.append("too few emails")
    if names.count("get_weather") < criteria.get("min_weather_calls", 0):
        failures.append("too few weather calls")
    return failures


def _is_subsequence(wanted: list[str], names: list[str]) -> bool:
    remaining = iter(names)
    return all(name in remaining for name in wanted)


def levenshtein(a: list[str], b: list[str]) -> int:
    previous = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        current = [i]
        for j, y in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (x != y)))
        previous = current
    return previous[-1]


def tss(sequences: list[list[str]]) -> float:
    """DESIGN §4: mean over pairs of 1 - Lev / max length; two empty sequences count 1."""
    scores = [
        1.0 if not (a or b) else 1 - levenshtein(a, b) / max(len(a), len(b))
        for i, a in enumerate(sequences)
        for b in sequences[i + 1 :]
    ]
    return sum(scores) / len(scores)
