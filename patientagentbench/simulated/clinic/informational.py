"""The staged conversation for a question rather than an action.

General guidance and an offer to book with the PCP first; after a no, more specific
guidance and an offer to message the PCP; the message on a yes or a question asked again;
after a no to that, an open door. Where the conversation stands is read from the
conversation itself (`Stages`), never kept.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..plans import Observations, PlanEntry, Step, TaskPlan
from .booking import Booking
from .notes import follow_up_note
from .reading import names_a_time, visit_type_in
from .speech import joined, plain_error, shortened
from .turn import (
    BOOKING_OFFERS,
    OFFER_CALL,
    OFFER_IN_PERSON,
    OFFER_MESSAGE,
    OFFER_PCP_VISIT,
    PCP_REPLY,
    Turn,
    latest,
    pcp,
    profile,
)


def offer_visit(obs: Observations) -> str:
    doctor = pcp(obs)
    if not doctor:
        return f"{OFFER_CALL} with one of our clinicians to talk it through?"
    return f"{OFFER_PCP_VISIT}, {doctor['name']}?"


def offer_message(obs: Observations, purpose: str) -> str:
    doctor = pcp(obs)
    if not doctor:
        return f"{OFFER_CALL} with one of our clinicians to talk it through?"
    return f"{OFFER_MESSAGE} {doctor['name']} with your question? {purpose}"


def message_steps(turn: Turn, obs: Observations, subject: str) -> list[Step]:
    """One message to the PCP with the patient's question in their own words."""
    if obs.successful("message_pcp") or turn.new_failures(obs, "message_pcp") or not pcp(obs):
        return []
    name = profile(obs).get("name") or "A patient"
    asked = [t for t in turn.conversation.user_texts if len(t.split()) > 3][:3]
    words = " / ".join(shortened(t, 200) for t in asked) or shortened(turn.first, 300)
    return [Step("message_pcp", {"subject": subject, "message": f"{name} asks: {words}"})]


def message_sent_words(turn: Turn, obs: Observations, what: str = "your question") -> str:
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
        return message_steps(turn, obs, subject) if stages.wants_message else []

    def reply(obs: Observations) -> str:
        answer = follow_up_note(turn)
        lead = answer or (turn.rng("intro").choice(intros) if intros else "")
        if booking is not None and stages.wants_visit:
            return joined(answer, booking.reply(obs, "a visit with your primary care doctor"))
        doctor = pcp(obs)
        if turn.offered_last(OFFER_IN_PERSON) and doctor and not stages.wants_visit:
            return (
                f"I'm sorry - {doctor['name']} only sees patients in person. {OFFER_MESSAGE} "
                "them with your question instead?"
            )
        sent_before = any(r.name == "message_pcp" and r.ok for r in turn.conversation.earlier)
        if sent_before:
            doctor = (pcp(obs) or {}).get("name") or "Your doctor"
            return joined(
                answer,
                f"{doctor} has your question and should reply {PCP_REPLY}.",
                "" if answer else meanwhile,
            )
        if latest(obs, "message_pcp"):
            return joined(answer, message_sent_words(turn, obs, sent_what))
        if stages.wants_message and turn.new_failures(obs, "message_pcp"):
            failure = plain_error(turn.new_failures(obs, "message_pcp")[-1])
            return f"I couldn't send the message - {failure}. {OFFER_CALL} with a clinician?"
        if turn.user_turn == 1 or not turn.conversation.agent_texts:
            return first(obs)
        name = (doctor or {}).get("name") or "your doctor"
        open_door = door.format(doctor=name)
        informed = answered_first or turn.asked(purpose) or turn.asked(open_door)
        if not stages.message_offered:
            return joined(lead, more(obs), offer_message(obs, purpose))
        if turn.declined(OFFER_MESSAGE) and not informed:
            return joined(lead, more(obs), open_door)
        if turn.declined(OFFER_MESSAGE) and not turn.asked(OFFER_CALL):
            if answer:
                return joined(answer, "" if turn.asked(open_door) else open_door)
            return joined("No problem." if turn.says_no else "", meanwhile, open_door)
        if not turn.asked(OFFER_CALL):
            return joined(
                answer,
                "I'm sorry I can't give you a more specific answer here - it really needs a "
                f"clinician who knows your history. {OFFER_CALL} with one of our clinicians?",
            )
        return joined(
            answer,
            "I understand. I'm not able to say more than that over chat, but the offer stands: "
            f"I can message {name} or book a visit whenever you'd like.",
        )

    entries: list[PlanEntry] = [*turn.first_time("get_profile")]
    if booking is not None:
        entries += booking.entries()
    return TaskPlan([*entries, message], reply)
