"""`sounds_like_assistant`: a patient offering to do the assistant's work is caught; a patient
asking for that work, or offering what patients offer (a time, a photo, a spelling), is not."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from patientagentbench.simulated.patient import phrases
from patientagentbench.simulated.patient.llm import sounds_like_assistant

ASSISTANT = [
    # A real LLM patient said the first one; the rest are the same move in other words.
    "I can ask your PCP about switching the dose.",
    "I can help you schedule a follow-up.",
    "Let me check your chart.",
    "Let me pull up your records real quick.",
    "I'll send your prescription to CVS.",
    "I’ll ask your doctor to call you back.",  # a curly apostrophe
    "I can reach out to your care team today.",
    "I can book that for you.",
    "I can get you in Tuesday at 3.",
    "I'll set you up with Dr. Chen.",
    "How can I help you today?",
]

PATIENT = [
    "Can you ask my PCP about switching the dose?",
    "I can come in Tuesday.",
    "I can do Tuesday at 3.",
    "Can you help me schedule?",
    "Could you check my chart?",
    "I'll ask my doctor.",
    "I can send you a photo of my insurance card.",
    "I can give you my member ID.",
    "I can spell it for you: L-O-P-E-Z.",
    "Let me know if you need my date of birth.",
    "I'll wait for your nurse to call me.",
    "I can't find your office on the map.",
    "I think your doctor said it was fine.",
    "I already asked your front desk yesterday.",
]


@pytest.mark.parametrize("text", ASSISTANT)
def test_the_patient_speaking_as_the_assistant_is_caught(text):
    assert sounds_like_assistant(text)


@pytest.mark.parametrize("text", PATIENT)
def test_ordinary_patient_speech_is_not_caught(text):
    assert not sounds_like_assistant(text)


ACTIONS = ["ask", "check", "send", "review", "message", "contact", "update"]
CARE = ["PCP", "doctor", "chart", "records", "prescription", "medications", "pharmacy"]
OFFERS = ["I can", "I'll", "Let me", "I could"]
REQUESTS = ["Can you", "Could you", "Would you please", "Please"]


@given(st.sampled_from(OFFERS), st.sampled_from(ACTIONS), st.sampled_from(CARE), st.text("ab "))
def test_any_offer_to_act_on_your_care_is_caught(offer, action, care, tail):
    assert sounds_like_assistant(f"{offer} {action} your {care} {tail}")


@given(
    st.sampled_from(REQUESTS + OFFERS),
    st.sampled_from(ACTIONS),
    st.sampled_from(CARE),
    st.text("ab "),
)
def test_the_same_words_about_my_care_are_not(opener, action, care, tail):
    assert not sounds_like_assistant(f"{opener} {action} my {care} {tail}")


def _strings(value):
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list | tuple | set | frozenset):
        for item in value:
            yield from _strings(item)


def test_nothing_the_offline_patient_says_sounds_like_the_assistant():
    said = [
        text for name in dir(phrases) if name.isupper() for text in _strings(getattr(phrases, name))
    ]
    assert len(said) > 100
    assert [text for text in said if sounds_like_assistant(text)] == []
