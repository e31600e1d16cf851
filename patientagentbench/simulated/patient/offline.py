"""The offline patient: answers from the case in its persona's style, with no model.

`respond` decides, in order, what kind of reply the agent's message calls for: a hello to an
empty message, a closing once the need is met, a follow-up or settling after an answer, the
answers to what the agent asked and offered, or a nudge when nothing moved. What each kind
says lives in the sibling modules; every choice comes from the turn's seeded `Reply`.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from patientagentbench.providers.types import Message
from sandbox.seeding import stable_rng

from . import phrases
from .answering import answer
from .case import ACCEPTED_OUTCOMES, AFTER_ACCEPTED_OFFER, HELPED, INFORMATIONAL
from .compose import compose
from .ending import after_answer, close, finish_or_push_back, heard_that, nudge, repeat, stall
from .persona import Persona, case_facts
from .reading import AgentTurn, read_agent_turn
from .reply import PatientState, Reply
from .visible import agent_replies, visible_to_patient
from .wording import near_repeat, word_set


class OfflinePatient:
    """A seeded patient that answers from the case in its persona's style (no model)."""

    def __init__(self, case: dict[str, Any], seed: int):
        self.case = case
        self.seed = seed
        self.persona = Persona.of(case)
        self.facts = case_facts(case)

    def opening(self) -> str:
        return self.case["opening"]

    def reply(self, messages: list[Message]) -> str | None:
        state = PatientState()
        text: str | None = None
        for agent_text in agent_replies(visible_to_patient(messages)):
            text, state = self.step(state, agent_text)
        return text

    def step(self, state: PatientState, agent_text: str) -> tuple[str | None, PatientState]:
        """The reply to one agent turn and what the patient remembers afterwards."""
        if state.finished:
            return None, state
        rng = stable_rng(
            "patient", self.case.get("case_id", ""), self.case.get("seed", 0), self.seed, state.turn
        )
        turn = read_agent_turn(agent_text, self.case)
        now = replace(state, turn=state.turn + 1)
        draft = Reply(self.case, self.persona, self.facts, self.seed, now, rng)
        text = respond(draft, turn)
        heard = (*state.heard, agent_text) if agent_text.strip() else state.heard
        return text, replace(draft.state, said=draft.state.said | {text}, last=text, heard=heard)


def respond(reply: Reply, turn: AgentTurn) -> str | None:
    """What the patient says to one agent turn: the first situation below that applies."""
    if not turn.text:
        return stall(reply, reply.say(phrases.HELLO))
    repeated = heard_before(reply, turn.text)
    if _DEAD_END.search(turn.text):
        # The agent says it can't do more: patience goes twice as fast from here.
        reply.remember(stalled=reply.state.stalled + 1)
    if reply.state.accepted_offer and not turn.outcomes and _FAILED.search(turn.text):
        # What it said yes to did not happen: back to what it came for.
        reply.remember(accepted_offer=False, accepted_topic="")
    if goal_met(reply, turn):
        return finish_or_push_back(reply, turn)
    if question_answered(reply, turn):
        if not repeated:
            return after_answer(reply, turn)
        if reply.state.followed_up:  # the same answer again: nothing more is coming
            return close(reply, turn, "info")
    if follow_up_answered(reply, turn, repeated):
        return close(reply, turn, "info")
    parts, progress = answer(reply, turn)
    if parts and progress and not repeated:
        return compose(reply, parts, turn)
    if parts and not progress:  # only questions it had already answered
        return stall(reply, repeat(reply, parts, turn))
    if repeated:  # the agent said this before: whatever it offers, no progress
        return stall(reply, heard_that(reply, parts, turn))
    if turn.working:
        return stall(reply, reply.say(phrases.WAITING))
    return stall(reply, nudge(reply, turn))


def goal_met(reply: Reply, turn: AgentTurn) -> bool:
    accepted = set(ACCEPTED_OUTCOMES.get(reply.subtask, HELPED))
    if reply.state.accepted_offer:
        accepted |= AFTER_ACCEPTED_OFFER
    if reply.subtask == "reschedule" and _OLD_ONE_KEPT.search(turn.text):
        return False  # a new slot, but the old appointment is still there
    return bool(turn.outcomes & accepted)


def question_answered(reply: Reply, turn: AgentTurn) -> bool:
    """An answer of some length that is about what the patient asked (a long greeting or a
    list of what the assistant can do is not an answer)."""
    asked_for_data = [k for k in turn.kinds if k != "anything_else"]
    return (
        reply.subtask in INFORMATIONAL
        and not reply.state.accepted_offer
        and turn.substantive
        and not asked_for_data
        and len(turn.options) < 2
        and bool(turn.statement_words & topic_words(reply))
    )


def topic_words(reply: Reply) -> set[str]:
    values = [str(v) for v in reply.details.values() if isinstance(v, str)]
    text = " ".join([reply.case.get("opening", ""), *values])
    return word_set(text) - phrases.COMMON_WORDS


def follow_up_answered(reply: Reply, turn: AgentTurn, repeated: bool) -> bool:
    """The agent replied to the one extra question the patient asked after its answer; a
    short reply will do ("How often depends on your results...")."""
    return (
        reply.state.followed_up
        and reply.state.turn == reply.state.followed_up_at + 1
        and not repeated
        and not [k for k in turn.kinds if k != "anything_else"]
        and not turn.unknown_questions
        and turn.offer is None
        and len(turn.options) < 2
    )


def heard_before(reply: Reply, text: str) -> bool:
    """The agent's message repeats one of its earlier ones, word for word or nearly."""
    return any(near_repeat(text, earlier) for earlier in reply.state.heard)


_DEAD_END = re.compile(
    r"not able to (?:say|sort|do|give you) (?:more|this out|anything)|can't do more|"
    r"don't have anything more|shared everything i can|(?:can't|cannot) help (?:with|further)",
    re.I,
)
_FAILED = re.compile(
    r"\b(?:couldn't|could not|wasn't able|was not able|unable|not able|didn't go through)\b",
    re.I,
)
_OLD_ONE_KEPT = re.compile(
    r"still on the books|(?:wasn't|was not|couldn't|could not) (?:able to )?cancel", re.I
)
