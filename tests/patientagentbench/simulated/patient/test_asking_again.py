"""The offline patient with a question: it turns down a visit it did not ask for in varied
words, takes a message to its doctor as progress, and notices an agent that repeats itself."""

from __future__ import annotations

import pytest

from patientagentbench.simulated.patient import (
    OfflinePatient,
    direct_question,
    phrases,
    question_phrases,
    read_agent_turn,
)
from tests.patientagentbench.simulated.patient.cases import make_case
from tests.patientagentbench.simulated.patient.scripted import Conversation

SEEDS = range(20)
VISIT_OFFER = (
    "I'm sorry you're dealing with this. I can't diagnose symptoms here, but your doctor can "
    "assess them properly. Would you like me to book an appointment with your primary care "
    "doctor, Dr. Alan Reyes?"
)
MESSAGE_SENT = (
    "I've sent your question to Dr. Alan Reyes; they usually reply within 2 business days, "
    "and you'll see the answer in your patient messages."
)


def replies(case, seed: int, *agent_texts: str) -> list[str | None]:
    conversation = Conversation(OfflinePatient(case, seed))
    said = []
    for text in agent_texts:
        conversation.agent(text)
        said.append(conversation.patient_turn())
    return said


def test_a_visit_with_the_primary_care_doctor_is_a_booking_offer():
    assert read_agent_turn(VISIT_OFFER, make_case("symptom_assessment")).offer == "book"
    message = "Would you like me to send your question to Dr. Reyes?"
    assert read_agent_turn(message, make_case("symptom_assessment")).offer == "message"
    change = "Would you like me to change your primary care doctor to Dr. Kim?"
    assert read_agent_turn(change, make_case("change_pcp")).offer == "pcp"


def test_deferring_to_the_doctor_is_not_an_answer():
    turn = read_agent_turn(VISIT_OFFER, make_case("symptom_assessment"))
    assert not turn.substantive


@pytest.mark.parametrize("personality", phrases.VOICES)
def test_an_agent_repeating_itself_wears_patience_out_and_the_patient_varies_its_words(
    personality,
):
    case = make_case(
        "symptom_assessment",
        personality,
        attributes={"care_preference": "none"},
        traits={"patience": "high"},
    )
    for seed in SEEDS:
        said = replies(case, seed, *[VISIT_OFFER] * 10)
        spoken = [s for s in said if s is not None]
        # The first answer is news; every repeat after it is a stall, and high patience is 7.
        assert None in said and len(spoken) <= 1 + 7, spoken
        assert all(spoken.count(s) <= 2 for s in spoken), spoken
        assert not any("I still need to know what to do about" in s for s in spoken), spoken


def test_a_declined_visit_is_followed_by_the_question_in_the_patients_words():
    case = make_case("symptom_assessment", attributes={"care_preference": "none"})
    declined = [
        s for seed in SEEDS for s in replies(case, seed, VISIT_OFFER)[:1] if "headache" in s
    ]
    assert len(declined) >= 5
    assert len(set(declined)) >= 4  # not one template


@pytest.mark.parametrize("personality", phrases.VOICES)
def test_a_message_to_the_doctor_is_progress_for_a_question(personality):
    case = make_case("symptom_assessment", personality)
    for seed in range(5):
        said = replies(case, seed, MESSAGE_SENT, "You're welcome. Take care!")
        assert said[0] is not None and said[1] is None


def test_the_patients_question_reads_as_a_clause():
    case = make_case("symptom_assessment")
    assert direct_question(case) == "Should I be worried?"
    questions = question_phrases(case)
    assert questions[0] == "what I should do about the afternoon headaches"
    assert "whether I should be worried" in questions
    insurance = make_case(
        "insurance_question",
        details={"question": "Does my PPO Gold plan cover video visits?"},
    )
    assert question_phrases(insurance) == ["whether my PPO Gold plan covers video visits"]
