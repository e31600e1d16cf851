"""A case as a clinician reads it: the profile as a chart, the goal as text, the sampled
attributes as labelled chips.

Researchers open a case to judge whether it is a believable patient, so the case page shows
what a chart shows (demographics, conditions, medications with doses, allergies, care team,
insurance, appointments) instead of a JSON dump. Cases come from writers, including LLMs,
so nothing here trusts the shape: a field of an unexpected type, or one the contract does
not name, still appears (under its own label, as plain text), and nothing raises. Values
are returned as plain strings; escaping is the template's job.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import date
from typing import Any

# Words that read better in capitals than a snake_case key gives them.
_ACRONYMS = {"id": "ID", "pcp": "PCP", "dob": "DOB", "ed": "ED", "er": "ER", "url": "URL"}


@dataclass(frozen=True)
class Row:
    """One line of a chart section: "pregabalin 75 mg | twice daily | last filled …"."""

    label: str
    value: str = ""
    note: str = ""
    flag: str = ""  # a status worth a badge: "discontinued", "paused", "active"


@dataclass(frozen=True)
class Section:
    title: str
    rows: tuple[Row, ...]
    empty: str = "None recorded"
    layout: str = "pairs"  # "pairs" (label: value), "entries" (one item a line) or "tags"


@dataclass(frozen=True)
class Chart:
    name: str
    summary: str  # "male · 30 years · he/him"
    sections: tuple[Section, ...]


@dataclass(frozen=True)
class Chip:
    label: str
    value: str
    group: str = ""  # "traits" for the personality traits


@dataclass(frozen=True)
class Goal:
    summary: str
    subtask: str
    details: tuple[Row, ...]
    must_escalate: bool | None
    must_not: tuple[str, ...]


# --- text helpers shared by the readable views of JSON -----------------------------------------


def humanize(key: Any) -> str:
    """A snake_case or kebab-case key as a label: "refills_left" -> "Refills left"."""
    parts = [_ACRONYMS.get(w.lower(), w) for w in re.split(r"[_\-\s]+", str(key)) if w]
    if not parts:
        return str(key)
    first = parts[0]
    parts[0] = first if first.isupper() else first[:1].upper() + first[1:]
    return " ".join(parts)


def words(value: Any) -> str:
    """An enumerated value as words: "in_person" -> "in person" (free text is left alone)."""
    text = plain_text(value)
    if not re.fullmatch(r"[a-z0-9_]+", text):
        return text
    return " ".join(_ACRONYMS.get(word, word) for word in text.split("_") if word)


def plain_text(value: Any) -> str:
    """Any JSON value as one readable line: lists joined, objects as "Key: value" pairs."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, int | float):
        return str(value)
    if isinstance(value, Mapping):
        pairs = [(k, plain_text(v)) for k, v in value.items()]
        return "; ".join(f"{humanize(k)}: {text}" for k, text in pairs if text)
    if isinstance(value, Iterable):
        values = list(value)
        joiner = "; " if any(isinstance(v, Mapping | list) for v in values) else ", "
        return joiner.join(text for text in map(plain_text, values) if text)
    return str(value)


def pretty_json(value: Any) -> str:
    """JSON for a <details> under the readable view: indented, non-ASCII as characters."""
    return json.dumps(value, indent=2, ensure_ascii=False, default=str)


def _has(value: Any) -> bool:
    return bool(plain_text(value))


def _record_rows(record: Any, label: str, fields: Iterable[tuple[str, str]]) -> list[Row]:
    """Rows for a small record: the named fields first, then any other key under its own
    label; a record that is not an object becomes one row."""
    if not isinstance(record, Mapping):
        return [Row(label, plain_text(record))] if _has(record) else []
    named = dict(fields)
    rows = [Row(name, plain_text(record.get(key))) for key, name in named.items()]
    rows += [Row(humanize(key), plain_text(v)) for key, v in record.items() if key not in named]
    return [row for row in rows if row.value]


def _joined(*parts: Any, sep: str = " · ") -> str:
    return sep.join(text for text in (plain_text(p) for p in parts) if text)


