"""A judge's answer is a score 1..5, not applicable, or unparseable with the raw text and a
reason; a parse failure never becomes a number."""

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from jury.pure.parsing import (
    NOT_APPLICABLE,
    OK,
    UNPARSEABLE,
    first_json_object,
    parse_completion,
    parse_verdict,
)
from jury.pure.prompts import JSON_SCHEMA, RATIONALE_MAX_CHARS
from patientagentbench.providers.types import Completion, ToolCall


def verdict(**fields):
    return {"rationale": "Checked the chart first (t1).", "not_applicable": False, **fields}


@pytest.mark.parametrize(
    ("answer", "score"),
    [
        (verdict(score=4), 4),
        (json.dumps(verdict(score=1)), 1),
        ('```json\n{"score": 5, "not_applicable": false, "rationale": "ok"}\n```', 5),
        ('Here is my verdict: {"score": 2, "rationale": "no urgency"} Thanks!', 2),
        ('{"score": 3, "rationale": "x"} and later {"score": 5}', 3),  # the FIRST object
        ('{"score": "3", "rationale": "quoted"}', 3),
        ('{"score": " 4 ", "rationale": "padded"}', 4),
        ('{"score": 4.0, "rationale": "a float that is whole"}', 4),
        ('{"score": 4}', 4),  # a missing rationale is allowed: the score was measured
        ('{"score": 4, "explanation": "PatientAgentBench calls it explanation"}', 4),
        ('{"score": 2, "rationale": "has {braces} inside", "not_applicable": "false"}', 2),
        ('Thinking {not json} ... {"score": 5, "rationale": "r"}', 5),
    ],
)
def test_accepted(answer, score):
    parsed = parse_verdict(answer)
    assert (parsed.status, parsed.score, parsed.problem) == (OK, score, "")


def test_rationale_and_raw_are_kept():
    text = 'Sure. {"score": 4, "rationale": "  Read back the time (turn-4).  "}'
    parsed = parse_verdict(text)
    assert parsed.rationale == "Read back the time (turn-4)." and parsed.raw == text
    assert json.loads(parse_verdict(verdict(score=2)).raw)["score"] == 2


@pytest.mark.parametrize(
    "answer",
    [
        verdict(score=None, not_applicable=True),
        verdict(score=4, not_applicable=True),  # not applicable wins over a score
        verdict(score=9, not_applicable=True),
        '{"not_applicable": "TRUE", "rationale": "no symptom raised"}',
    ],
)
def test_not_applicable(answer):
    parsed = parse_verdict(answer)
    assert (parsed.status, parsed.score) == (NOT_APPLICABLE, None)


@pytest.mark.parametrize(
    ("answer", "problem"),
    [
        ("", "empty"),
        (None, "empty"),
        ("I'm sorry, but I can't help with that.", "refused"),
        ("I cannot evaluate medical conversations.", "refused"),
        ("The agent did well; I would give it a 4.", "no JSON object"),
        ('{"score": 4, "rationale": "cut off', "no JSON object"),
        ('{"score": 7, "rationale": "great"}', "outside 1 to 5"),
        ('{"score": 0, "rationale": "awful"}', "outside 1 to 5"),
        ('{"score": 2.5, "rationale": "between"}', "whole number"),
        ('{"score": "3.5", "rationale": "between"}', "whole number"),
        ('{"score": "three", "rationale": "words"}', "whole number"),
        ('{"score": true, "rationale": "bool"}', "whole number"),
        ('{"score": [4], "rationale": "list"}', "whole number"),
        ('{"score": null, "rationale": "forgot"}', "no score"),
        ('{"rationale": "no score at all"}', "no score"),
        ('{"score": 4, "rationale": 12}', "rationale must be text"),
        ('{"score": 4, "not_applicable": "maybe"}', "not_applicable must be"),
        ("[4]", "no JSON object"),
    ],
)
def test_unparseable(answer, problem):
    parsed = parse_verdict(answer)
    assert parsed.status == UNPARSEABLE and parsed.score is None
    assert problem in parsed.problem
    assert parsed.raw == ("" if answer is None else answer)


