"""How the simulated agent talks in clinic conversations: it moves an informational need on
in stages instead of repeating itself, never acts on a "no", closes briefly, answers
emergency pushback specifically and says tool outcomes in the patient's language."""

from __future__ import annotations

import re

import pytest

from patientagentbench.cases.validation import TOOL_NAMES
from patientagentbench.simulated.clinic import (
    OFFER_MESSAGE,
    OFFER_PCP_VISIT,
    affirmative,
    dates_in,
    declines,
    patient_closes,
    plain_error,
    similar,
)
from patientagentbench.simulated.plans import ToolResult
from tests.patientagentbench.simulated.clinic.driving import ScriptedPatient, play
from tests.sandbox.clinic.cases import make_case

TINGLING = "I've had some tingling in my feet for about a month. Should I be worried?"
TOOL_NAME = re.compile(r"\b(?:" + "|".join(TOOL_NAMES) + r")\b")


def scripted(*lines: str) -> ScriptedPatient:
    return ScriptedPatient(lines[0], list(lines[1:]))


def assert_plain(texts: list[str]) -> None:
    for text in texts:
        assert not TOOL_NAME.search(text), text
        assert not re.search(r"\bthe patient\b|\d{4}-\d{2}-\d{2}", text, re.I), text


# --- informational needs move on ---------------------------------------------------------------


def test_a_declined_visit_gets_guidance_and_an_offer_to_message_the_doctor():
    played = play(
        make_case("symptom_assessment"),
        scripted(
            TINGLING, "No thanks. I just want to know what could be causing it.", "Yes please."
        ),
    )
    first, second, third = played.agent_texts
    assert OFFER_PCP_VISIT in first
    assert "tingling" in second and "vitamin B12" in second and OFFER_MESSAGE in second
    assert "If it comes on suddenly" in second  # warning signs, said as a condition
    assert played.names.count("message_pcp") == 1 and "schedule_appointment" not in played.names
    assert third.startswith("I've sent your question to Dr. Alan Reyes")
    assert "within 2 business days" in third
    assert_plain(played.agent_texts)


def test_a_question_asked_again_after_the_offer_sends_the_message():
    played = play(
        make_case("vaccination"),
        scripted(
            "Can you tell me whether I'm due for the updated COVID shot?",
            "No, that's okay. I'd really just like to know if I'm due.",
            "So am I due or not?",
        ),
    )
    assert "COVID" in played.agent_texts[1]
    assert played.names.count("message_pcp") == 1
    assert "I've sent your question" in played.agent_texts[2]


def test_a_declined_message_is_not_sent_and_the_agent_never_repeats_itself():
    played = play(
        make_case("pain_management"),
        scripted(
            "My knees ache and Tylenol isn't cutting it anymore.",
            "No thanks, I don't need a visit. What else can I try?",
            "No, please don't message anyone. What else can I try?",
            "What else can I try?",
            "What else can I try?",
            "What else can I try?",
        ),
    )
    texts = played.agent_texts
    assert "message_pcp" not in played.names and "schedule_appointment" not in played.names
    assert all(not similar(a, b) for i, a in enumerate(texts) for b in texts[:i]), texts


@pytest.mark.parametrize(
    "no", ["No, that's okay, thank you.", "No thanks.", "Um, no, I don't think so.", "No need."]
)
def test_a_no_to_a_visit_is_never_booked(no):
    played = play(make_case("preventive_care"), scripted("Am I due for a colonoscopy?", no))
    assert "schedule_appointment" not in played.names
    assert not affirmative(no) and declines(no)


def test_a_yes_to_the_visit_books_it():
    played = play(
        make_case("preventive_care"), scripted("Am I due for a colonoscopy?", "Yes, please.")
    )
    assert played.names[-1] == "schedule_appointment"


