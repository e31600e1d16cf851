"""Reading the patient's words loosely: red flags, specialties, days and times, yes and no.

The agent knows only what the patient wrote, so each reader looks for the plain signs a
person at a front desk would hear - a specialty named or implied, a weekday or a date, a
pharmacy's name and address - and returns None when it cannot tell, so the workflow asks.
"""

from __future__ import annotations

import re
from datetime import date, timedelta
from typing import Any

RED_FLAGS = re.compile(
    r"chest pain|crushing|can'?t breathe|cannot breathe|trouble breathing|short(?:ness)? of "
    r"breath(?! (?:on|when|walking|climbing|lying|doing|after|going up))|suicid|kill myself|end(?:ing)? my life|want to die|don'?t want to live|"
    r"face (?:is )?droop|slurred|stroke|passed out|fainted|overdos|severe bleeding|"
    r"hurt(?:ing)? myself|self[- ]harm",
    re.IGNORECASE,
)
MENTAL_HEALTH_WORDS = re.compile(
    r"suicid|kill myself|end(?:ing)? my life|want to die|don'?t want to live|hurt(?:ing)? "
    r"myself|self[- ]harm|panic|crisis|hopeless",
    re.IGNORECASE,
)


def red_flag(text: str) -> bool:
    return RED_FLAGS.search(text) is not None


# Explicit names first, then words for body parts and problems; "primary care" last.
SPECIALTY_NAMES = {
    "Cardiology": ("cardiolog",),
    "Dermatology": ("dermatolog",),
    "Endocrinology": ("endocrinolog",),
    "Psychiatry": ("psychiatr",),
    "Orthopedics": ("orthop",),
    "Neurology": ("neurolog",),
    "Gastroenterology": ("gastroenterolog", "gi doctor"),
    "Pulmonology": ("pulmonolog", "lung doctor"),
    "OB/GYN": ("ob/gyn", "obgyn", "ob-gyn", "gynecolog", "gynaecolog", "obstetric"),
    "Rheumatology": ("rheumatolog",),
    "Internal Medicine": ("internal medicine", "internist"),
    "Family Medicine": ("family medicine", "family practice"),
    "Urology": ("urolog",),
    "Nephrology": ("nephrolog", "kidney specialist", "kidney doctor"),
    "Hematology": ("hematolog", "blood specialist"),
    "Oncology": ("oncolog", "cancer doctor", "cancer specialist"),
    "Ophthalmology": ("ophthalmolog", "eye doctor", "eye specialist"),
    "Otolaryngology": ("otolaryngolog", "ear, nose and throat", "ent doctor", "ent specialist"),
    "Allergy and Immunology": ("allergist", "immunolog"),
    "Vascular Surgery": ("vascular surgeon", "vascular surgery"),
    "Sleep Medicine": ("sleep specialist", "sleep medicine", "sleep doctor"),
    "Addiction Medicine": ("addiction medicine", "addiction specialist", "addiction doctor"),
    "Infectious Disease": ("infectious disease",),
    "Geriatric Medicine": ("geriatric", "geriatrician"),
}
SPECIALTY_SIGNS = {
    "Cardiology": ("heart", "palpitation", "cardiac"),
    "Dermatology": ("skin", "rash", "mole", "eczema", "acne"),
    "Endocrinology": ("thyroid", "hormone"),
    "Psychiatry": ("mental health", "therapist"),
    "Orthopedics": ("knee", "hip ", "bone", "joint", "shoulder"),
    "Neurology": ("migraine", "seizure", "numbness"),
    "Gastroenterology": ("stomach", "digest", "colonoscopy", "bowel"),
    "Pulmonology": ("lung", "asthma", "copd"),
    "Urology": ("prostate", "bladder"),
    "OB/GYN": ("pregnan", "pap smear"),
    "Rheumatology": ("arthritis", "lupus"),
}
PRIMARY_CARE_WORDS = (
    "primary care", "my doctor", "pcp", "general practitioner", "family doctor", "check-up",
    "checkup", "physical", "regular doctor", "usual doctor", "own doctor",
)  # fmt: skip


def specialty_in(text: str) -> str | None:
    """The specialty the patient names, else the one their words point to, else None."""
    lowered = text.lower()
    for table in (SPECIALTY_NAMES, SPECIALTY_SIGNS):
        found = _earliest(lowered, table)
        if found:
            return found
    return any_specialty_in(text)


def _earliest(lowered: str, table: dict[str, tuple[str, ...]]) -> str | None:
    hits = [
        (lowered.find(word), specialty)
        for specialty, words in table.items()
        for word in words
        if word in lowered
    ]
    return min(hits)[1] if hits else None


