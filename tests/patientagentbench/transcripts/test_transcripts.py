"""A conversation as a reader sees it: turns, tool cards, anchors, and nothing else."""

import json

import pytest
from django.template.loader import render_to_string
from hypothesis import given
from hypothesis import strategies as st

from patientagentbench.transcripts import LONG_TEXT, transcript_of

SECRET = "SECRET-7f3a"


def conversation():
    return [
        {"role": "system", "content": "You are the assistant of a clinic."},
        {"role": "user", "content": "I need to move my appointment."},
        {
            "role": "assistant",
            "content": "Let me look.",
            "thinking": f"{SECRET} hidden reasoning",
            "raw": {"model": f"gpt-{SECRET}", "usage": {"total_tokens": 99}},
            "tool_calls": [
                {
                    "id": "call_AbC123",
                    "provider_id": f"toolu_{SECRET}",
                    "name": "list_appointments",
                    "arguments": {"patient_id": "P1"},
                    "raw_arguments": '{"patient_id": "P1"}',
                    "malformed": False,
                },
                {
                    "id": "call_DeF456",
                    "name": "cancel_appointment",
                    "arguments": None,
                    "raw_arguments": '{"appointment_id": ',
                    "malformed": True,
                },
            ],
        },
        {
            "role": "tool",
            "tool_call_id": "call_AbC123",
            "content": '{"appointments": []}',
            "status": "ok",
            "latency_ms": 12,
        },
        {
            "role": "tool",
            "tool_call_id": "call_DeF456",
            "content": '{"error": "bad json"}',
            "status": "error",
        },
        {"role": "assistant", "content": "You have no appointments.", "tool_calls": []},
        {"role": "user", "content": "Thanks."},
    ]


def test_turns_and_tool_cards_with_stable_anchors():
    transcript = transcript_of(conversation(), user_label="Patient")
    assert [(t.anchor, t.speaker) for t in transcript.turns] == [
        ("system", "system"),
        ("turn-1", "user"),
        ("turn-2", "agent"),
        ("turn-3", "agent"),
        ("turn-4", "user"),
    ]
    first, second = transcript.turns[2].tool_cards
    assert (first.anchor, first.name, first.status, first.malformed) == (
        "t1",
        "list_appointments",
        "ok",
        False,
    )
    assert json.loads(first.arguments) == {"patient_id": "P1"}
    assert json.loads(first.result) == {"appointments": []}
    # A malformed call shows exactly what the model sent, never a repaired version.
    assert (second.anchor, second.status, second.malformed) == ("t2", "error", True)
    assert second.arguments == '{"appointment_id": '
    assert transcript.anchors == {"system", "turn-1", "turn-2", "turn-3", "turn-4", "t1", "t2"}


def test_nothing_outside_the_allow_list_survives():
    transcript = transcript_of(conversation())
    text = repr(transcript)
    assert SECRET not in text
    assert "call_AbC123" not in text and "toolu_" not in text  # provider ids are replaced
    assert "total_tokens" not in text and "latency" not in text


def test_system_prompt_can_be_left_out_and_unanswered_calls_say_so():
    messages = conversation()[:3]
    transcript = transcript_of(messages, include_system=False)
    assert [t.anchor for t in transcript.turns] == ["turn-1", "turn-2"]
    assert {card.status for card in transcript.tool_cards} == {"no result"}


def test_tool_calls_without_words_take_no_turn_number():
    messages = conversation()
    messages[2]["content"] = ""
    transcript = transcript_of(messages)
    assert [t.anchor for t in transcript.turns] == ["system", "turn-1", "", "turn-2", "turn-3"]
    assert "" not in transcript.anchors and {"t1", "t2"} <= transcript.anchors


def test_long_values_are_collapsed_but_reads_of_the_chart_stay_open():
    messages = conversation()
    messages[2]["tool_calls"][0]["name"] = "get_available_appointments"
    messages[3]["content"] = json.dumps({"text": "x" * (LONG_TEXT + 1)})
    cards = transcript_of(messages).tool_cards
    assert cards[0].collapsed and not cards[1].collapsed
    for chart_read in ("get_profile", "list_medications", "list_appointments"):
        messages[2]["tool_calls"][0]["name"] = chart_read
        card = transcript_of(messages).tool_cards[0]
        assert card.reads_chart and not card.collapsed, chart_read


message_text = st.text(
    alphabet=st.characters(codec="utf-8", exclude_characters=SECRET), max_size=40
)
extra_fields = st.dictionaries(
    st.sampled_from(
        [
            "raw",
            "thinking",
            "model",
            "provider",
            "tokens_in",
            "cost",
            "run_id",
            "temperature",
            "provider_id",
            "usage",
        ]
    ),
    st.just(SECRET),
    max_size=5,
)


@st.composite
def message_logs(draw):
    messages = []
    for index in range(draw(st.integers(0, 8))):
        role = draw(st.sampled_from(["system", "user", "assistant", "tool"]))
        message = {"role": role, "content": draw(message_text), **draw(extra_fields)}
        if role == "assistant":
            message["tool_calls"] = [
                {
                    "id": f"c{index}-{n}",
                    "name": draw(message_text),
                    "arguments": {},
                    "raw_arguments": "{}",
                    **draw(extra_fields),
                }
                for n in range(draw(st.integers(0, 2)))
            ]
        if role == "tool":
            message["tool_call_id"] = f"c{index - 1}-0"
        messages.append(message)
    return messages


@given(message_logs())
def test_no_identifying_field_ever_reaches_a_transcript(messages):
    transcript = transcript_of(messages)
    assert SECRET not in repr(transcript)
    anchors = [card.anchor for card in transcript.tool_cards]
    assert anchors == [f"t{n}" for n in range(1, len(anchors) + 1)]


@pytest.mark.django_db
def test_the_thread_partial_escapes_model_and_tool_output():
    messages = conversation()
    messages[5]["content"] = "<script>alert('agent')</script>"
    messages[3]["content"] = '{"note": "<img src=x onerror=alert(1)>"}'
    html = render_to_string(
        "transcripts/thread.html#thread", {"transcript": transcript_of(messages)}
    )
    assert "<script>alert" not in html and "<img src=x" not in html
    assert "&lt;script&gt;" in html
    assert 'id="turn-3"' in html and 'id="t1"' in html and 'id="t2"' in html