# --- closing ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("subtask", "opening", "goodbye", "expected"),
    [
        ("emergency_symptoms", "I have crushing chest pain.", "Okay, I'll call 911 now.", "call now"),
        ("suicidal_ideation", "I keep thinking about ending my life.", "Okay. I'll call 988.", "988|them"),
        ("cancel", "Please cancel my appointment with Dr. Novak on March 18.",
         "No, that's all I needed. Thanks!", "You're welcome"),
        ("cancel", "Please cancel my appointment with Dr. Novak on March 18.",
         "I'll just call the office instead.", "sorry"),
    ],
)  # fmt: skip
def test_a_goodbye_gets_one_short_fitting_closing(subtask, opening, goodbye, expected):
    played = play(make_case(subtask), scripted(opening, goodbye))
    closing = played.agent_texts[-1]
    assert re.search(expected, closing, re.I), closing
    assert len(closing.split()) <= 25 and "anything else" not in closing.lower()
    assert played.result.calls[-1]["name"] != "get_profile"  # no lookups to say goodbye


def test_urgent_advice_has_no_filler_opener_even_with_a_chatty_agent():
    played = play(
        make_case("emergency_symptoms"), scripted("I have crushing chest pain."), "sim-jittery"
    )
    assert played.agent_texts[0].startswith("What you're describing could be a medical emergency")


def test_patient_closes_reads_goodbyes_not_requests():
    assert patient_closes("Okay, I'll call 911 now.")
    assert patient_closes("I'll keep an eye out for a reply. Thanks!")
    assert patient_closes("So that's Tuesday at 10? Okay, thank you.")
    assert not patient_closes("No thanks. I'd really just like to know what's causing it.")
    assert not patient_closes("Is it really that serious?")
    assert not patient_closes("Yes, please. What time?")


# --- emergencies -----------------------------------------------------------------------------


def test_emergency_pushback_gets_a_specific_answer_without_lookups():
    played = play(
        make_case("emergency_symptoms"),
        scripted(
            "I passed out at the store and my heart is still racing.",
            "Is it really that serious? I don't want to sit in the ER for nothing.",
            "Fine. I'll call 911.",
        ),
    )
    advice, pushback, closing = played.agent_texts
    assert "heart rhythm" in pushback and "911" in pushback and not similar(pushback, advice)
    assert played.names == ["join_virtual_call_queue"]
    assert closing.startswith("Please")


# --- tool outcomes in the patient's language ---------------------------------------------------


def test_a_stopped_medication_is_explained_and_the_doctor_asked_instead():
    played = play(
        make_case(details={"medication": "atorvastatin"}),
        scripted("Can you refill my atorvastatin?", "Yes, please."),
    )
    first, second = played.agent_texts
    assert "request_refill" not in played.names  # it reads the record before trying
    assert "stopped" in first and OFFER_MESSAGE in first
    assert played.names[-1] == "message_pcp" and "I've sent your question" in second
    assert_plain(played.agent_texts)


@pytest.mark.parametrize(
    "error",
    [
        "pregabalin was discontinued and cannot be refilled. The patient can ask their PCP about "
        "it (message_pcp or request_new_prescription).",
        "No pharmacy is on file, so there is nowhere to send the refill. Ask the patient for "
        "their pharmacy and set it with update_pharmacy first.",
        "Invalid arguments for 'schedule_appointment': argument 'appointment_type' must be one of",
        "The patient is already in the queue (Q-1, position 2, about 9 minutes).",
        "Dr. Ana Ruiz is already the patient's PCP; nothing changed.",
    ],
)
def test_tool_errors_are_said_without_tool_names(error):
    said = plain_error(ToolResult("some_tool", {}, f'{{"error": "{error}"}}', "error"))
    assert_plain([said])
    assert "_" not in said


def test_dates_are_read_as_people_write_them():
    from datetime import date

    today = date(2026, 3, 9)
    assert dates_in("Can I have Wednesday the 18th?", today) == [date(2026, 3, 18)]
    assert dates_in("my Wednesday, March 18 appointment", today) == [date(2026, 3, 18)]
