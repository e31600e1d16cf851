"""Doctors, open slots, booking and cancelling.

Nothing the agent asked for is ever silently replaced: a range cut at the schedule's end, a
start moved to the first bookable day and a day without open slots are all said in the
result (`notices` plus a flag), and alternatives are offered, never booked.
"""

from __future__ import annotations

from datetime import date
from typing import Any

from sandbox.base import StateChange, ToolError

from .common import (
    OPEN,
    TAKEN,
    Args,
    State,
    appointment_view,
    doctor_view,
    find_doctor,
    horizon,
    name_key,
    next_number,
    parse_date,
    parse_time,
    today,
    weekday_name,
)
from .generation import canonical_specialty

NEAREST_ALTERNATIVES = 5
_PRIMARY_CARE_WORDS = ("primary care", "pcp", "general practitioner", "gp", "family doctor")


# --- list_doctors -----------------------------------------------------------------------------


def list_doctors(state: State, args: Args) -> dict[str, Any]:
    doctors = [
        d
        for d in state["doctors"]
        if _fits_specialty(d, args.get("specialty"))
        and (not args.get("office_id") or name_key(d["office_id"]) == name_key(args["office_id"]))
        and (not args.get("city") or _office_city_matches(state, d["office_id"], args["city"]))
    ]
    result: dict[str, Any] = {"doctors": [doctor_view(state, d) for d in doctors]}
    if not doctors:
        result["notice"] = _no_doctor_notice(state, args)
    return result


def _fits_specialty(doctor: dict[str, Any], wanted: str | None) -> bool:
    if not wanted or not wanted.strip():
        return True
    if name_key(wanted) in _PRIMARY_CARE_WORDS:
        return doctor["pcp_capable"]
    return doctor["specialty"] == canonical_specialty(wanted)


def _office_city_matches(state: State, office_id: str, city: str) -> bool:
    office = next(o for o in state["offices"] if o["id"] == office_id)
    return name_key(office["city"]) == name_key(city.split(",")[0])


def _no_doctor_notice(state: State, args: Args) -> str:
    specialties = sorted({d["specialty"] for d in state["doctors"]})
    cities = sorted({o["city"] for o in state["offices"]})
    offices = ", ".join(o["id"] for o in state["offices"])
    return (
        "No doctor matches these filters. Specialties offered: "
        f"{', '.join(specialties)}. Offices: {offices} (in {', '.join(cities)})."
    )


# --- get_available_appointments ---------------------------------------------------------------


def get_available_appointments(state: State, args: Args) -> dict[str, Any]:
    doctor = find_doctor(state, args["doctor_id"])
    requested_start, requested_end = _requested_range(args)
    first, last = horizon(state)
    start = requested_start or first
    end = requested_end or last
    if start > end:
        raise ToolError(f"start_date {start} is after end_date {end}")
    shown = (max(start, first), min(end, last))
    result: dict[str, Any] = {
        "doctor": doctor_view(state, doctor),
        "today": state["today"],
        "schedule_window": {"first_day": first.isoformat(), "last_day": last.isoformat()},
        "requested": {"start": start.isoformat(), "end": end.isoformat()},
        "showing": {"start": shown[0].isoformat(), "end": shown[1].isoformat()},
        "notices": _range_notices(state, start, end),
    }
    if end > last:
        result["range_cut_short"] = True
    if start < first:
        result["range_start_moved"] = True
    wants_telehealth = args.get("appointment_type") == "telehealth"
    if wants_telehealth and not doctor["telehealth"]:
        result["slots"] = []
        result["telehealth_offered"] = False
        result["notices"].append(f"{doctor['name']} does not offer telehealth visits.")
        return result
    result["slots"] = _open_slots(state, doctor, *shown)
    if not result["slots"]:
        _explain_empty(state, doctor, result, start, end, single_day=start == end)
    return result


