"""What every sandbox world shares: tool results, argument validation and safe dispatch.

A world is one trace's private, deterministic copy of a tool environment. Agents send it
whatever they like, so `World.call` turns every failure (unknown tool, malformed or
mistyped arguments, a bug inside a tool) into an error result the agent can read; a bad
call must never end the run.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

ToolFunction = Callable[[dict[str, Any], dict[str, Any]], Any]
"""A tool: (world state, validated arguments) -> JSON-serialisable result or `StateChange`."""


@dataclass(frozen=True)
class ToolResult:
    status: Literal["ok", "error"]
    content: Any

    def __post_init__(self) -> None:
        if self.status not in ("ok", "error"):
            raise ValueError(f"ToolResult status must be 'ok' or 'error', not {self.status!r}")

    @classmethod
    def ok(cls, content: Any) -> ToolResult:
        return cls("ok", content)

    @classmethod
    def error(cls, message: str) -> ToolResult:
        return cls("error", {"error": message})

    @property
    def is_error(self) -> bool:
        return self.status == "error"

    def as_text(self) -> str:
        """Compact JSON, as the model sees it; non-ASCII kept readable."""
        return json.dumps(self.content, separators=(",", ":"), ensure_ascii=False)

    def to_dict(self) -> dict[str, Any]:
        return {"status": self.status, "content": self.content}


class ToolError(Exception):
    """An expected failure inside a tool (unknown contact, bad date); its text goes to the agent."""


@dataclass(frozen=True)
class StateChange:
    """Returned by a tool that changed the world: its result plus the side effect to log."""

    result: Any
    side_effect: dict[str, Any]


# --- argument validation against a tool's JSON schema ---------------------------------------

_JSON_TYPE_CHECKS: dict[str, Callable[[Any], bool]] = {
    "string": lambda value: isinstance(value, str),
    # bool is a subclass of int in Python but never a number in JSON.
    "integer": lambda value: isinstance(value, int) and not isinstance(value, bool),
    "number": lambda value: isinstance(value, int | float) and not isinstance(value, bool),
    "boolean": lambda value: isinstance(value, bool),
    "array": lambda value: isinstance(value, list),
    "object": lambda value: isinstance(value, dict),
    "null": lambda value: value is None,
}


def json_type_name(value: Any) -> str:
    """The JSON name of a Python value's type, for error messages."""
    for name in ("boolean", "integer", "number", "string", "array", "object", "null"):
        if _JSON_TYPE_CHECKS[name](value):
            return name
    return type(value).__name__


def value_errors(schema: Mapping[str, Any], value: Any, path: str) -> list[str]:
    """Why `value`, at argument `path` ("tags[1]", "extra.level"), does not fit `schema`."""
    expected = schema.get("type")
    if expected is not None:
        allowed = expected if isinstance(expected, list) else [expected]
        if not any(_JSON_TYPE_CHECKS.get(name, lambda _: True)(value) for name in allowed):
            wanted = " or ".join(allowed)
            got = json_type_name(value)
            return [f"argument '{path}' must be {_article(wanted)} {wanted}, got {got}"]
    if "enum" in schema and value not in schema["enum"]:
        options = ", ".join(json.dumps(option) for option in schema["enum"])
        return [f"argument '{path}' must be one of: {options}"]
    if isinstance(value, list) and isinstance(schema.get("items"), Mapping):
        errors = []
        for index, item in enumerate(value):
            errors += value_errors(schema["items"], item, f"{path}[{index}]")
        return errors
    if isinstance(value, dict) and "properties" in schema:
        return object_errors(schema, value, prefix=f"{path}.")
    return []