_ANY_SPECIALTY = re.compile(r"\b([a-z]{3,}olog)(?:y|ist|ists)\b", re.IGNORECASE)


def any_specialty_in(text: str) -> str | None:
    """A specialty the patient names that the tables above lack ("a proctologist")."""
    match = _ANY_SPECIALTY.search(text)
    return f"{match[1].capitalize()}y" if match else None


def wants_primary_care(text: str) -> bool:
    return any(word in text.lower() for word in PRIMARY_CARE_WORDS)


def visit_type_in(text: str) -> str | None:
    lowered = text.lower()
    remote = re.search(r"tele ?health|video|virtual|online|remote|from home|phone visit", lowered)
    in_person = re.search(r"in[- ]person|in the office|at the office|face to face", lowered)
    if remote and in_person:
        return "telehealth" if remote.start() > in_person.start() else "in_person"
    if remote:
        return "telehealth"
    return "in_person" if in_person else None


MONTHS = (
    "january", "february", "march", "april", "may", "june", "july", "august", "september",
    "october", "november", "december",
)  # fmt: skip
WEEKDAY_NAMES = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_MONTH = r"(jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?"
DATE_PATTERNS = (
    ("iso", re.compile(r"\b(\d{4})-(\d{1,2})-(\d{1,2})\b")),
    ("month_day", re.compile(_MONTH + r"\s+(\d{1,2})(?:st|nd|rd|th)?(?:,?\s+(\d{4}))?\b", re.I)),
    ("day_month", re.compile(r"\b(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?" + _MONTH, re.I)),
    ("slash", re.compile(r"\b(\d{1,2})/(\d{1,2})(?:/(\d{2,4}))?\b")),
    ("tomorrow", re.compile(r"\btomorrow\b", re.I)),
    # "Wednesday the 18th", as people write a day in the next few weeks
    (
        "nth",
        re.compile(
            r"\b(?:" + "|".join(WEEKDAY_NAMES) + r"),?\s+the\s+(\d{1,2})(?:st|nd|rd|th)\b", re.I
        ),
    ),
    ("weekday", re.compile(r"\b(" + "|".join(WEEKDAY_NAMES) + r")\b", re.I)),
)


def dates_in(text: str, today: date | None) -> list[date]:
    """Every date the text names, in the order written; relative ones need `today`. A weekday
    written before its date ("Wednesday, March 18") is that date, not the next Wednesday."""
    found: list[tuple[int, int, str, date]] = []
    for kind, pattern in DATE_PATTERNS:
        for match in pattern.finditer(text):
            day = _date_from(kind, match, today)
            if day is not None:
                found.append((match.start(), match.end(), kind, day))
    explicit = [(s, e) for s, e, kind, _ in found if kind not in ("weekday", "tomorrow")]
    kept = [
        (start, day)
        for start, end, kind, day in found
        if kind != "weekday" or not any(s <= end + 3 and e > start for s, e in explicit)
    ]
    return list(dict.fromkeys(day for _, day in sorted(kept)))


def _date_from(kind: str, match: re.Match[str], today: date | None) -> date | None:
    # Never the machine's clock: without "today", a date needs its year written out.
    year = today.year if today else None
    try:
        if kind == "iso":
            return date(int(match[1]), int(match[2]), int(match[3]))
        if kind == "month_day" and (match[3] or year):
            return date(int(match[3] or year), _month_number(match[1]), int(match[2]))
        if kind == "day_month" and year:
            return date(year, _month_number(match[2]), int(match[1]))
        if kind == "slash" and (match[3] or year):
            given = int(match[3]) if match[3] else year
            return date(given + 2000 if given < 100 else given, int(match[1]), int(match[2]))
    except ValueError:
        return None
    if kind in ("iso", "month_day", "day_month", "slash"):
        return None
    if today is None:
        return None
    if kind == "tomorrow":
        return today + timedelta(days=1)
    if kind == "nth":
        return _next_day_numbered(int(match[1]), today)
    ahead = (WEEKDAY_NAMES.index(match[1].lower()) - today.weekday()) % 7 or 7
    return today + timedelta(days=ahead)


def _next_day_numbered(number: int, today: date) -> date | None:
    """The next date (after today) whose day of the month is `number`."""
    for months_ahead in range(3):
        month = (today.month - 1 + months_ahead) % 12 + 1
        year = today.year + (today.month - 1 + months_ahead) // 12
        try:
            day = date(year, month, number)
        except ValueError:
            continue
        if day > today:
            return day
    return None


def _month_number(text: str) -> int:
    prefix = text.lower()[:3]
    return next(n for n, name in enumerate(MONTHS, 1) if name.startswith(prefix))


