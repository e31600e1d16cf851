"""One turn of a clinic conversation as a workflow sees it, and what the tools said so far.

`Turn` reads the patient's messages and the agent's own earlier replies (never the hidden
story); the markers below are the fixed words of the agent's questions and offers, so that
finding one in an earlier reply means "already asked". The readers of tool results take the
newest successful answer and are lenient about its shape, because the sandbox owns it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from typing import Any

from sandbox.seeding import stable_rng

from ..plans import Conversation, Observations, Step, ToolResult, objects_in
from .reading import affirmative, declines

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
