"""Dates, times and the appointment options an agent's message offers.

A slot takes the date and doctor named last before it on its line, else the last named
before it anywhere, so both "Thursday at 9 or 2:30" and lists under a date heading read
right. Relative days ("tomorrow", "Friday") need the case's today.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, timedelta


def plain_text(text: str) -> str:
    text = re.sub(r"[*_`#]+", "", text)
    return re.sub(r"\b([ap])\.m\.", r"\1m", text, flags=re.I)


_MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
WEEKDAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
_TIME = re.compile(
    r"\b(1[0-2]|0?[1-9])(?::([0-5]\d))?\s*([ap])m\b|\b([01]?\d|2[0-3]):([0-5]\d)\b(?!\s*[ap]m)",
    re.I,
)
DATE_PATTERN = re.compile(
    r"\b(?P<iso>\d{4}-\d{2}-\d{2})\b"
    r"|\b(?P<month>jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.? "
    r"(?P<day>\d{1,2})(?:st|nd|rd|th)?\b"
    r"|\b(?P<m>\d{1,2})/(?P<d>\d{1,2})(?:/(?P<y>\d{2,4}))?\b"
    r"|\b(?P<weekday>mon|tues?|wed(?:nes)?|thu(?:rs?)?|fri|sat(?:ur)?|sun)(?:day)?\b"
    r"|\b(?P<relative>today|tomorrow)\b",
    re.I,
)
_DOCTOR = re.compile(r"\bDr\.? ([A-Z][a-zA-Z'-]+(?: [A-Z][a-zA-Z'-]+)?)")
_TELEHEALTH = re.compile(r"tele-?health|video|virtual|remote|online", re.I)
_IN_PERSON = re.compile(r"in[- ]person|in the office|in-office|at the clinic", re.I)
OFFERING = re.compile(
    r"availab|opening|open slot|slots|options|which (one|works|would)|prefer|work for you|\?",
    re.I,
)


def _parse_time(match: re.Match[str]) -> str:
    if match.group(3):
        hour = int(match.group(1)) % 12 + (12 if match.group(3).lower() == "p" else 0)
        return f"{hour:02d}:{int(match.group(2) or 0):02d}"
    return f"{int(match.group(4)):02d}:{match.group(5)}"


def parse_date(match: re.Match[str], today: date | None) -> date | None:
    found = match.groupdict()
    try:
        if found["iso"]:
            return date.fromisoformat(found["iso"])
        year = today.year if today else 2026
        if found["month"]:
            return date(year, _MONTHS.index(found["month"][:3].lower()) + 1, int(found["day"]))
        if found["m"]:
            if found["y"] and int(found["y"]) % 100 != year % 100:
                return None  # a date of birth read back, not a day on the calendar
            return date(year, int(found["m"]), int(found["d"]))
    except ValueError:
        return None
    if today is None:
        return None
    if found["relative"]:
        return today + timedelta(days=0 if found["relative"].lower() == "today" else 1)
    wanted = next(
        i for i, name in enumerate(WEEKDAYS) if name.startswith(found["weekday"][:3].lower())
    )
    ahead = (wanted - today.weekday()) % 7 or 7
    return today + timedelta(days=ahead)


@dataclass(frozen=True)
class Option:
    """One appointment slot (or doctor) the agent offered."""

    day: date | None = None
    time: str | None = None  # "HH:MM", 24-hour
    doctor: str | None = None
    visit_type: str | None = None  # "telehealth" | "in_person"


def _mentions(pattern: re.Pattern[str], text: str) -> list[re.Match[str]]:
    return list(pattern.finditer(text))


def _nearest_before(matches: list[re.Match[str]], position: int) -> re.Match[str] | None:
    earlier = [m for m in matches if m.start() < position]
    return earlier[-1] if earlier else None


def parse_options(text: str, today: date | None) -> list[Option]:
    """Slots in the agent's message; a slot takes the date and doctor last named before it on
    its line, else the last named before it anywhere (lists under a date heading)."""
    plain = plain_text(text)
    options: list[Option] = []
    offset = 0
    dates_all = [(m, parse_date(m, today)) for m in DATE_PATTERN.finditer(plain)]
    doctors_all = _mentions(_DOCTOR, plain)
    for line in plain.splitlines(keepends=True):
        for time_match in _TIME.finditer(line):
            position = offset + time_match.start()
            on_line = [(m, d) for m, d in dates_all if offset <= m.start() < offset + len(line)]
            day = _date_for(on_line, dates_all, position)
            doctor = _nearest_before(
                [m for m in doctors_all if offset <= m.start() < offset + len(line)], position
            ) or _nearest_before(doctors_all, position)
            visit = _visit_type(line)
            option = Option(day, _parse_time(time_match), _doctor_name(doctor), visit)
            if option not in options:
                options.append(option)
        offset += len(line)
    if options:
        return options
    return _date_or_doctor_options(plain, dates_all, doctors_all)


def _date_for(on_line, dates_all, position) -> date | None:
    before = [d for m, d in on_line if m.start() < position and d]
    after = [d for m, d in on_line if m.start() >= position and d]
    if before or after:
        return (before or [None])[-1] or after[0]
    earlier = [d for m, d in dates_all if m.start() < position and d]
    return earlier[-1] if earlier else None


def _date_or_doctor_options(plain, dates_all, doctors_all) -> list[Option]:
    days = list(dict.fromkeys(d for _, d in dates_all if d))
    if len(days) >= 2:
        return [Option(day=d) for d in days]
    doctors = list(dict.fromkeys(_doctor_name(m) for m in doctors_all))
    if len(doctors) >= 2:
        return [Option(doctor=name) for name in doctors]
    return []


def _doctor_name(match: re.Match[str] | None) -> str | None:
    return f"Dr. {match.group(1)}" if match else None


def _visit_type(line: str) -> str | None:
    if _TELEHEALTH.search(line):
        return "telehealth"
    if _IN_PERSON.search(line):
        return "in_person"
    return None