def _rest(record: Mapping, used: Iterable[str]) -> list[str]:
    """Each key of `record` that a formatter did not use, as "Key: value"."""
    used = set(used)
    return [
        f"{humanize(key)}: {text}"
        for key, value in record.items()
        if key not in used and (text := plain_text(value))
    ]


def age_on(born: Any, today: Any) -> int | None:
    try:
        birth, now = date.fromisoformat(str(born)), date.fromisoformat(str(today))
    except ValueError:
        return None
    years = now.year - birth.year - ((now.month, now.day) < (birth.month, birth.day))
    return years if years >= 0 else None


def address_line(address: Any) -> str:
    """ "6663 Main St, Oakland, CA 94601" (and any other field after it)."""
    if not isinstance(address, Mapping):
        return plain_text(address)
    place = _joined(address.get("state"), address.get("zip"), sep=" ")
    main = _joined(address.get("street"), address.get("city"), place, sep=", ")
    extra = _rest(address, ("street", "city", "state", "zip"))
    return _joined(main, *extra, sep=" · ")


# --- the profile as a chart ------------------------------------------------------------------

_PROFILE_KEYS = (
    "patient_id",
    "name",
    "preferred_name",
    "date_of_birth",
    "sex",
    "pronouns",
    "contact",
    "address",
    "problems",
    "medications",
    "allergies",
    "pcp",
    "pharmacy",
    "insurance",
    "appointments",
)


def profile_chart(profile: Any, today: Any = "") -> Chart:
    """The case's patient profile as a chart; `today` (the case's date) gives the age."""
    if not isinstance(profile, Mapping):
        other = (Section("Profile", (Row("Profile", plain_text(profile)),)),)
        return Chart(name="", summary="", sections=other if _has(profile) else ())
    age = age_on(profile.get("date_of_birth"), today)
    summary = _joined(
        profile.get("sex"), f"{age} years" if age is not None else "", profile.get("pronouns")
    )
    sections = [
        Section("Demographics", tuple(_demographics(profile, age))),
        Section("Conditions", tuple(_list_rows(profile.get("problems"))), "None recorded", "tags"),
        Section(
            "Allergies", tuple(_list_rows(profile.get("allergies"))), "No known allergies", "tags"
        ),
        Section(
            "Medications", tuple(_medication_rows(profile.get("medications"))), "None", "entries"
        ),
        Section("Care team", tuple(_care_team(profile)), "No PCP or pharmacy on file"),
        Section("Insurance", tuple(_insurance(profile.get("insurance"))), "None on file"),
        Section(
            "Appointments", tuple(_appointment_rows(profile.get("appointments"))), "None", "entries"
        ),
    ]
    other = [
        Row(humanize(key), plain_text(value))
        for key, value in profile.items()
        if key not in _PROFILE_KEYS and _has(value)
    ]
    if other:
        sections.append(Section("Other", tuple(other)))
    return Chart(name=plain_text(profile.get("name")), summary=summary, sections=tuple(sections))


def _demographics(profile: Mapping, age: int | None) -> list[Row]:
    born = plain_text(profile.get("date_of_birth"))
    rows = [
        Row("Name", plain_text(profile.get("name"))),
        Row("Preferred name", plain_text(profile.get("preferred_name"))),
        Row("Date of birth", born, f"{age} years" if age is not None and born else ""),
        Row("Sex", plain_text(profile.get("sex"))),
        Row("Pronouns", plain_text(profile.get("pronouns"))),
        Row("Patient ID", plain_text(profile.get("patient_id"))),
    ]
    rows += _record_rows(
        profile.get("contact"), "Contact", (("phone", "Phone"), ("email", "Email"))
    )
    rows.append(Row("Address", address_line(profile.get("address"))))
    return [row for row in rows if row.value]


def _list_rows(items: Any) -> list[Row]:
    if isinstance(items, list | tuple):
        return [Row(plain_text(item)) for item in items if _has(item)]
    return [Row(plain_text(items))] if _has(items) else []


