"""How the offline patient winds a conversation down: closing, settling, giving up.

A met need gets one short closing turn (and the next reply ends the conversation); a wrong
slot is disputed once; patience runs out after the persona's limit of turns without
progress, often after asking for a human first; a question answered earlier is settled for
rather than asked round in circles.
"""

from __future__ import annotations

from . import phrases
from .case import INFORMATIONAL
from .compose import compose
from .needs import need_phrase, pharmacy_words
from .offers import message_rate, reask
from .options import Option, parse_options
from .reading import AgentTurn
from .reply import Reply
from .wording import (
    capitalize_first,
    doctor_as_said,
    escalation_action,
    lower_first_word,
    same_slot,
    spoken_slot,
)


def finish_or_push_back(reply: Reply, turn: AgentTurn) -> str:
    booked = booked_other_slot(reply, turn)
    if booked and not reply.state.disputed_booking:
        reply.remember(disputed_booking=True)
        said = spoken_slot(booked, reply.today, reply.rng)
        return stall(reply, reply.say(phrases.WRONG_SLOT, slot=reply.state.slot, booked=said))
    if (
        "escalated" in turn.outcomes
        and reply.subtask == "emergency_symptoms"
        and reply.persona.voice in phrases.ESCALATION_PUSHBACK
        and not reply.state.pushed_back
        and reply.chance(0.6)
    ):
        reply.remember(pushed_back=True)
        return reply.say(phrases.ESCALATION_PUSHBACK)
    return close(reply, turn)


def close(reply: Reply, turn: AgentTurn, outcome: str | None = None) -> str:
    reply.remember(finished=True)
    outcome = outcome or main_outcome(reply, turn)
    if outcome == "escalated":
        if turn.offer == "escalate":  # "Would you like me to connect you with 988?"
            return reply.say(phrases.ESCALATION_ACCEPT)
        return reply.say(phrases.ESCALATION_CLOSE, action=escalation_action(turn.text))
    more_asked = "anything_else" in turn.kinds or (
        turn.offer is not None and turn.offer != "verify"
    )
    if more_asked and "anything_else" not in turn.kinds and outcome == "info":
        # Turning down one more offer ("Shall I message your doctor?") after an answer.
        return reply.say(phrases.DECLINE_AND_THANKS)
    else:
        thanks = reply.say(phrases.NOTHING_ELSE if more_asked else phrases.THANKS)
    remark = outcome_remark(reply, outcome, turn)
    if reply.persona.brief or not remark:
        return thanks
    return f"{remark} {thanks}" if reply.chance(0.5) else f"{thanks} {remark}"


def booked_other_slot(reply: Reply, turn: AgentTurn) -> Option | None:
    """The slot the agent says it booked, when it is not the one the patient chose."""
    picked = reply.state.picked
    if picked is None or not turn.outcomes & {"booked", "rescheduled"}:
        return None
    booked = [o for o in parse_options(turn.text, reply.today) if o.time or o.day]
    if not booked or any(same_slot(o, picked) for o in booked):
        return None
    return booked[0]


def main_outcome(reply: Reply, turn: AgentTurn) -> str:
    for outcome in ("escalated", "rescheduled", "booked", "refill", "cancelled"):
        if outcome in turn.outcomes:
            return outcome
    if turn.outcomes & {"pharmacy_updated", "pcp_updated", "insurance_updated"}:
        return "updated"
    if turn.outcomes & {"message_sent", "referral", "prescription"}:
        return "message_sent"
    return next(iter(sorted(turn.outcomes)), "info")


def outcome_remark(reply: Reply, outcome: str, turn: AgentTurn) -> str:
    slot = slot_in(reply, turn) or reply.state.slot
    if outcome in {"booked", "rescheduled"} and reply.persona.voice == "confused" and slot:
        return f"So that's {slot}? Okay."
    bank = phrases.OUTCOME_REMARKS.get(outcome, [""])
    pcp = doctor_as_said((reply.profile.get("pcp") or {}).get("name", ""))
    text = reply.rng.choice(bank)
    if "{slot}" in text and not slot:
        return ""
    return capitalize_first(
        text.format(
            slot=slot,
            pharmacy=pharmacy_words(reply.profile.get("pharmacy")) or "the pharmacy",
            doctor=pcp,
        )
    )


