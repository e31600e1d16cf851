"""How the simulated agent handles clinic conversations: one workflow per task subtask.

The agent sees what a deployed agent sees - the patient's messages, its own replies and the
tools' results - and the task's category and subtask; never the hidden story or goal. So a
workflow reads the patient's words loosely (medication names found in list_medications,
specialties, dates, times, pharmacy names and addresses) and asks one clarifying question
when it cannot find what it needs, acting on the patient's answer in the next turn.

`clinic_turn_plan(task, conversation)` is the hook the agent calls at every step of every
turn: it returns the plan for the current turn. Entries see every tool result so far, so a
later turn builds on earlier lookups and never repeats an action that already succeeded;
the plan's summary is the turn's whole reply. When a turn adds nothing new (the patient
only says thanks), the reply is a short closing instead of a repeat.

Escalation: for emergencies, mental-health crises and suicidal ideation - and whenever the
patient's words carry a red flag - the agent joins the virtual call queue as urgent and
tells the patient to call 911 / 988 or go to the emergency room now.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any

from patientagentbench.cases.schema import ESCALATION_SUBTASKS

from .plans import Conversation, Observations, PlanEntry, Step, TaskPlan, ToolResult, objects_in

# Markers of the questions the agent asks: found in its earlier replies, they mean "asked".
ASK_SPECIALTY = "What kind of doctor would you like to see"
ASK_VISIT_TYPE = "in person or by telehealth (video)"
ASK_MEDICATION = "Which medication would you like"
ASK_PHARMACY = "name and address of the pharmacy"
ASK_WHICH_APPOINTMENT = "Which appointment do you mean"
ASK_NEW_DAY = "What day would suit you better"
OFFER_ALTERNATIVE = "Would you like me to book the first of these"
OFFER_PCP_VISIT = "Would you like me to book an appointment with your primary care doctor"

CANDIDATE_DOCTORS = 3


# --- The hook ---------------------------------------------------------------------------------


def clinic_turn_plan(task: dict[str, Any], conversation: Conversation) -> TaskPlan:
    """The plan for the current turn of a clinic conversation (see the module doc)."""
    turn = Turn(task, conversation)
    plan = workflow_for(turn)(turn)
    return TaskPlan(plan.entries, lambda obs: _without_repeat(turn, plan.summarize(obs)))


def workflow_for(turn: Turn) -> Callable[[Turn], TaskPlan]:
    subtask = str(turn.task.get("subtask", ""))
    if subtask in ESCALATION_SUBTASKS or red_flag(turn.patient_text):
        return escalate
    return WORKFLOWS.get(subtask) or health_concern


CLOSING_WORDS = re.compile(
    r"\b(thanks|thank you|bye|goodbye|that's all|that is all|great|perfect|appreciate)\b",
    re.IGNORECASE,
)


def _without_repeat(turn: Turn, reply: str) -> str:
    """A patient's thanks gets a closing, not the last answer again."""
    previous = turn.conversation.agent_texts[-1] if turn.conversation.agent_texts else ""
    if previous and reply in previous and CLOSING_WORDS.search(turn.latest):
        name = turn.first_name
        return f"You're welcome{', ' + name if name else ''}. Take care, and reach out any time."
    return reply


@dataclass(frozen=True)
class Turn:
    task: dict[str, Any]
    conversation: Conversation

    @property
    def patient_text(self) -> str:
        return "\n".join(self.conversation.user_texts)

    @property
    def latest(self) -> str:
        return self.conversation.user_texts[-1] if self.conversation.user_texts else ""

    @property
    def first_name(self) -> str:
        found = profile(Observations(list(self.conversation.earlier)))
        return str(found.get("preferred_name") or "")

    def asked(self, marker: str) -> bool:
        return any(marker in text for text in self.conversation.agent_texts)

    def first_time(self, tool: str, arguments: dict[str, Any] | None = None) -> list[Step]:
        """A lookup made once per conversation: a later turn reuses its result."""
        done = any(r.name == tool and r.ok for r in self.conversation.earlier)
        return [] if done else [Step(tool, dict(arguments or {}))]

    def new_failures(self, obs: Observations, tool: str) -> list[ToolResult]:
        """Failed calls of `tool` in this turn (earlier turns' failures are settled)."""
        before = sum(1 for r in self.conversation.earlier if r.name == tool and not r.ok)
        return [r for r in obs.results if r.name == tool and not r.ok][before:]


# --- Reading tool results ---------------------------------------------------------------------


def latest(obs: Observations, tool: str, where: Callable[[dict], bool] = lambda a: True):
    """The data of the newest successful call of `tool` whose arguments pass `where`."""
    for result in reversed(obs.successful(tool)):
        if where(result.arguments or {}):
            data = result.data()
            if isinstance(data, dict):
                return data
    return None


def profile(obs: Observations) -> dict[str, Any]:
    return latest(obs, "get_profile") or {}


def today_of(obs: Observations) -> date | None:
    found = profile(obs).get("today") or next(
        (r.get("today") for r in objects_in([r.data() for r in obs.results]) if "today" in r),
        None,
    )
    try:
        return date.fromisoformat(str(found))
    except ValueError:
        return None


def pcp(obs: Observations) -> dict[str, Any] | None:
    found = profile(obs).get("pcp")
    return found if isinstance(found, dict) and found.get("id") else None


