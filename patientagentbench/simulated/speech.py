"""Wording helpers that the simulated agent and the simulated patient both use.

Both sides name lists and doctors the way people do in a chat ("metformin and lisinopril",
"Dr. Reyes"); keeping the helpers here means the two simulators never drift apart on it.
"""

from __future__ import annotations

from typing import Any


def and_list(items: list[Any]) -> str:
    """ "a", "a and b", "a, b and c"; empty items are left out."""
    items = [str(i) for i in items if i]
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def doctor_by_surname(name: Any, unknown: str) -> str:
    """ "Dr. Alan Reyes" -> "Dr. Reyes", as people say it in conversation; `unknown` when the
    name is empty."""
    words = str(name or "").replace("Dr.", "").split()
    return f"Dr. {words[-1]}" if words else unknown
