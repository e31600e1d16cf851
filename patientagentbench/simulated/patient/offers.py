"""How the offline patient takes an offer: a yes, a no with its question again, a pick.

A patient with a question takes up a visit only sometimes and a message to its doctor
mostly; offered slots are picked by its preferred day, visit type and time of day; an offer
that acts on the wrong medicine, pharmacy or appointment is corrected.
"""

from __future__ import annotations

import re

from . import phrases
from .case import GOAL_OFFERS, INFORMATIONAL
from .needs import appointment_day, direct_question, need_phrase, pharmacy_words
from .options import DATE_PATTERN, Option, parse_date, plain_text
from .reading import AgentTurn
from .reply import Reply
from .wording import capitalize_first, fillable, lower_question, spoken_day, spoken_slot


def answer_offer(reply: Reply, turn: AgentTurn) -> str:
    correction = correction_for(reply, turn.offer_sentence, turn.offer)
    if correction:
        return correction
    if turn.offer and turn.offer == reply.state.accepted_topic:
        # Offered again what it already said yes to: annoying twice over.
        reply.remember(stalled=reply.state.stalled + 1)
        return reply.say(phrases.SAID_YES)
    if len(turn.options) == 1 and turn.offer in {"book", "reschedule", "other", "verify"}:
        slot = spoken_slot(turn.options[0], reply.today, reply.rng)
        reply.remember(slot=slot, picked=turn.options[0])
        return reply.say(phrases.SLOT_OK, slot=slot)
    if wants(reply, turn.offer) and takes_up(reply, turn.offer):
        if turn.offer in {"book", "message", "call"} and reply.subtask not in GOAL_OFFERS:
            reply.remember(accepted_offer=True, accepted_topic=turn.offer)
        yes = reply.say(phrases.CORRECT if turn.offer == "verify" else phrases.YES)
        if turn.offer == "book" and reply.subtask in INFORMATIONAL:
            yes += visit_wish(reply)
        if turn.offer in {"refill", "book", "cancel", "reschedule"} and reply.chance(
            reply.persona.challenge_rate / 2
        ):
            yes += " " + reply.say(phrases.CHALLENGES["action"])
        return yes
    if reply.subtask in INFORMATIONAL and reply.question_phrases():
        # Back to the question, whatever it said yes to before.
        reply.remember(
            accepted_offer=False,
            accepted_topic="",
            declined_topics=reply.state.declined_topics | {turn.offer or ""},
        )
        if turn.offer == "book" and reply.chance(0.5):
            return reask(reply, phrases.NOT_A_VISIT)
        return f"{reply.say(phrases.NO_THANKS)} {reask(reply)}"
    return (
        reply.say(phrases.NO_THANKS)
        + " "
        + reply.say(phrases.STILL_NEED, need=need_phrase(reply.case))
    )


def takes_up(reply: Reply, offer: str | None) -> bool:
    """Whether a patient with a question says yes to a visit or a message instead of an
    answer: a visit sometimes (more with a preference for one), a message mostly. Asked
    again, it stands by its answer (now and then it gives in to a repeated offer)."""
    if reply.subtask not in INFORMATIONAL:
        return True
    if offer and offer == reply.state.accepted_topic:
        return True
    if offer in reply.state.declined_topics:
        return reply.chance(0.2)
    if offer == "book":
        return reply.chance(visit_rate(reply))
    if offer in {"message", "call", "referral"}:
        return reply.chance(message_rate(reply))
    return True


def visit_rate(reply: Reply) -> float:
    preference = reply.case.get("attributes", {}).get("care_preference", "none")
    base = {"in_person": 0.55, "remote": 0.45, "urgent_call": 0.35}.get(preference, 0.3)
    adjust = {"anxious": 0.15, "skeptical": -0.1, "stoic": -0.1, "terse": -0.05}
    return base + adjust.get(reply.persona.voice, 0.0)


def message_rate(reply: Reply) -> float:
    return {"skeptical": 0.7, "anxious": 0.9}.get(reply.persona.voice, 0.8)


def visit_wish(reply: Reply) -> str:
    """A patient who would rather not come in says so when it agrees to a visit."""
    if reply.visit_type() != "telehealth" or reply.persona.brief:
        return ""
    return " " + reply.rng.choice(["By video, if that's possible.", "Could it be a video visit?"])