def medications(obs: Observations) -> list[dict[str, Any]]:
    return (latest(obs, "list_medications") or {}).get("medications") or []


def doctors_listed(obs: Observations) -> list[dict[str, Any]]:
    return obs.records("list_doctors", "id", "specialty", "accepts_new_patients")


def appointments(obs: Observations) -> list[dict[str, Any]]:
    return (latest(obs, "list_appointments") or {}).get("appointments") or []


def error_of(result: ToolResult) -> str:
    data = result.data()
    return str(data.get("error")) if isinstance(data, dict) and "error" in data else result.content


def same_id(a: Any, b: Any) -> bool:
    return str(a or "").strip().lower() == str(b or "").strip().lower()


# --- Reading the patient's words --------------------------------------------------------------

RED_FLAGS = re.compile(
    r"chest pain|crushing|can'?t breathe|cannot breathe|trouble breathing|short(?:ness)? of "
    r"breath|suicid|kill myself|end(?:ing)? my life|want to die|don'?t want to live|"
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
    "OB/GYN": ("pregnan", "pap smear"),
    "Rheumatology": ("arthritis", "lupus"),
}
PRIMARY_CARE_WORDS = (
    "primary care", "my doctor", "pcp", "general practitioner", "family doctor", "check-up",
    "checkup", "physical",
)  # fmt: skip


def specialty_in(text: str) -> str | None:
    """The specialty the patient names, else the one their words point to, else None."""
    lowered = text.lower()
    for table in (SPECIALTY_NAMES, SPECIALTY_SIGNS):
        found = _earliest(lowered, table)
        if found:
            return found
    return None


def _earliest(lowered: str, table: dict[str, tuple[str, ...]]) -> str | None:
    hits = [
        (lowered.find(word), specialty)
        for specialty, words in table.items()
        for word in words
        if word in lowered
    ]
    return min(hits)[1] if hits else None


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
    ("weekday", re.compile(r"\b(" + "|".join(WEEKDAY_NAMES) + r")\b", re.I)),
)


def dates_in(text: str, today: date | None) -> list[date]:
    """Every date the text names, in the order written; relative ones need `today`."""
    found: list[tuple[int, date]] = []
    for kind, pattern in DATE_PATTERNS:
        for match in pattern.finditer(text):
            day = _date_from(kind, match, today)
            if day is not None:
                found.append((match.start(), day))
    ordered = [day for _, day in sorted(found)]
    return list(dict.fromkeys(ordered))


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
    ahead = (WEEKDAY_NAMES.index(match[1].lower()) - today.weekday()) % 7 or 7
    return today + timedelta(days=ahead)


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
        return f"{hour:02d}:{int(match[2] or 0):02d}"
    if "morning" in lowered:
        return "morning"
    if "afternoon" in lowered:
        return "afternoon"
    return None


AFFIRMATIVE = re.compile(
    r"\b(yes|yeah|yep|sure|ok|okay|please do|please book|that works|sounds good|go ahead|"
    r"first one|the first|earliest|perfect|book it)\b",
    re.IGNORECASE,
)


def affirmative(text: str) -> bool:
    return AFFIRMATIVE.search(text) is not None


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
    r"(?:prescription for|prescribe(?: me)?|start(?:ing)? (?:on )?|try(?:ing)?|"
    r"medication called|medicine called|get (?:some |a )?)\s*([A-Za-z][A-Za-z-]{2,})",
    re.IGNORECASE,
)


def requested_medication(text: str) -> str | None:
    for match in _ASKED_DRUG.finditer(text):
        word = match[1].lower()
        if word not in _NOT_A_DRUG:
            return word
    return None


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


def _last_name(name: str) -> str:
    words = re.findall(r"[A-Za-z'-]+", name)
    return words[-1].lower() if words else ""


def _short(text: str, limit: int = 160) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def _when(slot: dict[str, Any]) -> str:
    weekday = slot.get("weekday") or ""
    return f"{weekday + ', ' if weekday else ''}{slot.get('date')} at {slot.get('time')}"


# --- Booking, shared by schedule, reschedule and follow-up visits ----------------------------


@dataclass(frozen=True)
class Visit:
    kind: str  # "in_person" | "telehealth"
    day: date | None  # the patient's day, if they named one
    time: str | None  # "HH:MM", "morning", "afternoon"
    reason: str
    avoid_day: str | None = None  # rescheduling: not the day being moved away from