def _requested_range(args: Args) -> tuple[date | None, date | None]:
    if "date" in args:
        if "start_date" in args or "end_date" in args:
            raise ToolError("give either 'date' (one day) or 'start_date'/'end_date', not both")
        day = parse_date(args["date"], "date")
        return day, day
    start = parse_date(args["start_date"], "start_date") if "start_date" in args else None
    end = parse_date(args["end_date"], "end_date") if "end_date" in args else None
    return start, end


def _range_notices(state: State, start: date, end: date) -> list[str]:
    first, last = horizon(state)
    notices = []
    if start < first:
        notices.append(
            f"Bookable days start on {first} (the day after today, {state['today']}); "
            f"the requested start {start} was moved to {max(start, first)}."
        )
    if end > last:
        notices.append(
            f"The requested range was cut short: it ends on {end}, but the schedule is only "
            f"open until {last}. Nothing after {last} can be shown or booked yet."
        )
    return notices


def _explain_empty(
    state: State, doctor: dict, result: dict, start: date, end: date, single_day: bool
) -> None:
    if single_day:
        result["no_slots_on_requested_date"] = True
        why = _closed_reason(state, doctor, start)
        result["notices"].append(
            f"{doctor['name']} has no open slots on {start} ({weekday_name(start)}){why}. "
            "No other day was substituted; the nearest open slots are listed as alternatives."
        )
    else:
        result["notices"].append(
            f"{doctor['name']} has no open slots between {start} and {end}; "
            "the nearest open slots are listed as alternatives."
        )
    result["nearest_alternatives"] = _nearest_slots(state, doctor, start)


def _closed_reason(state: State, doctor: dict, day: date) -> str:
    first, last = horizon(state)
    if day < first:
        return ": only days after today can be booked"
    if day > last:
        return f": the schedule is only open until {last}"
    if day.weekday() >= 5:
        return ": the clinic is closed at weekends"
    if day.isoformat() not in state["slots"][doctor["id"]]:
        return ": the doctor does not see patients that day"
    return ": every slot that day is taken"


def _open_slots(state: State, doctor: dict, start: date, end: date) -> list[dict[str, Any]]:
    slots = []
    for day, times in sorted(state["slots"][doctor["id"]].items()):
        if start.isoformat() <= day <= end.isoformat():
            slots += [_slot(doctor, day, t) for t, status in times.items() if status == OPEN]
    return slots


def _slot(doctor: dict, day: str, time: str) -> dict[str, Any]:
    types = ["in_person", "telehealth"] if doctor["telehealth"] else ["in_person"]
    weekday = weekday_name(date.fromisoformat(day))
    return {"date": day, "weekday": weekday, "time": time, "types": types}


def _nearest_slots(state: State, doctor: dict, around: date) -> list[dict[str, Any]]:
    first, last = horizon(state)
    every = _open_slots(state, doctor, first, last)
    # Closest day first; on a tie, the earlier day, then the earlier time.
    every.sort(
        key=lambda s: (abs((date.fromisoformat(s["date"]) - around).days), s["date"], s["time"])
    )
    return every[:NEAREST_ALTERNATIVES]


# --- schedule_appointment ---------------------------------------------------------------------


def schedule_appointment(state: State, args: Args) -> StateChange:
    doctor = find_doctor(state, args["doctor_id"])
    day = parse_date(args["date"], "date")
    time = parse_time(args["time"])
    kind = args["appointment_type"]
    _check_bookable_day(state, day)
    if kind == "telehealth" and not doctor["telehealth"]:
        raise ToolError(f"{doctor['name']} does not offer telehealth visits; book in_person.")
    if not doctor["accepts_new_patients"] and not _is_existing_patient(state, doctor):
        raise ToolError(f"{doctor['name']} is not accepting new patients.")
    _check_slot_open(state, doctor, day, time)
    appointment = {
        "id": f"A-{next_number(state['appointments'], 'A-', first=1001)}",
        "doctor_id": doctor["id"],
        "doctor": doctor["name"],
        "specialty": doctor["specialty"],
        "date": day.isoformat(),
        "time": time,
        "type": kind,
        "reason": str(args.get("reason", "")).strip(),
        "status": "scheduled",
        "booked_by": "agent",
    }
    state["appointments"].append(appointment)
    state["slots"][doctor["id"]][day.isoformat()][time] = appointment["id"]
    return StateChange(
        result={"status": "scheduled", "appointment": appointment_view(state, appointment)},
        side_effect={"kind": "appointment_scheduled", **appointment},
    )


