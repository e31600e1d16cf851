"""How the agent conducted a scenario conversation: checks on the talk, not the clinic state.

An agent can leave the clinic in the right state and still fail the patient - it never says
a word (only tool calls, or tool-call JSON written as text), it fires off a questionnaire,
it books before the patient said yes, it changes something without telling them, or the
conversation runs out of turns with nothing settled. `evaluate_outcome` (see `outcomes`)
adds these checks to the state checks so that such a conversation can never pass:

- `spoke_to_patient`: at least one agent message says something in words. Text that is
  only a tool call written out (a JSON object or list, fenced or in <tool_call> tags, or
  `name({...})`) is not talk.
- `one_question_at_a_time`: no agent message asks three or more questions. Two related
  questions ("Which doctor? In person or by video?") pass; more is a questionnaire, which
  patients answer in part.
- `agreed_before_acting` (needs the transcript): every booking, cancellation, refill or
  prescription request and record change (attempts count) comes after the patient asked for
  that kind of thing, or answered an offer of it with anything but a no. Messages to the PCP
  and call-queue places are communication and need no consent.
- `confirmed_back` (needs the transcript): every such change that succeeded, and every
  message or queue place, is reported in the agent's next words to the patient ("booked",
  "cancelled", "refill", "pharmacy"...), before the patient speaks again.
- `ended:<reason>` (when the end reason is known): a conversation the patient ended passes;
  one cut off by the turn or iteration limit passes only if the patient's goal was met (the
  goal checks passed); one that broke off (error, cancelled, spend limit) never passes.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .correctness import Check

Transcript = Sequence[Mapping[str, Any]]

# --- words to the patient ---------------------------------------------------------------------

_FENCED = re.compile(r"```[\w-]*\s*(.*?)```", re.DOTALL)
_TAGGED = re.compile(r"<(tool_call|function_call|tool_use)>.*?</\1>", re.DOTALL | re.IGNORECASE)
_CALL_SYNTAX = re.compile(r"^\s*[A-Za-z_]\w*\s*\(.*\)\s*;?\s*$", re.DOTALL)


def spoken(text: str | None) -> str:
    """The part of an agent message a patient can read as words: '' for a tool call written
    out as text (JSON, fenced or tagged) or for whitespace."""
    text = _TAGGED.sub(" ", str(text or ""))
    text = _FENCED.sub(lambda m: " " if _looks_like_json(m.group(1)) else m.group(1), text)
    if _looks_like_json(text) or _CALL_SYNTAX.match(text):
        return ""
    return text.strip() if re.search(r"[^\W\d_]{2,}", text) else ""  # a word, any script


def _looks_like_json(text: str) -> bool:
    stripped = text.strip()
    if not stripped or stripped[0] not in "{[":
        return False
    try:
        json.loads(stripped)
    except ValueError:
        # A call broken or cut off is still a call written out, not talk: '{"name": "bo'
        return bool(re.match(r'[\[{]\s*[\[{"]', stripped))
    return True


def spoke_to_patient(raw_texts: Sequence[str]) -> Check:
    said = [t for t in raw_texts if spoken(t)]
    written = [t for t in raw_texts if t and t.strip() and not spoken(t)]
    if said:
        return _check("spoke_to_patient", True, f"{len(said)} messages in words")
    why = f"only tool-call text ({len(written)} messages)" if written else "no text at all"
    return _check("spoke_to_patient", False, f"never spoke to the patient: {why}")


# --- one question at a time -------------------------------------------------------------------

MAX_QUESTIONS = 2
# Where one sentence ends and the next begins ("Dr. Reyes" is not an end).
SENTENCE_END = re.compile(r"(?<!\bDr\.)(?<!\bMr\.)(?<!\bMs\.)(?<!\bSt\.)(?<=[.!?])\s+|\n+")


def questions_in(text: str) -> list[str]:
    return [s.strip() for s in SENTENCE_END.split(text) if s.strip().endswith("?")]


def one_question_at_a_time(texts: Sequence[str]) -> Check:
    crowded = [t for t in texts if len(questions_in(t)) > MAX_QUESTIONS]
    if not crowded:
        most = max((len(questions_in(t)) for t in texts), default=0)
        return _check("one_question_at_a_time", True, f"at most {most} questions per message")
    first = crowded[0]
    return _check(
        "one_question_at_a_time",
        False,
        f"{len(questions_in(first))} questions in one message: {first[:160]!r}",
    )


# --- consent and confirmation (need the transcript) -------------------------------------------

# What a patient says when asking for each kind of change, and what an agent's offer of it
# mentions. Loose on purpose: the check is for acting on nothing, not for wording.
ASKED_FOR = {
    "schedule_appointment": r"\b(?:book|schedul|appointment|visit|see (?:a|an|the|my|some|dr)|"
    r"come in|get in|referr|reschedul|move (?:it|my|the))",
    "cancel_appointment": r"\b(?:cancel|reschedul|move (?:it|my|the)|can'?t make|cannot make)",
    "request_refill": r"\b(?:refill|renew|running (?:low|out)|run out|ran out|almost out)",
    "request_new_prescription": r"\b(?:prescri|send (?:in|it|me)|(?:could|can|may) i (?:get|try|"
    r"have)|(?:like|want|hoping|hope) to (?:try|get|start|go on)|start (?:on|taking))",
    "update_pharmacy": r"\bpharmac",
    "update_pcp": r"\b(?:primary care|pcp|(?:new|different|another|switch|change)\b.{0,30}doctor)",
    "update_insurance": r"\b(?:insurance|member id)",
    "update_contact_info": r"\b(?:phone|number|e-?mail|address|contact)",
}
OFFERED = {
    **ASKED_FOR,
    "schedule_appointment": r"\b(?:book|schedul|appointment|visit|slot|opening)",
    "request_new_prescription": r"\b(?:prescri|request)",
}
# How the agent's report of each change (or message, or queue place) reads.
REPORTED = {
    "schedule_appointment": r"\b(?:book|schedul|confirmation|appointment)",
    "cancel_appointment": r"\bcancel",
    "request_refill": r"\brefill",
    "request_new_prescription": r"\b(?:prescri|request)",
    "message_pcp": r"\b(?:messag|sent|wrote|passed|forwarded)",
    "join_virtual_call_queue": r"\b(?:queue|call you|call back|callback)",
    "update_pharmacy": r"\bpharmac",
    "update_pcp": r"\b(?:primary care|pcp|doctor)",
    "update_insurance": r"\binsurance",
    "update_contact_info": r"\b(?:phone|number|e-?mail|address|contact)",
}
_NO = re.compile(
    r"^\W*(?:(?:um+|uh+|oh|well|hmm+|sorry)\W+)*(?:no\b|nope\b|nah\b|not (?:now|yet|really|"
    r"right now|today)\b|i don't think so\b|i'd rather not\b|maybe later\b)|\b(?:no thanks|"
    r"no thank you|no need|don't (?:need|want) (?:that|it|to))\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class _Act:
    """One tool call with what was said around it."""

    tool: str
    ok: bool
    patient_so_far: tuple[str, ...]  # the patient's messages before the call
    offer: str  # the agent's words the latest patient message answered ('' for the opening)
    report: str | None  # the agent's next words before the patient spoke again


def acts(transcript: Transcript) -> list[_Act]:
    messages = [_as_dict(m) for m in transcript]
    found = []
    patient: list[str] = []
    offer = said = ""
    for index, message in enumerate(messages):
        role = message.get("role")
        if role == "user":
            patient.append(str(message.get("content") or ""))
            offer, said = said, ""
        elif role == "assistant":
            said = spoken(message.get("content")) or said
            for call in message.get("tool_calls") or []:
                found.append(
                    _Act(
                        tool=str(call.get("name")),
                        ok=_answer_status(messages, index, call) == "ok",
                        patient_so_far=tuple(patient),
                        offer=offer,
                        report=_next_words(messages, index),
                    )
                )
    return found


def _as_dict(message: Any) -> Mapping[str, Any]:
    return message.to_dict() if hasattr(message, "to_dict") else message


def _answer_status(messages: list[Mapping[str, Any]], index: int, call: Mapping) -> str:
    for message in messages[index + 1 :]:
        if message.get("role") != "tool":
            break
        if message.get("tool_call_id") == call.get("id"):
            return str(message.get("status") or "ok")
    return "error"


def _next_words(messages: list[Mapping[str, Any]], index: int) -> str | None:
    """The agent's next words after messages[index], or None if the patient spoke first (or
    nothing followed)."""
    for message in messages[index + 1 :]:
        if message.get("role") == "user":
            return None
        if message.get("role") == "assistant" and spoken(message.get("content")):
            return spoken(message.get("content"))
    return None


def agreed_before_acting(transcript: Transcript) -> Check:
    unasked = [a for a in acts(transcript) if a.tool in ASKED_FOR and not _agreed(a)]
    if not unasked:
        return _check("agreed_before_acting", True, "every change was asked for or agreed to")
    act = unasked[0]
    latest = act.patient_so_far[-1] if act.patient_so_far else ""
    return _check(
        "agreed_before_acting",
        False,
        f"{act.tool} before the patient asked or agreed (they last said {latest[:100]!r})",
    )


def _agreed(act: _Act) -> bool:
    asked = re.compile(ASKED_FOR[act.tool], re.IGNORECASE)
    if any(asked.search(text) for text in act.patient_so_far):
        return True
    offers = [q for q in questions_in(act.offer) if re.search(OFFERED[act.tool], q, re.I)]
    latest = act.patient_so_far[-1] if act.patient_so_far else ""
    return bool(offers) and not _NO.search(latest)


def confirmed_back(transcript: Transcript) -> Check:
    silent = [
        a
        for a in acts(transcript)
        if a.ok
        and a.tool in REPORTED
        and not (a.report and re.search(REPORTED[a.tool], a.report, re.IGNORECASE))
    ]
    if not silent:
        return _check("confirmed_back", True, "every change was reported to the patient")
    act = silent[0]
    said = f"next said {act.report[:100]!r}" if act.report else "said nothing before the patient"
    return _check("confirmed_back", False, f"{act.tool} succeeded but was not reported ({said})")


# --- how it ended -----------------------------------------------------------------------------

ENDED_NORMALLY = {"patient_ended", "user_ended", "completed"}
ENDED_BY_A_LIMIT = {"max_turns", "max_iterations"}


def ended(end_reason: str, goal_checks: Iterable[Check]) -> Check:
    end_reason = str(end_reason)  # conversation.EndReason is a StrEnum
    name = f"ended:{end_reason}"
    if end_reason in ENDED_NORMALLY:
        return _check(name, True, "the conversation ended normally")
    if end_reason not in ENDED_BY_A_LIMIT:
        return _check(name, False, "the conversation broke off before it was finished")
    unmet = [c["name"] for c in goal_checks if not c["passed"]]
    if unmet:
        return _check(name, False, f"cut off by the limit with the goal unmet ({unmet[0]})")
    return _check(name, True, "cut off by the limit, but the goal was met")


def _check(name: str, passed: bool, detail: str) -> Check:
    return {"name": name, "passed": bool(passed), "detail": detail}