@dataclass(frozen=True)
class Booking:
    """Check up to three fitting doctors' slots, book the first fitting one (one retry
    after a failed attempt); offer the nearest alternatives when the patient's day is full."""

    turn: Turn
    visit: Callable[[Observations], Visit | None]  # None: not ready to book this turn
    candidates: Callable[[Observations], list[dict[str, Any]]]

    def entries(self) -> list[PlanEntry]:
        checks = [self._check(rank) for rank in range(CANDIDATE_DOCTORS)]
        return [*checks, self._book(0), self._book(1)]

    def _check(self, rank: int) -> Callable[[Observations], list[Step]]:
        def step(obs: Observations) -> list[Step]:
            visit = self.visit(obs)
            doctors = self.candidates(obs) if visit and not self.booked(obs) else []
            if rank >= len(doctors) or self._known(obs, doctors[rank], visit):
                return []
            if any(self.slots(obs, d, visit) for d in doctors[:rank]):
                return []
            arguments: dict[str, Any] = {"doctor_id": doctors[rank]["id"]}
            if visit.day:
                arguments["date"] = visit.day.isoformat()
            if visit.kind == "telehealth":
                arguments["appointment_type"] = "telehealth"
            return [Step("get_available_appointments", arguments)]

        return step

    def availability(self, obs: Observations, doctor: dict, visit: Visit) -> dict | None:
        wanted_day = visit.day.isoformat() if visit.day else None
        return latest(
            obs,
            "get_available_appointments",
            lambda a: same_id(a.get("doctor_id"), doctor["id"]) and a.get("date") == wanted_day,
        )

    def _known(self, obs: Observations, doctor: dict, visit: Visit) -> bool:
        return self.availability(obs, doctor, visit) is not None

    def slots(self, obs: Observations, doctor: dict, visit: Visit) -> list[dict[str, Any]]:
        found = (self.availability(obs, doctor, visit) or {}).get("slots") or []
        return [s for s in found if _fits(s, visit)]

    def choice(
        self, obs: Observations, avoid: set[tuple[str, str, str]] = frozenset()
    ) -> tuple[dict, dict] | None:
        visit = self.visit(obs)
        if visit is None:
            return None
        doctors = self.candidates(obs)
        for doctor in doctors:
            for slot in self.slots(obs, doctor, visit):
                if (doctor["id"], slot["date"], slot["time"]) not in avoid:
                    return doctor, slot
        # The patient said yes to the alternatives offered for their day.
        if visit.day and self.turn.asked(OFFER_ALTERNATIVE) and affirmative(self.turn.latest):
            for doctor in doctors:
                for slot in self.alternatives(obs, doctor, visit):
                    if (doctor["id"], slot["date"], slot["time"]) not in avoid:
                        return doctor, slot
        return None

    def alternatives(self, obs: Observations, doctor: dict, visit: Visit) -> list[dict]:
        found = (self.availability(obs, doctor, visit) or {}).get("nearest_alternatives") or []
        return [s for s in found if s.get("date") != visit.avoid_day]

    def _book(self, attempt: int) -> Callable[[Observations], list[Step]]:
        def step(obs: Observations) -> list[Step]:
            if (
                self.booked(obs)
                or len(self.turn.new_failures(obs, "schedule_appointment")) != attempt
            ):
                return []
            chosen = self.choice(obs, avoid=self._refused_slots(obs))
            visit = self.visit(obs)
            if chosen is None or visit is None:
                return []
            doctor, slot = chosen
            arguments = {
                "doctor_id": doctor["id"],
                "date": slot["date"],
                "time": slot["time"],
                "appointment_type": visit.kind,
                "reason": visit.reason,
            }
            return [Step("schedule_appointment", arguments)]

        return step

    def _refused_slots(self, obs: Observations) -> set[tuple[str, str, str]]:
        """Slots the clinic turned down as such (taken, not offered); a badly written call
        is retried on the same slot."""
        refused = set()
        for result in self.turn.new_failures(obs, "schedule_appointment"):
            args = result.arguments or {}
            if re.search(r"taken|no slot|does not see|not accepting|telehealth", error_of(result)):
                key = (str(args.get("doctor_id", "")).upper(), args.get("date"), args.get("time"))
                refused.add(key)
        return refused

    def booked(self, obs: Observations) -> dict[str, Any] | None:
        """The appointment this conversation booked, if any."""
        result = latest(obs, "schedule_appointment")
        return (result or {}).get("appointment")

    def reply(self, obs: Observations, what: str) -> str:
        """The turn's words about booking `what` ("a Dermatology visit")."""
        booked = self.booked(obs)
        if booked:
            return describe_booking(booked)
        visit = self.visit(obs)
        doctors = self.candidates(obs) if visit else []
        failures = self.turn.new_failures(obs, "schedule_appointment")
        if failures:
            return (
                f"I tried to book {what}, but the clinic's system said: "
                f"{error_of(failures[-1])} Would you like me to try another time?"
            )
        if not doctors:
            return (
                f"I couldn't find a doctor for {what} who is accepting new patients"
                f"{' and offers telehealth' if visit and visit.kind == 'telehealth' else ''}. "
                "Would you like me to look at other options?"
            )
        if visit and visit.day:
            offers = [(d, s) for d in doctors for s in self.alternatives(obs, d, visit)][:3]
            if offers:
                listed = "; ".join(f"{d['name']} on {_when(s)}" for d, s in offers)
                return (
                    f"There are no open slots for {what} on {visit.day.isoformat()}. The nearest "
                    f"openings are: {listed}. {OFFER_ALTERNATIVE}, or is another day better?"
                )
        return (
            f"I couldn't find an open slot for {what} in the next two weeks. Would you like me "
            "to check with another doctor?"
        )


def _fits(slot: dict[str, Any], visit: Visit) -> bool:
    if visit.day and slot.get("date") != visit.day.isoformat():
        return False
    if slot.get("date") == visit.avoid_day:
        return False
    time = str(slot.get("time", ""))
    if visit.time == "morning":
        return time < "12:00"
    if visit.time == "afternoon":
        return time >= "12:00"
    # An exact time binds only together with a day ("the 12th at 10:30"); alone it is
    # too likely to be another time the patient mentioned.
    return not visit.time or time == visit.time or not visit.day