def _check_bookable_day(state: State, day: date) -> None:
    first, last = horizon(state)
    if not first <= day <= last:
        raise ToolError(
            f"{day} cannot be booked: appointments can be booked from {first} to {last} "
            f"(today is {state['today']})."
        )
    if day.weekday() >= 5:
        raise ToolError(f"{day} is a {weekday_name(day)}; the clinic is closed at weekends.")


def _is_existing_patient(state: State, doctor: dict) -> bool:
    if state["patient"]["pcp_doctor_id"] == doctor["id"]:
        return True
    return any(a["doctor_id"] == doctor["id"] for a in state["appointments"])


def _check_slot_open(state: State, doctor: dict, day: date, time: str) -> None:
    day_slots = state["slots"][doctor["id"]].get(day.isoformat(), {})
    status = day_slots.get(time)
    open_times = ", ".join(t for t, s in day_slots.items() if s == OPEN) or "none"
    if status is None:
        if not day_slots:
            raise ToolError(f"{doctor['name']} does not see patients on {day}.")
        raise ToolError(
            f"{doctor['name']} has no slot at {time} on {day}. Open times that day: {open_times}."
        )
    if status == TAKEN:
        raise ToolError(
            f"The {time} slot on {day} with {doctor['name']} is already taken. "
            f"Open times that day: {open_times}."
        )
    if status != OPEN:
        raise ToolError(f"The patient already has appointment {status} in that slot.")
    clash = next(
        (
            a
            for a in state["appointments"]
            if a["status"] == "scheduled" and a["date"] == day.isoformat() and a["time"] == time
        ),
        None,
    )
    if clash:
        raise ToolError(
            f"The patient already has appointment {clash['id']} with {clash['doctor']} "
            f"at {time} on {day}."
        )


# --- cancel_appointment and list_appointments -------------------------------------------------


def cancel_appointment(state: State, args: Args) -> StateChange:
    appointment = _find_appointment(state, args["appointment_id"])
    if appointment["status"] == "cancelled":
        raise ToolError(f"Appointment {appointment['id']} is already cancelled.")
    if appointment["date"] < today(state).isoformat():
        raise ToolError(
            f"Appointment {appointment['id']} on {appointment['date']} already took place."
        )
    appointment["status"] = "cancelled"
    appointment["cancel_reason"] = str(args.get("reason", "")).strip()
    day_slots = state["slots"].get(appointment["doctor_id"] or "", {}).get(appointment["date"], {})
    if day_slots.get(appointment["time"]) == appointment["id"]:
        day_slots[appointment["time"]] = OPEN
    return StateChange(
        result={"status": "cancelled", "appointment": appointment_view(state, appointment)},
        side_effect={"kind": "appointment_cancelled", **appointment},
    )


def _find_appointment(state: State, reference: str) -> dict[str, Any]:
    wanted = reference.strip().upper().replace(" ", "")
    if wanted.isdigit():
        wanted = f"A-{wanted}"
    if wanted.startswith("A") and not wanted.startswith("A-"):
        wanted = f"A-{wanted[1:]}"
    for appointment in state["appointments"]:
        if appointment["id"] == wanted:
            return appointment
    upcoming = [a["id"] for a in state["appointments"] if a["status"] == "scheduled"]
    raise ToolError(
        f"No appointment with id {reference!r}. The patient's upcoming appointments: "
        f"{', '.join(upcoming) or 'none'}."
    )


def list_appointments(state: State, args: Args) -> dict[str, Any]:
    ordered = sorted(state["appointments"], key=lambda a: (a["date"], a["time"], a["id"]))
    return {
        "today": state["today"],
        "appointments": [appointment_view(state, a) for a in ordered],
    }