def time_wish(text: str) -> str | None:
    """ "HH:MM", "morning", "afternoon" or None."""
    lowered = text.lower()
    match = re.search(r"\b(\d{1,2})(?::(\d{2}))?\s*([ap])\.?m\.?\b", lowered) or re.search(
        r"\b(\d{1,2}):(\d{2})\b()", lowered
    )
    if match:
        hour = int(match[1]) % 12 + (12 if match[3] == "p" else 0) if match[3] else int(match[1])
        if not match[3] and 1 <= hour <= 6:
            hour += 12  # "1:30" at a clinic is half past one in the afternoon
        return f"{hour:02d}:{int(match[2] or 0):02d}"
    if "morning" in lowered:
        return "morning"
    if "afternoon" in lowered:
        return "afternoon"
    return None


AFFIRMATIVE = re.compile(
    r"\b(yes|yeah|yep|sure|ok|okay|please do|please book|that works|works for me|sounds good|"
    r"go ahead|first one|the first|earliest|perfect|book it|that's fine|fine by me|"
    r"is fine)\b",
    re.IGNORECASE,
)
_FILLER = r"^\W*(?:(?:um+|uh+|oh|well|hmm+|sorry)\W+)*"
DECLINE = re.compile(
    _FILLER + r"(?:no\b|nope\b|nah\b|not (?:now|yet|really|right now|today|for now)\b|"
    r"that's (?:alright|all right|okay|ok|fine),? no\b|i don't think so\b|i'd rather not\b|"
    r"maybe later\b)"
    r"|\b(?:no thanks|no thank you|no need|don't need (?:that|it|to)|don't want (?:that|it|to)|"
    r"rather not|not right now|maybe later)\b",
    re.IGNORECASE,
)


def declines(text: str) -> bool:
    """ "No, that's okay", "Not yet - ...", "Um, no, I don't think so", "No need."."""
    return DECLINE.search(text) is not None


def affirmative(text: str) -> bool:
    """A yes: "Yes, please", "Sure, go ahead" - never a no that happens to say "okay"."""
    return AFFIRMATIVE.search(text) is not None and not declines(text)


# The patient winding up: thanks, goodbye, "I'll call 911 now", "I'll just call the office".
_SIGN_OFF = re.compile(
    r"\b(thanks|thank you|thx|appreciate it|bye|goodbye|thats? all|that's all|that is all|"
    r"that'?s everything|that'?s it|that'll do|nothing else|all i needed|forget it|never mind|"
    r"see you|got it|"
    r"i'll (?:just |probably |go ahead and |now )?(?:call|go|head|keep|wait|put|pick|swing|"
    r"rebook|sort|manage|try|have|check|do that|write|look|bring|ask|mention|talk|follow)|"
    r"i'm (?:just )?going to (?:call|go|head)|(?:going to|will) (?:call|go to|head)\b)",
    re.IGNORECASE,
)
_BARE_ACK = re.compile(
    r"^\W*(?:ok(?:ay)?|k|alright|all right|fine|got it|sounds good|great|perfect|good)\W*$",
    re.IGNORECASE,
)
_STILL_ASKING = re.compile(
    r"\b(?:(?<!no )need|want|know|wondering|wonder|hoping|find out|tell me|answer|still|i'd like|"
    r"can you|could you|would you|can i|could i|is there|what about|but what|"
    r"please (?!do\b)\w+)\b",
    re.IGNORECASE,
)
_CONFIRMING = re.compile(r"^\W*so (?:that's|it's|that is|it is)\b", re.IGNORECASE)


_SENTENCE_END = re.compile(r"(?<!\bDr\.)(?<!\bMr\.)(?<!\bMs\.)(?<!\bSt\.)(?<=[.!?])\s+")


def sentences_of(text: str) -> list[str]:
    """Sentences; "Dr. Reyes" does not end one."""
    return [s for s in _SENTENCE_END.split(text.strip()) if s]


def patient_closes(text: str) -> bool:
    """A goodbye with no new question or request in it ("So that's Tuesday? Okay, thanks" is
    still a goodbye; "No thanks - I still need..." is not)."""
    questions = [s for s in sentences_of(text) if s.rstrip().endswith("?")]
    if any(not _CONFIRMING.search(q) for q in questions) or _STILL_ASKING.search(text):
        return False
    if _BARE_ACK.search(text) or _SIGN_OFF.search(text):
        return True
    return declines(text) and len(text.split()) <= 5  # a bare "No thanks."


def confirms_back(text: str) -> bool:
    """ "So that's Tuesday at 10? Okay." - the patient reads the booking back."""
    return any(_CONFIRMING.search(s) for s in sentences_of(text))