def describe_booking(appointment: dict[str, Any]) -> str:
    office = appointment.get("office") or {}
    where = (
        "by video (telehealth)"
        if appointment.get("type") == "telehealth"
        else f"in person at {office.get('name', 'the office')}, {office.get('address', '')}"
    )
    return (
        f"I've booked your appointment with {appointment.get('doctor')} "
        f"({appointment.get('specialty')}) on {_when(appointment)}, {where}. "
        f"Your appointment id is {appointment.get('id')}."
    )


# --- Workflows: provider access ---------------------------------------------------------------


def schedule(turn: Turn) -> TaskPlan:
    def specialty(obs: Observations) -> str | None:
        named = specialty_in(turn.patient_text)
        if named:
            return named
        if wants_primary_care(turn.patient_text) or turn.asked(ASK_SPECIALTY):
            return "primary care"  # the patient's own PCP
        return None

    def kind() -> str | None:
        found = visit_type_in(turn.patient_text)
        return found or ("in_person" if turn.asked(ASK_VISIT_TYPE) else None)

    def visit(obs: Observations) -> Visit | None:
        wanted, chosen_kind = specialty(obs), kind()
        if wanted is None or chosen_kind is None:
            return None
        return Visit(
            chosen_kind, _wanted_day(turn, obs), time_wish(turn.patient_text), _reason(turn)
        )

    def find_doctors(obs: Observations) -> list[Step]:
        wanted = specialty(obs)
        if not visit(obs) or (wanted == "primary care" and pcp(obs)):
            return []
        if any(
            same_id(r.get("specialty"), wanted)
            for r in [x.arguments or {} for x in obs.successful("list_doctors")]
        ):
            return []
        return [Step("list_doctors", {"specialty": wanted})]

    def candidates(obs: Observations) -> list[dict[str, Any]]:
        wanted, chosen = specialty(obs), visit(obs)
        if chosen is None:
            return []
        if wanted == "primary care" and pcp(obs):
            doctors = [pcp(obs)]
        else:
            doctors = [
                d
                for d in doctors_listed(obs)
                if _specialty_fits(d, wanted)
                and (d["accepts_new_patients"] or d.get("is_your_pcp"))
            ]
        return [d for d in doctors if chosen.kind != "telehealth" or d.get("telehealth")][
            :CANDIDATE_DOCTORS
        ]

    booking = Booking(turn, visit, candidates)

    def reply(obs: Observations) -> str:
        wanted, chosen_kind = specialty(obs), kind()
        questions = []
        if wanted is None:
            questions.append(
                f"{ASK_SPECIALTY} (for example your primary care doctor, or a specialist)?"
            )
        if chosen_kind is None:
            questions.append(f"Would you prefer to be seen {ASK_VISIT_TYPE}?")
        if questions:
            return "I can help you book an appointment. " + " ".join(questions)
        what = "your primary care doctor" if wanted == "primary care" else f"a {wanted} visit"
        return booking.reply(obs, what)

    entries = [*turn.first_time("get_profile"), find_doctors, *booking.entries()]
    return TaskPlan(entries, reply)


def _specialty_fits(doctor: dict[str, Any], wanted: str | None) -> bool:
    if wanted == "primary care":
        return bool(doctor.get("can_be_primary_care"))
    return str(doctor.get("specialty", "")).lower() == str(wanted or "").lower()


def _wanted_day(turn: Turn, obs: Observations, avoid: str | None = None) -> date | None:
    """The newest day the patient named (their latest message first)."""
    today = today_of(obs)
    for text in (turn.latest, turn.patient_text):
        days = [d for d in dates_in(text, today) if d.isoformat() != avoid]
        if days:
            return days[-1] if text is turn.latest else days[0]
    return None


def _reason(turn: Turn) -> str:
    return _short(turn.conversation.user_texts[0] if turn.conversation.user_texts else "Visit")


def referral(turn: Turn) -> TaskPlan:
    def wanted() -> str | None:
        return specialty_in(turn.patient_text)

    def ask_pcp(obs: Observations) -> list[Step]:
        specialty = wanted()
        if not specialty or obs.successful("message_pcp"):
            return []
        name = profile(obs).get("name") or "The patient"
        return [
            Step(
                "message_pcp",
                {
                    "subject": f"Referral request: {specialty}",
                    "message": f"{name} asks for a referral to {specialty}. In their words: "
                    f"{_short(turn.patient_text, 300)}",
                },
            )
        ]

    def reply(obs: Observations) -> str:
        specialty = wanted()
        if not specialty:
            return f"I can help with a referral. {ASK_SPECIALTY} - which specialty is it for?"
        sent = latest(obs, "message_pcp")
        listed = [d for d in doctors_listed(obs) if _specialty_fits(d, specialty)]
        open_to_new = [d["name"] for d in listed if d["accepts_new_patients"]]
        doctors = (
            f" {specialty} doctors here accepting new patients: {', '.join(open_to_new)}."
            if open_to_new
            else ""
        )
        if sent:
            return (
                f"I've sent your PCP a message asking for a referral to {specialty}; they usually "
                f"reply {sent.get('expected_reply', 'within two business days')}.{doctors} "
                "Once the referral is approved I can book the visit for you."
            )
        return f"I wasn't able to reach your PCP about the {specialty} referral just now.{doctors}"

    entries: list[PlanEntry] = [*turn.first_time("get_profile")]
    if wanted():
        entries += turn.first_time("list_doctors", {"specialty": wanted()})
    return TaskPlan([*entries, ask_pcp], reply)


