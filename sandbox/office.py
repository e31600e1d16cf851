"""The office-19 world: the seed paper's contacts, calendar, products, inbox and weather.

Tools are plain functions of (state, arguments) registered in `OFFICE_TOOLS`. They read and
change only the trace's own state, never a clock or the network, so the same calls always
give the same results. Lookups are lenient about surface form ("Alice", "San Francisco")
because agents vary it run to run; formats with one meaning (dates, email addresses) are
checked and a wrong one is an error the agent can read.
"""

from __future__ import annotations

import re
from datetime import date
from typing import Any

from sandbox.base import StateChange, ToolError, ToolFunction, World
from sandbox.calculator import CalculatorError, evaluate

State = dict[str, Any]
Args = dict[str, Any]

_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
_TIME = re.compile(r"(?P<hour>[0-9]{1,2})(?::(?P<minute>[0-9]{2}))?\s*(?:(?P<half>[ap])\.?m?\.?)?")
_EVENT_ID = re.compile(r"evt-(\d+)")
_EMAIL = re.compile(r"[^@\s,;<>]+@[^@\s,;<>]+\.[^@\s,;<>]+")


# --- contacts ---------------------------------------------------------------------------------


def search_contacts(state: State, args: Args) -> list[dict]:
    query = args["query"].strip().lower()
    return [
        _contact_view(key, contact)
        for key, contact in state["contacts"].items()
        if any(
            query in str(contact.get(field, "")).lower() for field in ("name", "role", "company")
        )
    ]


def get_contact(state: State, args: Args) -> dict:
    key = find_contact_key(state["contacts"], args["name"])
    if key is None:
        known = ", ".join(state["contacts"])
        raise ToolError(f"No contact named {args['name']!r}. Known contacts: {known}")
    return _contact_view(key, state["contacts"][key])


def find_contact_key(contacts: dict[str, dict], text: str) -> str | None:
    """The contact meant by a key, first name, full name or email address, in any case."""
    wanted = text.strip().lower()
    if wanted in contacts:
        return wanted
    for key, contact in contacts.items():
        if wanted in (str(contact.get("name", "")).lower(), str(contact.get("email", "")).lower()):
            return key
    first_word = wanted.split(" ")[0]
    return first_word if first_word in contacts else None


def _contact_view(key: str, contact: dict) -> dict:
    # The key is what get_contact takes, so the agent can follow up on a search hit.
    return {"id": key, **contact}


# --- calendar ---------------------------------------------------------------------------------


def list_calendar_events(state: State, args: Args) -> list[dict]:
    start = _parse_date(args["start_date"], "start_date") if "start_date" in args else None
    end = _parse_date(args["end_date"], "end_date") if "end_date" in args else None
    if start and end and start > end:
        raise ToolError(f"start_date {start} is after end_date {end}")
    events = [
        event
        for event in state["calendar"]
        if (start is None or date.fromisoformat(event["date"]) >= start)
        and (end is None or date.fromisoformat(event["date"]) <= end)
    ]
    return sorted(events, key=lambda event: (event["date"], event["start"], event["id"]))


def create_calendar_event(state: State, args: Args) -> StateChange:
    day = _parse_date(args["date"], "date")
    start = _parse_time(args["start_time"], "start_time")
    end = _parse_time(args["end_time"], "end_time")
    if end <= start:
        raise ToolError(f"end_time {end} must be after start_time {start}")
    event = {
        "id": _next_event_id(state["calendar"]),
        "title": args["title"],
        "date": day.isoformat(),
        "start": start,
        "end": end,
        "attendees": _attendee_keys(state["contacts"], args.get("attendees", [])),
    }
    conflicts = [
        other["id"]
        for other in state["calendar"]
        if other["date"] == event["date"] and other["start"] < end and start < other["end"]
    ]
    state["calendar"].append(event)
    state["created_events"].append({**event, "attendees": list(event["attendees"])})
    return StateChange(
        result={"status": "created", "event": event, "conflicts": conflicts},
        side_effect={"kind": "event_created", **event},
    )


def _parse_date(text: str, field: str) -> date:
    cleaned = text.strip()
    try:
        if _DATE.fullmatch(cleaned):
            return date.fromisoformat(cleaned)
    except ValueError:
        pass
    raise ToolError(f"{field} must be a date in YYYY-MM-DD format, got {text!r}")