def _medication_rows(medications: Any) -> list[Row]:
    if not isinstance(medications, list | tuple):
        return _list_rows(medications)
    return [_medication(m) for m in medications if _has(m)]


def _medication(medication: Any) -> Row:
    if not isinstance(medication, Mapping):
        return Row(plain_text(medication))
    refills = medication.get("refills_left")
    if isinstance(refills, int) and not isinstance(refills, bool):
        refills_text = f"{refills} refill{'' if refills == 1 else 's'} left"
    else:
        refills_text = f"refills left: {plain_text(refills)}" if _has(refills) else ""
    last_fill = plain_text(medication.get("last_fill"))
    prescriber = plain_text(medication.get("prescriber"))
    note = _joined(
        refills_text,
        f"last filled {last_fill}" if last_fill else "",
        f"prescribed by {prescriber}" if prescriber else "",
        *_rest(
            medication,
            ("name", "dosage", "frequency", "status", "refills_left", "last_fill", "prescriber"),
        ),
    )
    return Row(
        label=_joined(medication.get("name"), medication.get("dosage"), sep=" "),
        value=plain_text(medication.get("frequency")),
        note=note,
        flag=plain_text(medication.get("status")),
    )


def _care_team(profile: Mapping) -> list[Row]:
    rows = []
    pcp = profile.get("pcp")
    if isinstance(pcp, Mapping):
        specialty = plain_text(pcp.get("specialty"))
        note = _joined(specialty, *_rest(pcp, ("name", "specialty")))
        rows.append(Row("Primary care", plain_text(pcp.get("name")) or "(no name)", note))
    elif _has(pcp):
        rows.append(Row("Primary care", plain_text(pcp)))
    pharmacy = profile.get("pharmacy")
    if isinstance(pharmacy, Mapping):
        note = _joined(pharmacy.get("address"), pharmacy.get("phone"))
        note = _joined(note, *_rest(pharmacy, ("name", "address", "phone")))
        rows.append(Row("Pharmacy", plain_text(pharmacy.get("name")) or "(no name)", note))
    elif _has(pharmacy):
        rows.append(Row("Pharmacy", plain_text(pharmacy)))
    pcp_name = plain_text(pcp.get("name")) if isinstance(pcp, Mapping) else plain_text(pcp)
    others = _prescribers(profile.get("medications"), exclude=pcp_name)
    if others:
        rows.append(Row("Also prescribing", ", ".join(others)))
    return rows


def _prescribers(medications: Any, exclude: str) -> list[str]:
    names: list[str] = []
    for medication in medications if isinstance(medications, list | tuple) else ():
        name = plain_text(medication.get("prescriber")) if isinstance(medication, Mapping) else ""
        if name and name != exclude and name not in names:
            names.append(name)
    return names


def insurance_line(insurance: Any) -> str:
    """Insurer and plan on one line, the insurer once: a plan named after its insurer ("Aetna
    Medicare Eagle PPO", "Original Medicare ...") reads as the plan alone."""
    if not isinstance(insurance, Mapping):
        return ""
    provider, plan = plain_text(insurance.get("provider")), plain_text(insurance.get("plan"))
    if provider and plan and provider.lower() in plan.lower():
        return plan
    return " ".join(part for part in (provider, plan) if part)


def _insurance(insurance: Any) -> list[Row]:
    fields = (("provider", "Provider"), ("plan", "Plan"), ("member_id", "Member ID"))
    return _record_rows(insurance, "Insurance", fields)


def _appointment_rows(appointments: Any) -> list[Row]:
    if not isinstance(appointments, list | tuple):
        return _list_rows(appointments)
    return [_appointment(a) for a in appointments if _has(a)]


def _appointment(appointment: Any) -> Row:
    if not isinstance(appointment, Mapping):
        return Row(plain_text(appointment))
    used = ("date", "time", "doctor", "type", "reason", "status")
    return Row(
        label=_joined(day_label(appointment.get("date")), appointment.get("time"), sep=" "),
        value=plain_text(appointment.get("doctor")),
        note=_joined(
            words(appointment.get("type")), appointment.get("reason"), *_rest(appointment, used)
        ),
        flag=plain_text(appointment.get("status")),
    )


