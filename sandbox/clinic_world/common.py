"""What the clinic's tools share: parsing dates and times, finding doctors, record views.

Lookups are lenient about surface form ("d-101", "101", "Dr. Reyes") because agents vary it
run to run; formats with one meaning (dates) are checked and a wrong one is an error the
agent can read, exactly as in the office world.
"""

from __future__ import annotations

import re
from datetime import date, timedelta
from typing import Any

from sandbox.base import ToolError

State = dict[str, Any]
Args = dict[str, Any]

WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
HORIZON_DAYS = 14
OPEN = "open"
TAKEN = "taken"

_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
_TIME = re.compile(
    r"(?P<hour>[0-9]{1,2})(?::(?P<minute>[0-9]{2})(?::00)?)?\s*(?:(?P<half>[ap])\.?\s*m?\.?)?"
)
_DOCTOR_ID = re.compile(r"(?:d\s*-?\s*)?(?P<number>[0-9]+)")


# --- dates and times -------------------------------------------------------------------------


def parse_date(text: str, field: str) -> date:
    cleaned = text.strip()
    try:
        if _DATE.fullmatch(cleaned):
            return date.fromisoformat(cleaned)
    except ValueError:
        pass
    raise ToolError(f"{field} must be a date in YYYY-MM-DD format, got {text!r}")


def parse_time(text: str, field: str = "time") -> str:
    """24-hour "14:00", "9:30" or "14:00:00", or 12-hour "2pm" / "2:30 PM"; as "HH:MM"."""
    match = _TIME.fullmatch(text.strip().lower())
    # A bare "14" is refused: it could be an hour or a slot number.
    if match and (match["minute"] or match["half"]):
        hour, minute = int(match["hour"]), int(match["minute"] or 0)
        if match["half"]:
            hour = hour % 12 + (12 if match["half"] == "p" else 0) if 1 <= hour <= 12 else -1
        if 0 <= hour < 24 and minute < 60:
            return f"{hour:02d}:{minute:02d}"
    raise ToolError(f"{field} must be a time like 14:30 (HH:MM, 24-hour), got {text!r}")


def today(state: State) -> date:
    return date.fromisoformat(state["today"])


def horizon(state: State) -> tuple[date, date]:
    """The bookable window: the day after "today" up to and including today + 14 days."""
    return (
        date.fromisoformat(state["horizon"]["first_day"]),
        date.fromisoformat(state["horizon"]["last_day"]),
    )


def horizon_for(day: date) -> tuple[date, date]:
    return day + timedelta(days=1), day + timedelta(days=HORIZON_DAYS)


def weekday_name(day: date) -> str:
    return WEEKDAYS[day.weekday()]


# --- names ------------------------------------------------------------------------------------


def name_key(name: str) -> str:
    """'Dr. Alan Reyes' and 'alan reyes' compare equal; so do 'OB/GYN' and 'ob gyn'."""
    words = re.findall(r"[a-z0-9]+", name.lower())
    if words and words[0] in ("dr", "doctor"):
        words = words[1:]
    return " ".join(words)


def same_text(a: Any, b: Any) -> bool:
    return name_key(str(a or "")) == name_key(str(b or ""))


# --- doctors and offices ----------------------------------------------------------------------


def find_doctor(state: State, reference: str) -> dict[str, Any]:
    """The doctor meant by an id ("D-101", "d101", "101") or a full name ("Dr. Alan Reyes")."""
    wanted = reference.strip()
    match = _DOCTOR_ID.fullmatch(wanted.lower())
    for doctor in state["doctors"]:
        if match and doctor["id"] == f"D-{match['number']}":
            return doctor
        if name_key(wanted) and name_key(doctor["name"]) == name_key(wanted):
            return doctor
    raise ToolError(
        f"No doctor with id {reference!r}. Doctor ids look like 'D-101'; "
        "use list_doctors to find them."
    )


def doctor_by_id(state: State, doctor_id: str | None) -> dict[str, Any] | None:
    return next((d for d in state["doctors"] if d["id"] == doctor_id), None)


def office_view(state: State, office_id: str) -> dict[str, Any]:
    office = next(o for o in state["offices"] if o["id"] == office_id)
    address = f"{office['street']}, {office['city']}, {office['state']} {office['zip']}"
    return {"id": office["id"], "name": office["name"], "address": address}


def doctor_view(state: State, doctor: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": doctor["id"],
        "name": doctor["name"],
        "specialty": doctor["specialty"],
        "office": office_view(state, doctor["office_id"]),
        "accepts_new_patients": doctor["accepts_new_patients"],
        "telehealth": doctor["telehealth"],
        "can_be_primary_care": doctor["pcp_capable"],
        "is_your_pcp": doctor["id"] == state["patient"]["pcp_doctor_id"],
    }


def pcp_of(state: State) -> dict[str, Any] | None:
    return doctor_by_id(state, state["patient"]["pcp_doctor_id"])


# --- appointments -----------------------------------------------------------------------------


def appointment_view(state: State, appointment: dict[str, Any]) -> dict[str, Any]:
    doctor = doctor_by_id(state, appointment["doctor_id"])
    office = office_view(state, doctor["office_id"]) if doctor else None
    return {
        "id": appointment["id"],
        "doctor_id": appointment["doctor_id"],
        "doctor": appointment["doctor"],
        "specialty": appointment["specialty"],
        "date": appointment["date"],
        "weekday": weekday_name(date.fromisoformat(appointment["date"])),
        "time": appointment["time"],
        "type": appointment["type"],
        "reason": appointment["reason"],
        "status": appointment["status"],
        "office": office,
    }


def next_number(records: list[dict[str, Any]], prefix: str, first: int = 1) -> int:
    numbers = [
        int(record["id"][len(prefix) :])
        for record in records
        if str(record.get("id", "")).startswith(prefix) and record["id"][len(prefix) :].isdigit()
    ]
    return max(numbers, default=first - 1) + 1


def required_text(args: Args, key: str) -> str:
    value = str(args.get(key, "")).strip()
    if not value:
        raise ToolError(f"argument '{key}' must not be empty")
    return value