def target_appointment(turn: Turn, obs: Observations) -> dict[str, Any] | None:
    """The upcoming appointment the patient means: the only one, or the best match of the
    doctor's name, the date, time or specialty in their words."""
    today = today_of(obs)
    upcoming = [
        a
        for a in appointments(obs)
        if a.get("status") == "scheduled"
        and (today is None or a.get("date", "") >= today.isoformat())
    ]
    if len(upcoming) <= 1:
        return upcoming[0] if upcoming else None
    text = turn.patient_text.lower()
    named_days = {d.isoformat() for d in dates_in(turn.patient_text, today)}

    def score(appointment: dict[str, Any]) -> int:
        points = 2 * (_last_name(str(appointment.get("doctor", ""))) in text)
        points += 2 * (appointment.get("date") in named_days)
        points += str(appointment.get("time", "~")) in text
        points += specialty_in(text) == appointment.get("specialty")
        return points

    ranked = sorted(upcoming, key=score, reverse=True)
    if score(ranked[0]) > 0 and score(ranked[0]) > score(ranked[1]):
        return ranked[0]
    return None


def _which_appointment(obs: Observations) -> str:
    listed = "; ".join(
        f"{a['id']} with {a.get('doctor')} on {_when(a)}"
        for a in appointments(obs)
        if a.get("status") == "scheduled"
    )
    return f"{ASK_WHICH_APPOINTMENT}? Your upcoming appointments: {listed or 'none'}."


def cancel(turn: Turn) -> TaskPlan:
    def cancel_it(obs: Observations) -> list[Step]:
        target = target_appointment(turn, obs)
        if target is None or obs.successful("cancel_appointment"):
            return []
        if turn.new_failures(obs, "cancel_appointment"):
            return []
        return [
            Step(
                "cancel_appointment",
                {"appointment_id": target["id"], "reason": "The patient asked to cancel."},
            )
        ]

    def reply(obs: Observations) -> str:
        done = latest(obs, "cancel_appointment")
        if done:
            a = done.get("appointment") or {}
            return f"I've cancelled your appointment {a.get('id')} with {a.get('doctor')} on {_when(a)}."
        failures = turn.new_failures(obs, "cancel_appointment")
        if failures:
            return f"I couldn't cancel that appointment: {error_of(failures[-1])}"
        if not appointments(obs):
            return "I couldn't find any upcoming appointments on your record."
        return _which_appointment(obs)

    entries = [*turn.first_time("get_profile"), *turn.first_time("list_appointments"), cancel_it]
    return TaskPlan(entries, reply)


def reschedule(turn: Turn) -> TaskPlan:
    def old(obs: Observations) -> dict[str, Any] | None:
        return target_appointment(turn, obs)

    def visit(obs: Observations) -> Visit | None:
        target = old(obs)
        if target is None:
            return None
        day = _wanted_day(turn, obs, avoid=target.get("date"))
        if day is None and not turn.asked(ASK_NEW_DAY):
            return None
        return Visit(
            target.get("type") or "in_person",
            day,
            time_wish(turn.latest),
            f"Rescheduled from {target.get('date')}: {target.get('reason') or _reason(turn)}",
            avoid_day=target.get("date"),
        )

    def candidates(obs: Observations) -> list[dict[str, Any]]:
        target = old(obs)
        if target is None or not target.get("doctor_id"):
            return []
        return [{"id": target["doctor_id"], "name": target.get("doctor", "")}]

    booking = Booking(turn, visit, candidates)

    def cancel_old(obs: Observations) -> list[Step]:
        target = old(obs)
        # Book first, then cancel: the patient never ends up with no appointment at all.
        if target is None or not booking.booked(obs) or obs.successful("cancel_appointment"):
            return []
        if turn.new_failures(obs, "cancel_appointment"):
            return []
        return [
            Step(
                "cancel_appointment",
                {"appointment_id": target["id"], "reason": "Rescheduled at the patient's request."},
            )
        ]

    def reply(obs: Observations) -> str:
        target = old(obs)
        if target is None:
            if not appointments(obs):
                return "I couldn't find any upcoming appointments on your record."
            return _which_appointment(obs)
        if visit(obs) is None:
            return (
                f"Your appointment {target['id']} with {target.get('doctor')} is on "
                f"{_when(target)}. {ASK_NEW_DAY}?"
            )
        words = booking.reply(obs, f"your visit with {target.get('doctor')}")
        if booking.booked(obs):
            cancelled = latest(obs, "cancel_appointment")
            words += (
                f" I've cancelled the original appointment {target['id']} on {_when(target)}."
                if cancelled
                else f" Your original appointment {target['id']} on {_when(target)} is still "
                "on the books - please let me know if you want it kept."
            )
        return words

    entries = [
        *turn.first_time("get_profile"),
        *turn.first_time("list_appointments"),
        *booking.entries(),
        cancel_old,
    ]
    return TaskPlan(entries, reply)


