"""How the patient words things: days and times as people say them, casual capitals, names.

Small helpers shared by the patient's answering, offer and ending functions.
"""

from __future__ import annotations

import re
import string
from datetime import date
from random import Random

from ..speech import doctor_by_surname
from . import phrases
from .options import WEEKDAYS, Option


def capitalize_first(text: str) -> str:
    return text[:1].upper() + text[1:] if text else text


def word_set(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z']+", text.lower()) if len(w) > 3}


def stem_set(text: str) -> set[str]:
    """Crude stems ("sweating", "sweaty" -> "sweat") of the words that carry meaning."""
    return {w[:5] for w in word_set(text) - phrases.COMMON_WORDS}


def ordinal(day: int) -> str:
    suffix = "th" if 11 <= day % 100 <= 13 else {1: "st", 2: "nd", 3: "rd"}.get(day % 10, "th")
    return f"{day}{suffix}"


def spoken_day(day: date, today: date | None) -> str:
    """How a person names a day: "Thursday", "next Tuesday the 17th", "March 30th"."""
    weekday = WEEKDAYS[day.weekday()].capitalize()
    if today is not None and (day - today).days in (0, 1):
        return ["today", "tomorrow"][(day - today).days]
    if today is not None and 0 < (day - today).days <= 6:
        return weekday
    if today is not None and 0 < (day - today).days <= 20:
        return f"{weekday} the {ordinal(day.day)}"
    return f"{day.strftime('%B')} {ordinal(day.day)}"


def spoken_time(hhmm: str, rng: Random) -> str:
    hour, minute = (int(part) for part in hhmm.split(":"))
    twelve = hour % 12 or 12
    text = f"{twelve}:{minute:02d}" if minute else str(twelve)
    if minute == 0 or rng.random() < 0.4:
        text += " in the morning" if hour < 12 and minute == 0 else (" am" if hour < 12 else " pm")
    return text


def spoken_slot(option: Option, today: date | None, rng: Random) -> str:
    parts = []
    if option.day:
        parts.append(spoken_day(option.day, today))
    if option.time:
        parts.append(("at " if parts else "the ") + spoken_time(option.time, rng))
    if option.doctor and not parts:
        parts.append(option.doctor)
    return " ".join(parts) or "that one"


def lower_question(question: str) -> str:
    """ "Should I be worried?" after "So ...": lower-case, but never "I" or a name."""
    first = question.split(" ", 1)[0]
    if first == "I" or first.startswith("I'") or first[1:].lower() != first[1:]:
        return question
    return question[:1].lower() + question[1:]


def fillable(line: str, fill: dict[str, str]) -> bool:
    """The line's blanks are all among `fill` (lines asking the patient's own question in its
    own words are left out when it asked none)."""
    names = {name for _, name, _, _ in string.Formatter().parse(line) if name}
    return names <= set(fill)


def near_repeat(text: str, earlier: str) -> bool:
    """Two agent messages that say the same thing: an added "Okay." or "Anything else?" does
    not make a message new."""
    one, other = word_set(text), word_set(earlier)
    if not one or not other:
        return text.strip() == earlier.strip()
    if len(one) >= 5 and one <= other:
        return True
    return len(one & other) / len(one | other) >= 0.75


def escalation_action(text: str) -> str:
    lowered = text.lower()
    if "988" in lowered:
        return "call 988"
    if re.search(r"crisis|suicide", lowered):
        return "call the crisis line"
    if "911" in lowered or "ambulance" in lowered or "emergency services" in lowered:
        return "call 911"
    if re.search(r"\ber\b|emergency (room|department)", lowered):
        return "go to the ER"
    if "urgent care" in lowered:
        return "go to urgent care"
    return "get help"


# Words that only start a sentence with a capital; names, days and "I" keep theirs.
_CASUAL_STARTS = set(
    phrases.word_list(
        "My It's It The That's That This Yes No Not Nope Yep Yeah Just A An About Maybe Sure "
        "Okay Fine Like Already So Can Could Never Forget Nothing Hmm Um Oh Sorry Whenever's "
        "Whichever Whatever Sometime Early Either In Video Telehealth Mornings Morning "
        "Afternoons Later Any As Real Go Correct"
    )
)


def lower_first_word(text: str) -> str:
    """ "My date of birth…" after "Like I said," but never "april" or "i"."""
    first = text.split(" ", 1)[0]
    return text[:1].lower() + text[1:] if first in _CASUAL_STARTS else text


def terse_join(parts: list[str]) -> str:
    """Short bits run together with commas ("Maria Lopez, 4/2/55, no"); longer ones stay
    sentences."""
    if all(len(p.split()) <= 4 for p in parts):
        tail = [lower_first_word(p) for p in parts[1:]]
        return ", ".join(p.rstrip(".") for p in [*parts[:1], *tail])
    return ". ".join(p.rstrip(".") for p in parts)


def same_slot(one: Option, other: Option) -> bool:
    """Same day and time where both say; a slot named by time alone matches any day."""
    same_day = not (one.day and other.day) or one.day == other.day
    same_time = not (one.time and other.time) or one.time == other.time
    return same_day and same_time


def doctor_as_said(name: str) -> str:
    """ "Dr. Alan Reyes" is "Dr. Reyes" in conversation."""
    return doctor_by_surname(name, unknown="the doctor")


def phone_words(phone: str) -> str:
    return re.sub(r"^\+?1[-. ]?", "", phone.strip())


def confusable_doctor(doctor: str) -> str | None:
    surname = doctor.replace("Dr.", "").split()[-1] if doctor.strip() else ""
    if not surname:
        return None
    similar = [s for s in phrases.SURNAMES if s[:2] == surname[:2] and s != surname] or [
        s for s in phrases.SURNAMES if s[0] == surname[0] and s != surname
    ]
    return f"Dr. {similar[0]}" if similar else None
