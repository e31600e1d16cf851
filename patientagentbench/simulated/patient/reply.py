"""What the offline patient remembers, and the reply it is writing.

The patient keeps no state between calls: `PatientState` is rebuilt by replaying the
conversation, and `Reply` carries one turn's choices (seeded per turn) while the answer,
offer, ending and composing functions of the sibling modules decide what to say.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import date
from random import Random
from typing import Any

from sandbox.seeding import stable_rng

from . import phrases
from .case import details_of, subtask_of, today_of
from .needs import question_phrases
from .options import Option
from .persona import Facts, Persona
from .wording import capitalize_first, fillable, lower_first_word, word_set


@dataclass(frozen=True)
class PatientState:
    """Everything the patient remembers, rebuilt from the conversation on every reply."""

    turn: int = 0
    stalled: int = 0  # agent turns without progress, over the whole conversation
    finished: bool = False  # the closing or giving-up message was sent
    asked_for_human: bool = False
    answered: frozenset[str] = frozenset()
    revealed: frozenset[int] = frozenset()  # indexes into Facts.details already told
    mixups: int = 0
    lay_named: frozenset[str] = frozenset()
    followed_up: bool = False
    followed_up_at: int = 0  # the turn it asked its follow-up question
    answered_at: int = -1  # stalls so far when its question was first answered (-1: never)
    pushed_back: bool = False
    accepted_offer: bool = False
    accepted_topic: str = ""  # what it said yes to: "book", "message", "call"
    declined_topics: frozenset[str] = frozenset()  # offers it turned down
    asked_repeat: bool = False
    challenges: int = 0
    picked: Option | None = None  # the slot the patient chose
    slot: str = ""  # …and how it said it, to repeat it back
    disputed_booking: bool = False
    said: frozenset[str | None] = frozenset()  # earlier replies, so nudges are not verbatim repeats
    last: str | None = None
    heard: tuple[str, ...] = ()  # the agent's earlier messages, to notice it repeating itself


class Reply:
    """One patient reply being written: the case, the persona, what the patient remembers
    (`state`, updated as the reply goes) and the seeded choices of this turn."""

    def __init__(
        self,
        case: dict[str, Any],
        persona: Persona,
        facts: Facts,
        seed: int,
        state: PatientState,
        rng: Random,
    ):
        self.case = case
        self.persona = persona
        self.facts = facts
        self.state = state
        self.rng = rng
        # Habits that hold for the whole conversation (how the patient writes a date).
        self.habits = stable_rng("patient-habits", case.get("case_id", ""), seed)
        self.subtask = subtask_of(self.case)
        self.details = details_of(self.case)
        self.profile = self.case.get("profile", {})
        self.today = today_of(self.case)
        self.data_first = False  # the reply starts with plain data, so "Sure." may lead in
        self.clause = ""  # the part of the agent's message being answered

    def say(self, bank: dict[str, list[str]] | list[str], **fill: str) -> str:
        """One line of the persona's bank, preferring lines not said before (also not as part
        of a longer message), and never the last message again."""
        options = (
            bank if isinstance(bank, list) else bank.get(self.persona.voice) or bank["cooperative"]
        )
        fill = {**fill, **{k.capitalize(): capitalize_first(v) for k, v in fill.items()}}
        if fill:
            fallback = bank if isinstance(bank, list) else bank["cooperative"]
            options = [o for o in options if fillable(o, fill)] or [
                o for o in fallback if fillable(o, fill)
            ]
        lines = [option.format(**fill) if fill else option for option in options]
        said = [s for s in self.state.said if s]
        fresh = [
            line
            for line in lines
            if line not in said and not (len(line) > 12 and any(line in s for s in said))
        ]
        not_again = [line for line in lines if line != self.state.last] or lines
        return self.rng.choice(fresh or not_again)

    def chance(self, rate: float) -> bool:
        return self.rng.random() < rate

    def remember(self, **changes: Any) -> None:
        self.state = replace(self.state, **changes)

    def preferred_day(self) -> date | None:
        try:
            return date.fromisoformat(self.details.get("preferred_date", ""))
        except (TypeError, ValueError):
            return None

    def visit_type(self) -> str:
        if self.details.get("appointment_type"):
            return self.details["appointment_type"]
        preference = self.case.get("attributes", {}).get("care_preference", "none")
        return {"remote": "telehealth"}.get(preference, preference)

    def question_phrases(self) -> list[str]:
        return question_phrases(self.case)

    def hedged(self, text: str) -> str:
        if self.chance(self.persona.hedge_rate):
            return capitalize_first(f"{self.rng.choice(phrases.HEDGES)} {lower_first_word(text)}")
        return text

    def maybe_mix_up(self, right: str, wrong: str | None) -> str:
        limit = 2 if self.persona.voice == "confused" else 1
        if wrong and self.state.mixups < limit and self.chance(self.persona.mixup_rate):
            self.remember(mixups=self.state.mixups + 1)
            return self.say(phrases.MIXUP_FIXES, wrong=wrong, right=right).rstrip(".")
        return right

    def next_detail(self, besides: str = "") -> str | None:
        """The next thing the patient has not told yet (and is not saying right now)."""
        said_now = word_set(besides)
        for index, detail in enumerate(self.facts.details):
            words = word_set(detail)
            if said_now and len(words & said_now) > len(words) / 2:
                continue
            if index not in self.state.revealed:
                self.remember(revealed=self.state.revealed | {index})
                return detail
        return None
