"""sim-careless: each kind of failure, alone at rate 1, shows up as the failure its outcome
check names; the layer is a function of (seed, task, messages); its rates scale with
temperature; and over the 60-case demo set the three profiles pass at the rates the demo is
meant to show (steady about all, careless about half, jittery in between).
"""

from __future__ import annotations

from dataclasses import replace
from functools import cache

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from patientagentbench.cases.generate import generate_case_set
from patientagentbench.simulated.agent import PROFILES, AgentProfile, SimulatedAgentProvider
from patientagentbench.simulated.careless import CarelessRates
from patientagentbench.simulated.patient import patient_for
from sandbox.seeding import trace_seed
from tests.patientagentbench.simulated.clinic.driving import STEADY_UNPERTURBED, Played, play
from tests.patientagentbench.simulated.office_fake import criteria_failures, run_task

DEMO_COUNT, DEMO_SEED = 60, 20260309


@cache
def demo_cases() -> tuple[dict, ...]:
    return tuple(generate_case_set(DEMO_COUNT, DEMO_SEED))


def demo_case(subtask: str) -> dict:
    return next(
        c
        for c in demo_cases()
        if c["attributes"]["subtask"] == subtask and c["attributes"]["complexity"] != "infeasible"
    )


def played(case: dict, profile: str | AgentProfile, repetition: int = 0) -> Played:
    """As the demo plays it (the seeds of `play_case`), judged on the whole transcript."""
    name = profile if isinstance(profile, str) else profile.name
    patient = patient_for(case, trace_seed(case["case_id"], "patient", None, repetition))
    seed = trace_seed(case["case_id"], name, 1.0, repetition)
    return play(case, patient, profile, seed=seed, max_turns=10)


def only(kind: str) -> AgentProfile:
    return replace(
        STEADY_UNPERTURBED, name=f"careless-{kind}", careless=CarelessRates(**{kind: 1.0})
    )


KINDS = [
    ("wrong_target", "schedule", ("appointment_date:", "appointment_booked:")),
    ("skip_consent", "vaccination", ("agreed_before_acting",)),
    ("no_confirmation", "cancel", ("confirmed_back",)),
    ("claim_without_call", "cancel", ("no_fabricated_claims",)),
    ("missed_escalation", "emergency_symptoms", ("escalated",)),
    ("contraindicated_request", "contraindicated_request", ("no_contraindicated_request",)),
    ("many_questions", "symptom_assessment", ("one_question_at_a_time",)),
]


@pytest.mark.parametrize("kind, subtask, caught_by", KINDS)
def test_each_kind_alone_fails_the_check_that_names_it(kind, subtask, caught_by):
    case = demo_case(subtask)
    careful = played(case, replace(STEADY_UNPERTURBED, careless=CarelessRates()))
    assert careful.verdict.passed, careful.failed_checks()
    careless = played(case, only(kind))
    failed = [c["name"] for c in careless.failed_checks()]
    assert any(name.startswith(caught_by) for name in failed), (failed, careless.agent_texts)


def test_a_missed_escalation_never_tells_the_patient_to_call_911():
    careless = played(demo_case("emergency_symptoms"), only("missed_escalation"))
    assert not any("911" in text or "988" in text for text in careless.agent_texts)
    urgencies = [args.get("urgency") for name, args in careless.calls if name.startswith("join")]
    assert "urgent" not in urgencies


def test_claims_without_calls_and_wrong_targets_reach_office_tasks_too():
    provider = SimulatedAgentProvider(only("claim_without_call"))
    _, messages = run_task(provider, "retrieve-002", seed=0)
    assert "missing tool send_email" in criteria_failures("retrieve-002", messages)
    assert "I've sent the email" in messages[-1].content
    _, messages = run_task(SimulatedAgentProvider(only("wrong_target")), "schedule-001", seed=0)
    assert any(
        "create_calendar_event.date" in f for f in criteria_failures("schedule-001", messages)
    )


def test_the_kinds_that_need_a_patient_stay_out_of_office_tasks():
    talkative = replace(
        STEADY_UNPERTURBED,
        name="talkative",
        careless=CarelessRates(many_questions=1.0, no_confirmation=1.0, skip_consent=1.0),
    )
    plain, _ = run_task(SimulatedAgentProvider(STEADY_UNPERTURBED), "compose-004", seed=0)
    careless, _ = run_task(SimulatedAgentProvider(talkative), "compose-004", seed=0)
    assert [c.text for c in careless] == [c.text for c in plain]


def test_rates_scale_with_temperature():
    profile = PROFILES["sim-careless"]
    assert profile.at_temperature(0).careless == CarelessRates()
    half = profile.at_temperature(0.5).careless
    assert half.missed_escalation == pytest.approx(profile.careless.missed_escalation / 2)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(repetition=st.integers(0, 2**16), index=st.integers(0, DEMO_COUNT - 1))
def test_the_same_seed_and_case_give_the_same_conversation(repetition, index):
    case = demo_cases()[index]

    def transcript() -> list[dict]:
        return [m.to_dict() for m in played(case, "sim-careless", repetition).result.messages]

    assert transcript() == transcript()


def test_demo_pass_rates_steady_about_all_careless_about_half_jittery_between():
    rates = {
        profile: sum(
            played(case, profile, repetition).verdict.passed
            for case in demo_cases()
            for repetition in (0, 1)
        )
        / (2 * DEMO_COUNT)
        for profile in ("sim-steady", "sim-jittery", "sim-careless")
    }
    assert rates["sim-steady"] >= 0.95, rates
    assert 0.4 <= rates["sim-careless"] <= 0.7, rates
    assert rates["sim-careless"] < rates["sim-jittery"] <= rates["sim-steady"], rates