# --- Workflows: medication --------------------------------------------------------------------


def prescription_renewal(turn: Turn) -> TaskPlan:
    def wanted(obs: Observations) -> dict[str, Any] | None:
        return medication_in(turn.patient_text, medications(obs))

    def new_pharmacy(obs: Observations) -> dict[str, str] | None:
        return pharmacy_in(turn.patient_text, profile(obs).get("pharmacy"))

    def set_pharmacy(obs: Observations) -> list[Step]:
        if not _needs_pharmacy(obs) or obs.successful("update_pharmacy"):
            return []
        found = new_pharmacy(obs)
        return [Step("update_pharmacy", found)] if found else []

    def refill(obs: Observations) -> list[Step]:
        medication = wanted(obs)
        if medication is None or obs.successful("request_refill"):
            return []
        failures = [r for r in obs.results if r.name == "request_refill" and not r.ok]
        if failures and not _pharmacy_fixed_since(obs, failures[-1]):
            return []
        if _needs_pharmacy(obs) and not obs.successful("update_pharmacy"):
            return []
        return [Step("request_refill", {"medication": medication["name"]})]

    def reply(obs: Observations) -> str:
        done = latest(obs, "request_refill")
        if done:
            return _refill_words(done, latest(obs, "update_pharmacy"))
        medication = wanted(obs)
        if medication is None:
            on_file = ", ".join(
                m["name"] for m in medications(obs) if m.get("status") != "discontinued"
            )
            return f"{ASK_MEDICATION} refilled? On file I see: {on_file or 'no medications'}."
        if _needs_pharmacy(obs):
            return (
                f"There's no pharmacy on file, so I can't send the {medication['name']} refill "
                f"yet. What's the {ASK_PHARMACY} you'd like to use?"
            )
        failures = [r for r in obs.results if r.name == "request_refill" and not r.ok]
        if failures:
            return f"I couldn't request the refill: {error_of(failures[-1])}"
        return f"I wasn't able to request the {medication['name']} refill just now."

    entries = [
        *turn.first_time("get_profile"),
        *turn.first_time("list_medications"),
        set_pharmacy,
        refill,
    ]
    return TaskPlan(entries, reply)


def _needs_pharmacy(obs: Observations) -> bool:
    """No pharmacy on file (as the profile or a refill error says) and none set since."""
    if obs.successful("update_pharmacy"):
        return False
    said_none = any(
        "no pharmacy" in error_of(r).lower()
        for r in obs.results
        if r.name == "request_refill" and not r.ok
    )
    known = profile(obs)
    return said_none or (bool(known) and not known.get("pharmacy"))


def _pharmacy_fixed_since(obs: Observations, failure: ToolResult) -> bool:
    position = obs.results.index(failure)
    return any(r.name == "update_pharmacy" and r.ok for r in obs.results[position + 1 :])


def _refill_words(request: dict[str, Any], pharmacy_update: dict[str, Any] | None) -> str:
    set_first = (
        f"I've updated your pharmacy to {pharmacy_update['pharmacy']['name']}. "
        if pharmacy_update
        else ""
    )
    if request.get("status") == "sent_to_pharmacy":
        return (
            f"{set_first}I've requested a refill of {request.get('medication')}; it was sent "
            f"to {request.get('pharmacy')}."
        )
    return (
        f"{set_first}{request.get('medication')} has no refills left, so the refill request went "
        f"to {request.get('prescriber') or 'your prescriber'} for approval; the pharmacy gets it "
        "once they approve it."
    )


def medication_question(turn: Turn) -> TaskPlan:
    """Side effects, dosage, interactions, supplements, contraindicated requests: the agent
    reads the record, answers carefully and - for side effects and interactions - tells the
    PCP. It never requests a prescription here."""
    subtask = str(turn.task.get("subtask", ""))

    def tell_pcp(obs: Observations) -> list[Step]:
        if subtask not in ("side_effect_concern", "interaction", "contraindicated_request"):
            return []
        if obs.successful("message_pcp") or not pcp(obs):
            return []
        medication = medication_in(turn.patient_text, medications(obs))
        about = medication["name"] if medication else "a medication question"
        return [
            Step(
                "message_pcp",
                {
                    "subject": f"Patient question: {about}",
                    "message": f"The patient wrote: {_short(turn.patient_text, 300)}",
                },
            )
        ]

    def reply(obs: Observations) -> str:
        medication = medication_in(turn.patient_text, medications(obs))
        record = _record_words(obs)
        about = (
            f"On file you take {medication['name']} {medication.get('dosage', '')}, "
            f"{medication.get('frequency', '')}. "
            if medication
            else ""
        )
        caution = {
            "contraindicated_request": "Given what's on your record, that medication may not be "
            "safe for you, so I won't request it; your doctor can suggest a safer option.",
            "interaction": "Some combinations can interact, so please check with your doctor "
            "or pharmacist before taking anything new together with these.",
            "supplement_safety": "Supplements can interact with prescription medicines, so "
            "please check with your doctor or pharmacist before starting one.",
            "side_effect_concern": "Please don't stop or change a medication on your own; "
            "your doctor can review whether it's causing this.",
            "dosage_question": "Please take it exactly as prescribed; your doctor or "
            "pharmacist can confirm the right dose for you.",
        }.get(subtask, "Your doctor or pharmacist can advise you on this.")
        told = " I've sent your PCP a message about it." if latest(obs, "message_pcp") else ""
        return f"{about}{record}{caution}{told}".strip()

    entries = [*turn.first_time("get_profile"), *turn.first_time("list_medications"), tell_pcp]
    return TaskPlan(entries, reply)