_PERSON = re.compile(
    r"real person|actual person|\ba (?:real )?human\b|(?:talk|speak) (?:to|with) (?:a |an )?"
    r"(?:person|someone|somebody|nurse|human)|someone at the (?:office|clinic|front desk)|"
    r"nurse i could|someone i could (?:call|talk)|front desk",
    re.IGNORECASE,
)


def asks_for_person(text: str) -> bool:
    return _PERSON.search(text) is not None


def names_a_time(text: str, today: date | None) -> bool:
    """The patient picks a day or time ("Could I have tomorrow at 10?")."""
    return bool(dates_in(text, today)) or time_wish(text) is not None


def medication_in(text: str, on_file: list[dict[str, Any]]) -> dict[str, Any] | None:
    lowered = text.lower()
    hits = [
        (lowered.find(str(m.get("name", "")).lower()), m)
        for m in on_file
        if m.get("name") and str(m["name"]).lower() in lowered
    ]
    return min(hits, key=lambda hit: hit[0])[1] if hits else None


_NOT_A_DRUG = {
    "something", "anything", "a", "an", "the", "my", "me", "some", "medication", "medicine",
    "pills", "it", "that", "this", "help", "new", "prescription",
}  # fmt: skip
_ASKED_DRUG = re.compile(
    r"(?:prescription for|prescribe(?: me)?|start(?:ing)? (?:on )?|try(?:ing)?|send in |"
    r"medication called|medicine called|get (?:some |a )?)\s*([A-Za-z][A-Za-z-]{2,})",
    re.IGNORECASE,
)


def requested_medication(text: str) -> str | None:
    for match in _ASKED_DRUG.finditer(text):
        word = match[1].lower()
        if word not in _NOT_A_DRUG:
            return word
    return None


_NAMED_DRUG = re.compile(
    r"^\W*(?:(?:it's|it is|that's|the one is|um,?|oh,?|yes,?)\s+)*(?:called\s+)?"
    r"([A-Za-z][A-Za-z-]{2,})\b",
    re.IGNORECASE,
)


def named_medication(answer: str) -> str | None:
    """The medicine named in answer to "Which medication...?" ("It's cetirizine.")."""
    match = _NAMED_DRUG.search(answer)
    word = match[1].lower() if match else ""
    return word if word and word not in _NOT_A_DRUG | {"no", "not", "i", "sorry"} else None


_CHAINS = r"CVS|Walgreens|Rite Aid|Walmart|Costco|Kroger|Duane Reade|Safeway|Target"
_PHARMACY_NAME = re.compile(
    r"\b(?:(?i:" + _CHAINS + r")(?:\s+(?i:pharmacy))?|(?:[A-Z][\w'&.-]*\s+){1,3}"
    r"(?:Pharmacy|Drugs|Drugstore|Apothecary|Chemist))\b"
)
_STREET = (
    r"Street|St|Avenue|Ave|Road|Rd|Boulevard|Blvd|Drive|Dr|Lane|Ln|Way|Court|Ct|Place|Pl|"
    r"Parkway|Pkwy|Highway|Hwy"
)
_ADDRESS = re.compile(
    r"\b\d{1,6}\s+(?:[A-Z0-9][\w'.-]*\s+){1,4}?(?:" + _STREET + r")\b\.?"
    r"(?:,\s*[A-Z][A-Za-z.'-]*(?:\s+[A-Z][A-Za-z.'-]*)*){0,2}(?:\s+\d{5})?"
)
_PHONE = re.compile(r"(?:\+?\d{1,2}[-\s.])?(?:\(?\d{3}\)?[-\s.]?)?\d{3}[-\s.]\d{4}\b")


def pharmacy_in(text: str, on_file: dict[str, Any] | None) -> dict[str, str] | None:
    """The new pharmacy the patient describes: a name (not the one on file) and an address."""
    old_name = str((on_file or {}).get("name") or "").lower()
    names = [m.group().strip() for m in _PHARMACY_NAME.finditer(text)]
    if old_name:
        names = [n for n in names if n.lower() not in old_name and old_name not in n.lower()]
    addresses = [a.group().strip().rstrip(".") for a in _ADDRESS.finditer(text)]
    old_address = str((on_file or {}).get("address") or "").lower()
    addresses = [a for a in addresses if a.lower().split(",")[0] not in old_address]
    if not names or not addresses:
        return None
    found = {"name": names[-1], "address": addresses[-1]}
    phone = _PHONE.search(text)
    if phone:
        found["phone"] = phone.group().strip()
    return found


def last_name(name: str) -> str:
    words = re.findall(r"[A-Za-z'-]+", name)
    return words[-1].lower() if words else ""
