"""How the simulated agent handles clinic conversations: one workflow per task subtask.

The agent sees what a deployed agent sees - the patient's messages, its own replies and the
tools' results - and the task's category and subtask; never the hidden story or goal. So a
workflow reads the patient's words loosely (medication names found in list_medications,
specialties, dates, times, pharmacy names and addresses) and asks one clarifying question
when it cannot find what it needs, acting on the patient's answer in the next turn.

`clinic_turn_plan(task, conversation)` is the hook the agent calls at every step of every
turn: it returns the plan for the current turn. Entries see every tool result so far, so a
later turn builds on earlier lookups and never repeats an action that already succeeded;
the plan's summary is the turn's whole reply, and its framing tells the agent whether an
opener or closer may be added ("bare" for urgent advice and goodbyes).

Talking like a person, not a fixture:
- The agent never sends the same reply twice. A workflow moves the conversation on (see
  below); when it has nothing new, `_fresh` rephrases once and then offers a call back from
  a clinician.
- Informational needs (symptoms, treatments, vaccines, insurance, dosing...) go in stages:
  general, safe, non-diagnostic guidance on the patient's topic and an offer to book with the
  PCP; if the patient declines and asks again, more specific guidance (common causes, warning
  signs) and an offer to message the PCP with the question; the agent sends that message when
  the patient agrees or asks again, and confirms it in plain words.
- Nothing the patient declined is ever done: a "No, that's okay" is a no, even with "okay".
- When the patient closes ("Thanks, that's all", "I'll call 911 now", "I'll just call the
  office"), the reply is one short closing that fits, sent bare.
- Tool results are translated into the patient's language: no tool names, no "the patient",
  no ISO dates or 24-hour times, errors explained with the next step.

Escalation: for emergencies, mental-health crises and suicidal ideation - and whenever the
patient's words carry a red flag - the agent joins the virtual call queue as urgent and
tells the patient to call 911 / 988 or go to the emergency room now. Pushback ("Is it really
that serious?") gets a short, specific answer about why, not the same paragraph again.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any

from patientagentbench.cases.schema import ESCALATION_SUBTASKS
from sandbox.seeding import stable_rng

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
OFFER_IN_PERSON = "Would an in-person visit work instead"
OFFER_MESSAGE = "Would you like me to message"
OFFER_CALL = "Would you like me to put you in the queue for a call"
OFFER_OTHER_DOCTOR = "Would you like me to check with another doctor"
OFFER_LOOK_AGAIN = "Would you like me to look again"
OFFER_SLOT = "Would you like me to book it"
# Follow-up offers of the booking flow: a yes to one of these goes on with the booking.
BOOKING_OFFERS = (
    OFFER_PCP_VISIT,
    OFFER_ALTERNATIVE,
    OFFER_IN_PERSON,
    "Would you like me to try another time",
    OFFER_OTHER_DOCTOR,
    OFFER_LOOK_AGAIN,
    OFFER_SLOT,
)

CANDIDATE_DOCTORS = 3
PCP_REPLY = "within 2 business days"


# --- The hook ---------------------------------------------------------------------------------


def clinic_turn_plan(task: dict[str, Any], conversation: Conversation) -> TaskPlan:
    """The plan for the current turn of a clinic conversation (see the module doc)."""
    turn = Turn(task, conversation)
    escalating = workflow_for(turn) is escalate
    accepts_offer = turn.agrees and "?" in turn.last_agent
    if turn.user_turn > 1 and patient_closes(turn.latest) and not accepts_offer:
        return closing(turn, escalating)
    if not escalating and (
        asks_for_person(turn.latest) or (turn.offered_last(OFFER_CALL) and turn.agrees)
    ):
        return call_back(turn)
    plan = workflow_for(turn)(turn)
    entries = plan.entries
    declined = declined_actions(turn)
    if declined:
        entries = [_without(entry, declined) for entry in entries]

    def reply(obs: Observations) -> str:
        return _fresh(turn, plan.summarize(obs))

    def framing(obs: Observations) -> str:
        kind = plan.framing(obs)
        return kind if kind != "free" else framing_of(reply(obs))

    return TaskPlan(entries, reply, framing, quiet=plan.quiet)


# Actions the agent offers, and how its offer reads: a "no" to the offer rules the action
# out for the turn, whatever a workflow concludes.
DECLINABLE_ACTIONS = {
    "schedule_appointment": re.compile(r"\bbook|appointment|visit|slot", re.I),
    "request_new_prescription": re.compile(r"prescri", re.I),
}


def declined_actions(turn: Turn) -> set[str]:
    """The actions the agent just offered that the patient's latest message turns down
    ("No, that's okay" to "Would you like me to book...?"; not "No - Thursday instead")."""
    if not turn.says_no or names_a_time(turn.latest, None):
        return set()
    offers = [s for s in _sentences(turn.last_agent) if s.endswith("?")]
    return {
        tool for tool, words in DECLINABLE_ACTIONS.items() if any(words.search(o) for o in offers)
    }


def _without(entry: PlanEntry, tools: set[str]) -> PlanEntry:
    if isinstance(entry, Step):
        return entry if entry.tool not in tools else (lambda obs: [])

    def expander(obs: Observations) -> list[Step]:
        return [s for s in entry(obs) if s.tool not in tools]

    return expander


def workflow_for(turn: Turn) -> Callable[[Turn], TaskPlan]:
    subtask = str(turn.task.get("subtask", ""))
    if subtask in ESCALATION_SUBTASKS or red_flag(turn.patient_text):
        return escalate
    return WORKFLOWS.get(subtask) or health_concern


def framing_of(reply: str) -> str:
    """What the agent may add around a reply: an opener and "anything else?" after finished
    work, a friendly opener before a clarifying question, else at most a closing line."""
    if reply.startswith(("I can help", "I can update")):
        return "ask"
    if "?" in reply:
        return "bare"
    if reply.startswith(("I've ", "I have ")):
        return "report"
    return "plain"


@dataclass(frozen=True)
class Turn:
    task: dict[str, Any]
    conversation: Conversation

    @property
    def patient_text(self) -> str:
        return "\n".join(self.conversation.user_texts)

    @property
    def first(self) -> str:
        return self.conversation.user_texts[0] if self.conversation.user_texts else ""

    @property
    def latest(self) -> str:
        return self.conversation.user_texts[-1] if self.conversation.user_texts else ""

    @property
    def user_turn(self) -> int:
        return len(self.conversation.user_texts)

    @property
    def subtask(self) -> str:
        return str(self.task.get("subtask", ""))

    @property
    def first_name(self) -> str:
        found = profile(Observations(list(self.conversation.earlier)))
        return str(found.get("preferred_name") or "")

    @property
    def last_agent(self) -> str:
        """What the agent wrote just before the patient's latest message."""
        exchanges = self.conversation.exchanges
        if exchanges and exchanges[-1][1] == self.latest:
            return exchanges[-1][0]
        texts = self.conversation.agent_texts
        return texts[-1] if texts and self.user_turn > 1 else ""

    @property
    def agrees(self) -> bool:
        """The latest message says yes (and not "No, that's okay")."""
        return affirmative(self.latest)

    @property
    def says_no(self) -> bool:
        return declines(self.latest)

    def asked(self, marker: str) -> bool:
        return any(marker in text for text in self.conversation.agent_texts)

    def offered_last(self, *markers: str) -> bool:
        return any(marker in self.last_agent for marker in markers)

    def declined(self, marker: str) -> bool:
        """The patient's answer to the latest offer holding `marker` was a no."""
        answers = [reply for agent, reply in self.conversation.exchanges if marker in agent]
        return bool(answers) and declines(answers[-1])

    def first_time(self, tool: str, arguments: dict[str, Any] | None = None) -> list[Step]:
        """A lookup made once per conversation: a later turn reuses its result."""
        done = any(r.name == tool and r.ok for r in self.conversation.earlier)
        return [] if done else [Step(tool, dict(arguments or {}))]

    def new_failures(self, obs: Observations, tool: str) -> list[ToolResult]:
        """Failed calls of `tool` in this turn (earlier turns' failures are settled)."""
        before = sum(1 for r in self.conversation.earlier if r.name == tool and not r.ok)
        return [r for r in obs.results if r.name == tool and not r.ok][before:]

    def rng(self, *salt: Any):
        """A choice of words that differs between conversations but not between replays."""
        return stable_rng(
            "clinic-words", self.task.get("id", ""), *self.conversation.user_texts, *salt
        )


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


# --- Saying tool results in the patient's language --------------------------------------------

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


def _when(slot: dict[str, Any]) -> str:
    return f"{spoken_date(slot.get('date'))} at {spoken_time(slot.get('time'))}"


def doctor_words(name: Any) -> str:
    """ "Dr. Alan Reyes" -> "Dr. Reyes", as people say it after the first mention."""
    words = str(name or "").replace("Dr.", "").split()
    return f"Dr. {words[-1]}" if words else "your doctor"


# --- Reading the patient's words --------------------------------------------------------------

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


def _sentences(text: str) -> list[str]:
    """Sentences; "Dr. Reyes" does not end one."""
    return [s for s in _SENTENCE_END.split(text.strip()) if s]


def patient_closes(text: str) -> bool:
    """A goodbye with no new question or request in it ("So that's Tuesday? Okay, thanks" is
    still a goodbye; "No thanks - I still need..." is not)."""
    questions = [s for s in _sentences(text) if s.rstrip().endswith("?")]
    if any(not _CONFIRMING.search(q) for q in questions) or _STILL_ASKING.search(text):
        return False
    if _BARE_ACK.search(text) or _SIGN_OFF.search(text):
        return True
    return declines(text) and len(text.split()) <= 5  # a bare "No thanks."


def confirms_back(text: str) -> bool:
    """ "So that's Tuesday at 10? Okay." - the patient reads the booking back."""
    return any(_CONFIRMING.search(s) for s in _sentences(text))


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


def _last_name(name: str) -> str:
    words = re.findall(r"[A-Za-z'-]+", name)
    return words[-1].lower() if words else ""


