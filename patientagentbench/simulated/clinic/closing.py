"""Goodbyes, call backs, and never the same reply twice.

When the patient closes, the reply is one short closing that fits what they said, sent bare;
when they ask for a person, a call back from the clinic's queue. `fresh` is the last word on
every reply: one the agent already sent (or nearly) is replaced by a rephrased question, an
offer of a call back, or an honest dead end.
"""

from __future__ import annotations

import re

from ..plans import Observations, Step, TaskPlan
from .escalation import URGENT_ADVICE
from .reading import confirms_back, declines, sentences_of
from .speech import doctor_words, plain_error, shortened
from .turn import OFFER_CALL, Turn, latest

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
        [], lambda obs: fresh(turn, goodbye(turn, escalating)), lambda obs: "bare", quiet=True
    )


def goodbye(turn: Turn, escalating: bool) -> str:
    said = turn.latest
    name = turn.first_name
    you = f", {name}" if name else ""
    rng = turn.rng("goodbye")
    advised = any(URGENT_ADVICE.search(t) for t in turn.conversation.agent_texts)
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
        reason = f"Asked to speak with someone. First message: {shortened(turn.first, 200)}"
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

    return TaskPlan([join], lambda obs: fresh(turn, reply(obs)), lambda obs: "bare")


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


def fresh(turn: Turn, reply: str) -> str:
    """The reply, unless the agent already said it (or nearly): then a rephrased question,
    "what else?" after finished work, an offer of a call back, or an honest dead end."""
    earlier = turn.conversation.agent_texts
    if not any(similar(reply, text) for text in earlier):
        return reply
    questions = [s for s in sentences_of(reply) if s.endswith("?")]
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