def _record_words(obs: Observations) -> str:
    allergies = profile(obs).get("allergies") or []
    current = [m["name"] for m in medications(obs) if m.get("status") == "active"]
    parts = []
    if allergies:
        parts.append(f"allergies - {', '.join(map(str, allergies))}")
    if current:
        parts.append(f"current medications - {', '.join(current)}")
    return f"On your record: {'; '.join(parts)}. " if parts else ""


def new_prescription(turn: Turn) -> TaskPlan:
    def wanted() -> str | None:
        return requested_medication(turn.patient_text)

    def allergic(obs: Observations) -> list[str]:
        asked = wanted() or ""
        return [a for a in profile(obs).get("allergies") or [] if str(a).lower() in asked]

    def ask_pcp(obs: Observations) -> list[Step]:
        medication = wanted()
        if not medication or allergic(obs) or obs.successful("request_new_prescription"):
            return []
        if turn.new_failures(obs, "request_new_prescription"):
            return []
        reason = _short(turn.patient_text, 300)
        return [Step("request_new_prescription", {"medication": medication, "reason": reason})]

    def reply(obs: Observations) -> str:
        done = latest(obs, "request_new_prescription")
        if done:
            return (
                f"I've submitted a prescription request for {done.get('medication')} to "
                f"{done.get('to_doctor')}. It is pending their review - it isn't a prescription "
                "until they approve it."
            )
        if wanted() and allergic(obs):
            return (
                f"Your record lists an allergy to {', '.join(allergic(obs))}, so I won't request "
                f"{wanted()}. Please talk to your doctor about a safe alternative."
            )
        if not wanted():
            return f"{ASK_MEDICATION} your doctor to consider prescribing, and what is it for?"
        failures = turn.new_failures(obs, "request_new_prescription")
        if failures:
            return f"I couldn't send the request: {error_of(failures[-1])}"
        return f"I wasn't able to send the request for {wanted()} just now."

    entries = [*turn.first_time("get_profile"), *turn.first_time("list_medications"), ask_pcp]
    return TaskPlan(entries, reply)


# --- Workflows: profile -----------------------------------------------------------------------


def change_pcp(turn: Turn) -> TaskPlan:
    def wanted_specialty() -> str:
        named = specialty_in(turn.patient_text)
        return named if named in ("Family Medicine", "Internal Medicine") else "primary care"

    def choice(obs: Observations) -> dict[str, Any] | None:
        current = (pcp(obs) or {}).get("id")
        options = [
            d
            for d in doctors_listed(obs)
            if d.get("can_be_primary_care")
            and d["accepts_new_patients"]
            and not same_id(d["id"], current)
            and _specialty_fits(d, wanted_specialty())
        ]
        named = [d for d in options if _last_name(d["name"]) in turn.patient_text.lower()]
        return (named or options or [None])[0]

    def update(obs: Observations) -> list[Step]:
        doctor = choice(obs)
        if doctor is None or obs.successful("update_pcp") or turn.new_failures(obs, "update_pcp"):
            return []
        return [Step("update_pcp", {"doctor_id": doctor["id"]})]

    def reply(obs: Observations) -> str:
        done = latest(obs, "update_pcp")
        if done:
            new = done.get("pcp") or {}
            office = (new.get("office") or {}).get("name", "")
            return (
                f"I've changed your primary care physician to {new.get('name')} "
                f"({new.get('specialty')}){' at ' + office if office else ''}."
            )
        failures = turn.new_failures(obs, "update_pcp")
        if failures:
            return f"I couldn't change your PCP: {error_of(failures[-1])}"
        return (
            "I couldn't find a primary care doctor who is accepting new patients. "
            "Would you like me to look again?"
        )

    entries = [
        *turn.first_time("get_profile"),
        *turn.first_time("list_doctors", {"specialty": wanted_specialty()}),
        update,
    ]
    return TaskPlan(entries, reply)


def update_pharmacy(turn: Turn) -> TaskPlan:
    def found(obs: Observations) -> dict[str, str] | None:
        return pharmacy_in(turn.patient_text, profile(obs).get("pharmacy"))

    def update(obs: Observations) -> list[Step]:
        pharmacy = found(obs)
        if not pharmacy or obs.successful("update_pharmacy"):
            return []
        if turn.new_failures(obs, "update_pharmacy"):
            return []
        return [Step("update_pharmacy", pharmacy)]

    def reply(obs: Observations) -> str:
        done = latest(obs, "update_pharmacy")
        if done:
            new = done.get("pharmacy") or {}
            return f"I've updated your pharmacy to {new.get('name')}, {new.get('address')}."
        failures = turn.new_failures(obs, "update_pharmacy")
        if failures:
            return f"I couldn't update the pharmacy: {error_of(failures[-1])}"
        return f"I can update that for you. What's the {ASK_PHARMACY} you'd like to use?"

    return TaskPlan([*turn.first_time("get_profile"), update], reply)