def _short(text: str, limit: int = 160) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


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
    after a failed attempt); offer the nearest alternatives when the patient's day is full.
    Each yes to "check with another doctor?" widens the search by three more doctors."""

    turn: Turn
    visit: Callable[[Observations], Visit | None]  # None: not ready to book this turn
    candidates: Callable[[Observations], list[dict[str, Any]]]  # every fitting doctor

    def entries(self) -> list[PlanEntry]:
        checks = [self._check(rank) for rank in range(CANDIDATE_DOCTORS * 3)]
        return [*checks, self._book(0), self._book(1)]

    def window(self) -> int:
        widened = sum(
            1
            for agent, reply in self.turn.conversation.exchanges
            if OFFER_OTHER_DOCTOR in agent and affirmative(reply)
        )
        return CANDIDATE_DOCTORS * (1 + widened)

    def doctors(self, obs: Observations) -> list[dict[str, Any]]:
        """The doctors to check this turn."""
        return self.candidates(obs)[: self.window()]

    def _check(self, rank: int) -> Callable[[Observations], list[Step]]:
        def step(obs: Observations) -> list[Step]:
            visit = self.visit(obs)
            doctors = self.doctors(obs) if visit and not self.booked(obs) else []
            if rank >= len(doctors):
                return []
            looking_again = self.turn.offered_last(OFFER_LOOK_AGAIN) and self.turn.agrees
            checked_now = any(
                same_id((r.arguments or {}).get("doctor_id"), doctors[rank]["id"])
                for r in obs.results[len(self.turn.conversation.earlier) :]
                if r.name == "get_available_appointments"
            )
            if self._known(obs, doctors[rank], visit) and (not looking_again or checked_now):
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
        doctors = self.doctors(obs)
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
        doctors = self.doctors(obs) if visit else []
        failures = self.turn.new_failures(obs, "schedule_appointment")
        if failures:
            return (
                f"I tried to book {what}, but {plain_error(failures[-1])}. Would you like me "
                "to try another time?"
            )
        if not doctors:
            telehealth = " and offers video visits" if visit and visit.kind == "telehealth" else ""
            offer = (
                f"{OFFER_LOOK_AGAIN}?"
                if not self.turn.asked(OFFER_LOOK_AGAIN)
                else f"{OFFER_CALL} with our staff to look at other options?"
            )
            return (
                f"I couldn't find a doctor for {what} who is accepting new patients{telehealth}. "
                f"{offer}"
            )
        if visit and not any(self.availability(obs, d, visit) for d in doctors):
            # It never managed to look (or the lookups failed): say so, not "nothing open".
            offer = (
                f"{OFFER_LOOK_AGAIN}?"
                if not self.turn.offered_last(OFFER_LOOK_AGAIN)
                else f"{OFFER_CALL} with our staff instead?"
            )
            return f"I wasn't able to check the schedule for {what} just now. {offer}"
        chosen = self.choice(obs, avoid=self._refused_slots(obs))
        if chosen:  # a fitting slot that was not booked yet: offer it
            doctor, slot = chosen
            return f"{doctor['name']} has an opening on {_when(slot)}. {OFFER_SLOT}?"
        if visit and visit.day:
            offers = [(d, s) for d in doctors for s in self.alternatives(obs, d, visit)][:3]
            if offers:
                listed = "; ".join(f"{d['name']} on {_when(s)}" for d, s in offers)
                return (
                    f"There are no open slots for {what} on {spoken_date(visit.day)}. The "
                    f"nearest openings are: {listed}. {OFFER_ALTERNATIVE}, or is another day "
                    "better?"
                )
        if len(self.candidates(obs)) > len(doctors):
            return (
                f"I couldn't find an open slot for {what} in the next two weeks with the "
                f"doctors I checked. {OFFER_OTHER_DOCTOR}?"
            )
        when = f"on {spoken_date(visit.day)}" if visit and visit.day else "in the next two weeks"
        if not self.turn.asked(OFFER_LOOK_AGAIN):
            return f"I couldn't find an open slot for {what} {when}. {OFFER_LOOK_AGAIN}?"
        return (
            f"I'm sorry, there's still nothing open for {what} {when}. {OFFER_CALL} with our "
            "staff to look at other options?"
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
        f"Your confirmation number is {appointment.get('id')}."
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
        listed_before = any(
            same_id(r.get("specialty"), wanted)
            for r in [x.arguments or {} for x in obs.successful("list_doctors")]
        )
        found = any(_specialty_fits(d, wanted) for d in doctors_listed(obs))
        looking_again = turn.offered_last(OFFER_LOOK_AGAIN) and turn.agrees
        if listed_before and (found or not looking_again):
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
        return [d for d in doctors if chosen.kind != "telehealth" or d.get("telehealth")]

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
        days = [
            d
            for d in dates_in(text, today)
            if d.isoformat() != avoid and (today is None or d > today)
        ]
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
            if turn.asked(ASK_SPECIALTY):
                return (
                    "Sorry, I didn't catch the specialty. Which kind of specialist is the "
                    "referral for - for example cardiology, dermatology or urology?"
                )
            return f"I can help with a referral. {ASK_SPECIALTY} - which specialty is it for?"
        sent = latest(obs, "message_pcp")
        listed = [d for d in doctors_listed(obs) if _specialty_fits(d, specialty)]
        open_to_new = [d["name"] for d in listed if d["accepts_new_patients"]]
        doctors = (
            f" Once it's approved, I can book you with {_or_list(open_to_new)}, "
            f"{'who are' if len(open_to_new) > 1 else 'who is'} taking new patients."
            if open_to_new
            else " Once it's approved, I can help you book the visit."
        )
        doctor = (pcp(obs) or {}).get("name") or "your primary care doctor"
        if sent:
            return (
                f"I've messaged {doctor} asking for a referral to {specialty.lower()}; they "
                f"usually reply {sent.get('expected_reply') or PCP_REPLY}.{doctors}"
            )
        failures = turn.new_failures(obs, "message_pcp")
        why = f" - {plain_error(failures[-1])}" if failures else ""
        return (
            f"I wasn't able to send the referral request to {doctor} just now{why}. Would you "
            "like me to try again?"
        )

    entries: list[PlanEntry] = [*turn.first_time("get_profile")]
    if wanted():
        entries += turn.first_time("list_doctors", {"specialty": wanted()})
    return TaskPlan([*entries, ask_pcp], reply)


def target_appointment(turn: Turn, obs: Observations) -> dict[str, Any] | None:
    """The upcoming appointment the patient means: the only one, or the best match of the
    doctor's name, the date, time or specialty in their words."""
    today = today_of(obs)
    booked_here = {
        str((r.data() or {}).get("appointment", {}).get("id", "")).upper()
        for r in obs.successful("schedule_appointment")
    }
    upcoming = [
        a
        for a in appointments(obs)
        if a.get("status") == "scheduled"
        and (today is None or a.get("date", "") >= today.isoformat())
        and str(a.get("id", "")).upper() not in booked_here
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
        f"{a.get('doctor')} on {_when(a)} ({a['id']})"
        for a in appointments(obs)
        if a.get("status") == "scheduled"
    )
    return f"{ASK_WHICH_APPOINTMENT}? I see these coming up: {listed or 'none'}."


