"""What a trace did to its sandbox, as a researcher reads it: one card per side effect
(an appointment booked for a date and time with a doctor, a message sent to the PCP, a refill
requested) and the final state as short sections (the patient's record, appointments,
requests, messages) instead of raw JSON.

Plain data in, plain data out: no Django. The records come from the sandbox worlds
(`sandbox/clinic_world/`, `sandbox/office.py`; their kinds are listed in `sandbox/clinic.py`)
but also from imported traces, so any shape is accepted: an unknown kind, a missing field or a
value of an unexpected type still gives a card with every field under its own label, and
nothing raises. The raw JSON of each record is kept beside its card. Strings are returned
unescaped; escaping is the template's job.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from patientagentbench.cases.chart import (
    Row,
    address_line,
    day_label,
    humanize,
    plain_text,
    pretty_json,
    words,
)

MAX_ROWS = 40  # rows per final-state section; the rest stay in the raw JSON


@dataclass(frozen=True)
class Field:
    label: str
    value: str
    long: bool = False  # free text (a message body): shown as a paragraph


@dataclass(frozen=True)
class Card:
    kind: str  # as recorded: "appointment_scheduled"
    title: str  # "Appointment booked"
    headline: str  # "Thu 2026-03-12 13:30 · Dr. Marta Nowak (Internal Medicine)"
    fields: tuple[Field, ...]
    tone: str  # "added", "removed", "changed", "sent" or ""
    ref: str  # the record's id ("A-1002"), if it has one
    raw: str  # the record as indented JSON


@dataclass(frozen=True)
class StateSection:
    title: str
    rows: tuple[Row, ...]
    empty: str = "None"
    more: int = 0  # rows left out (see the raw JSON)
    layout: str = "entries"  # as in `cases.chart.Section`


# --- side effects -----------------------------------------------------------------------------

# Ids that only point at another record already named on the card (the doctor's name is shown).
_POINTERS = frozenset({"doctor_id", "to_doctor_id", "previous_doctor_id"})


@dataclass(frozen=True)
class _View:
    title: str
    tone: str
    headline: str
    fields: tuple[Field, ...]
    used: frozenset[str]


def effect_cards(side_effects: Any) -> tuple[Card, ...]:
    """One card per recorded side effect, oldest first."""
    if isinstance(side_effects, list | tuple):
        return tuple(effect_card(effect) for effect in side_effects)
    return (effect_card(side_effects),) if plain_text(side_effects) else ()


def effect_card(effect: Any) -> Card:
    raw = pretty_json(effect)
    if not isinstance(effect, Mapping):
        return Card("", "Change", plain_text(effect), (), "", "", raw)
    kind = plain_text(effect.get("kind"))
    describe = _DESCRIBERS.get(kind)
    view = (
        describe(effect)
        if describe
        else _View(humanize(kind) if kind else "Change", "", "", (), frozenset())
    )
    skip = view.used | _POINTERS | {"kind", "id"}
    rest = tuple(
        Field(humanize(key), plain_text(value), long=len(plain_text(value)) > 80)
        for key, value in effect.items()
        if key not in skip and plain_text(value)
    )
    return Card(
        kind=kind,
        title=view.title,
        headline=view.headline,
        fields=tuple(f for f in view.fields if f.value) + rest,
        tone=view.tone,
        ref=plain_text(effect.get("id")),
        raw=raw,
    )


def _t(record: Mapping, key: str) -> str:
    return plain_text(record.get(key))


def _join(*parts: str, sep: str = " · ") -> str:
    return sep.join(p for p in parts if p)


def _when_with(e: Mapping) -> str:
    who = _t(e, "doctor")
    specialty = _t(e, "specialty")
    doctor = f"{who} ({specialty})" if who and specialty else who or specialty
    return _join(_join(day_label(e.get("date")), _t(e, "time"), sep=" "), doctor)


def _was(previous: Any) -> str:
    """A replaced value in a few words; "none" when there was none."""
    if isinstance(previous, Mapping):
        return _join(*(plain_text(v) for v in previous.values())) or "none"
    return plain_text(previous) or "none"


def _appointment(title: str, tone: str) -> Callable[[Mapping], _View]:
    def describe(e: Mapping) -> _View:
        fields = (
            Field("Type", words(e.get("type"))),
            Field("Visit reason", _t(e, "reason"), long=True),
            Field("Cancellation reason", _t(e, "cancel_reason"), long=True),
            Field("Status", words(e.get("status"))),
            Field("Booked by", _t(e, "booked_by")),
        )
        used = {"date", "time", "doctor", "specialty", "type", "reason", "cancel_reason"}
        return _View(title, tone, _when_with(e), fields, frozenset(used | {"status", "booked_by"}))

    return describe


def _refill(e: Mapping) -> _View:
    drug = _join(_t(e, "medication"), _t(e, "dosage"), sep=" ")
    if _t(e, "status") == "sent_to_pharmacy":
        headline = _join(drug, f"sent to {_t(e, 'pharmacy') or 'the pharmacy'}", sep=" → ")
    else:
        to = _t(e, "prescriber") or "the prescriber"
        headline = _join(drug, f"{to}, for approval", sep=" → ")
    fields = (
        Field("Status", words(e.get("status"))),
        Field("Why", _t(e, "routed_because")),
        Field("Pharmacy", _t(e, "pharmacy")),
        Field("Prescriber", _t(e, "prescriber")),
        Field("Refills left before", _t(e, "refills_left_before")),
        Field("Note", _t(e, "note"), long=True),
        Field("Requested on", _t(e, "requested_on")),
    )
    used = {"medication", "dosage", "status", "routed_because", "pharmacy", "prescriber"}
    used |= {"refills_left_before", "note", "requested_on"}
    return _View("Refill requested", "sent", headline, fields, frozenset(used))


def _prescription(e: Mapping) -> _View:
    drug = _join(_t(e, "medication"), _t(e, "dosage"), sep=" ")
    headline = _join(drug, f"{_t(e, 'to_doctor') or 'the PCP'}, for review", sep=" → ")
    fields = (
        Field("Reason", _t(e, "reason"), long=True),
        Field("Status", words(e.get("status"))),
        Field("Requested on", _t(e, "requested_on")),
    )
    used = {"medication", "dosage", "to_doctor", "reason", "status", "requested_on"}
    return _View("New prescription requested", "sent", headline, fields, frozenset(used))


def _message(e: Mapping) -> _View:
    headline = _join(f"To {_t(e, 'to_doctor') or 'the PCP'}", _t(e, "subject"), sep=": ")
    fields = (
        Field("Message", _t(e, "message"), long=True),
        Field("Sent on", _t(e, "sent_on")),
    )
    used = {"to_doctor", "subject", "message", "sent_on"}
    return _View("Message sent to the PCP", "sent", headline, fields, frozenset(used))


def _queue(e: Mapping) -> _View:
    position, wait = _t(e, "position"), _t(e, "estimated_wait_minutes")
    headline = _join(
        words(e.get("urgency")),
        f"position {position}" if position else "",
        f"about {wait} min wait" if wait else "",
    )
    fields = (
        Field("Reason", _t(e, "reason"), long=True),
        Field("Status", words(e.get("status"))),
        Field("Joined on", _t(e, "joined_on")),
    )
    used = {"urgency", "position", "estimated_wait_minutes", "reason", "status", "joined_on"}
    return _View("Joined the virtual call queue", "added", headline, fields, frozenset(used))


def _pcp(e: Mapping) -> _View:
    new = _t(e, "doctor")
    specialty = _t(e, "specialty")
    new = f"{new} ({specialty})" if new and specialty else new or specialty
    headline = f"{_t(e, 'previous_doctor') or 'none'} → {new or '?'}"
    used = {"doctor", "specialty", "previous_doctor"}
    return _View("PCP changed", "changed", headline, (), frozenset(used))


def _pharmacy(e: Mapping) -> _View:
    previous = e.get("previous")
    before = _t(previous, "name") if isinstance(previous, Mapping) else _was(previous)
    headline = f"{before or 'none'} → {_t(e, 'name') or '?'}"
    fields = (
        Field("Address", _t(e, "address")),
        Field("Phone", _t(e, "phone")),
        Field("Previously", _was(previous)),
    )
    used = {"name", "address", "phone", "previous"}
    return _View("Pharmacy changed", "changed", headline, fields, frozenset(used))


def _insurance(e: Mapping) -> _View:
    previous = e.get("previous")
    before = _t(previous, "provider") if isinstance(previous, Mapping) else _was(previous)
    new = _join(_t(e, "provider"), _t(e, "plan"), sep=" ")
    headline = f"{before or 'none'} → {new or '?'}"
    fields = (
        Field("Provider", _t(e, "provider")),
        Field("Plan", _t(e, "plan")),
        Field("Member ID", _t(e, "member_id")),
        Field("Previously", _was(previous)),
    )
    used = {"provider", "plan", "member_id", "previous"}
    return _View("Insurance changed", "changed", headline, fields, frozenset(used))


def _contact(e: Mapping) -> _View:
    changed = [humanize(key).lower() for key in ("phone", "email", "address") if key in e]
    previous = e.get("previous")
    before = previous if isinstance(previous, Mapping) else {}
    fields = (
        Field("Phone", _t(e, "phone")),
        Field("Email", _t(e, "email")),
        Field("Address", address_line(e.get("address"))),
        Field("Previous contact", plain_text(before.get("contact"))),
        Field("Previous address", address_line(before.get("address"))),
        Field("Previously", "" if isinstance(previous, Mapping) else plain_text(previous)),
    )
    headline = f"{', '.join(changed).capitalize()} changed" if changed else ""
    used = {"phone", "email", "address", "previous"}
    return _View("Contact details changed", "changed", headline, fields, frozenset(used))


def _email(e: Mapping) -> _View:
    headline = _join(f"To {_t(e, 'to') or '?'}", _t(e, "subject"), sep=": ")
    fields = (Field("Body", _t(e, "body"), long=True),)
    return _View("Email sent", "sent", headline, fields, frozenset({"to", "subject", "body"}))


def _event(e: Mapping) -> _View:
    hours = _join(_t(e, "start"), _t(e, "end"), sep="–")
    headline = _join(_t(e, "title"), _join(day_label(e.get("date")), hours, sep=" "))
    fields = (Field("Attendees", _t(e, "attendees")),)
    used = {"title", "date", "start", "end", "attendees"}
    return _View("Calendar event created", "added", headline, fields, frozenset(used))


def _note(e: Mapping) -> _View:
    fields = (Field("Content", _t(e, "content"), long=True),)
    return _View("Note created", "added", _t(e, "title"), fields, frozenset({"title", "content"}))


_DESCRIBERS: dict[str, Callable[[Mapping], _View]] = {
    "appointment_scheduled": _appointment("Appointment booked", "added"),
    "appointment_cancelled": _appointment("Appointment cancelled", "removed"),
    "refill_requested": _refill,
    "prescription_requested": _prescription,
    "pcp_message_sent": _message,
    "virtual_queue_joined": _queue,
    "pcp_updated": _pcp,
    "pharmacy_updated": _pharmacy,
    "insurance_updated": _insurance,
    "contact_info_updated": _contact,
    "email_sent": _email,
    "event_created": _event,
    "note_created": _note,
}


# --- the final state --------------------------------------------------------------------------

_CLINIC_KEYS = (
    "case_id",
    "seed",
    "today",
    "horizon",
    "offices",
    "doctors",
    "slots",
    "patient",
    "medications",
    "appointments",
    "refill_requests",
    "prescription_requests",
    "pcp_messages",
    "virtual_queue",
)
_OFFICE_KEYS = (
    "contacts",
    "calendar",
    "products",
    "emails",
    "weather",
    "sent_emails",
    "notes",
    "created_events",
)


def state_sections(state: Any) -> tuple[StateSection, ...]:
    """The world at the end of the trace, in short sections; the raw JSON holds the rest."""
    if not isinstance(state, Mapping):
        text = plain_text(state)
        return (StateSection("State", (Row("State", text),)),) if text else ()
    if isinstance(state.get("patient"), Mapping) and "appointments" in state:
        sections, used = _clinic(state), _CLINIC_KEYS
    elif "sent_emails" in state or "created_events" in state:
        sections, used = _office(state), _OFFICE_KEYS
    else:
        sections, used = [], ()
    sections += [_generic(key, value) for key, value in state.items() if key not in used]
    return tuple(section for section in sections if section.rows or section.empty)


def _section(
    title: str, rows: list[Row], empty: str = "None", layout: str = "entries"
) -> StateSection:
    rows = [row for row in rows if row.label or row.value]
    more = max(0, len(rows) - MAX_ROWS)
    return StateSection(title, tuple(rows[:MAX_ROWS]), empty, more, layout)


def _records(value: Any) -> list:
    if isinstance(value, list | tuple):
        return list(value)
    return [value] if plain_text(value) else []


def _count(value: Any) -> int:
    return len(value) if isinstance(value, list | tuple | Mapping) else int(bool(value))


def _generic(key: str, value: Any) -> StateSection:
    if isinstance(value, list | tuple):
        rows = [Row(plain_text(item)) for item in value if plain_text(item)]
    elif isinstance(value, Mapping):
        rows = [Row(humanize(k), plain_text(v)) for k, v in value.items() if plain_text(v)]
    else:
        rows = [Row(plain_text(value))] if plain_text(value) else []
    layout = "pairs" if isinstance(value, Mapping) else "entries"
    return _section(humanize(key) or "(no name)", rows, empty="", layout=layout)


def _clinic(state: Mapping) -> list[StateSection]:
    doctors = [d for d in _records(state.get("doctors")) if isinstance(d, Mapping)]
    return [
        _section("Patient record", _patient_rows(state.get("patient"), doctors), layout="pairs"),
        _section(
            "Appointments", [_appointment_row(a) for a in _records(state.get("appointments"))]
        ),
        _section("Medications", [_medication_row(m) for m in _records(state.get("medications"))]),
        _section(
            "Refill requests", [_refill_row(r) for r in _records(state.get("refill_requests"))]
        ),
        _section(
            "Prescription requests",
            [_prescription_row(r) for r in _records(state.get("prescription_requests"))],
        ),
        _section(
            "Messages to the PCP", [_message_row(m) for m in _records(state.get("pcp_messages"))]
        ),
        _section(
            "Virtual call queue", [_queue_row(q) for q in _records(state.get("virtual_queue"))]
        ),
        _section("Clinic", _clinic_summary(state, doctors), empty="", layout="pairs"),
    ]


def _patient_rows(patient: Any, doctors: list[Mapping]) -> list[Row]:
    if not isinstance(patient, Mapping):
        return [Row("Patient", plain_text(patient))]
    pcp_id = patient.get("pcp_doctor_id")
    pcp = next((d for d in doctors if d.get("id") == pcp_id and pcp_id), None)
    pcp_text = _join(_t(pcp, "name"), _t(pcp, "specialty"), sep=", ") if pcp else plain_text(pcp_id)
    contact = patient.get("contact")
    return [
        Row("Name", _t(patient, "name")),
        Row("PCP", pcp_text or "none"),
        Row("Pharmacy", _was(patient.get("pharmacy"))),
        Row("Insurance", _was(patient.get("insurance"))),
        Row("Contact", _was(contact) if contact else "none"),
        Row("Address", address_line(patient.get("address"))),
    ]


def _appointment_row(a: Any) -> Row:
    if not isinstance(a, Mapping):
        return Row(plain_text(a))
    doctor = _join(_t(a, "doctor"), _t(a, "specialty"), sep=", ")
    note = _join(
        _t(a, "id"),
        words(a.get("type")),
        _t(a, "reason"),
        f"booked by {_t(a, 'booked_by')}" if _t(a, "booked_by") else "",
        f"cancelled: {_t(a, 'cancel_reason')}" if _t(a, "cancel_reason") else "",
    )
    label = _join(day_label(a.get("date")), _t(a, "time"), sep=" ")
    return Row(label, doctor, note, words(a.get("status")))


def _medication_row(m: Any) -> Row:
    if not isinstance(m, Mapping):
        return Row(plain_text(m))
    refills = _t(m, "refills_left")
    note = _join(
        f"{refills} refill{'' if refills == '1' else 's'} left" if refills else "",
        f"last filled {_t(m, 'last_fill')}" if _t(m, "last_fill") else "",
        _t(m, "prescriber"),
    )
    label = _join(_t(m, "name"), _t(m, "dosage"), sep=" ")
    return Row(label, _t(m, "frequency"), note, words(m.get("status")))


def _refill_row(r: Any) -> Row:
    if not isinstance(r, Mapping):
        return Row(plain_text(r))
    label = _join(_t(r, "medication"), _t(r, "dosage"), sep=" ")
    note = _join(_t(r, "id"), _t(r, "pharmacy"), _t(r, "routed_because"), _t(r, "note"))
    return Row(label, _t(r, "requested_on"), note, words(r.get("status")))


def _prescription_row(r: Any) -> Row:
    if not isinstance(r, Mapping):
        return Row(plain_text(r))
    label = _join(_t(r, "medication"), _t(r, "dosage"), sep=" ")
    note = _join(
        _t(r, "id"), f"to {_t(r, 'to_doctor')}" if _t(r, "to_doctor") else "", _t(r, "reason")
    )
    return Row(label, _t(r, "requested_on"), note, words(r.get("status")))


def _message_row(m: Any) -> Row:
    if not isinstance(m, Mapping):
        return Row(plain_text(m))
    label = _join(
        f"To {_t(m, 'to_doctor')}" if _t(m, "to_doctor") else "", _t(m, "subject"), sep=": "
    )
    return Row(label, _t(m, "sent_on"), _join(_t(m, "id"), _t(m, "message")))


def _queue_row(q: Any) -> Row:
    if not isinstance(q, Mapping):
        return Row(plain_text(q))
    position, wait = _t(q, "position"), _t(q, "estimated_wait_minutes")
    label = _join(
        words(q.get("urgency")),
        f"position {position}" if position else "",
        f"about {wait} min" if wait else "",
    )
    return Row(
        label, _t(q, "joined_on"), _join(_t(q, "id"), _t(q, "reason")), words(q.get("status"))
    )


def _clinic_summary(state: Mapping, doctors: list[Mapping]) -> list[Row]:
    horizon = state.get("horizon")
    window = (
        _join(_t(horizon, "first_day"), _t(horizon, "last_day"), sep=" to ")
        if isinstance(horizon, Mapping)
        else plain_text(horizon)
    )
    return [
        Row("Doctors", f"{len(doctors)} in {len(_records(state.get('offices')))} offices"),
        Row("Bookable", window),
        Row("Today", plain_text(state.get("today"))),
    ]


def _office(state: Mapping) -> list[StateSection]:
    sent = [
        Row(_join(f"To {_t(e, 'to')}", _t(e, "subject"), sep=": "), "", _t(e, "body"))
        if isinstance(e, Mapping)
        else Row(plain_text(e))
        for e in _records(state.get("sent_emails"))
    ]
    events = [
        Row(
            _join(day_label(e.get("date")), _join(_t(e, "start"), _t(e, "end"), sep="–"), sep=" "),
            _t(e, "title"),
            _t(e, "attendees"),
        )
        if isinstance(e, Mapping)
        else Row(plain_text(e))
        for e in _records(state.get("created_events"))
    ]
    notes = [
        Row(_t(n, "title"), "", _t(n, "content")) if isinstance(n, Mapping) else Row(plain_text(n))
        for n in _records(state.get("notes"))
    ]
    counts = [
        f"{_count(state.get(key))} {label}"
        for key, label in (
            ("contacts", "contacts"),
            ("calendar", "calendar events"),
            ("emails", "inbox emails"),
            ("products", "products"),
            ("weather", "cities with weather"),
        )
        if key in state
    ]
    summary = Row("World", _join(*counts))
    return [
        _section("Sent emails", sent),
        _section("Created calendar events", events),
        _section("Notes", notes),
        _section("Office", [summary], empty="", layout="pairs"),
    ]
