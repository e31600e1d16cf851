"""Small pieces both wire translations share."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .types import ToolCall


class ProviderCallIds:
    """Which provider id (`call_…`, `toolu_…`) stands behind each neutral tool-call id.

    A tool message names the call it answers by neutral id; the wire needs the provider's id.
    Fed in log order, so a neutral id reused in a later turn maps to its latest call.
    """

    def __init__(self) -> None:
        self._by_neutral_id: dict[str, str] = {}

    def remember(self, calls: Iterable[ToolCall]) -> None:
        for call in calls:
            self._by_neutral_id[call.id] = wire_call_id(call)

    def for_neutral_id(self, neutral_id: str) -> str:
        # A call replayed from another provider (or the simulator) has no provider id.
        return self._by_neutral_id.get(neutral_id, neutral_id)


def wire_call_id(call: ToolCall) -> str:
    return call.provider_id or call.id


def placeholder_call_id(index: int) -> str:
    """A per-answer id; the agent loop renumbers calls across the whole conversation."""
    return f"t{index + 1}"


def function_spec(tool: dict[str, Any]) -> dict[str, Any]:
    """A neutral tool spec ({name, description, parameters}), unwrapping OpenAI's envelope."""
    if tool.get("type") == "function" and "function" in tool:
        tool = tool["function"]
    return {
        "name": tool["name"],
        "description": tool.get("description", ""),
        "parameters": tool.get("parameters") or {"type": "object", "properties": {}},
    }