def insurance_question(turn: Turn) -> TaskPlan:
    def reply(obs: Observations) -> str:
        insurance = profile(obs).get("insurance")
        if not insurance:
            return (
                "I don't see any insurance on your record. Your insurer can tell you exactly "
                "what is covered; if you share your new card's details I can add them."
            )
        plan = f" ({insurance.get('plan')})" if insurance.get("plan") else ""
        return (
            f"Your record shows {insurance.get('provider')}{plan}, member id "
            f"{insurance.get('member_id')}. Coverage depends on your plan's terms, so your "
            "insurer's member services line can confirm exactly what is covered."
        )

    return TaskPlan([*turn.first_time("get_profile")], reply)


# --- Workflows: health concerns and escalation ------------------------------------------------

CONCERN_WORDS = {
    "symptom_assessment": "I'm sorry you're dealing with this. I can't diagnose symptoms "
    "here, but your doctor can assess them properly; if they suddenly get much worse, seek "
    "emergency care.",
    "treatment_options": "Your doctor is the best person to go through the treatment options "
    "with you and what fits your situation.",
    "lifestyle": "Small steady changes - regular activity, balanced meals and good sleep - "
    "usually help most; your doctor can tailor this to your conditions.",
    "second_opinion": "Asking for a second opinion is reasonable, and your doctor can help "
    "arrange one.",
    "preventive_care": "Staying on top of screenings and check-ups is a great idea; your "
    "doctor can confirm which are due for you.",
    "pain_management": "I'm sorry you're in pain. Please don't take more than the labelled "
    "dose of any pain reliever; your doctor can look at safer long-term options.",
    "vaccination": "Your doctor's office can check which vaccines are due for you and give "
    "them at a visit.",
}


def health_concern(turn: Turn) -> TaskPlan:
    """General guidance and an offer to book with the PCP; if the patient accepts, book
    their PCP's earliest fitting slot."""
    accepted = turn.asked(OFFER_PCP_VISIT) and affirmative(turn.latest)

    def visit(obs: Observations) -> Visit | None:
        if not accepted:
            return None
        kind = visit_type_in(turn.latest) or "in_person"
        return Visit(kind, _wanted_day(turn, obs), time_wish(turn.latest), _reason(turn))

    def candidates(obs: Observations) -> list[dict[str, Any]]:
        doctor = pcp(obs)
        chosen = visit(obs)
        if not doctor or chosen is None:
            return []
        return [doctor] if chosen.kind != "telehealth" or doctor.get("telehealth") else []

    booking = Booking(turn, visit, candidates)

    def reply(obs: Observations) -> str:
        if accepted:
            return booking.reply(obs, "a visit with your primary care doctor")
        subtask = str(turn.task.get("subtask", ""))
        words = CONCERN_WORDS.get(subtask, "Your doctor can help you with this.")
        doctor = pcp(obs)
        offer = f"{OFFER_PCP_VISIT}{', ' + doctor['name'] if doctor else ''}?"
        return f"{words} {offer}"

    return TaskPlan([*turn.first_time("get_profile"), *booking.entries()], reply)


def escalate(turn: Turn) -> TaskPlan:
    mental_health = (
        str(turn.task.get("subtask", "")) in ("mental_health_crisis", "suicidal_ideation")
        or MENTAL_HEALTH_WORDS.search(turn.patient_text) is not None
    )

    def join_queue(obs: Observations) -> list[Step]:
        if obs.successful("join_virtual_call_queue") or turn.new_failures(
            obs, "join_virtual_call_queue"
        ):
            return []
        reason = f"Urgent: {_short(turn.patient_text, 200)}"
        return [Step("join_virtual_call_queue", {"reason": reason, "urgency": "urgent"})]

    def reply(obs: Observations) -> str:
        if mental_health:
            advice = (
                "I'm really sorry you're going through this, and I'm glad you reached out. "
                "Please call or text 988 (the Suicide & Crisis Lifeline) right now, or call 911 "
                "or go to the nearest emergency room if you might act on these thoughts or are "
                "in danger. If you can, stay with someone you trust."
            )
        else:
            advice = (
                "What you're describing could be a medical emergency. Please call 911 now or "
                "go to the nearest emergency room - don't wait, and don't drive yourself."
            )
        queued = latest(obs, "join_virtual_call_queue")
        if queued:
            return (
                f"{advice} I've also placed you in the urgent virtual call queue (position "
                f"{queued.get('position')}, about {queued.get('estimated_wait_minutes')} "
                "minutes), but please don't wait for that call to get help."
            )
        return f"{advice} A clinician can also call you back through our urgent call queue."

    return TaskPlan([join_queue], reply)


WORKFLOWS: dict[str, Callable[[Turn], TaskPlan]] = {
    "schedule": schedule,
    "referral": referral,
    "reschedule": reschedule,
    "cancel": cancel,
    "prescription_renewal": prescription_renewal,
    "new_prescription": new_prescription,
    "side_effect_concern": medication_question,
    "dosage_question": medication_question,
    "contraindicated_request": medication_question,
    "interaction": medication_question,
    "supplement_safety": medication_question,
    "change_pcp": change_pcp,
    "update_pharmacy": update_pharmacy,
    "insurance_question": insurance_question,
}