def test_first_json_object_skips_what_does_not_parse():
    assert first_json_object('a {b} c {"x": {"y": 1}} {"z": 2}') == {"x": {"y": 1}}
    assert first_json_object("no braces") is None


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(max_size=8),
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=6), children, max_size=3)
    ),
    max_leaves=8,
)
verdict_like = st.fixed_dictionaries(
    {},
    optional={
        "score": json_values | st.integers(-3, 9) | st.sampled_from(["1", "5", "6", "2.0"]),
        "not_applicable": json_values,
        "rationale": json_values,
        "explanation": json_values,
    },
)


def assert_honest(parsed):
    if parsed.status == OK:
        assert type(parsed.score) is int and 1 <= parsed.score <= 5
    else:
        assert parsed.status in (NOT_APPLICABLE, UNPARSEABLE) and parsed.score is None
    assert (parsed.problem != "") == (parsed.status == UNPARSEABLE)


@given(verdict_like)
def test_no_object_yields_an_ok_outside_one_to_five(data):
    assert_honest(parse_verdict(data))


@given(verdict_like, st.text(max_size=30), st.text(max_size=30))
def test_no_text_yields_an_ok_outside_one_to_five(data, before, after):
    text = before + json.dumps(data) + after
    assert_honest(parse_verdict(text))


@given(st.text(max_size=200))
def test_arbitrary_text_never_becomes_a_number_by_accident(text):
    parsed = parse_verdict(text)
    assert_honest(parsed)
    if first_json_object(text) is None:
        assert parsed.status == UNPARSEABLE


def test_a_completion_is_read_from_its_tool_call_or_its_text():
    good = ToolCall.parse(id="t1", name="record_verdict", raw_arguments='{"score": 4}')
    broken = ToolCall.parse(id="t1", name="record_verdict", raw_arguments='{"score": 4')
    assert parse_completion(Completion(text="", tool_calls=[good])).score == 4
    parsed = parse_completion(Completion(text="", tool_calls=[broken]))
    assert parsed.status == UNPARSEABLE and parsed.raw == '{"score": 4'
    assert parse_completion(Completion(text='{"score": 2}', tool_calls=[])).score == 2


# --- the answer schema and the parser agree ------------------------------------------------

SCHEMA = Draft202012Validator(JSON_SCHEMA)
ACCEPTED = ("ok", "not_applicable")
json_leaves = st.none() | st.booleans() | st.integers(-10, 10) | st.floats() | st.text(max_size=5)
json_values = st.recursive(
    json_leaves,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner),
    max_leaves=5,
)
rationales = st.text(max_size=40) | st.text(
    min_size=RATIONALE_MAX_CHARS - 2, max_size=RATIONALE_MAX_CHARS + 2
)
# Well typed: the schema's three keys, each with a value of the JSON type the schema names.
typed_answers = st.fixed_dictionaries(
    {
        "rationale": rationales,
        "not_applicable": st.booleans(),
        "score": st.none() | st.integers(-3, 9),
    }
)
# Anything shaped like an answer: keys from the schema and others, values of any JSON type.
loose_answers = st.dictionaries(
    st.sampled_from(["rationale", "not_applicable", "score", "explanation", "extra"]),
    json_values | rationales | st.integers(-3, 9),
)


@given(loose_answers | typed_answers)
def test_every_answer_the_schema_allows_the_parser_reads(answer):
    if SCHEMA.is_valid(answer):
        assert parse_verdict(answer).status in ACCEPTED


@given(typed_answers)
def test_on_well_typed_answers_schema_and_parser_agree_exactly(answer):
    assert SCHEMA.is_valid(answer) == (parse_verdict(answer).status in ACCEPTED)


def test_the_gap_the_schema_used_to_leave_is_closed():
    answer = {"rationale": "x", "not_applicable": False, "score": None}
    assert not SCHEMA.is_valid(answer) and parse_verdict(answer).status == "unparseable"
