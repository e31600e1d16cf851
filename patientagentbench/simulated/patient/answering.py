"""The offline patient's answers to what the agent asked: a dispatch table by question kind.

`ANSWERS` maps each kind `read_agent_turn` recognises ("insurance", "when", "symptoms"...)
to the function that answers it; identity questions are answered in one go, and a question
with no kind is answered from the story or with a plain no.
"""

from __future__ import annotations

from collections.abc import Callable

from .answers_record import (
    about_allergies,
    about_conditions,
    about_current_medications,
    about_dosage,
    about_insurance,
    about_medication,
    about_pharmacy,
    about_supplement,
    dose_words,
    identity_answer,
)
from .answers_story import (
    about_able_to_call,
    about_alone,
    about_appointment_type,
    about_doctor,
    about_duration,
    about_plan,
    about_reason,
    about_safety,
    about_severity,
    about_specialty,
    about_symptoms,
    about_when,
    about_which_appointment,
    answer_unknown,
)
from .offers import answer_offer, pick
from .reading import ANSWERED_BY_PICKING, DATA_KINDS, IDENTITY_KINDS, AgentTurn
from .reply import Reply


def answer(reply: Reply, turn: AgentTurn) -> tuple[list[str], bool]:
    """Replies to what the agent offered and asked, in its order; and whether any of it
    moved things on (a repeated question does not)."""
    parts: list[str] = []
    progress = False
    picked = len(turn.options) >= 2
    if picked:
        parts.append(pick(reply, turn))
        progress = True
    elif turn.offer and not [k for k in turn.kinds if k != "anything_else"]:
        parts.append(answer_offer(reply, turn))
        progress = True
    asks = [
        (kind, clause)
        for kind, clause in turn.asks
        if kind != "anything_else"
        and not (picked and (kind in ANSWERED_BY_PICKING or kind == "unknown"))
    ]
    if reply.persona.level("cooperation") == "low" and len(asks) > 1 and reply.chance(0.5):
        asks = asks[:1]  # answers the first thing and lets the agent ask again
    reply.data_first = not parts and bool(asks) and asks[0][0] in DATA_KINDS
    kinds = {kind for kind, _ in asks if kind != "unknown"}
    asked_again = kinds & reply.state.answered
    if len(reply.state.revealed) < len(reply.facts.details):
        asked_again -= {"symptoms", "reason"}  # "anything more?" still has answers left
    progress = progress or bool(kinds - asked_again)
    progress = progress or any(kind == "unknown" for kind, _ in asks)
    parts.extend(answer_asks(reply, asks))
    reply.remember(answered=reply.state.answered | kinds)
    return parts, progress


def answer_asks(reply: Reply, asks: list[tuple[str, str]]) -> list[str]:
    identity = [k for k in IDENTITY_KINDS if any(kind == k for kind, _ in asks)]
    parts = []
    for kind, clause in asks:
        if kind in IDENTITY_KINDS:
            if identity:  # "It's Maria Lopez, born …" in one go, whatever the order asked
                parts.append(identity_answer(reply, identity))
                identity = []
        elif kind == "unknown":
            parts.append(answer_unknown(reply, clause))
        elif kind == "dosage" and any(m in p for p in parts for m in dose_words(reply)):
            continue  # "It's metformin, 500 mg twice a day" already said it
        else:
            reply.clause = clause
            parts.append(ANSWERS[kind](reply))
    return [p for p in parts if p]


# What the patient answers to each kind of question (identity kinds are answered together,
# in `answer_asks`).
ANSWERS: dict[str, Callable[[Reply], str]] = {
    "insurance": about_insurance,
    "pharmacy": about_pharmacy,
    "medication": about_medication,
    "current_medications": about_current_medications,
    "dosage": about_dosage,
    "allergies": about_allergies,
    "conditions": about_conditions,
    "supplement": about_supplement,
    "symptoms": about_symptoms,
    "duration": about_duration,
    "severity": about_severity,
    "safety": about_safety,
    "plan": about_plan,
    "alone": about_alone,
    "able_to_call": about_able_to_call,
    "appointment_type": about_appointment_type,
    "when": about_when,
    "which_appointment": about_which_appointment,
    "doctor": about_doctor,
    "specialty": about_specialty,
    "reason": about_reason,
}