def _parse_time(text: str, field: str) -> str:
    """24-hour "14:00" or "9:00", or 12-hour "2pm" / "2:30 PM"; returned as "HH:MM"."""
    match = _TIME.fullmatch(text.strip().lower())
    # A bare "14" is refused: it could be a time or a duration.
    if match and (match["minute"] or match["half"]):
        hour, minute = int(match["hour"]), int(match["minute"] or 0)
        if match["half"]:
            hour = _hour_from_12h(hour, match["half"])
        if 0 <= hour < 24 and minute < 60:
            return f"{hour:02d}:{minute:02d}"
    raise ToolError(f"{field} must be a time like 14:00 (HH:MM, 24-hour), got {text!r}")


def _hour_from_12h(hour: int, half: str) -> int:
    """12am is 00, 12pm is 12; hours outside 1-12 come back as -1 (invalid)."""
    if not 1 <= hour <= 12:
        return -1
    return hour % 12 + (12 if half == "p" else 0)


def _next_event_id(calendar: list[dict]) -> str:
    numbers = [int(match[1]) for event in calendar if (match := _EVENT_ID.fullmatch(event["id"]))]
    return f"evt-{max(numbers, default=0) + 1:03d}"


def _attendee_keys(contacts: dict[str, dict], attendees: list[str]) -> list[str]:
    """Known people stored as contact keys, like the seeded events; guests kept as written."""
    keys: list[str] = []
    for attendee in attendees:
        key = find_contact_key(contacts, attendee) or attendee.strip()
        if key and key not in keys:
            keys.append(key)
    return keys


# --- email ------------------------------------------------------------------------------------


def send_email(state: State, args: Args) -> StateChange:
    to = args["to"].strip()
    if not _EMAIL.fullmatch(to):
        raise ToolError(f"'to' must be one email address like name@example.com, got {args['to']!r}")
    email = {
        "id": f"sent-{len(state['sent_emails']) + 1:03d}",
        "to": to,
        "subject": args["subject"],
        "body": args["body"],
    }
    state["sent_emails"].append(email)
    return StateChange(
        result={"status": "sent", "email": email},
        side_effect={"kind": "email_sent", **email},
    )


def search_emails(state: State, args: Args) -> list[dict]:
    query = args["query"].strip().lower()
    return [
        email
        for email in state["emails"]
        if query in email.get("subject", "").lower() or query in email.get("body", "").lower()
    ]


# --- products, arithmetic, weather, notes -----------------------------------------------------


def search_products(state: State, args: Args) -> list[dict]:
    # "office supplies" should find the category "office_supplies".
    query = _words(args["query"])
    return [
        product
        for product in state["products"]
        if query in _words(product.get("name", "")) or query in _words(product.get("category", ""))
    ]


def calculate(state: State, args: Args) -> dict:
    try:
        return {"expression": args["expression"], "result": evaluate(args["expression"])}
    except CalculatorError as exc:
        raise ToolError(str(exc)) from None


def get_weather(state: State, args: Args) -> dict:
    # "San Francisco, CA" -> "san_francisco", the suite's key form.
    key = "_".join(_words(args["city"].split(",")[0]).split())
    if key not in state["weather"]:
        known = ", ".join(state["weather"])
        raise ToolError(f"No weather for {args['city']!r}. Available cities: {known}")
    return {"city": key, **state["weather"][key]}


def create_note(state: State, args: Args) -> StateChange:
    note = {
        "id": f"note-{len(state['notes']) + 1:03d}",
        "title": args["title"],
        "content": args["content"],
    }
    state["notes"].append(note)
    return StateChange(
        result={"status": "created", "note": note},
        side_effect={"kind": "note_created", **note},
    )


def _words(text: str) -> str:
    return " ".join(re.split(r"[\s_\-]+", text.strip().lower()))


OFFICE_TOOLS: dict[str, ToolFunction] = {
    "search_contacts": search_contacts,
    "get_contact": get_contact,
    "list_calendar_events": list_calendar_events,
    "create_calendar_event": create_calendar_event,
    "send_email": send_email,
    "search_emails": search_emails,
    "search_products": search_products,
    "calculate": calculate,
    "get_weather": get_weather,
    "create_note": create_note,
}


class OfficeWorld(World):
    """A fresh office-19 environment for one trace."""

    tools = OFFICE_TOOLS

    def __init__(self, environment: dict[str, Any], tool_schemas: list[dict[str, Any]]) -> None:
        state = {
            "contacts": {},
            "calendar": [],
            "products": [],
            "emails": [],
            "weather": {},
            **environment,
        }
        # What the agent did, kept beside the environment it changed.
        state.setdefault("sent_emails", [])
        state.setdefault("notes", [])
        state.setdefault("created_events", [])
        super().__init__(state, tool_schemas)

    @classmethod
    def from_suite(cls, suite_data: dict[str, Any]) -> OfficeWorld:
        """From a suite file's data: its `environment` and its `tools` schemas."""
        return cls(suite_data["environment"], suite_data["tools"])