def _no_appointments_words(obs: Observations) -> str:
    if not obs.successful("list_appointments"):  # it never looked (or the lookup failed)
        return f"I wasn't able to pull up your appointments just now. {OFFER_LOOK_AGAIN}?"
    return "I couldn't find any upcoming appointments on your record."


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
            return (
                f"I've cancelled your appointment with {a.get('doctor')} on {_when(a)} "
                f"(confirmation {a.get('id')})."
            )
        failures = turn.new_failures(obs, "cancel_appointment")
        if failures:
            return f"I couldn't cancel that appointment - {plain_error(failures[-1])}."
        if not appointments(obs):
            return _no_appointments_words(obs)
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
                return _no_appointments_words(obs)
            return _which_appointment(obs)
        if visit(obs) is None:
            return (
                f"Your appointment with {target.get('doctor')} is on {_when(target)}. "
                f"{ASK_NEW_DAY}?"
            )
        words = booking.reply(obs, f"your visit with {target.get('doctor')}")
        booked = booking.booked(obs)
        if booked and any(
            r.name == "schedule_appointment" and r.ok for r in turn.conversation.earlier
        ):
            words = f"You're all set for your new appointment with {booked.get('doctor')} on {_when(booked)}."
        if booked:
            cancelled = latest(obs, "cancel_appointment")
            words += (
                f" I've cancelled your original appointment on {_when(target)}."
                if cancelled
                else f" Your original appointment on {_when(target)} is still on the books - "
                "I wasn't able to cancel it. Would you like me to try again?"
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
    """Refill a medication on file (setting a pharmacy first when none is on file). A
    medication stopped on the record is not refilled: the agent explains and offers to ask
    the PCP about restarting it."""
    stages = Stages(turn)

    def wanted(obs: Observations) -> dict[str, Any] | None:
        return medication_in(turn.patient_text, medications(obs))

    def stopped(obs: Observations) -> bool:
        medication = wanted(obs)
        said_so = any(
            "discontinued" in error_of(r).lower()
            for r in obs.results
            if r.name == "request_refill" and not r.ok
        )
        return said_so or bool(medication and medication.get("status") == "discontinued")

    def new_pharmacy(obs: Observations) -> dict[str, str] | None:
        return pharmacy_in(turn.patient_text, profile(obs).get("pharmacy"))

    def set_pharmacy(obs: Observations) -> list[Step]:
        if not _needs_pharmacy(obs) or obs.successful("update_pharmacy"):
            return []
        found = new_pharmacy(obs)
        return [Step("update_pharmacy", found)] if found else []

    def refill(obs: Observations) -> list[Step]:
        medication = wanted(obs)
        if medication is None or obs.successful("request_refill") or stopped(obs):
            return []
        failures = [r for r in obs.results if r.name == "request_refill" and not r.ok]
        if failures and not _pharmacy_fixed_since(obs, failures[-1]):
            return []
        if _needs_pharmacy(obs) and not obs.successful("update_pharmacy"):
            return []
        return [Step("request_refill", {"medication": medication["name"]})]

    def ask_doctor(obs: Observations) -> list[Step]:
        if not stopped(obs) or not stages.wants_message:
            return []
        name = (wanted(obs) or {}).get("name") or "a stopped medication"
        return _message_steps(turn, obs, f"Question about restarting {name}")

    def reply(obs: Observations) -> str:
        done = latest(obs, "request_refill")
        if done:
            return _refill_words(done, latest(obs, "update_pharmacy"))
        medication = wanted(obs)
        if medication is None and not obs.successful("list_medications"):
            return f"I wasn't able to pull up your medication list just now. {ASK_MEDICATION} refilled?"
        if medication is None:
            on_file = [m["name"] for m in medications(obs) if m.get("status") != "discontinued"]
            listed = _and_list(on_file) or "no current medications"
            if turn.asked(ASK_MEDICATION):
                return f"Sorry, I couldn't match that to your record. I see {listed} - which one is it?"
            return f"{ASK_MEDICATION} refilled? On your record I see {listed}."
        if stopped(obs):
            return _stopped_words(turn, obs, medication)
        if _needs_pharmacy(obs):
            return (
                f"There's no pharmacy on file, so I can't send the {medication['name']} refill "
                f"yet. What's the {ASK_PHARMACY} you'd like to use?"
            )
        failures = [r for r in obs.results if r.name == "request_refill" and not r.ok]
        if failures:
            return f"I couldn't request the refill - {plain_error(failures[-1])}."
        return f"I wasn't able to request the {medication['name']} refill just now."

    entries = [
        *turn.first_time("get_profile"),
        *turn.first_time("list_medications"),
        set_pharmacy,
        refill,
        ask_doctor,
    ]
    return TaskPlan(entries, reply)


def _stopped_words(turn: Turn, obs: Observations, medication: dict[str, Any]) -> str:
    name = medication.get("name", "That medicine")
    doctor = (pcp(obs) or {}).get("name") or "your doctor"
    if latest(obs, "message_pcp"):
        return _join(
            _message_sent_words(turn, obs, f"your question about {name}"),
            "Please don't restart it on your own until you've heard back.",
        )
    if turn.declined(OFFER_MESSAGE):
        return (
            f"Okay. Since {name} was stopped, the next step is to check with {doctor} about "
            "restarting it - you can call the office, or I can message them for you any time."
        )
    if turn.asked(OFFER_MESSAGE):
        return (
            f"I'm sorry, I can't refill {name} while it's marked as stopped. {OFFER_MESSAGE} "
            f"{doctor} to ask whether you should restart it?"
        )
    return (
        f"I'm sorry - {name} was stopped on your record, so I can't refill it as it is. "
        f"Your doctor would need to decide whether to restart it. {OFFER_MESSAGE} {doctor} to "
        "ask about it?"
    )


def _and_list(items: list[str]) -> str:
    items = [str(i) for i in items if i]
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


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
    medication = str(request.get("medication") or "Your medication")
    return (
        f"{set_first}{medication[:1].upper() + medication[1:]} has no refills left, so I've sent "
        f"the refill request to {request.get('prescriber') or 'your prescriber'} for approval; "
        "the pharmacy gets it once they approve it, usually within a couple of business days."
    )


def medication_question(turn: Turn) -> TaskPlan:
    """Side effects, dosage, interactions, supplements, contraindicated requests: the agent
    reads the record and answers carefully. For side effects, interactions and contraindicated
    requests it tells the PCP straight away; for dosing and supplements it offers to. It never
    requests a prescription here."""
    subtask = turn.subtask
    tells_now = subtask in ("side_effect_concern", "interaction", "contraindicated_request")
    stages = Stages(turn)

    def tell_pcp(obs: Observations) -> list[Step]:
        if not (tells_now or stages.wants_message):
            return []
        medication = medication_in(turn.patient_text, medications(obs))
        subject = f"Question about {medication['name']}" if medication else "Medication question"
        return _message_steps(turn, obs, subject)

    def guidance(obs: Observations) -> str:
        medication = medication_in(turn.patient_text, medications(obs))
        asked = requested_medication(turn.first) or _supplement_in(turn.first)
        med = medication["name"] if medication else "your medicine"
        return {
            "contraindicated_request": f"Given what's on your record, {asked or 'that medicine'} "
            "may not be safe for you, so I won't request it - your doctor can suggest a safer "
            "option.",
            "interaction": "Some medicines interact with ones you already take, so please "
            f"don't start {asked or 'anything new'} until your doctor or pharmacist has "
            "checked the combination.",
            "supplement_safety": "Supplements can interact with prescription medicines - some "
            "affect blood thinners or how other medicines are absorbed - so it's worth having "
            f"{asked or 'it'} checked against what you take.",
            "side_effect_concern": "Please don't stop or change the medicine on your own; your "
            "doctor can review whether it's causing this and what to do about it. If you have "
            "trouble breathing, or swelling of your face or throat, please get emergency care.",
            "dosage_question": str(note_for(turn.first, DOSAGE_NOTES, DOSAGE_GENERAL)).format(
                med=med
            ),
        }.get(subtask, "Your doctor or pharmacist can advise you on this.")

    def reply(obs: Observations) -> str:
        answer = follow_up_note(turn)
        doctor = (pcp(obs) or {}).get("name") or "your doctor"
        sent_before = any(r.name == "message_pcp" and r.ok for r in turn.conversation.earlier)
        sent_now = latest(obs, "message_pcp") and not sent_before
        told = _message_sent_words(turn, obs, "a message about it") if sent_now else ""
        if turn.user_turn == 1:
            offer = (
                f"{OFFER_MESSAGE} {doctor} to confirm it's okay for you?"
                if not tells_now and pcp(obs)
                else ""
            )
            return _join(_record_words(obs, turn), guidance(obs), told, offer)
        if told:
            return _join(answer, told)
        if sent_before:
            return _join(answer, f"{doctor} has your question and should reply {PCP_REPLY}.")
        if turn.declined(OFFER_MESSAGE):
            return _join(
                "No problem.",
                answer,
                "Your pharmacist can also answer questions like this one, usually on the spot.",
            )
        return _join(answer, guidance(obs), f"{OFFER_MESSAGE} {doctor} to check for you?")

    entries = [*turn.first_time("get_profile"), *turn.first_time("list_medications"), tell_pcp]
    return TaskPlan(entries, reply)


_SUPPLEMENT = re.compile(
    r"\b(?:is|are)\s+(?P<a>[\w .'-]{3,30}?)\s+(?:safe|okay|ok)\b|"
    r"\b(?:started taking|taking|take|try(?:ing)?|picked up)\s+(?:some\s+)?"
    r"(?P<b>[\w .'-]{3,30}?)\s+(?:for|with|because|since|about|a month)\b",
    re.IGNORECASE,
)


def _supplement_in(text: str) -> str:
    match = _SUPPLEMENT.search(text)
    found = (match["a"] or match["b"]) if match else ""
    return "" if found.lower() in {"it", "this", "that", "them"} else found


def _record_words(obs: Observations, turn: Turn) -> str:
    """What the record says, in a sentence: the medicine asked about, others, allergies."""
    allergies = [str(a) for a in profile(obs).get("allergies") or []]
    current = [m for m in medications(obs) if m.get("status") == "active"]
    asked = medication_in(turn.patient_text, medications(obs))
    parts = []
    if asked:
        how = " ".join(str(asked.get(k) or "") for k in ("dosage", "frequency")).strip()
        others = [m["name"] for m in current if m["name"] != asked["name"]]
        also = f", along with {_and_list(others)}" if others else ""
        parts.append(f"Your record shows you take {asked['name']}{' ' + how if how else ''}{also}.")
    elif current:
        parts.append(f"Your record shows you take {_and_list([m['name'] for m in current])}.")
    if allergies:
        parts.append(f"It also lists an allergy to {_and_list(allergies)}.")
    return " ".join(parts)


def new_prescription(turn: Turn) -> TaskPlan:
    def wanted() -> str | None:
        named = requested_medication(turn.patient_text)
        if named:
            return named
        answers = [r for a, r in turn.conversation.exchanges if ASK_MEDICATION in a]
        return next((n for n in map(named_medication, reversed(answers)) if n), None)

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
                f"I've sent a prescription request for {done.get('medication')} to "
                f"{done.get('to_doctor')}. They'll review it, usually {PCP_REPLY} - it isn't a "
                "prescription until they approve it."
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
            return f"I couldn't send the request for {wanted()} - {plain_error(failures[-1])}."
        return f"I wasn't able to send the request for {wanted()} just now."

    entries = [*turn.first_time("get_profile"), *turn.first_time("list_medications"), ask_pcp]
    return TaskPlan(entries, reply)


# --- Workflows: profile -----------------------------------------------------------------------


def change_pcp(turn: Turn) -> TaskPlan:
    def wanted_specialty() -> str:
        named = specialty_in(turn.patient_text)
        pcp_kinds = ("Family Medicine", "Internal Medicine", "Geriatric Medicine")
        return named if named in pcp_kinds else "primary care"

    def find(obs: Observations) -> list[Step]:
        """List the doctors once; again only when the patient says yes to looking again
        and nothing fitting was found."""
        listed = any(r.name == "list_doctors" and r.ok for r in turn.conversation.earlier)
        looking_again = turn.offered_last(OFFER_LOOK_AGAIN) and turn.agrees
        if listed and (choice(obs) is not None or not looking_again):
            return []
        if obs.successful("update_pcp"):
            return []
        return [Step("list_doctors", {"specialty": wanted_specialty()})]

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
            return f"I couldn't change your primary care doctor - {plain_error(failures[-1])}."
        found = choice(obs)
        if found:
            return (
                f"{found['name']} ({found.get('specialty')}) is accepting new patients. Would you "
                "like me to make them your primary care doctor?"
            )
        wanted = wanted_specialty()
        who = "primary care doctor" if wanted == "primary care" else f"{wanted} doctor"
        if turn.asked(OFFER_LOOK_AGAIN):
            return (
                f"I'm sorry, I still can't find a {who} who is accepting new patients. "
                f"{OFFER_CALL} with our staff to look at other options?"
            )
        return f"I couldn't find a {who} who is accepting new patients. {OFFER_LOOK_AGAIN}?"

    entries = [*turn.first_time("get_profile"), find, update]
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
            return f"I've updated your pharmacy to {new.get('name')} ({new.get('address')})."
        failures = turn.new_failures(obs, "update_pharmacy")
        if failures:
            return f"I couldn't update the pharmacy - {plain_error(failures[-1])}."
        return f"I can update that for you. What's the {ASK_PHARMACY} you'd like to use?"

    return TaskPlan([*turn.first_time("get_profile"), update], reply)


# --- Informational needs: general, safe guidance on the patient's topic -------------------------
#
# The agent knows only the patient's words, so it recognises a topic by keywords and gives the
# kind of general, non-diagnostic information a clinic's assistant may give: what commonly
# causes a symptom (things a doctor can check), the warning signs that mean "don't wait", and
# what the doctor will consider. Warning signs are always said as conditions ("If ..."), never
# as advice to go now.


@dataclass(frozen=True)
class Note:
    pattern: str
    causes: str = ""  # "not drinking enough, ..." (after "can have several causes, such as")
    watch: str = ""  # "you also feel confused ..." (after "If")
    meanwhile: str = ""  # a sentence: what helps while waiting


SYMPTOM_NOTES = (
    Note(
        r"thirst|dry mouth|drinking (?:a lot|so much)",
        "not drinking enough, hot weather, some medicines such as water pills, or high blood "
        "sugar - which a quick blood test can check",
        "you also feel confused or very drowsy, or you're vomiting and can't keep fluids down",
        "Keep drinking water, and jot down roughly how much you drink and how often you pass "
        "urine - that helps your doctor.",
    ),
    Note(
        r"tingl|numb|pins and needles|burning feet|cold feet",
        "pressure on a nerve, low vitamin B12, thyroid problems or high blood sugar - things "
        "a doctor can check with an exam and blood tests",
        "it comes on suddenly, affects one side of your face or body, or comes with weakness or "
        "trouble speaking, call 911",
        "Check your feet every day for cuts or sores you might not feel, and note when it happens.",
    ),
    Note(
        r"vision|blurr|seeing double|eyesight|zigzag",
        "needing new glasses, dry eyes, or changes in blood sugar or blood pressure",
        "your sight suddenly gets worse, you see a shadow or curtain over part of it, or you "
        "have eye pain or a severe headache",
        "Please avoid driving while your vision isn't clear, and note whether it's one eye or "
        "both.",
    ),
    Note(
        r"joint|knee|hip\b|knuckle|achy|aching|stiff",
        "wear and tear, inflammation, an old injury or sometimes a medicine's side effect",
        "a joint becomes hot, red and swollen, or you have a fever with it",
        "Gentle movement, heat or ice, and resting after activity often help in the meantime.",
    ),
    Note(
        r"sleep(?:ing)? (?:too much|a lot|all the time)|tired|fatigue|exhausted|no energy|"
        r"wiped out|run down",
        "poor sleep, low thyroid, low iron, low mood or a medicine's side effect - several of "
        "these show up on routine blood tests",
        "you feel faint or short of breath, or you have thoughts of harming yourself (you can "
        "call or text 988 any time)",
        "Keeping regular sleep and wake times, and noting how you feel through the day, can "
        "help your doctor.",
    ),
    Note(
        r"panic",
        "stress, anxiety, too much caffeine, an overactive thyroid or a medicine's side effect "
        "- and there are good treatments for all of these",
        "you have chest pain, trouble breathing or fainting, or thoughts of harming yourself",
        "Slow breathing - in for four counts, out for six - can help an attack pass, and "
        "cutting back on caffeine helps some people.",
    ),
    Note(
        r"racing thoughts|worr(?:y|ying) all the time|anxious|anxiety|restless|mood swings|"
        r"feeling down|can't (?:focus|concentrate)|trouble (?:focusing|concentrating)",
        "stress, anxiety, poor sleep, mood changes, too much caffeine or a medicine's side effect",
        "you go several nights without sleep, feel out of control, or have thoughts of "
        "harming yourself (you can call or text 988 any time)",
        "A regular sleep schedule and writing down when it happens can help you and your doctor.",
    ),
    Note(
        r"headache|migraine",
        "tension, poor sleep, skipped meals, blood pressure or overusing pain relievers",
        "you get a sudden, severe headache unlike any before, or a headache with fever and a "
        "stiff neck, weakness or confusion",
        "A simple headache diary - when it starts, what you ate and how you slept - helps "
        "your doctor a lot.",
    ),
    Note(
        r"cough|wheez|phlegm",
        "a lingering cold, allergies, asthma, acid reflux or some blood pressure medicines",
        "you cough up blood, have trouble breathing, or have a high fever",
        "Warm drinks and avoiding smoke help many people while it settles.",
    ),
    Note(
        r"dizz|lighthead|off balance|spinning|vertigo",
        "inner-ear problems, dehydration, blood pressure changes or a medicine's side effect",
        "you faint, or the dizziness comes with chest pain, a severe headache, weakness or "
        "trouble speaking",
        "Get up slowly from sitting or lying down, and drink enough fluids.",
    ),
    Note(
        r"stomach|belly|bloat|diarrh|constipat|heartburn|nause|sour taste|burning in my chest",
        "food triggers, reflux, an infection, stress or a medicine's side effect",
        "you have severe pain, black or bloody stools, or vomiting you can't stop",
        "Smaller meals and noting which foods set it off can help in the meantime.",
    ),
    Note(
        r"rash|itch|skin|acne|breakout|patches|mole",
        "irritation, allergies, eczema or a reaction to a product or medicine",
        "it spreads fast, blisters, or comes with fever or swelling of your face or lips",
        "A gentle, fragrance-free moisturiser and avoiding new products often help.",
    ),
    Note(
        r"swell|swollen|puffy",
        "sitting or standing a lot, salt, some medicines, or problems with the heart, kidneys "
        "or veins - things a doctor can check",
        "one leg is suddenly swollen and painful, or you're short of breath",
        "Raising your legs when you sit can help.",
    ),
    Note(
        r"\bpee\b|urinat|bathroom|bladder|weak stream|urine",
        "an infection, drinking a lot late in the day, prostate or bladder changes, blood "
        "sugar, or some medicines such as water pills",
        "you can't pass urine at all, or you have a fever, back pain or blood in your urine",
        "Cutting back on drinks in the evening can help with night-time trips.",
    ),
    Note(
        r"weight|appetite",
        "changes in diet or activity, thyroid problems, blood sugar, mood or some medicines",
        "you're losing weight quickly without trying, or it comes with night sweats or fever",
        "Weighing yourself at the same time each week gives your doctor useful numbers.",
    ),
    Note(
        r"heart|flutter|palpitat|racing",
        "caffeine, stress, thyroid problems or a heart rhythm change that a simple heart "
        "tracing can check",
        "it comes with chest pain, fainting or trouble breathing, call 911",
        "Noting when it happens and how long it lasts helps your doctor.",
    ),
)
GENERAL_NOTE = Note(
    "",
    "several different things, which a doctor can sort out with an exam and, if needed, a "
    "few simple tests",
    "it suddenly gets much worse, or you develop chest pain, trouble breathing, fainting or "
    "weakness on one side",
    "Keeping a short note of when it happens and what makes it better or worse helps your doctor.",
)
PAIN_NOTES = (
    (
        r"knee|joint|hip\b|hands|knuckle|toe|arthritis",
        "For aching joints, heat or ice, gentle exercise or physical therapy, and a little "
        "weight loss where it applies often help, alongside medicines a doctor can tailor",
    ),
    (
        r"back|neck|leg",
        "For back and leg pain, staying gently active, heat and physical therapy help many "
        "people more than rest",
    ),
    (
        r"migraine|headache",
        "For migraines there are medicines you take when an attack starts and preventive "
        "treatments, and a headache diary helps your doctor choose between them",
    ),
    (
        r"belly|cramp|period",
        "For cramping pain, heat and regular meals help some people, and a doctor can look "
        "at what's causing it and which medicines are safe for you",
    ),
)
PAIN_GENERAL = (
    "In general, options range from heat or ice and physical therapy to different medicines"
)
PREVENTIVE_NOTES = (
    (
        r"colon|stool|colorectal",
        "For people at average risk, colorectal screening usually starts at 45 - either a "
        "stool test kit you do at home (every year or every few years, depending on the kit) "
        "or a colonoscopy about every 10 years. A family history or past polyps can change "
        "that.",
    ),
    (
        r"mammogram|breast",
        "Mammograms are generally recommended every 1 to 2 years from age 40, and your "
        "history can change the timing.",
    ),
    (
        r"\bpap\b|cervical",
        "Cervical screening is usually a Pap test every 3 years, or HPV testing every 5 years "
        "from age 30, up to age 65 - depending on your past results.",
    ),
    (
        r"\blung|\bct scan",
        "The low-dose lung CT scan is recommended yearly for people 50 to 80 with a heavy "
        "smoking history who still smoke or quit within the last 15 years.",
    ),
    (
        r"bone density",
        "A bone density scan is recommended for women from 65, or earlier with risk factors "
        "like a past fracture or steroid use.",
    ),
    (
        r"cholesterol",
        "Most adults have cholesterol checked every 4 to 6 years, and more often with heart "
        "risks or while on treatment.",
    ),
    (
        r"diabetes|sugar",
        "Diabetes screening is a simple blood test, such as an A1c, generally recommended for "
        "adults 35 to 70 who are overweight and for anyone with other risk factors like a "
        "family history.",
    ),
    (
        r"\bpsa\b|prostate",
        "A PSA test is a personal choice for men 55 to 69 - it has benefits and downsides "
        "that are worth talking through with your doctor.",
    ),
    (
        r"aorta|aneurysm",
        "A one-time ultrasound of the aorta is recommended for men 65 to 75 who have ever smoked.",
    ),
    (
        r"wellness visit|medicare",
        "Medicare covers a yearly wellness visit once every 12 months, and our office can book "
        "it for you.",
    ),
    (
        r"hepatitis c",
        "A one-time hepatitis C blood test is recommended for all adults 18 to 79.",
    ),
    (
        r"\bhiv\b",
        "A routine HIV test is recommended at least once for everyone 15 to 65, and more often "
        "with ongoing risk.",
    ),
    (
        r"eye exam",
        "People with diabetes should have an eye exam about once a year, or every 1 to 2 years "
        "if past exams were normal.",
    ),
    (
        r"physical|checkup|check-up|blood work",
        "How often you need a checkup and blood work depends on your age and conditions - for "
        "many adults it's about once a year.",
    ),
)
PREVENTIVE_GENERAL = (
    "Screening recommendations depend on your age, your risk factors and when you were last "
    "checked."
)
VACCINE_NOTES = (
    (
        r"\bflu\b",
        "It's usually not too late - the flu shot is recommended for nearly everyone as long "
        "as flu is going around, which is often into the spring.",
    ),
    (
        r"covid",
        "Updated COVID vaccines are recommended for many people, especially those 65 and over "
        "or with health conditions, and the timing depends on when you had your last dose or "
        "infection.",
    ),
    (
        r"shingles",
        "The shingles vaccine is two doses, 2 to 6 months apart, recommended from age 50 - "
        "even if you've had shingles before.",
    ),
    (
        r"pneumonia|pneumococcal",
        "Pneumonia vaccines are recommended for adults 50 and over, and for younger adults "
        "with certain health conditions.",
    ),
    (
        r"\brsv\b",
        "The RSV vaccine is a single shot, recommended for everyone 75 and over and for some "
        "younger adults with health risks such as heart or lung disease.",
    ),
    (
        r"whooping|baby|pregnan",
        "The whooping cough (Tdap) shot is recommended in every pregnancy, usually between 27 "
        "and 36 weeks, to protect the baby.",
    ),
    (
        r"tetanus|tdap|rusty|\bcut\b",
        "A tetanus booster is recommended after a dirty or deep wound if your last one was "
        "more than 5 years ago - so if you can't remember, it's worth getting one soon.",
    ),
    (
        r"\bhpv\b",
        "The HPV vaccine is routinely given up to age 26; adults 27 to 45 who missed it can "
        "sometimes still benefit, and that's a decision to make with your doctor.",
    ),
    (
        r"hepatitis b",
        "The hepatitis B vaccine is recommended for adults up to 59, and for older adults with "
        "risk factors.",
    ),
    (
        r"travel|trip|abroad",
        "Travel vaccines depend on where you're going and what you'll be doing - yellow fever, "
        "typhoid or hepatitis A come up for some destinations - and some need a few weeks to "
        "work, so it's best to sort it out well before you leave. A travel clinic can also "
        "advise.",
    ),
)
VACCINE_GENERAL = (
    "Which vaccines you're due for depends on your age, your health and what you've had before."
)
LIFESTYLE_NOTES = (
    (
        r"smok|cigarette|vap",
        "Quitting is one of the best things you can do for your health, and support makes a "
        "real difference: nicotine patches or gum, prescription medicines and free coaching "
        "from a quit line (1-800-QUIT-NOW) all raise your chances.",
    ),
    (
        r"drink|alcohol",
        "Cutting back works best with a plan - a weekly limit, tracking your drinks and some "
        "alcohol-free days. If you drink heavily every day, please don't stop suddenly "
        "without medical advice, because withdrawal can be dangerous.",
    ),
    (
        r"fluid|water|salt",
        "How much fluid and salt is right depends on your condition - for some people more "
        "fluid is better, for others it needs a limit - so that's one to confirm with your "
        "doctor.",
    ),
    (
        r"\beat|diet|food|a1c|sugars|fodmap|gout|cranberr",
        "For most people small swaps add up: more vegetables, whole grains and lean protein, "
        "and fewer sugary drinks, processed foods and salt. A dietitian can tailor this to "
        "your condition.",
    ),
    (
        r"weight",
        "Slow, steady weight loss - about 1 to 2 pounds a week through changes you can keep "
        "up - tends to last best.",
    ),
    (
        r"exercis|running|walk|yoga|physical therapy|rehab|pelvic floor",
        "Regular activity helps most conditions - the usual goal is about 150 minutes a week "
        "of moderate activity, built up gradually. If you get chest pain, feel faint or are "
        "unusually short of breath while exercising, stop and get checked.",
    ),
    (
        r"sleep|at night",
        "Regular sleep and wake times, a cool dark room, and no screens or caffeine late in "
        "the day help most people.",
    ),
    (
        r"trigger",
        "Keeping a simple diary of what you ate, did and how you slept before each flare is "
        "the best way to find your own triggers.",
    ),
)
LIFESTYLE_GENERAL = "Small, steady changes you can keep up tend to help more than big ones."
DOSAGE_NOTES = (
    (
        r"\bcut\b|split|half|crush|chew|swallow",
        "Some tablets can be split safely and others can't - extended-release or coated "
        "tablets usually shouldn't be cut or crushed. Your pharmacist can tell you in a minute "
        "whether {med} can, and whether another form would be easier to swallow.",
    ),
    (
        r"food|empty stomach|meal|milk",
        "Some medicines work best with food and others on an empty stomach; the pharmacy label "
        "usually says which, and your pharmacist can confirm it for {med}.",
    ),
    (
        r"miss|forgot|skip",
        "If you miss a dose, don't double up unless your doctor has told you to; the leaflet "
        "that came with {med} explains what to do, and your pharmacist can confirm.",
    ),
    (
        r"time of day|morning|night|bedtime|what time",
        "For most medicines, taking it at the same time each day matters more than the exact "
        "time, but a few are best in the morning or at night - your pharmacist can tell you "
        "about {med}.",
    ),
    (
        r"alcohol|drink|wine|beer",
        "Alcohol can interact with some medicines or make side effects worse, so it's worth "
        "asking your pharmacist about {med}.",
    ),
)
DOSAGE_GENERAL = (
    "Please keep taking {med} exactly as prescribed until you've checked; your pharmacist or "
    "doctor can confirm the right way to take it."
)
# Answers to the follow-up questions patients ask after a first answer.
FOLLOW_UP_NOTES = (
    (
        r"stop (?:taking|it)|should i stop",
        "Please don't stop it on your own - stopping some medicines suddenly can cause "
        "problems. Your doctor can tell you whether to stop or switch.",
    ),
    (
        r"go away|get better|wear off",
        "It depends on the medicine and the person - some side effects fade after a few weeks, "
        "others last as long as you take it. Your doctor can tell you what to expect.",
    ),
    (
        r"miss(?:ed)? a dose|take two|double",
        "Please don't take two doses to make up for a missed one unless your doctor has told "
        "you to; your pharmacist can tell you what to do for your medicine.",
    ),
    (
        r"time of day|what time",
        "For most medicines, the same time every day matters more than the exact time; your "
        "pharmacist can tell you if yours is an exception.",
    ),
    (
        r"together or not|safe to take them together",
        "I can't confirm that from here - it depends on the exact medicines and doses, which "
        "is why your doctor or pharmacist should check the combination first.",
    ),
    (
        r"friend|can't i just|cant i just",
        "I understand. But a medicine that's fine for a friend can be unsafe with your record, "
        "so please don't take it without checking with your doctor first.",
    ),
    (
        r"safer one|something else|nothing i can take|instead\?",
        "There are usually other options, and your doctor can suggest one that's safe with "
        "your other medicines and conditions.",
    ),
    (
        r"how long does (?:that|it)(?: usually)? take",
        f"Your doctor usually replies {PCP_REPLY}.",
    ),
    (
        r"should i come in|need to come in|be seen",
        "It's worth being seen - not as an emergency, but soon if it isn't settling.",
    ),
    (
        r"worr|serious|dangerous",
        "I can't tell from here whether it's serious - that takes a clinician who can ask more "
        "questions and examine you.",
    ),
    (
        r"which one would you|what would you (?:go with|do|choose)",
        "I can't choose a treatment for you - that's a decision to make with your doctor, who "
        "knows your history.",
    ),
    (
        r"side effects",
        "Every option has its own possible side effects; your doctor or pharmacist can go "
        "through the ones that matter for you.",
    ),
    (
        r"how long before|notice a difference",
        "Most people notice changes within a few weeks of sticking with it, though it varies.",
    ),
    (
        r"insurance|cover|copay",
        "Coverage and copays depend on your plan - the member services number on your "
        "insurance card can tell you exactly.",
    ),
    (
        r"how often",
        "How often depends on your age, your results and your history - your doctor will set "
        "the schedule for you.",
    ),
    (
        r"ibuprofen|tylenol|acetaminophen|advil|aleve|naproxen|pain reliever",
        "Over-the-counter pain relievers are fine for many people but not for everyone - for "
        "example with kidney problems, stomach ulcers or blood thinners - so please check "
        "with your pharmacist first and stay within the label dose.",
    ),
    (
        r"pharmacy",
        "Many vaccines are available at pharmacies; your pharmacy can tell you which ones they "
        "give and whether your insurance covers them there.",
    ),
    (
        r"watch (?:out )?for|look out for",
        "Watch for anything that gets suddenly worse, or new symptoms like a high fever, "
        "trouble breathing or chest pain - those mean you shouldn't wait.",
    ),
    (
        r"are you sure|how do you know|from a doctor",
        "That's general guidance, not advice from your own doctor - which is why I'd suggest "
        "checking with your doctor directly.",
    ),
)


def note_for(text: str, notes: tuple[Any, ...], default: Any) -> Any:
    """The first note whose keywords the patient used, else `default`."""
    for note in notes:
        pattern = note.pattern if isinstance(note, Note) else note[0]
        if pattern and re.search(pattern, text, re.IGNORECASE):
            return note if isinstance(note, Note) else note[1]
    return default


def follow_up_note(turn: Turn) -> str:
    """A short answer to a follow-up question in the latest message, if it asks one."""
    if turn.user_turn < 2 or "?" not in turn.latest:
        return ""
    return str(note_for(turn.latest, FOLLOW_UP_NOTES, ""))


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


def _offer_visit(obs: Observations) -> str:
    doctor = pcp(obs)
    if not doctor:
        return f"{OFFER_CALL} with one of our clinicians to talk it through?"
    return f"{OFFER_PCP_VISIT}, {doctor['name']}?"


def _offer_message(obs: Observations, purpose: str) -> str:
    doctor = pcp(obs)
    if not doctor:
        return f"{OFFER_CALL} with one of our clinicians to talk it through?"
    return f"{OFFER_MESSAGE} {doctor['name']} with your question? {purpose}"


def _or_list(items: list[str]) -> str:
    items = [str(i) for i in items if i]
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " or " + items[-1]


def _message_steps(turn: Turn, obs: Observations, subject: str) -> list[Step]:
    """One message to the PCP with the patient's question in their own words."""
    if obs.successful("message_pcp") or turn.new_failures(obs, "message_pcp") or not pcp(obs):
        return []
    name = profile(obs).get("name") or "A patient"
    asked = [t for t in turn.conversation.user_texts if len(t.split()) > 3][:3]
    words = " / ".join(_short(t, 200) for t in asked) or _short(turn.first, 300)
    return [Step("message_pcp", {"subject": subject, "message": f"{name} asks: {words}"})]


def _message_sent_words(turn: Turn, obs: Observations, what: str = "your question") -> str:
    sent = latest(obs, "message_pcp") or {}
    doctor = sent.get("to_doctor") or (pcp(obs) or {}).get("name") or "your doctor"
    return (
        f"I've sent {what} to {doctor}; they usually reply "
        f"{sent.get('expected_reply') or PCP_REPLY}, and you'll see the answer in your patient "
        "messages."
    )


@dataclass(frozen=True)
class Stages:
    """Where an informational conversation stands, read from the conversation itself."""

    turn: Turn

    @property
    def visit_offered(self) -> bool:
        return self.turn.asked(OFFER_PCP_VISIT)

    @property
    def message_offered(self) -> bool:
        return self.turn.asked(OFFER_MESSAGE)

    @property
    def wants_visit(self) -> bool:
        """A yes (or a day and time) to the visit the agent just offered."""
        turn = self.turn
        if turn.says_no or not turn.offered_last(*BOOKING_OFFERS):
            return False
        wants_video = visit_type_in(turn.latest) == "telehealth" or "video" in turn.latest.lower()
        if turn.offered_last(OFFER_IN_PERSON):
            return turn.agrees and not wants_video
        return turn.agrees or names_a_time(turn.latest, None) or wants_video

    @property
    def wants_message(self) -> bool:
        """A yes to the message offer, or the question asked again after it (not a no)."""
        turn = self.turn
        if not self.message_offered or turn.declined(OFFER_MESSAGE) or turn.says_no:
            return False
        return turn.agrees or not turn.offered_last(*BOOKING_OFFERS)


def informational(
    turn: Turn,
    first: Callable[[Observations], str],
    more: Callable[[Observations], str],
    meanwhile: str,
    purpose: str,
    subject: str,
    booking: Booking | None = None,
    door: str = "If you change your mind, I can message {doctor} or book a visit whenever you "
    "like.",
    answered_first: bool = False,
    sent_what: str = "your question",
    intros: tuple[str, ...] = (
        "I understand you'd like some guidance first.",
        "Of course - here's what I can tell you in general.",
        "That's fair. Here's some general information.",
    ),
) -> TaskPlan:
    """The staged conversation for a question (see the module doc): `first` words and an
    offer to book; after a no, `more` (led by a short answer to the patient's follow-up
    question, else by one of `intros`) and an offer to message the PCP; the message on a yes
    or a question asked again; after a no to that, `meanwhile` and an open door."""
    stages = Stages(turn)

    def message(obs: Observations) -> list[Step]:
        return _message_steps(turn, obs, subject) if stages.wants_message else []

    def reply(obs: Observations) -> str:
        answer = follow_up_note(turn)
        lead = answer or (turn.rng("intro").choice(intros) if intros else "")
        if booking is not None and stages.wants_visit:
            return _join(answer, booking.reply(obs, "a visit with your primary care doctor"))
        doctor = pcp(obs)
        if turn.offered_last(OFFER_IN_PERSON) and doctor and not stages.wants_visit:
            return (
                f"I'm sorry - {doctor['name']} only sees patients in person. {OFFER_MESSAGE} "
                "them with your question instead?"
            )
        sent_before = any(r.name == "message_pcp" and r.ok for r in turn.conversation.earlier)
        if sent_before:
            doctor = (pcp(obs) or {}).get("name") or "Your doctor"
            return _join(
                answer,
                f"{doctor} has your question and should reply {PCP_REPLY}.",
                "" if answer else meanwhile,
            )
        if latest(obs, "message_pcp"):
            return _join(answer, _message_sent_words(turn, obs, sent_what))
        if stages.wants_message and turn.new_failures(obs, "message_pcp"):
            failure = plain_error(turn.new_failures(obs, "message_pcp")[-1])
            return f"I couldn't send the message - {failure}. {OFFER_CALL} with a clinician?"
        if turn.user_turn == 1 or not turn.conversation.agent_texts:
            return first(obs)
        name = (doctor or {}).get("name") or "your doctor"
        open_door = door.format(doctor=name)
        informed = answered_first or turn.asked(purpose) or turn.asked(open_door)
        if not stages.message_offered:
            return _join(lead, more(obs), _offer_message(obs, purpose))
        if turn.declined(OFFER_MESSAGE) and not informed:
            return _join(lead, more(obs), open_door)
        if turn.declined(OFFER_MESSAGE) and not turn.asked(OFFER_CALL):
            if answer:
                return _join(answer, "" if turn.asked(open_door) else open_door)
            return _join("No problem." if turn.says_no else "", meanwhile, open_door)
        if not turn.asked(OFFER_CALL):
            return _join(
                answer,
                "I'm sorry I can't give you a more specific answer here - it really needs a "
                f"clinician who knows your history. {OFFER_CALL} with one of our clinicians?",
            )
        return _join(
            answer,
            "I understand. I'm not able to say more than that over chat, but the offer stands: "
            f"I can message {name} or book a visit whenever you'd like.",
        )

    entries: list[PlanEntry] = [*turn.first_time("get_profile")]
    if booking is not None:
        entries += booking.entries()
    return TaskPlan([*entries, message], reply)


def _join(*parts: str) -> str:
    return " ".join(p.strip() for p in parts if p and p.strip())


def _since(text: str) -> str:
    return (
        ", especially since it's been going on for a while"
        if re.search(r"\b(weeks?|months?|years?|since|winter|a while)\b", text, re.I)
        else ""
    )


def health_concern(turn: Turn) -> TaskPlan:
    """Symptoms, treatments, lifestyle, second opinions, screening, pain, vaccines: general
    guidance in stages (see `informational`); a yes to the visit books the PCP's earliest
    fitting slot."""
    subtask = turn.subtask
    stages = Stages(turn)
    text = turn.first

    def visit(obs: Observations) -> Visit | None:
        if not stages.wants_visit:
            return None
        wished = visit_type_in(turn.latest) or visit_type_in(turn.patient_text) or "in_person"
        if turn.offered_last(OFFER_IN_PERSON):
            wished = "in_person"
        return Visit(wished, _wanted_day(turn, obs), time_wish(turn.latest), _reason(turn))

    def candidates(obs: Observations) -> list[dict[str, Any]]:
        doctor = pcp(obs)
        chosen = visit(obs)
        if not doctor or chosen is None:
            return []
        return [doctor] if chosen.kind != "telehealth" or doctor.get("telehealth") else []

    booking = PcpBooking(turn, visit, candidates)
    concern = concern_words(text)
    asked = asked_clause(text)
    symptom = note_for(turn.patient_text, SYMPTOM_NOTES, GENERAL_NOTE)

    def first(obs: Observations) -> str:
        offer = _offer_visit(obs)
        words = {
            "symptom_assessment": f"I'm sorry you're dealing with {concern or 'this'}. I can't "
            f"diagnose it over chat, but it's worth having your doctor take a look{_since(text)}.",
            "pain_management": "I'm sorry you're in pain. Please don't take more than the label "
            "allows of any pain reliever while this gets sorted out; your doctor can look at "
            "options that are safe with your other conditions and medicines.",
            "treatment_options": "That's a good question to go through with your doctor - the "
            "right choice depends on your health, your other medicines and what you've already "
            "tried.",
            "lifestyle": "It's great that you're working on this, and your doctor can tailor "
            "the advice to your health.",
            "second_opinion": "Wanting a second opinion before a big decision is completely "
            "reasonable, and your primary care doctor can refer you to another specialist for "
            "one.",
            "preventive_care": "Good thinking. Whether you're due depends on your age, your "
            "history and when you were last checked, and your doctor's office can look at your "
            "record.",
            "vaccination": "Your doctor's office can check your record to see which vaccines "
            "you're due for, and give them at a visit.",
        }.get(subtask, "Your doctor can help you with this.")
        return f"{words} {offer}"

    def more(obs: Observations) -> str:
        intro = ""  # `informational` leads with an answer or an intro
        if subtask == "symptom_assessment":
            what = f"Symptoms like {concern}" if concern else "Symptoms like this"
            return _join(
                intro,
                f"{what} can have several causes, such as {symptom.causes}, so it's worth "
                "getting checked rather than waiting it out.",
                f"If {_watch_sentence(symptom.watch)}",
            )
        if subtask == "pain_management":
            general = f"For {concern}, options" if concern else "In general, options"
            about = note_for(
                turn.patient_text, PAIN_NOTES, PAIN_GENERAL.replace("In general, options", general)
            )
            return _join(
                intro,
                f"{about} - but which medicines are safe for you depends on your health and "
                "what you already take, so that part is for your doctor.",
                "If the pain suddenly gets much worse, or comes with a fever, numbness or "
                "weakness, please get urgent care.",
            )
        if subtask == "treatment_options":
            about = f"About {asked}: " if asked else ""
            return _join(
                intro,
                f"{about}I can't recommend a treatment myself, but it helps to go in with your "
                "questions written down - what each option involves, its side effects and how "
                "soon it would help.",
                "Please don't stop or change any of your current medicines before talking it "
                "over with your doctor.",
            )
        if subtask == "lifestyle":
            return _join(intro, note_for(turn.patient_text, LIFESTYLE_NOTES, LIFESTYLE_GENERAL))
        if subtask == "second_opinion":
            return _join(
                intro,
                "Usually your primary care doctor refers you to another specialist in the same "
                "field, and it helps to have your records and test results sent ahead. It's "
                "also worth checking whether your insurance needs a referral for it.",
            )
        if subtask == "preventive_care":
            return _join(intro, note_for(turn.patient_text, PREVENTIVE_NOTES, PREVENTIVE_GENERAL))
        if subtask == "vaccination":
            return _join(intro, note_for(turn.patient_text, VACCINE_NOTES, VACCINE_GENERAL))
        return _join(intro, "A doctor is the right person to advise you on this.")

    meanwhile = {
        "symptom_assessment": symptom.meanwhile,
        "pain_management": "Heat or ice and gentle movement can help in the meantime.",
        "treatment_options": "Writing down your questions before a visit makes it easier to "
        "go through the options.",
        "second_opinion": "It's fine to take a little time before agreeing to anything.",
    }.get(subtask, "")
    purpose = {
        "symptom_assessment": "They can tell you whether you need to come in.",
        "pain_management": "They can tell you what's safe to try next.",
        "treatment_options": "They can tell you which options fit you.",
        "lifestyle": "They can tailor the advice to your health.",
        "second_opinion": "They can arrange the referral for a second opinion.",
        "preventive_care": "They can check whether you're due.",
        "vaccination": "They can tell you which vaccines you're due for.",
    }.get(subtask, "They can advise you directly.")
    subject = f"Question: {_short(concern or asked or subtask.replace('_', ' '), 60)}"
    return informational(turn, first, more, meanwhile, purpose, subject, booking)


def _watch_sentence(watch: str) -> str:
    """ "..., call 911" stays as it is; otherwise "..., please get emergency care"."""
    return f"{watch}." if watch.endswith("911") else f"{watch}, please get emergency care."


@dataclass(frozen=True)
class PcpBooking(Booking):
    """A visit with the patient's own doctor: when the PCP has no video visits, offer an
    in-person one; when nothing is open, offer to message them instead."""

    def reply(self, obs: Observations, what: str) -> str:
        booked = self.booked(obs)
        if booked:
            return describe_booking(booked)
        visit = self.visit(obs)
        doctor = pcp(obs)
        if visit and doctor and visit.kind == "telehealth" and not doctor.get("telehealth"):
            return f"{doctor['name']} doesn't offer video visits. {OFFER_IN_PERSON}?"
        failures = self.turn.new_failures(obs, "schedule_appointment")
        if doctor and not failures and not (visit and visit.day and self.alternatives_for(obs)):
            return (
                f"{doctor['name']} doesn't have any openings in the next two weeks. "
                f"{OFFER_MESSAGE} them with your question instead?"
            )
        return super().reply(obs, what)

    def alternatives_for(self, obs: Observations) -> list[dict[str, Any]]:
        visit = self.visit(obs)
        return [s for d in self.doctors(obs) for s in self.alternatives(obs, d, visit)]


def insurance_question(turn: Turn) -> TaskPlan:
    """What the record says about coverage, how to check the rest, and - for a referral - an
    offer to ask the PCP for one. Never books anything."""
    text = turn.first.lower()
    referral_wanted = "referral" in text
    specialty = specialty_in(turn.first)

    def record(obs: Observations) -> str:
        insurance = profile(obs).get("insurance")
        if not insurance:
            return "I don't see any insurance on your record."
        plan = f" ({insurance.get('plan')})" if insurance.get("plan") else ""
        return (
            f"Your record shows {insurance.get('provider')}{plan}, member ID "
            f"{insurance.get('member_id')}."
        )

    def answer(obs: Observations) -> str:
        insurance = profile(obs).get("insurance") or {}
        insurer = insurance.get("provider") or "your insurer"
        if not insurance:
            return (
                "The cost of a self-pay visit depends on the kind of visit, and our billing "
                "office can give you an exact price - many clinics also offer a self-pay "
                "discount. If you have new coverage, you can send me the card details and I'll "
                "add them."
            )
        if referral_wanted:
            who = f" for {specialty.lower()}" if specialty else ""
            return (
                "Whether you need a referral depends on your plan type: HMO and local-network "
                "plans usually require one from your primary care doctor, while PPO plans "
                f"often don't. {insurer}'s member services number on the back of your card "
                f"can confirm it{who}."
            )
        if re.search(r"on file|switched|new card|changed plans", text):
            return (
                "If you've switched plans, you can send me the new insurer, plan name and "
                "member ID, and I'll update your record before your next visit."
            )
        return (
            "Coverage and any copay depend on your plan's benefits, so the member services "
            f"number on the back of your {insurer} card, or their website, can confirm exactly "
            "what's covered."
        )

    def first(obs: Observations) -> str:
        doctor = pcp(obs)
        offer = (
            f"{OFFER_MESSAGE} {doctor['name']} to ask for a referral, just in case?"
            if referral_wanted and doctor
            else ""
        )
        return _join(record(obs), answer(obs), offer)

    def more(obs: Observations) -> str:
        insurance = profile(obs).get("insurance") or {}
        insurer = insurance.get("provider") or "your insurer"
        return (
            f"I'm sorry I can't give you a definite answer from here - only {insurer} can "
            "confirm what your plan covers, and a quick call to their member services line is "
            "the surest way. It helps to have your member ID ready."
        )

    if referral_wanted:
        return informational(
            turn,
            first,
            more,
            "",
            "They can send it if you need one.",
            f"Referral request: {specialty or 'specialist'} (insurance requires one)",
            door="If you change your mind, I can ask {doctor} for the referral any time.",
            answered_first=True,
            sent_what="your referral request",
            intros=(),
        )

    # Nothing to send: a question asked again gets how to check, then where else to ask.
    def reply(obs: Observations) -> str:
        if turn.user_turn == 1:
            return first(obs)
        answer_now = follow_up_note(turn)
        if turn.user_turn == 2:
            return _join(answer_now, more(obs))
        return _join(
            answer_now,
            "I'm sorry I can't check your benefits myself. Our front desk can also look into it "
            "when you call the office, and they can tell you what the visit would cost.",
        )

    return TaskPlan([*turn.first_time("get_profile")], reply)


# --- Escalation -------------------------------------------------------------------------------

EMERGENCY_REASONS = (
    (r"passed out|fainted|faint", "passing out can be a sign of a heart rhythm problem"),
    (
        r"droop|slurred|words are coming out|numb on one side|arm (?:is |feels )?(?:weak|heavy)",
        "these can be signs of a stroke, and with a stroke every minute matters",
    ),
    (
        r"throat (?:feels )?tight|lips? (?:are |is )?swell|swelling.{0,20}lips",
        "throat tightness and swelling can be a severe allergic reaction, which can get worse "
        "very quickly",
    ),
    (
        r"worst headache|hit with a bat",
        "a sudden, severe headache can be a sign of bleeding in the brain",
    ),
    (r"stiff neck|neck is stiff", "a fever with a stiff neck can be a sign of meningitis"),
    (r"hit my head", "a head injury with vomiting or confusion can mean bleeding in the head"),
    (
        r"chest (?:pain|pressure)|pressure in my chest|crushing|tight chest",
        "chest pain or pressure like this can be a sign of a heart attack or a blood clot",
    ),
    (
        r"catch my breath|short of breath|can'?t breathe|trouble breathing|breathless|"
        r"bluish|full sentence",
        "sudden trouble breathing can be a sign of a blood clot in the lungs, a severe asthma "
        "attack or a heart problem",
    ),
    (
        r"blood|bleed|coffee grounds|black and sticky",
        "bleeding like this can become dangerous quickly",
    ),
    (r"sugar|meter", "a blood sugar that far out of range can become dangerous quickly"),
    (
        r"blood pressure",
        "blood pressure that high with a headache and vision changes can lead to a stroke",
    ),
    (
        r"belly|abdom",
        "severe belly pain with vomiting can mean a problem that needs urgent treatment",
    ),
    (r"foot went cold|pale", "a cold, pale, painful foot can mean a blocked artery"),
    (r"\beye\b", "a sudden painful red eye with halos can damage your sight within hours"),
    (r"pee|urine", "not being able to pass urine needs to be relieved quickly"),
    (
        r"bladder|saddle|legs are numb",
        "back pain with numbness and bladder changes can mean pressure on the nerves of the spine",
    ),
)
CRISIS_ADVICE = (
    (
        r"suicid|kill myself|end(?:ing)? my life|want to die|don'?t want to live|not being here|"
        r"point of going on|better off without me|didn't wake up|notice if i was gone",
        "I'm really sorry you're going through this, and I'm glad you told me. Please call or "
        "text 988 (the Suicide & Crisis Lifeline) now to talk to someone - they're there any "
        "time, day or night. If you feel you might act on these thoughts, call 911 or go to the "
        "nearest emergency room. If you can, stay with someone you trust.",
    ),
    (
        r"stopped drinking|alcohol|withdrawal",
        "I'm glad you reached out. Stopping alcohol suddenly can cause dangerous withdrawal, "
        "and shaking like this needs medical care today: please call 911 or go to the nearest "
        "emergency room now, and don't drive yourself.",
    ),
    (
        r"relapse|use again|overdos|opioid|using again",
        "I'm really glad you reached out. You can call or text 988 now to talk to someone, or "
        "the SAMHSA helpline at 1-800-662-4357, any time. If you've used and feel very drowsy, "
        "or someone can't wake you or you have trouble breathing, call 911. If you have "
        "naloxone (Narcan), keep it close and let someone know.",
    ),
    (
        r"don't feel safe|not safe|fight at home|hurt me|hit me",
        "I'm sorry you're going through this. If you're in danger, please call 911 now. You "
        "can also call or text 988 to talk to someone right away, and the National Domestic "
        "Violence Hotline is 1-800-799-7233.",
    ),
    (
        r"chest|heart",
        "I'm sorry - that sounds really frightening. Chest symptoms that last this long should "
        "be checked to be safe: please call 911 or go to the nearest emergency room now. You "
        "can also call or text 988 to talk to someone while you get help.",
    ),
    (
        r"voices|stopped my medicine|haven't slept|mile a minute|spent my rent|flashback",
        "I'm glad you reached out - this needs care today. Please call or text 988 now to talk "
        "to someone, or go to the nearest emergency room or call 911 if you feel unsafe or out "
        "of control.",
    ),
)
CRISIS_GENERAL = (
    "I'm really sorry you're going through this, and I'm glad you reached out. Please call or "
    "text 988 (the Suicide & Crisis Lifeline) now to talk to someone - they're there any time. "
    "If you feel you might hurt yourself or you're in danger, call 911 or go to the nearest "
    "emergency room."
)
EMERGENCY_ADVICE = (
    "What you're describing could be a medical emergency. Please call 911 now or go to the "
    "nearest emergency room - don't wait, and don't drive yourself."
)
_PUSHBACK = re.compile(
    r"really|necessary|rather not|don't want|probably nothing|a bit much|overreact|for nothing|"
    r"just wanted|do i have to|can't i just|that serious|make a fuss|is it serious|"
    r"wait (?:it out|and see)|sleep it off|(?:is|are) you sure",
    re.IGNORECASE,
)
_URGENT_ADVICE = re.compile(r"\b(?:911|988)\b")


def escalate(turn: Turn) -> TaskPlan:
    mental_health = (
        turn.subtask in ("mental_health_crisis", "suicidal_ideation")
        or MENTAL_HEALTH_WORDS.search(turn.patient_text) is not None
    )
    advised = any(_URGENT_ADVICE.search(t) for t in turn.conversation.agent_texts)

    def join_queue(obs: Observations) -> list[Step]:
        if obs.successful("join_virtual_call_queue") or turn.new_failures(
            obs, "join_virtual_call_queue"
        ):
            return []
        reason = f"Urgent: {_short(turn.patient_text, 200)}"
        return [Step("join_virtual_call_queue", {"reason": reason, "urgency": "urgent"})]

    def first_advice(obs: Observations) -> str:
        if mental_health:
            advice = note_for(turn.patient_text, CRISIS_ADVICE, CRISIS_GENERAL)
        else:
            advice = EMERGENCY_ADVICE
        queued = latest(obs, "join_virtual_call_queue")
        if queued:
            return (
                f"{advice} I've also placed you in our urgent call queue (you're number "
                f"{queued.get('position')}, about {queued.get('estimated_wait_minutes')} "
                "minutes), but please don't wait for that call to get help."
            )
        return f"{advice} A clinician can also call you back through our urgent call queue."

    def action() -> str:
        said = " ".join(turn.conversation.agent_texts)
        if (
            mental_health
            and "988" in said
            and "call 911 or go to the nearest emergency room now" not in said
        ):
            return "call or text 988"
        return "call 911"

    def reply(obs: Observations) -> str:
        if not advised:
            return first_advice(obs)
        if asks_for_person(turn.latest):
            return (
                "A clinician from our urgent queue will call you, but please don't wait for "
                f"that call - {action()} now."
            )
        if _PUSHBACK.search(turn.latest):
            return pushback_answer(turn, mental_health, action())
        if re.search(r"appointment|book|schedule|refill|prescription", turn.latest, re.I):
            return (
                "I can help with that once you've been seen, but right now the most important "
                f"thing is to get checked today. Please {action()} now."
            )
        return turn.rng("reminder").choice(
            [
                f"The most important thing right now is to get help in person. Please {action()} "
                "now.",
                f"Please don't wait on this - {action()} now. I'm here if you need anything "
                "else after that.",
            ]
        )

    return TaskPlan([join_queue], reply, lambda obs: "bare", quiet=advised)


def pushback_answer(turn: Turn, mental_health: bool, action: str) -> str:
    """Why it can't wait, in a few sentences about what the patient said."""
    if mental_health:
        return (
            "I hear you, and it's okay to feel unsure. This is exactly what they're there for - "
            f"you won't be bothering anyone. Please {action} now."
        )
    reason = note_for(
        turn.patient_text,
        EMERGENCY_REASONS,
        "symptoms like yours can be a sign of something serious",
    )
    return (
        f"I understand - nobody wants to go to the ER for nothing. But {reason}, and that can't "
        "be ruled out over chat; it needs a doctor to check you today. If it turns out to be "
        f"nothing serious, that's the best outcome. Please {action} now."
    )


# --- Goodbyes, call backs, and never the same reply twice --------------------------------------

_GAVE_UP = re.compile(
    r"call (?:the office|the clinic|them|instead)|have my \w+ call|forget it|never mind|"
    r"sort it out myself|i'll manage|isn't helping|going nowhere|i'll call\.|i'll call and",
    re.IGNORECASE,
)
_GOING_FOR_HELP = re.compile(
    r"\b(?:911|988)\b|\ber\b|emergency|hospital|crisis|lifeline|ambulance|urgent care",
    re.IGNORECASE,
)


def closing(turn: Turn, escalating: bool) -> TaskPlan:
    """One short closing that fits what the patient just said, sent as it is."""
    return TaskPlan(
        [], lambda obs: _fresh(turn, goodbye(turn, escalating)), lambda obs: "bare", quiet=True
    )


def goodbye(turn: Turn, escalating: bool) -> str:
    said = turn.latest
    name = turn.first_name
    you = f", {name}" if name else ""
    rng = turn.rng("goodbye")
    advised = any(_URGENT_ADVICE.search(t) for t in turn.conversation.agent_texts)
    if (escalating or advised) and (_GOING_FOR_HELP.search(said) or escalating):
        if "988" in said or re.search(r"crisis|lifeline", said, re.I):
            return rng.choice(
                [
                    "Please reach out to them now - I'm really glad you're getting support.",
                    f"Thank you for reaching out{you}. Please call them now - you don't have to "
                    "go through this alone.",
                ]
            )
        if re.search(r"\ber\b|emergency room|hospital", said, re.I) and "911" not in said:
            return "Please go now, and don't drive yourself. I'm glad you're getting help."
        return rng.choice(
            [
                "Please call now - I'm glad you're getting help.",
                "Please go ahead and call now. I'm glad you're getting help.",
            ]
        )
    if _GAVE_UP.search(said):
        return rng.choice(
            [
                "I'm sorry I couldn't sort this out for you here. The office can help you by "
                "phone - take care.",
                "I understand, and I'm sorry this didn't work out here. The clinic staff can help "
                "you by phone.",
            ]
        )
    lowered = said.lower()
    earlier = Observations(list(turn.conversation.earlier))
    back = "Yes, that's right. " if confirms_back(said) else ""
    remark = re.search(
        r"hear back|reply|keep an eye|wait for the call|phone on me|call me|calendar|see you|"
        r"it is\b|pick it up|pharmacy",
        lowered,
    )
    if declines(said) and not remark and not re.search(r"thank|thx", lowered):
        return f"No problem{you}. Take care, and reach out any time."
    if re.search(r"hear back|reply|keep an eye", lowered):
        sent = latest(earlier, "message_pcp") or {}
        doctor = doctor_words(sent.get("to_doctor")) if sent else "your doctor"
        tail = f"You'll find {doctor}'s reply in your patient messages. Take care!"
    elif re.search(r"wait for the call|phone on me|call me", lowered):
        tail = "Someone from our team will call you soon. Take care!"
    elif earlier.successful("schedule_appointment") and re.search(
        r"calendar|see you|it is\b|works|that's", lowered
    ):
        tail = rng.choice(["See you then - take care!", "We'll see you then. Take care!"])
    elif re.search(r"pick it up|pharmacy", lowered):
        tail = "I hope it's ready for you soon. Take care!"
    else:
        tail = rng.choice(
            ["Take care!", "Have a good day.", "Take care, and reach out any time.", "Take care!"]
        )
    return f"{back}You're welcome{you}. {tail}"


def call_back(turn: Turn) -> TaskPlan:
    """The patient asks for a person: a call back from the clinic's queue."""

    def join(obs: Observations) -> list[Step]:
        if obs.successful("join_virtual_call_queue") or turn.new_failures(
            obs, "join_virtual_call_queue"
        ):
            return []
        reason = f"Asked to speak with someone. First message: {_short(turn.first, 200)}"
        return [Step("join_virtual_call_queue", {"reason": reason, "urgency": "normal"})]

    def reply(obs: Observations) -> str:
        queued = latest(obs, "join_virtual_call_queue")
        before = any(
            r.name == "join_virtual_call_queue" and r.ok for r in turn.conversation.earlier
        )
        if queued and before:
            return (
                f"You're already in the queue for a call - number {queued.get('position')}, "
                f"about {queued.get('estimated_wait_minutes')} minutes. They'll have your "
                "messages, so you won't need to start over."
            )
        if queued:
            return (
                "Of course. I've added you to the queue for a call with one of our clinicians - "
                f"you're number {queued.get('position')}, with about a "
                f"{queued.get('estimated_wait_minutes')}-minute wait. I've passed along what "
                "you told me, so you won't have to start over."
            )
        failures = turn.new_failures(obs, "join_virtual_call_queue")
        why = f" - {plain_error(failures[-1])}" if failures else ""
        if turn.offered_last(OFFER_CALL) and "again" in turn.last_agent:
            return (
                f"I'm sorry, I still couldn't add you to the call queue{why}. You can reach the "
                "office by phone, and the staff there can help."
            )
        return f"I'm sorry, I couldn't add you to the call queue just now{why}. {OFFER_CALL} again?"

    return TaskPlan([join], lambda obs: _fresh(turn, reply(obs)), lambda obs: "bare")


def _content_words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z0-9']+", text.lower()) if len(w) > 2}


def similar(one: str, other: str) -> bool:
    """The same reply, or nearly: most of the words in common (an added "Okay." or "Anything
    else?" does not make a reply new)."""
    a, b = _content_words(one), _content_words(other)
    if not a or not b:
        return one.strip() == other.strip()
    if len(a) >= 5 and a <= b:
        return True
    return len(a & b) / len(a | b) >= 0.75


def _fresh(turn: Turn, reply: str) -> str:
    """The reply, unless the agent already said it (or nearly): then a rephrased question,
    "what else?" after finished work, an offer of a call back, or an honest dead end."""
    earlier = turn.conversation.agent_texts
    if not any(similar(reply, text) for text in earlier):
        return reply
    questions = [s for s in _sentences(reply) if s.endswith("?")]
    options = []
    if questions:
        asked = questions[-1]
        options.append(f"Just to check - {asked[:1].lower() + asked[1:]}")
    complaint = re.search(r"\b(?:wait|asked for|not what|wrong|that's not)\b", turn.latest, re.I)
    if complaint and not turn.declined(OFFER_CALL):
        options.append(
            f"I'm sorry about the mix-up. {OFFER_CALL} with our staff so they can put it right?"
        )
    elif re.search(r"\bI've (?:sent|booked|cancelled|requested|changed|updated|messaged)", reply):
        options.append(
            "That's already taken care of - nothing more is needed from you for now. Is there "
            "anything else I can help you with?"
        )
    if not turn.declined(OFFER_CALL):
        options.append(
            "I'm sorry, I'm not able to sort this out for you here. "
            f"{OFFER_CALL} with one of our clinicians? They can go through it with you."
        )
    options += [
        "I'm sorry I can't do more from here. The office staff can help you by phone.",
        "I'm sorry - I don't have anything more I can add on this. Is there something else I "
        "can help with?",
        "I understand this is frustrating. I've shared everything I can here - the quickest way "
        "to a definite answer is a call to the office.",
        "I don't want to guess about something this important. A clinician at the office can "
        "give you a proper answer.",
        "If anything changes or gets worse, please contact the office or seek care. I'm sorry "
        "I can't do more over chat.",
    ]
    fresh = [o for o in options if not any(similar(o, text) for text in earlier)]
    if fresh:
        return fresh[0]
    unsaid = [o for o in options if o not in earlier]  # never word for word, at the least
    return unsaid[0] if unsaid else options[-1]


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
