"""Putting a reply together: the answers, a lead-in, and what the persona adds unasked.

Worry comes out when talking about the problem or deciding, pushing for speed with high
urgency, and a talkative patient volunteers a detail; a terse patient runs short answers
together with commas.
"""

from __future__ import annotations

from patientagentbench.cases.schema import ESCALATION_SUBTASKS

from . import phrases
from .case import ERRANDS, INFORMATIONAL
from .reading import CLINICAL_KINDS, AgentTurn
from .reply import Reply
from .wording import capitalize_first, lower_first_word, terse_join


def compose(reply: Reply, parts: list[str], turn: AgentTurn, extras: bool = True) -> str:
    if reply.persona.brief:
        text = terse_join([p for p in parts if p])
        if extras and reply.chance(reply.persona.push_rate):
            text += ". " + reply.rng.choice(phrases.PUSHES)
        return lower_first_word(text) if reply.chance(0.35) else capitalize_first(text)
    lead = reply.say(phrases.LEAD_INS) if reply.data_first else ""
    sentences = [lead, *parts]
    if extras:
        sentences.extend(unasked_extras(reply, turn, besides=" ".join(parts)))
    return " ".join(s for s in sentences if s)


def worries(reply: Reply) -> list[str]:
    if reply.subtask == "emergency_symptoms":
        return phrases.WORRY["emergency"]
    if reply.subtask in ESCALATION_SUBTASKS:
        return phrases.WORRY["crisis"]
    if reply.subtask in ERRANDS:
        return phrases.WORRY["errand"]
    if reply.subtask in {"prescription_renewal", "new_prescription"}:
        return phrases.WORRY["supply"] + phrases.WORRY["general"]
    category = reply.case.get("attributes", {}).get("category")
    context = "medication" if category == "medication" else "symptom"
    return phrases.WORRY[context] + phrases.WORRY["general"]


def unasked_extras(reply: Reply, turn: AgentTurn, besides: str = "") -> list[str]:
    """What the persona adds on top of the answer: worry, pushing, unprompted details."""
    added = []
    clinical_talk = set(turn.kinds) & CLINICAL_KINDS or (
        turn.unknown_questions and len(turn.options) < 2
    )
    deciding = turn.offer is not None or len(turn.options) >= 2
    # Worry comes out when talking about the problem or deciding, not when reciting a
    # date of birth.
    if (clinical_talk or deciding) and reply.chance(reply.persona.worry_rate):
        added.append(reply.say(worries(reply)))
    if reply.subtask not in ESCALATION_SUBTASKS and reply.chance(reply.persona.push_rate):
        pushes = phrases.PUSHES_FOR_ANSWER if reply.subtask in INFORMATIONAL else phrases.PUSHES
        added.append(reply.say(pushes))
    if clinical_talk and reply.chance(reply.persona.volunteer_rate):
        added.append(reply.next_detail(besides) or "")
    return added
