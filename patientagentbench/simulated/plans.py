"""Reference plans the simulated agent follows, and what it reads back from tool results.

A plan is a list of entries. An entry is either a fixed `Step` or a function of what the
tools have returned so far (`Observations`) that yields zero or more steps: "one email per
contact found" can only be written once the search has answered. Tool results are read
loosely (any JSON shape, records found by their keys) because the sandbox's result format
belongs to the sandbox, not to the agent.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Step:
    tool: str
    arguments: dict[str, Any]


@dataclass(frozen=True)
class ToolResult:
    """One executed call as the agent sees it in the message log."""

    name: str
    arguments: dict[str, Any] | None
    content: str
    status: str = "ok"

    @property
    def ok(self) -> bool:
        return self.status != "error"

    def data(self) -> Any:
        try:
            return json.loads(self.content)
        except (json.JSONDecodeError, TypeError):
            return None


class Observations:
    """The tool results available to the agent at one point of the conversation."""

    def __init__(self, results: list[ToolResult] | None = None):
        self.results = list(results or [])

    def successful(self, tool: str) -> list[ToolResult]:
        return [r for r in self.results if r.name == tool and r.ok]

    def records(self, tool: str, *keys: str) -> list[dict[str, Any]]:
        """Every distinct JSON object holding all `keys` in the results of `tool`."""
        found: dict[str, dict[str, Any]] = {}
        for result in self.successful(tool):
            for record in objects_in(result.data()):
                if all(key in record for key in keys):
                    found.setdefault(json.dumps(record, sort_keys=True, default=str), record)
        return list(found.values())

    def numbers(self, tool: str) -> list[float]:
        """The first number of each successful result of `tool` (e.g. calculate's answers)."""
        values = [_first_number(r.data(), r.content) for r in self.successful(tool)]
        return [v for v in values if v is not None]

    def tool_counts(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for result in self.results:
            counts[result.name] = counts.get(result.name, 0) + 1
        return counts


Expander = Callable[[Observations], list[Step]]
PlanEntry = Step | Expander
Summarizer = Callable[[Observations], str]


Framer = Callable[[Observations], str]


@dataclass(frozen=True)
class TaskPlan:
    entries: list[PlanEntry]
    summarize: Summarizer = field(default=lambda obs: "")
    # How a multi-turn agent may dress the summary up (see agent.FRAMINGS): "free" lets it add
    # any opener and closer; a planner that knows the moment names a narrower kind - "bare"
    # (send it exactly as written: urgent advice, a goodbye), "report", "ask" or "plain".
    framing: Framer = field(default=lambda obs: "free")
    # A turn that is only talk (urgent advice, a goodbye): a perturbed agent may still drop or
    # swap its calls, but adds no stray lookups to it.
    quiet: bool = False


@dataclass(frozen=True)
class Conversation:
    """What a multi-turn agent may read before its turn: the patient's messages, its own
    earlier replies and the tool results of earlier turns (never the hidden case)."""

    user_texts: tuple[str, ...] = ()
    agent_texts: tuple[str, ...] = ()
    earlier: tuple[ToolResult, ...] = ()
    # (agent text, the patient message that answered it), in order: what the patient said
    # yes or no to.
    exchanges: tuple[tuple[str, str], ...] = ()

    @property
    def user_turn(self) -> int:
        return len(self.user_texts)


TurnPlanner = Callable[[dict[str, Any], Conversation], TaskPlan]
"""(task, conversation) -> the plan for the current turn. Its entries see every tool result
so far (earlier turns included); its summary is the turn's whole reply."""


def expand(entry: PlanEntry, observations: Observations) -> list[Step]:
    return [entry] if isinstance(entry, Step) else list(entry(observations))


def objects_in(value: Any) -> Iterator[dict[str, Any]]:
    if isinstance(value, dict):
        yield value
        for child in value.values():
            yield from objects_in(child)
    elif isinstance(value, list):
        for child in value:
            yield from objects_in(child)


def _first_number(data: Any, text: str) -> float | None:
    if isinstance(data, bool):
        return None
    if isinstance(data, int | float):
        return float(data)
    if isinstance(data, dict):
        for key in ("result", "value", "answer"):
            if isinstance(data.get(key), int | float) and not isinstance(data[key], bool):
                return float(data[key])
    match = re.search(r"-?\d[\d,]*(?:\.\d+)?", text or "")
    return float(match.group().replace(",", "")) if match else None


# --- The generic workflow, for tasks without a reference plan -------------------------------

DEFAULT_DATE = "2026-03-02"


def generic_plan(task: dict[str, Any], tools: list[dict[str, Any]]) -> TaskPlan:
    """A task's own `reference_plan`, else one call of each expected tool with plausible
    arguments from the tool's JSON schema."""
    if task.get("reference_plan"):
        entries: list[PlanEntry] = [
            Step(s["tool"], dict(s.get("arguments", {}))) for s in task["reference_plan"]
        ]
    else:
        schemas = {t["name"]: t.get("parameters", {}) for t in tools}
        entries = [
            Step(name, plausible_arguments(schemas.get(name, {}), task))
            for name in task.get("expected_tools", [])
        ]
    return TaskPlan(entries, summarize=_generic_summary)


def _generic_summary(observations: Observations) -> str:
    errors = [r.name for r in observations.results if not r.ok]
    if errors:
        return f"Some steps returned errors ({', '.join(errors)}); the rest completed."
    return "Everything requested has been completed."


def plausible_arguments(schema: dict[str, Any], task: dict[str, Any]) -> dict[str, Any]:
    """Values for a schema's required properties, taken from the task where possible."""
    properties = schema.get("properties", {})
    return {
        name: plausible_value(name, properties.get(name, {}), task)
        for name in schema.get("required", [])
    }


def plausible_value(name: str, spec: dict[str, Any], task: dict[str, Any]) -> Any:
    if spec.get("enum"):
        return spec["enum"][0]
    kind = spec.get("type", "string")
    if kind in ("integer", "number"):
        return spec.get("minimum", 1)
    if kind == "boolean":
        return False
    if kind == "array":
        return [task_keyword(task)] if spec.get("items", {}).get("type") == "string" else []
    if kind == "object":
        return {}
    return _plausible_text(name.lower(), task)


def _plausible_text(name: str, task: dict[str, Any]) -> str:
    text = str(task.get("task", ""))
    if "date" in name:
        found = re.search(r"\d{4}-\d{2}-\d{2}", text)
        return found.group() if found else str(task.get("today", DEFAULT_DATE))
    if "time" in name:
        return "10:00"
    if "email" in name or name in ("to", "recipient"):
        return "user@example.com"
    if name in ("body", "content", "message", "text", "reason", "note", "description"):
        return text or "Following up on your request."
    return task_keyword(task)


def task_keyword(task: dict[str, Any]) -> str:
    """The task's most specific word: its first capitalised word after the first, else its
    longest word (what a model would put in a search box)."""
    words = re.findall(r"[A-Za-z][\w'-]*", str(task.get("task", "")))
    capitalised = [w for w in words[1:] if w[0].isupper() and w.lower() not in _STOPWORDS]
    if capitalised:
        return re.sub(r"'s?$", "", capitalised[0])  # "Alice's" -> "Alice"
    return max(words, key=len) if words else "request"


_STOPWORDS = {"i", "i'm", "i'd", "the", "a", "an", "my", "please", "also", "if", "then"}
