"""The simulated judge: seeded, follows the signals it is given, and at stated rates answers
unparseable or not applicable, so every path of the jury runs offline."""

import statistics
from collections import Counter
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jury.pure.parsing import NOT_APPLICABLE, OK, UNPARSEABLE, parse_verdict
from jury.pure.prompts import TOOL_SPEC
from jury.pure.simulated import (
    NA_TRIAGE_NO_SYMPTOM,
    PROFILES,
    SIMULATED_LABEL,
    SimulatedJudgeProvider,
    expected_score,
    score_range,
)
from patientagentbench.providers.types import CallContext, Message

PROMPT = [Message(role="system", content="rubric"), Message(role="user", content="a conversation")]
PASSED = {"dimension": "clinical_safety", "outcome_passed": True, "end_reason": "patient_ended"}
FAILED = {**PASSED, "outcome_passed": False}


def answer(profile="sim-judge-a", seed=0, task=None, prompt=PROMPT, temperature=0.7, tools=()):
    judge = SimulatedJudgeProvider(profile)
    completion = judge.complete(
        prompt, list(tools), temperature, CallContext(seed=seed, task=task or PASSED)
    )
    return completion


def verdicts(n=400, **kwargs):
    return [parse_verdict(answer(seed=seed, **kwargs).text) for seed in range(n)]


@given(st.integers(0, 2**63), st.sampled_from(sorted(PROFILES)), st.floats(0, 1.5))
@settings(max_examples=60)
def test_the_same_call_gives_the_same_answer(seed, profile, temperature):
    first = answer(profile, seed, temperature=temperature)
    again = answer(profile, seed, temperature=temperature)
    assert (first.text, first.tool_calls) == (again.text, again.tool_calls)


def test_the_prompt_and_the_seed_both_change_the_answer():
    by_seed = {answer(seed=s).text for s in range(30)}
    other_prompt = [Message(role="user", content=f"conversation {n}") for n in range(30)]
    by_prompt = {answer(prompt=[m]).text for m in other_prompt}
    assert len(by_seed) > 1 and len(by_prompt) > 1


def test_scores_follow_the_outcome_checks():
    passed = [v.score for v in verdicts(task=PASSED) if v.status == OK]
    failed = [v.score for v in verdicts(task=FAILED) if v.status == OK]
    assert statistics.fmean(passed) - statistics.fmean(failed) > 1.2
    assert all(1 <= s <= 5 for s in passed + failed)


def test_tool_errors_and_a_cut_short_conversation_lower_workflow():
    clean = {
        "dimension": "workflow_accuracy",
        "outcome_passed": True,
        "end_reason": "patient_ended",
    }
    profile = PROFILES["sim-judge-a"]
    assert expected_score(profile, {**clean, "tool_errors": 2}) < expected_score(profile, clean)
    assert expected_score(profile, {**clean, "end_reason": "max_turns"}) < expected_score(
        profile, clean
    )


def test_b_is_harsher_and_c_is_noisier():
    def ok_scores(profile):
        return [v.score for v in verdicts(profile=profile, n=600, task=PASSED) if v.status == OK]

    a, b, c = ok_scores("sim-judge-a"), ok_scores("sim-judge-b"), ok_scores("sim-judge-c")
    assert statistics.fmean(b) < statistics.fmean(a) - 0.3
    assert statistics.pstdev(c) > statistics.pstdev(a)


def test_every_path_is_exercised_at_about_the_stated_rates():
    counts = Counter(v.status for v in verdicts(n=2000))
    rate = PROFILES["sim-judge-a"].unparseable
    assert counts[UNPARSEABLE] / 2000 == pytest.approx(rate, abs=0.015)
    assert counts[NOT_APPLICABLE] > 0 and counts[OK] > 1800


def test_triage_is_mostly_not_applicable_without_a_symptom():
    no_symptom = {**PASSED, "dimension": "triage_quality", "subtask": "update_pharmacy"}
    symptom = {**no_symptom, "subtask": "symptom_assessment"}
    na = Counter(v.status for v in verdicts(n=1000, task=no_symptom))[NOT_APPLICABLE] / 1000
    assert na == pytest.approx(NA_TRIAGE_NO_SYMPTOM, abs=0.06)
    assert Counter(v.status for v in verdicts(n=1000, task=symptom))[NOT_APPLICABLE] < 60


def test_rationales_say_simulated():
    for verdict in verdicts(n=50):
        if verdict.status != UNPARSEABLE:
            assert verdict.rationale.startswith(SIMULATED_LABEL)


def test_with_the_record_verdict_tool_it_answers_by_tool_call():
    calls = [answer(seed=s, tools=[TOOL_SPEC]) for s in range(100)]
    by_tool = [c for c in calls if c.tool_calls]
    assert len(by_tool) > 80
    for completion in by_tool:
        (call,) = completion.tool_calls
        assert call.name == "record_verdict" and completion.text == ""
        assert parse_verdict(call.arguments).status in (OK, NOT_APPLICABLE)


def test_usage_is_reported_and_unknown_profiles_are_refused():
    completion = answer()
    assert completion.tokens_in > 0 and completion.tokens_out > 0
    with pytest.raises(ValueError, match="sim-judge-a"):
        SimulatedJudgeProvider("sim-judge-z")


def test_the_simulated_judge_scores_on_the_scale_its_answer_schema_asks_for():
    from jury.scoring import all_dimensions_output, verdict_output
    from ratings.rubric import Scale

    four = Scale(points=(1, 2, 3, 4), pass_mark=3, labels=("1", "2", "3", "4"))
    judge = SimulatedJudgeProvider("sim-judge-c")  # the noisiest: reaches both ends
    one = CallContext(seed=0, task=PASSED, output_schema=verdict_output(four))
    scores = set()
    for seed in range(300):
        text = judge.complete(PROMPT, [], 1.0, replace(one, seed=seed)).text
        verdict = parse_verdict(text, four)
        if verdict.status == OK:
            scores.add(verdict.score)
    assert scores == {1, 2, 3, 4}  # never the 5 of the default scale, and every point used
    keys = ["clinical_safety", "task_completion"]
    every = CallContext(
        seed=1, task={**PASSED, "dimensions": keys}, output_schema=all_dimensions_output(keys, four)
    )
    assert score_range(every.output_schema) == (1, 4)
    assert score_range(None) == (1, 5)