def reask(reply: Reply, bank: dict[str, list[str]] | None = None) -> str:
    """The patient's question again, in other words than before."""
    bank = bank or phrases.REASKS
    templates = bank.get(reply.persona.voice) or bank["cooperative"]
    direct = direct_question(reply.case)
    fill = {"direct": direct, "direct_lower": lower_question(direct)} if direct else {}
    lines = []
    for question in reply.question_phrases() or [need_phrase(reply.case)]:
        values = {**fill, "question": question}
        values |= {k.capitalize(): capitalize_first(v) for k, v in values.items()}
        lines += [t.format(**values) for t in templates if fillable(t, values)]
    return reply.say(list(dict.fromkeys(lines)) or [need_phrase(reply.case)])


def wants(reply: Reply, offer: str | None) -> bool:
    if offer in {"verify", "other", "escalate"}:
        return True
    if offer in GOAL_OFFERS.get(reply.subtask, set()):
        return True
    return reply.subtask in INFORMATIONAL and offer in {"book", "message", "call", "referral"}


def correction_for(reply: Reply, sentence: str, offer: str | None) -> str | None:
    """Set the agent straight when it is about to act on the wrong thing."""
    lowered = sentence.lower()
    wanted = str(reply.details.get("medication", "")).lower()
    if offer in {"refill", "prescribe"} and wanted and wanted not in lowered:
        for medication in reply.profile.get("medications") or []:
            name = str(medication.get("name", ""))
            if name and name.lower() in lowered:
                return f"No, not the {name} - the {wanted}."
    if reply.subtask == "update_pharmacy":
        old = (reply.profile.get("pharmacy") or {}).get("name", "")
        new = (reply.details.get("pharmacy") or {}).get("name", "")
        if old and old.lower() in lowered and new.lower() not in lowered:
            return f"No, that's my old one. I want to switch to {pharmacy_words(reply.details['pharmacy'])}."
    if reply.subtask == "cancel" and "cancel" in lowered:
        mentioned = [
            parse_date(m, reply.today) for m in DATE_PATTERN.finditer(plain_text(sentence))
        ]
        target = reply.details.get("date", "")
        if mentioned and target and all(d and d.isoformat() != target for d in mentioned):
            return f"No, not that one - the one{appointment_day(reply.case)}."
    return None


def pick(reply: Reply, turn: AgentTurn) -> str:
    if reply.persona.voice == "confused" and not reply.state.asked_repeat and reply.chance(0.3):
        reply.remember(asked_repeat=True)
        return reply.say(phrases.REPEAT_PLEASE)
    scored = [(option_score(reply, o), i) for i, o in enumerate(turn.options)]
    best = max(score for score, _ in scored)
    choice = turn.options[reply.rng.choice([i for score, i in scored if score == best])]
    slot = spoken_slot(choice, reply.today, reply.rng)
    if choosing_existing(reply, turn):
        return reply.say(phrases.WHICH_EXISTING, slot=slot)
    reply.remember(slot=slot, picked=choice)
    text = reply.say(phrases.SLOT_PICK, slot=slot)
    preferred = reply.preferred_day()
    missed_it = preferred and all(o.day != preferred for o in turn.options)
    if missed_it and choice.day and not reply.persona.brief:
        said = spoken_day(preferred, reply.today)
        text = f"{reply.say(phrases.MISSED_PREFERRED, preferred=said)} {text}"
    return text


def choosing_existing(reply: Reply, turn: AgentTurn) -> bool:
    """Options that are the patient's own appointments ("Which one should I cancel?")."""
    if reply.subtask == "cancel":
        return True
    return reply.subtask == "reschedule" and bool(
        re.search(r"(which|what) (one|appointment)", turn.text, re.I)
    )


def option_score(reply: Reply, option: Option) -> int:
    score = 0
    preferred = reply.preferred_day()
    if preferred and option.day == preferred:
        score += 3
    wanted_type = reply.visit_type()
    if option.visit_type and wanted_type in {"in_person", "telehealth"}:
        score += 2 if option.visit_type == wanted_type else -2
    if option.time and reply.facts.time_of_day != "any":
        morning = option.time < "12:00"
        score += 1 if morning == (reply.facts.time_of_day == "morning") else 0
    if option.doctor and reply.details.get("doctor") and option.doctor in reply.details["doctor"]:
        score += 2
    if reply.subtask in {"cancel", "reschedule"} and option.day:
        is_existing = option.day.isoformat() == reply.details.get("date") and (
            not option.time or option.time == reply.details.get("time")
        )
        score += (5 if reply.subtask == "cancel" else -5) if is_existing else 0
    return score
