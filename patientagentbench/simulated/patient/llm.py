"""The LLM patient: the case played by a model through any Provider, with roles flipped.

The patient model sees a persona prompt (who it is, what it knows and wants, how it talks;
never the outcome checks) and the agent as its "user". It ends the conversation by writing
`[END]`; a reply that sounds like an assistant is asked for again with a reminder. A reply that
copies the agent's last message (a real 0.5B patient echoed the agent's JSON for six turns) is
asked for again once; if it copies again, the patient is broken and the conversation ends with
`EndReason.PATIENT_BROKEN`, as an errored trace (it says nothing about the agent).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from rapidfuzz import fuzz

from patientagentbench.conversation import EndConversation, EndReason
from patientagentbench.providers.types import CallContext, Message, Provider
from sandbox.seeding import stable_rng

from . import phrases
from .visible import strip_thinking, visible_to_patient

END_TOKEN = "[END]"


_ASSISTANT_VOICE = re.compile(
    r"how (can|may) i (help|assist) you|is there anything else i can (help|do)|i('d| would) be "
    r"(happy|glad) to help|as an ai|i'm an ai|language model|i can help you with|let me (check|look)"
    r" (that|this|your|into)|how can i assist",
    re.I,
)
_END = re.compile(r"\[\s*END\s*\]", re.I)
ASSISTANT_REMINDER = (
    "Reminder: you are the PATIENT, not the assistant. Do not offer help or ask how you can "
    "help. Reply as the patient would, in your own words."
)
FIRST_TURN_CUE = (
    "(You are connected to your clinic's patient assistant chat. Send your first message.)"
)
NO_TEXT_CUE = "(The assistant has not written anything yet.)"
ECHO_REMINDER = (
    "Reminder: you are the PATIENT. Do not copy the assistant's message or repeat your own "
    "last message. Answer what the assistant just said, in your own words, as the patient."
)
# Similarity (0-100, rapidfuzz's normalised Indel ratio) at which a reply counts as a copy.
ECHO_SIMILARITY = 90


def echoes(reply: str, earlier: str) -> bool:
    """Whether a patient reply is a copy of an earlier message (ignoring case and spacing)."""
    a, b = " ".join(reply.lower().split()), " ".join(earlier.lower().split())
    return bool(a and b) and fuzz.ratio(a, b) >= ECHO_SIMILARITY


# The patient offering to do the assistant's work: "I can ask your PCP about…", "Let me pull
# up your chart", "I can help you schedule", "I'll book that for you". A real LLM patient
# said the first; a patient says "my doctor", "can you ask…", "I can come in Tuesday".
_OFFER = r"\b(?:i can|i could|i'll|i will|i am going to|i'm going to|let me|allow me to)\s+"
_ASSISTANT_VERB = (
    r"(?:ask|check|look|pull|send|schedule|book|reschedule|cancel|update|review|message|contact|"
    r"reach|forward|notify|request|submit|transfer|connect|verify|confirm|note|add|flag|access|"
    r"arrange|refill|renew|process|document|set|put|find|make|share)"
)
_YOUR_CARE = (
    r"your\s+(?:pcp|primary care|doctor|physician|provider|care team|nurse|clinician|chart|"
    r"records?|file|appointments?|prescriptions?|medications?|meds|refills?|pharmacy|insurance|"
    r"account|results|labs?|visit|referral)\b"
)
_ASSISTANT_OFFER = re.compile(
    _OFFER
    + r"(?:"
    + rf"{_ASSISTANT_VERB}\w*\s+(?:[\w']+\s+){{0,3}}?{_YOUR_CARE}"
    + r"|help you\b|(?:schedule|book|reschedule|connect|transfer|refer) you\b"
    + r"|(?:set|get) you (?:up|in|scheduled|booked|connected|an appointment)\b"
    + rf"|{_ASSISTANT_VERB}\w*\b[^.?!]{{0,40}}\b(?:for you|on your behalf)\b"
    + r")",
    re.I,
)


def sounds_like_assistant(text: str) -> bool:
    """Whether a patient reply speaks as the clinic's assistant: its stock phrases, or an
    offer to act on "your" doctor, chart or prescription, or to do something for "you"."""
    text = text.replace("\u2019", "'")
    return bool(_ASSISTANT_VOICE.search(text) or _ASSISTANT_OFFER.search(text))


def persona_prompt(case: dict[str, Any]) -> str:
    """The patient model's system prompt: who it is, what it knows and wants, how it talks.

    The outcome checks' fields (must_escalate, must_not) are left out: a patient does not know
    what the right handling of its case is.
    """
    attributes = case.get("attributes", {})
    personality = attributes.get("personality", "cooperative")
    traits = attributes.get("traits") or {}
    goal = case.get("goal", {})
    lines = [
        f"You are role-playing a patient, {case.get('profile', {}).get('name', 'a patient')}, "
        "who is writing to their clinic's patient assistant in a chat window. You are the "
        "patient, not an assistant: never offer help, never explain that you are an AI.",
        "",
        "## About you (share these facts only when they are asked for)",
        *_profile_lines(case),
        "",
        "## What is going on (private: reveal it bit by bit, only when asked)",
        case.get("story", ""),
        "",
        "## What you want from this conversation",
        goal.get("summary", ""),
        *_goal_detail_lines(goal.get("details") or {}),
        f"Care preference: {phrases.CARE_PREFERENCE_WORDS.get(attributes.get('care_preference', 'none'), 'none')}.",
        "",
        "## How you talk",
        f"Personality: {personality} - {phrases.PERSONALITY_GUIDE.get(personality, 'be yourself.')}",
        *(
            f"- {trait.replace('_', ' ')} ({level}): {phrases.TRAIT_GUIDE.get(trait, {}).get(level, level)}"
            for trait, level in traits.items()
        ),
        "",
        "## Rules",
        "- You already sent your first message (below). Lead with your main concern; don't "
        "tell everything at once.",
        "- Reveal details only when asked. If you don't know something, say so; never invent "
        "facts that contradict what is written here.",
        "- When the assistant offers options (times, doctors, visit types), pick one that fits "
        "your preferences.",
        "- You may ask for a real person if the assistant is not helping.",
        "- Write one message at a time, at the natural length for your personality. No "
        "narration, no stage directions, no lists.",
        f"- When your need is met, or you give up, end your message with the exact token "
        f"{END_TOKEN}.",
        "",
        f'Your first message was: "{case.get("opening", "")}"',
    ]
    return "\n".join(lines)


def _profile_lines(case: dict[str, Any]) -> list[str]:
    profile = case.get("profile", {})
    attributes = case.get("attributes", {})
    contact = profile.get("contact") or {}
    address = profile.get("address") or {}
    lines = [
        f"- Name: {profile.get('name', '')} (goes by {profile.get('preferred_name', '')}), "
        f"{attributes.get('age', '')}, {attributes.get('gender', '')}, "
        f"pronouns {profile.get('pronouns', '')}",
        f"- Date of birth: {profile.get('date_of_birth', '')}",
        f"- Phone: {contact.get('phone', '')}; email: {contact.get('email', '')}",
        f"- Address: {', '.join(str(v) for v in address.values() if v)}",
        f"- Insurance: {_joined(profile.get('insurance'), 'provider', 'plan', 'member_id')}",
        f"- Pharmacy: {_joined(profile.get('pharmacy'), 'name', 'address') or 'none on file'}",
        f"- Primary care doctor: {(profile.get('pcp') or {}).get('name', 'none')}",
        "- Medications: "
        + ("; ".join(map(_medication_line, profile.get("medications") or [])) or "none"),
        "- Allergies: " + (", ".join(profile.get("allergies") or []) or "none"),
        "- Health problems: " + (", ".join(profile.get("problems") or []) or "none"),
    ]
    lines += [
        f"- Upcoming appointment: {_joined(a, 'doctor', 'date', 'time', 'type', 'reason')}"
        for a in profile.get("appointments") or []
    ]
    lines.append(f"- Today is {case.get('today', '')}.")
    return lines


def _joined(record: dict[str, Any] | None, *keys: str) -> str:
    if not record:
        return "none"
    return ", ".join(str(record[k]) for k in keys if record.get(k))


def _medication_line(medication: dict[str, Any]) -> str:
    what = " ".join(str(medication.get(k, "")) for k in ("name", "dosage", "frequency")).strip()
    status = medication.get("status", "active")
    return f"{what} ({status}, {medication.get('refills_left', '?')} refills left)"


def _goal_detail_lines(details: dict[str, Any]) -> list[str]:
    lines = []
    for key, value in details.items():
        if isinstance(value, dict):
            value = ", ".join(str(v) for v in value.values() if v)
        if value:
            lines.append(f"- {key.replace('_', ' ')}: {value}")
    return lines


@dataclass
class LLMPatient:
    """A patient played by a model through any Provider, with roles flipped."""

    provider: Provider
    case: dict[str, Any]
    seed: int
    temperature: float = 1.0
    # For researchers: each model call's raw text and thinking (never shown to the agent);
    # an answer asked for again or refused says why under "rejected".
    log: list[dict[str, Any]] = field(default_factory=list)
    tokens_in: int = 0
    tokens_out: int = 0
    _finished: bool = field(default=False, init=False, repr=False)

    def opening(self) -> str:
        return self.case["opening"]

    def reply(self, messages: list[Message]) -> str | None:
        """The patient model's next message. A message that carries [END] is sent without the
        token and the next call ends the conversation; a bare [END] ends it at once."""
        if self._finished:
            return None
        visible = visible_to_patient(messages)
        turn = sum(1 for role, _ in visible if role == "patient")
        conversation = self.flipped(visible)
        text, ended = self._ask(conversation, turn, attempt=0)
        if not text and not ended:
            self._reject("empty")
            text, ended = self._ask(conversation, turn, attempt=1)
        elif text and self._copies(text, visible):
            self._reject("copied the agent")
            reminded = [*conversation, Message(role="system", content=ECHO_REMINDER)]
            text, ended = self._ask(reminded, turn, attempt=1)
            if text and self._copies(text, visible):
                self._reject("copied the agent again: the patient is broken")
                raise EndConversation(
                    EndReason.PATIENT_BROKEN,
                    "the LLM patient copied a message twice instead of answering as the "
                    f"patient: {text[:200]!r}",
                )
        elif text and sounds_like_assistant(text):
            self._reject("sounded like the assistant")
            reminded = [*conversation, Message(role="system", content=ASSISTANT_REMINDER)]
            text, ended = self._ask(reminded, turn, attempt=1)
        if not text:
            self._finished = True
            return None
        self._finished = ended
        return text

    def _reject(self, why: str) -> None:
        self.log[-1]["rejected"] = why

    @property
    def rejected_attempts(self) -> list[dict[str, Any]]:
        """The answers asked for again or refused (turn, attempt, raw text, thinking and why):
        stored on the trace for researchers, so a patient model's failures can be studied."""
        return [entry for entry in self.log if entry.get("rejected")]

    @staticmethod
    def _copies(text: str, visible: list[tuple[str, str]]) -> bool:
        """The reply copies the agent's last message. (A patient repeating itself to an agent
        that repeats itself is answering in kind, not broken.)"""
        agent = [said for role, said in visible if role == "agent"]
        return bool(agent) and echoes(text, agent[-1])

    def flipped(self, visible: list[tuple[str, str]]) -> list[Message]:
        """The patient model's view: its own turns as "assistant", the agent's as "user"."""
        conversation = [
            Message(role="system", content=persona_prompt(self.case)),
            Message(role="user", content=FIRST_TURN_CUE),
        ]
        previous = "user"
        for role, text in visible:
            flipped_role = "assistant" if role == "patient" else "user"
            if flipped_role == previous == "user":
                conversation[-1].content += "\n\n" + text
                continue
            if flipped_role == previous == "assistant":
                conversation.append(Message(role="user", content=NO_TEXT_CUE))
            conversation.append(Message(role=flipped_role, content=text))
            previous = flipped_role
        if previous == "assistant":
            conversation.append(Message(role="user", content=NO_TEXT_CUE))
        return conversation

    def _ask(self, conversation: list[Message], turn: int, attempt: int) -> tuple[str, bool]:
        seed = stable_rng(
            "llm-patient",
            self.case.get("case_id", ""),
            self.case.get("seed", 0),
            self.seed,
            turn,
            attempt,
        ).randrange(2**31)
        completion = self.provider.complete(
            conversation, [], self.temperature, CallContext(seed=seed)
        )
        self.tokens_in += completion.tokens_in
        self.tokens_out += completion.tokens_out
        self.log.append(
            {
                "turn": turn,
                "attempt": attempt,
                "text": completion.text,
                "thinking": completion.thinking,
            }
        )
        visible = strip_thinking(completion.text)
        ended = bool(_END.search(visible))
        before_end = _END.split(visible)[0] if ended else visible
        return _as_patient_message(before_end), ended


def _as_patient_message(text: str) -> str:
    """Drop a speaker label or wrapping quotes some models add ("Patient: …")."""
    text = re.sub(r"^\s*(patient|me|user)\s*:\s*", "", text.strip(), flags=re.I)
    if len(text) > 1 and text[0] == text[-1] == '"':
        text = text[1:-1]
    return text.strip()
