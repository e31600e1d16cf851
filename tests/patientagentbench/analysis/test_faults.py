"""Conversation faults: an agent copying the patient's last message is found, an agent that
quotes the patient and answers, or agrees in a word, is not."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from patientagentbench.analysis.faults import agent_echoes, copies

PATIENT = "I need my metformin refilled, I ran out yesterday."


@pytest.mark.parametrize(
    "reply",
    [
        PATIENT,
        "i need my metformin refilled i ran out yesterday",
        "  I need my METFORMIN refilled,   I ran out yesterday!  ",
        f'"{PATIENT}"',
        f"{PATIENT} Okay.",
        f"Sure: {PATIENT}",
    ],
)
def test_a_reply_that_is_the_patients_message_is_a_copy(reply):
    assert copies(reply, PATIENT)


@pytest.mark.parametrize(
    ("reply", "message"),
    [
        ("I can help with that. Which pharmacy do you use?", PATIENT),
        (
            f'You said "{PATIENT}" I have sent a refill request for metformin 500 mg to CVS '
            "Pharmacy #4412; they usually have it ready within two hours.",
            PATIENT,
        ),
        ("Yes.", "Yes."),  # a word of agreement is not a copy
        ("Thank you!", "Thank you!"),
        ("", PATIENT),
        # Close is not the same: a long runaway thread of "message N xxx…" turns each differs
        # from the last in one number.
        ("message 1 " + "x" * 80, "message 0 " + "x" * 80),
        ("Your date of birth is 1955-04-02, right?", "My date of birth is 1955-04-02."),
    ],
)
def test_an_answer_or_a_short_agreement_is_not(reply, message):
    assert not copies(reply, message)


def test_echoes_are_found_against_the_patients_last_message_only():
    turns = [
        ("system", "clinic assistant"),
        ("user", PATIENT),
        ("agent", PATIENT),  # copied
        ("user", "Hello? Can you send it to CVS please?"),
        ("agent", "Of course. Sent to CVS."),
        ("agent", PATIENT),  # an old message, not the last one: a repeat, not this fault
        ("user", "Thanks, that is everything for today."),
        ("agent", "thanks that is everything for today"),
    ]
    assert agent_echoes(turns) == [2, 7]


words = st.lists(
    st.sampled_from(["pain", "chest", "my", "since", "monday", "it", "hurts", "left", "arm"]),
    min_size=3,
)


@given(words, st.sampled_from(["", " ", "!", "."]))
def test_any_patient_message_said_back_is_found(message_words, tail):
    message = " ".join(message_words)
    assert agent_echoes([("user", message), ("agent", message.upper() + tail)]) == [1]
