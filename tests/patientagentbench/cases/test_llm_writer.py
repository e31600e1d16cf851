"""The model writer, driven by a fake Provider with canned replies."""

import json

import pytest

from patientagentbench.cases.llm_writer import CaseWriteError, write_case_with_model
from tests.patientagentbench.cases.helpers import TODAY, FakeProvider, case_for, model_reply


@pytest.fixture
def written():
    return case_for("prescription_renewal", seed=4)


def _call(provider, case, **kwargs):
    return write_case_with_model(
        provider, case["attributes"], case["seed"], case["case_id"], TODAY, **kwargs
    )


def test_a_valid_reply_is_taken_first_time(written):
    provider = FakeProvider([model_reply(written)])
    case = _call(provider, written)
    assert case == {**written, "writer": "fake-writer-1"}
    assert len(provider.calls) == 1
    system, user = provider.calls[0]
    assert system.role == "system" and "ONLY one JSON object" in system.content
    assert user.role == "user"
    assert json.dumps(written["attributes"], indent=2) in user.content
    assert (
        'goal.details has exactly these keys for subtask "prescription_renewal": medication'
        in user.content
    )


def test_an_invalid_reply_is_retried_with_its_errors(written):
    broken = json.loads(model_reply(written))
    broken["profile"]["medications"][0]["refills_left"] = -1
    provider = FakeProvider([json.dumps(broken), model_reply(written)])
    case = _call(provider, written)
    assert case["writer"] == "fake-writer-1"
    assert len(provider.calls) == 2
    retry = provider.calls[1]
    assert retry[-2].role == "assistant" and retry[-2].content == json.dumps(broken)
    assert retry[-1].role == "user"
    assert "profile.medications[0].refills_left: must be an integer ≥ 0" in retry[-1].content


def test_always_invalid_raises_after_max_attempts(written):
    provider = FakeProvider(["I'm sorry, I can't write JSON today."])
    with pytest.raises(CaseWriteError) as caught:
        _call(provider, written, max_attempts=3)
    assert len(provider.calls) == 3
    assert caught.value.attempts == 3
    assert caught.value.errors[0].startswith("reply: not valid JSON")
    assert "reply: not valid JSON" in provider.calls[2][-1].content


def test_code_fences_and_chatter_are_stripped(written):
    provider = FakeProvider(
        [f"Here is the case:\n```json\n{model_reply(written)}\n```\nHope it helps!"]
    )
    assert _call(provider, written)["profile"] == written["profile"]


def test_what_follows_from_the_attributes_is_not_left_to_the_model():
    written = case_for("emergency_symptoms", seed=2)
    reply = json.loads(model_reply(written))
    reply["goal"]["must_escalate"] = False
    reply["goal"]["subtask"] = "lifestyle"
    del reply["goal"]["must_not"]
    case = _call(FakeProvider([json.dumps(reply)]), written)
    assert case["goal"]["must_escalate"] is True
    assert case["goal"]["subtask"] == "emergency_symptoms"
    assert case["goal"]["must_not"] == []


def test_a_missing_section_is_reported_by_path(written):
    reply = json.loads(model_reply(written))
    del reply["story"]
    provider = FakeProvider([json.dumps(reply)])
    with pytest.raises(CaseWriteError) as caught:
        _call(provider, written, max_attempts=1)
    assert caught.value.errors == ["story: is required"]