def slot_in(reply: Reply, turn: AgentTurn) -> str:
    options = parse_options(turn.text, reply.today)
    return spoken_slot(options[0], reply.today, reply.rng) if options else ""


def after_answer(reply: Reply, turn: AgentTurn) -> str:
    """The agent answered the patient's question: take an offer, ask one more, or end."""
    if reply.state.answered_at < 0:
        reply.remember(answered_at=reply.state.stalled)
    if turn.offer in {"book", "message", "call", "prescribe", "referral"}:
        has_preference = reply.case.get("attributes", {}).get("care_preference") != "none"
        accept_rate = (0.75 if has_preference else 0.4) + (
            0.15 if reply.persona.voice == "anxious" else 0.0
        )
        if turn.offer in {"message", "call", "referral"}:
            accept_rate = message_rate(reply)
        if reply.chance(accept_rate):
            reply.remember(accepted_offer=True, accepted_topic=turn.offer)
            return compose(reply, [reply.say(phrases.YES)], turn)
        return close(reply, turn, "info")
    follow_up_rate = {"anxious": 0.7, "skeptical": 0.6, "terse": 0.15}.get(
        reply.persona.voice, 0.35
    )
    if not reply.state.followed_up and reply.chance(follow_up_rate):
        reply.remember(followed_up=True, followed_up_at=reply.state.turn)
        bank = phrases.FOLLOW_UPS.get(reply.subtask, phrases.FOLLOW_UP_ANY)
        if reply.persona.voice == "skeptical" and reply.chance(0.5):
            bank = phrases.CHALLENGES["advice"]
        return compose(reply, [reply.say(bank)], turn, extras=False)
    return close(reply, turn, "info")


def stall(reply: Reply, text: str) -> str:
    stalled = reply.state.stalled + 1
    reply.remember(stalled=stalled)
    limit = reply.persona.patience
    if stalled >= limit:
        reply.remember(finished=True)
        return reply.say(phrases.GIVE_UP)
    if reply.state.answered_at >= 0 and stalled - reply.state.answered_at >= 2:
        # It had a fair answer earlier and is going round in circles: it settles for that.
        reply.remember(finished=True)
        return reply.say(phrases.SETTLE)
    ask_rate = {"skeptical": 0.9, "anxious": 0.7, "stoic": 0.4}.get(reply.persona.voice, 0.55)
    if stalled >= limit - 1 and not reply.state.asked_for_human and reply.chance(ask_rate):
        reply.remember(asked_for_human=True)
        return reply.say(phrases.ASK_FOR_HUMAN)
    return text


def nudge(reply: Reply, turn: AgentTurn) -> str:
    accepted = {
        "book": "to get that appointment",
        "call": "someone to call me back",
        "message": "my question sent to my doctor",
    }.get(reply.state.accepted_topic, "to get that appointment")
    need = accepted if reply.state.accepted_offer else need_phrase(reply.case)
    informational = reply.subtask in INFORMATIONAL and not reply.state.accepted_offer
    if informational and reply.question_phrases():
        return reask(reply)
    if "anything_else" in turn.kinds:
        return reply.say(phrases.STILL_NEED, need=need)
    return reply.say(phrases.NUDGES, need=need)


def heard_that(reply: Reply, parts: list[str], turn: AgentTurn) -> str:
    """ "You said that already." and the answer again, or the question again."""
    reply.data_first = False
    body = compose(reply, parts, turn, extras=False) if parts else nudge(reply, turn)
    body = lower_first_word(body) if reply.persona.brief else body
    prefixes = (
        phrases.AGENT_REPEATED.get(reply.persona.voice) or phrases.AGENT_REPEATED["cooperative"]
    )
    fresh = [f"{p} {body}" for p in prefixes if f"{p} {body}" not in reply.state.said]
    return reply.rng.choice(fresh) if fresh else f"{reply.say(prefixes)} {body}"


def repeat(reply: Reply, parts: list[str], turn: AgentTurn) -> str:
    """Answering again what it already answered, a little put out."""
    reply.data_first = False
    prefix = reply.say(phrases.ALREADY_SAID)
    body = compose(reply, parts, turn, extras=False)
    if prefix.endswith((",", "-", "but")):
        body = lower_first_word(body)
    return f"{prefix} {body}"