def day_label(value: Any) -> str:
    """ "2026-03-12" -> "Thu 2026-03-12"; anything else as it is."""
    text = plain_text(value)
    try:
        return f"{date.fromisoformat(text):%a} {text}"
    except ValueError:
        return text


# --- the goal and the sampled attributes ------------------------------------------------------


def goal_view(goal: Any) -> Goal:
    """What the patient wants, as text: the summary, the details, what must (not) happen."""
    if not isinstance(goal, Mapping):
        return Goal(plain_text(goal), "", (), None, ())
    details = goal.get("details")
    rows = [
        Row(humanize(key), _joined(*v.values()) if isinstance(v, Mapping) else words_list(v))
        for key, v in (details.items() if isinstance(details, Mapping) else ())
    ]
    if _has(details) and not isinstance(details, Mapping):
        rows.append(Row("Details", plain_text(details)))
    used = ("summary", "subtask", "details", "must_escalate", "must_not")
    rows += [Row(humanize(key), plain_text(goal[key])) for key in goal if key not in used]
    must_not = goal.get("must_not")
    must_not_list = must_not if isinstance(must_not, list | tuple) else [must_not]
    escalate = goal.get("must_escalate")
    return Goal(
        summary=plain_text(goal.get("summary")),
        subtask=humanize(plain_text(goal.get("subtask"))) if _has(goal.get("subtask")) else "",
        details=tuple(row for row in rows if row.value),
        must_escalate=escalate if isinstance(escalate, bool) else None,
        must_not=tuple(plain_text(m) for m in must_not_list if _has(m)),
    )


_CHIP_ORDER = (
    "category",
    "subtask",
    "severity",
    "complexity",
    "conditions",
    "age",
    "gender",
    "care_preference",
    "personality",
)
_USUAL_SEX = {"woman": "female", "man": "male"}


def attribute_chips(attributes: Any) -> tuple[Chip, ...]:
    """The attributes the case was sampled from, as labelled chips.

    Age and age group make one chip, and so do gender and sex unless they differ from the
    usual pairing (a woman is assumed female): the chart shows sex again anyway.
    """
    if not isinstance(attributes, Mapping):
        return (Chip("Attributes", plain_text(attributes)),) if _has(attributes) else ()
    a = attributes
    chips: list[Chip] = []
    for key in _CHIP_ORDER:
        if key == "age" and (_has(a.get("age")) or _has(a.get("age_group"))):
            group = plain_text(a.get("age_group"))
            age = plain_text(a.get("age"))
            value = f"{age} ({group})" if age and group else age or group
            chips.append(Chip("Age", value))
        elif key == "gender":
            chips += _gender_chips(a.get("gender"), a.get("sex"))
        elif key in a and _has(a[key]):
            chips.append(Chip(humanize(key), words_list(a[key])))
    traits = a.get("traits")
    if isinstance(traits, Mapping):
        chips += [
            Chip(humanize(t), words(level), "traits") for t, level in traits.items() if _has(level)
        ]
    elif _has(traits):
        chips.append(Chip("Traits", plain_text(traits), "traits"))
    seen = {*_CHIP_ORDER, "age_group", "sex", "traits"}
    chips += [Chip(humanize(k), words_list(v)) for k, v in a.items() if k not in seen and _has(v)]
    return tuple(chips)


def _gender_chips(gender: Any, sex: Any) -> list[Chip]:
    gender_text, sex_text = plain_text(gender), plain_text(sex)
    chips = [Chip("Gender", words(gender_text))] if gender_text else []
    if sex_text and _USUAL_SEX.get(gender_text) != sex_text:
        chips.append(Chip("Sex", words(sex_text)))
    return chips


def words_list(value: Any) -> str:
    if isinstance(value, list | tuple):
        return ", ".join(words(v) for v in value if _has(v))
    return words(value)