def object_errors(
    schema: Mapping[str, Any], arguments: Mapping[str, Any], prefix: str = ""
) -> list[str]:
    """Missing required keys, unknown keys (named, with the allowed ones) and mistyped values."""
    properties: Mapping[str, Any] = schema.get("properties", {})
    errors = [
        f"missing required argument '{prefix}{key}'"
        for key in schema.get("required", [])
        if key not in arguments
    ]
    unknown = sorted(str(key) for key in arguments if key not in properties)
    if unknown and schema.get("additionalProperties", False) is False:
        allowed = ", ".join(sorted(properties)) or "none"
        names = ", ".join(f"'{prefix}{key}'" for key in unknown)
        errors.append(f"unknown argument {names} (allowed: {allowed})")
    for key, value in arguments.items():
        if key in properties:
            errors += value_errors(properties[key], value, f"{prefix}{key}")
    return errors


def _article(noun: str) -> str:
    return "an" if noun[:1] in "aeiou" else "a"


def drop_null_optionals(schema: Mapping[str, Any], arguments: dict[str, Any]) -> dict[str, Any]:
    """Treat `"key": null` on an optional argument as "not given".

    OpenAI's strict tool schemas make models send null for every optional key they skip.
    """
    required = set(schema.get("required", []))
    return {key: value for key, value in arguments.items() if value is not None or key in required}


# --- worlds -----------------------------------------------------------------------------------


class World:
    """One trace's tool environment: schemas, private state, an ordered side-effect log.

    Subclasses set `tools` (name -> function(state, arguments)) and build the initial state.
    A tool gets arguments that already fit its schema; it raises `ToolError` for expected
    failures and returns `StateChange` when it changed the state.
    """

    tools: ClassVar[Mapping[str, ToolFunction]] = {}

    def __init__(self, state: dict[str, Any], schemas: list[dict[str, Any]]) -> None:
        # Deep copies: a trace must never change the suite data or another trace's world.
        self._state = _json_copy(state)  # JSON data: a JSON round trip copies it ~5× faster
        self._schemas = {schema["name"]: _json_copy(schema) for schema in schemas}
        self._side_effects: list[dict[str, Any]] = []
        unimplemented = sorted(set(self._schemas) - set(self.tools))
        if unimplemented:
            raise ValueError(f"{type(self).__name__} has no implementation for: {unimplemented}")

    def tool_schemas(self) -> list[dict[str, Any]]:
        """The tools as {name, description, parameters}, in the suite's order."""
        return _json_copy(list(self._schemas.values()))

    @property
    def side_effects(self) -> list[dict[str, Any]]:
        """Every state change so far, oldest first, each {"kind": ..., ...}."""
        return _json_copy(self._side_effects)

    def final_state(self) -> dict[str, Any]:
        return _json_copy(self._state)

    def call(self, name: str, arguments: dict[str, Any] | None) -> ToolResult:
        """Run one tool call. Never raises: every problem becomes an error result."""
        try:
            return self._call(name, arguments)
        except Exception as exc:  # noqa: BLE001 - a bad call must not crash the run
            return ToolResult.error(f"Tool '{name}' failed: {type(exc).__name__}: {exc}")

    def _call(self, name: str, arguments: dict[str, Any] | None) -> ToolResult:
        schema = self._schemas.get(name) if isinstance(name, str) else None
        if schema is None:
            available = ", ".join(self._schemas)
            return ToolResult.error(f"Unknown tool {name!r}. Available tools: {available}")
        if not isinstance(arguments, dict):
            return ToolResult.error(
                f"Arguments for '{name}' must be a JSON object, got {json_type_name(arguments)}"
            )
        parameters = schema.get("parameters") or {}
        arguments = drop_null_optionals(parameters, arguments)
        errors = object_errors(parameters, arguments)
        if errors:
            return ToolResult.error(f"Invalid arguments for '{name}': " + "; ".join(errors))
        try:
            # A copy, so nothing the tool stores aliases the caller's objects.
            outcome = self.tools[name](self._state, copy.deepcopy(arguments))
        except ToolError as exc:
            return ToolResult.error(str(exc))
        if isinstance(outcome, StateChange):
            self._side_effects.append(_json_copy(outcome.side_effect))
            outcome = outcome.result
        # Through JSON: proves the result is serialisable and hands out no live state.
        return ToolResult.ok(_json_copy(outcome))


def _json_copy(value: Any) -> Any:
    return json.loads(json.dumps(value))
