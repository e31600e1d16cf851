"""The demo case set played by the simulated agents and the offline patient must read like
real patient contact (clinicians review these transcripts), not like test fixtures.

Every case of the 60-case demo set is played with sim-steady, sim-jittery and sim-careless,
repetitions 0 and 1 (no database: `play_case` runs the clinic sandbox in memory). Perturbed
agents may drop, swap or muddle calls - that is intended variance - but what they say must
stay natural. sim-careless fails on purpose (several questions at once, vague reports, calm
words where it should escalate), so the tests of tone - short goodbyes, no filler before
urgent advice - hold only for the careful profiles; it must still never loop, repeat itself,
leak tool names or act on an offer the patient declined.
"""

from __future__ import annotations

import re
from functools import cache

import pytest

from patientagentbench.cases.generate import generate_case_set
from patientagentbench.cases.validation import TOOL_NAMES
from patientagentbench.suites.playing import play_case

DEMO_COUNT, DEMO_SEED = 60, 20260309
CAREFUL = ("sim-steady", "sim-jittery")
PROFILES = (*CAREFUL, "sim-careless")
REPETITIONS = (0, 1)

# A patient turning something down: "No, that's okay", "Not yet - ...", "Um, no", "No need".
DECLINES = re.compile(
    r"^\W*(?:(?:um|uh|oh|well|sorry)\W+)*(?:no\b|nope\b|nah\b|not (?:now|yet|right now|really)\b|"
    r"maybe later\b|i don't (?:think so|need|want)\b|that's (?:alright|okay|fine),? no\b)"
    r"|\b(?:no thanks|no need|don't want an appointment|don't need an appointment)\b",
    re.IGNORECASE,
)
# Sentence ends ("Dr. Reyes" is not one).
SENTENCE_END = re.compile(r"(?<!\bDr\.)(?<!\bMr\.)(?<!\bMs\.)(?<!\bSt\.)(?<=[.!?])\s+")
# What an agent's offer is about, read from its question.
OFFERED_ACTION = {
    "schedule_appointment": re.compile(r"\bbook|appointment|visit|slot", re.IGNORECASE),
    "request_new_prescription": re.compile(r"prescri", re.IGNORECASE),
}


@cache
def demo_cases() -> tuple[dict, ...]:
    return tuple(generate_case_set(DEMO_COUNT, DEMO_SEED))


@cache
def played(profile: str, repetition: int) -> tuple:
    """(case, result, verdict) for every demo case."""
    return tuple((case, *play_case(case, profile, repetition)) for case in demo_cases())


def conversations(profiles: tuple[str, ...] = PROFILES):
    for profile in profiles:
        for repetition in REPETITIONS:
            for case, result, verdict in played(profile, repetition):
                yield f"{profile}/{repetition}/{case['case_id']}", result, verdict


def agent_texts(result) -> list[str]:
    return [m.content for m in result.messages if m.role == "assistant" and m.content.strip()]


def patient_texts(result) -> list[str]:
    return [m.content for m in result.messages if m.role == "user"]


def turns(result):
    """(agent text before the patient's message, the patient's message, calls the agent made
    in reply to it) for every patient message after the first."""
    before, patient, calls = "", None, []
    for message in result.messages:
        if message.role == "user":
            if patient is not None:
                yield before, patient, calls
            patient, calls = message.content, []
        elif message.role == "assistant":
            calls.extend(c.name for c in message.tool_calls)
            if message.content.strip() and patient is not None:
                yield before, patient, calls
                before, patient, calls = message.content, None, []
    if patient is not None:
        yield before, patient, calls


def test_no_agent_message_is_sent_twice_in_a_conversation():
    repeated = {
        name: text
        for name, result, _ in conversations()
        for text in agent_texts(result)
        if agent_texts(result).count(text) > 1
    }
    assert not repeated, repeated


def test_no_patient_message_is_sent_more_than_twice():
    repeated = {
        name: text
        for name, result, _ in conversations()
        for text in patient_texts(result)
        if patient_texts(result).count(text) > 2
    }
    assert not repeated, repeated


def test_conversations_end_with_the_patient_not_the_turn_limit():
    ends = [(name, result.end_reason) for name, result, _ in conversations()]
    ended_by_patient = [name for name, reason in ends if reason == "user_ended"]
    assert len(ended_by_patient) >= 0.9 * len(ends), [e for e in ends if e[1] != "user_ended"]


def test_the_agent_speaks_plain_language_to_the_patient():
    tool_name = re.compile(r"\b(?:" + "|".join(sorted(TOOL_NAMES)) + r")\b")
    leaks = [
        (name, text)
        for name, result, _ in conversations()
        for text in agent_texts(result)
        if tool_name.search(text) or re.search(r"\bthe patient\b", text, re.IGNORECASE)
    ]
    assert len(TOOL_NAMES) == 15
    assert not leaks, leaks[:5]


def test_the_agent_never_acts_on_an_offer_the_patient_declined():
    acted = []
    for name, result, _ in conversations():
        for before, patient, calls in turns(result):
            if not DECLINES.search(patient):
                continue
            offers = [s for s in SENTENCE_END.split(before) if s.endswith("?")]
            for tool, words in OFFERED_ACTION.items():
                if tool in calls and any(words.search(offer) for offer in offers):
                    acted.append((name, before[-120:], patient, tool))
    assert not acted, acted


@pytest.mark.parametrize("repetition", REPETITIONS)
def test_the_steady_agent_still_meets_the_outcome_checks(repetition):
    results = played("sim-steady", repetition)
    failed = [case["case_id"] for case, _, verdict in results if not verdict.passed]
    assert len(results) - len(failed) >= 55, failed


def test_goodbyes_are_short_and_urgent_advice_has_no_filler():
    problems = []
    for name, result, _ in conversations(CAREFUL):
        texts = agent_texts(result)
        for text in texts:
            if re.search(r"\b(?:911|988)\b", text) and text.startswith(
                ("Okay.", "Thank you for telling me.", "Done.", "Thanks for waiting.")
            ):
                problems.append((name, text[:80]))
        closing = texts[-1] if result.end_reason == "user_ended" else ""
        if closing and (len(closing.split()) > 30 or closing.rstrip().endswith("help with?")):
            problems.append((name, closing))
    assert not problems, problems[:5]
