"""How the agent words things for the patient: tool outcomes, dates, lists, their own words.

Kept in one place so every workflow says a date, a doctor or a failed call the same way: no
tool names, no "the patient", no ISO dates or 24-hour times, and errors explained with the
next step.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date
from typing import Any

from ..plans import ToolResult
from ..speech import doctor_by_surname
from .turn import error_of

_PLAIN_ERRORS: list[tuple[str, Callable[[re.Match[str]], str]]] = [
    (
        r"(.+?) was discontinued and cannot be refilled",
        lambda m: (
            f"{m[1]} was stopped on your "
            "record, so it can't be refilled as it is - your doctor would need to decide whether to "
            "restart it"
        ),
    ),
    (r"No pharmacy is on file", lambda m: "there's no pharmacy on your record yet"),
    (
        r"A refill of (.+?) was already requested",
        lambda m: (
            f"a refill of {m[1]} has already been requested, so there was nothing more to send"
        ),
    ),
    (
        r"'(.+?)' (?:is not on file|matches several)",
        lambda m: f"I couldn't match {m[1]!s} to one medication on your record",
    ),
    (r"No PCP is on file", lambda m: "there's no primary care doctor on your record yet"),
    (
        r"(Dr\.? [^,;(]+?) is already the patient's PCP",
        lambda m: f"{m[1]} is already your primary care doctor",
    ),
    (
        r"(Dr\.? [^,;(]+?) \(.+?\) cannot be a primary care physician",
        lambda m: f"{m[1]} can't act as a primary care doctor",
    ),
    (
        r"(Dr\.? [^,;(]+?) is not accepting new patients",
        lambda m: f"{m[1]} isn't taking new patients right now",
    ),
    (
        r"(.+?) at that address is already on file",
        lambda m: f"{m[1]} is already the pharmacy on your record",
    ),
    (r"(Dr\.? [^,;(]+?) does not offer telehealth", lambda m: f"{m[1]} doesn't offer video visits"),
    (
        r"already taken|has no slot at|does not see patients|cannot be booked|closed at weekends",
        lambda m: "that time isn't available",
    ),
    (r"already has appointment", lambda m: "you already have an appointment at that time"),
    (r"is already cancelled", lambda m: "that appointment was already cancelled"),
    (r"already took place", lambda m: "that appointment has already taken place"),
    (r"No appointment with id", lambda m: "I couldn't find that appointment on your record"),
    (r"already in the queue", lambda m: "you're already in the queue for a call"),
]
_PLAIN_ERROR_PATTERNS = [(re.compile(p, re.I), say) for p, say in _PLAIN_ERRORS]


def plain_error(result: ToolResult) -> str:
    """A failed call's reason as the patient should hear it (no tool names, no "the
    patient"); technical failures become a plain "something went wrong"."""
    text = error_of(result)
    for pattern, say in _PLAIN_ERROR_PATTERNS:
        match = pattern.search(text)
        if match:
            return say(match)
    return "the clinic's system didn't accept the request"


def spoken_date(day: Any) -> str:
    """ "2026-03-12" -> "Thursday, March 12"."""
    try:
        found = date.fromisoformat(str(day))
    except ValueError:
        return str(day)
    return f"{found.strftime('%A')}, {found.strftime('%B')} {found.day}"


def spoken_time(hhmm: Any) -> str:
    """ "14:30" -> "2:30 PM"."""
    match = re.fullmatch(r"(\d{1,2}):(\d{2})", str(hhmm or "").strip())
    if not match:
        return str(hhmm)
    hour, minute = int(match[1]), match[2]
    return f"{hour % 12 or 12}:{minute} {'AM' if hour < 12 else 'PM'}"


def spoken_when(slot: dict[str, Any]) -> str:
    return f"{spoken_date(slot.get('date'))} at {spoken_time(slot.get('time'))}"


def shortened(text: str, limit: int = 160) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def or_list(items: list[str]) -> str:
    items = [str(i) for i in items if i]
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " or " + items[-1]


def joined(*parts: str) -> str:
    return " ".join(p.strip() for p in parts if p and p.strip())


_SWAPS = {
    "i": "you", "me": "you", "my": "your", "mine": "yours", "myself": "yourself",
    "i'm": "you're", "i've": "you've", "i'd": "you'd", "i'll": "you'll", "am": "are",
}  # fmt: skip


def in_second_person(text: str) -> str:
    """The patient's words as the agent says them back: "my feet" -> "your feet"."""

    def swap(match: re.Match[str]) -> str:
        word = match.group(0)
        return _SWAPS.get(word.lower(), word)

    return re.sub(r"\b(?:I'm|I've|I'd|I'll|I|me|my|mine|myself|am)\b", swap, text)


_CONCERN = re.compile(
    r"(?:dealing with|worried about|i've had(?: some)?|i have(?: some)?|i keep getting|"
    r"struggling with|help with|touching|suffering from)\s+(?:my\s+|some\s+|the\s+)?"
    r"(?P<what>[^.,;?!]+?)(?=\s+(?:for|since|on and off|lately|ever since|and (?:it|i|my)|"
    r"that|which|but)\b|[.,;?!]|$)",
    re.IGNORECASE,
)
_LEADING_CONCERN = re.compile(
    r"^\s*(?P<what>[A-Z][^.,;?!]{2,60}?),\s*(?:for|since|on and off)\b", re.IGNORECASE
)


def concern_words(text: str) -> str:
    """The patient's own words for the problem, as the agent says them back ("the tingling
    in your feet"), or "" when it cannot tell."""
    for pattern in (_CONCERN, _LEADING_CONCERN):
        match = pattern.search(text)
        if match:
            what = in_second_person(match["what"].strip())
            if 1 <= len(what.split()) <= 8:
                return what[:1].lower() + what[1:]
    return ""


_ASKED_CLAUSE = re.compile(
    r"\b(?:know|wondering|wonder|figure out|tell me|ask(?:ing)?|sure|decide|unsure)\s+"
    r"(?P<what>(?:whether|if|how|what|which|when)\b[^.?!;]+)",
    re.IGNORECASE,
)


def asked_clause(text: str) -> str:
    """ "I'd like to know how to finally quit smoking" -> "how to finally quit smoking", said
    back to the patient ("how you can...")."""
    match = _ASKED_CLAUSE.search(text)
    return in_second_person(match["what"].strip()) if match else ""


def doctor_words(name: Any) -> str:
    """ "Dr. Alan Reyes" -> "Dr. Reyes", as people say it after the first mention."""
    return doctor_by_surname(name, unknown="your doctor")
