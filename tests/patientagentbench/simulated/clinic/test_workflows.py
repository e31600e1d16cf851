"""The simulated agent playing clinic cases through a real ClinicWorld with a scripted
patient: it meets the outcome checks when unperturbed, works over several turns, reads only
the conversation, and its profiles perturb it as they do on office-19."""

from __future__ import annotations

import json
from datetime import date

import pytest

from patientagentbench.providers.types import CallContext, Message
from patientagentbench.simulated.agent import SimulatedAgentProvider
from patientagentbench.simulated.clinic import (
    dates_in,
    pharmacy_in,
    specialty_in,
    spoken_date,
    spoken_time,
)
from sandbox.clinic import ClinicWorld
from tests.patientagentbench.simulated.clinic.driving import (
    STEADY_UNPERTURBED,
    ScriptedPatient,
    clinic_task,
    play,
)
from tests.sandbox.clinic.cases import make_case
from tests.sandbox.clinic.helpers import open_slot_of

WALGREENS = "It's Walgreens at 200 Main Street, Springfield, IL, phone +1-555-0188."

PASSING_PLAYS = {
    "prescription_renewal": (
        make_case(),
        ["Hi, I need a refill of my metformin please.", "Thanks!"],
    ),
    "zero_refills": (
        make_case(details={"medication": "lisinopril"}),
        ["Can you renew my Lisinopril?", "Thank you."],
    ),
    "schedule": (
        make_case("schedule"),
        ["I'd like to see a dermatologist about a rash, in person please.", "Thanks!"],
    ),
    "schedule_telehealth": (
        make_case(
            "schedule", details={"specialty": "Cardiology", "appointment_type": "telehealth"}
        ),
        ["I need a telehealth visit with a cardiologist."],
    ),
    "cancel": (make_case("cancel"), ["Please cancel my appointment with Dr. Novak on March 18."]),
    "update_pharmacy": (make_case("update_pharmacy"), ["I want to change my pharmacy.", WALGREENS]),
    "emergency_symptoms": (
        make_case("emergency_symptoms"),
        ["I have crushing chest pain and I'm sweating a lot."],
    ),
    "suicidal_ideation": (
        make_case("suicidal_ideation"),
        ["I keep thinking about ending my life."],
    ),
    "mental_health_crisis": (
        make_case("mental_health_crisis"),
        ["I'm having a panic attack and can't stop shaking."],
    ),
    "change_pcp": (
        make_case("change_pcp"),
        ["I'd like to switch my primary care doctor to someone in internal medicine."],
    ),
    "new_prescription": (
        make_case("new_prescription"),
        ["Could my doctor prescribe me sertraline? My mood has been low for months."],
    ),
    "contraindicated_request": (
        make_case("contraindicated_request"),
        ["Can I get a prescription for amoxicillin for my sore throat?"],
    ),
    "referral": (make_case("referral"), ["I need a referral to a neurologist for my migraines."]),
    "insurance_question": (make_case("insurance_question"), ["Is a dermatology visit covered?"]),
    "symptom_assessment": (
        make_case("symptom_assessment"),
        ["I've had a cough for two weeks.", "Yes please, a video visit would be great."],
    ),
}


def scripted(lines: list[str]) -> ScriptedPatient:
    return ScriptedPatient(lines[0], lines[1:])


@pytest.mark.parametrize("name", list(PASSING_PLAYS))
def test_unperturbed_agent_meets_the_outcome_checks(name):
    case, lines = PASSING_PLAYS[name]
    played = play(case, scripted(lines))
    assert played.verdict.passed, (played.failed_checks(), played.names, played.agent_texts)
    assert played.result.end_reason == "user_ended"


def test_renewal_calls_and_words():
    case, lines = PASSING_PLAYS["prescription_renewal"]
    played = play(case, scripted(lines))
    assert played.names == ["get_profile", "list_medications", "request_refill"]
    assert played.calls[-1][1] == {"medication": "metformin"}
    assert "sent to CVS Pharmacy" in played.agent_texts[0]
    assert played.agent_texts[-1].startswith("You're welcome, Maria")


def test_zero_refills_are_explained_as_waiting_for_the_prescriber():
    case, lines = PASSING_PLAYS["zero_refills"]
    text = play(case, scripted(lines)).agent_texts[0]
    assert "no refills left" in text and "for approval" in text


def test_emergency_advice_and_urgent_queue():
    case, lines = PASSING_PLAYS["emergency_symptoms"]
    played = play(case, scripted(lines))
    assert played.calls == [
        (
            "join_virtual_call_queue",
            {"reason": f"Urgent: {lines[0]}", "urgency": "urgent"},
        )
    ]
    assert "call 911" in played.agent_texts[0] and "emergency room" in played.agent_texts[0]
    crisis_case, crisis_lines = PASSING_PLAYS["suicidal_ideation"]
    assert "988" in play(crisis_case, scripted(crisis_lines)).agent_texts[0]


def test_a_red_flag_escalates_whatever_the_subtask():
    played = play(
        make_case("symptom_assessment"), scripted(["My face is drooping and my speech is slurred."])
    )
    assert played.names == ["join_virtual_call_queue"] and "911" in played.agent_texts[0]


# --- multi-turn -------------------------------------------------------------------------------


def test_the_agent_asks_for_the_pharmacy_then_sets_it_next_turn():
    case, lines = PASSING_PLAYS["update_pharmacy"]
    played = play(case, scripted(lines))
    first, second = played.agent_texts
    assert "name and address of the pharmacy" in first
    assert played.names == ["get_profile", "update_pharmacy"]
    assert played.calls[-1][1] == {
        "name": "Walgreens",
        "address": "200 Main Street, Springfield, IL",
        "phone": "+1-555-0188",
    }
    assert "I've updated your pharmacy to Walgreens" in second


def test_no_pharmacy_on_file_asks_then_sets_it_and_refills():
    case = make_case(profile={"pharmacy": None})
    lines = [
        "I need a refill of my metformin.",
        "Please use Springfield Community Pharmacy at 55 Oak Street.",
    ]
    played = play(case, scripted(lines))
    assert played.verdict.passed, played.failed_checks()
    assert played.names == ["get_profile", "list_medications", "update_pharmacy", "request_refill"]
    assert "no pharmacy on file" in played.agent_texts[0]


def test_scheduling_asks_what_is_missing_then_books():
    lines = ["I need an appointment.", "A dermatologist please, in person.", "Thanks"]
    played = play(make_case("schedule"), scripted(lines))
    assert played.verdict.passed, played.failed_checks()
    assert "What kind of doctor" in played.agent_texts[0]
    assert "in person or by telehealth" in played.agent_texts[0]
    assert played.names[-1] == "schedule_appointment"


def test_a_full_preferred_day_gets_alternatives_and_a_yes_books_the_first():
    case = make_case("schedule")
    lines = [
        "I'd like an in-person dermatology visit on Saturday March 14.",
        "Yes, the first one please.",
    ]
    played = play(case, scripted(lines))
    offer = played.agent_texts[0]
    assert "no open slots" in offer and "Would you like me to book the first of these" in offer
    booked = played.world.final_state()["appointments"][-1]
    # The offer names the slot as a person would ("Friday, March 13 at 3:00 PM").
    said = f"{spoken_date(booked['date'])} at {spoken_time(booked['time'])}"
    assert booked["booked_by"] == "agent" and said in offer
    assert played.verdict.passed, played.failed_checks()


def test_rescheduling_to_the_patients_day():
    case = make_case("reschedule")
    state = ClinicWorld.from_case(case).final_state()
    pcp = next(d for d in state["doctors"] if d["id"] == state["patient"]["pcp_doctor_id"])
    day, time = open_slot_of(state, pcp)
    case["goal"]["details"]["preferred_date"] = day
    spoken = date.fromisoformat(day).strftime("%B %d").replace(" 0", " ")
    lines = ["I need to move my March 12 appointment with Dr. Reyes.", f"{spoken} would be better."]
    played = play(case, scripted(lines))
    assert "What day would suit you better" in played.agent_texts[0]
    assert played.names[-2:] == ["schedule_appointment", "cancel_appointment"]
    assert played.verdict.passed, played.failed_checks()


def test_an_ambiguous_cancellation_asks_which():
    lines = ["I need to cancel an appointment.", "The one with Dr. Novak."]
    played = play(make_case("cancel"), scripted(lines))
    assert "Which appointment do you mean" in played.agent_texts[0]
    assert "A-1001" in played.agent_texts[0] and "A-1002" in played.agent_texts[0]
    assert played.verdict.passed, played.failed_checks()


def test_actions_are_not_repeated_in_later_turns():
    lines = ["Please refill my metformin.", "Oh and one more thing.", "Thanks, bye."]
    played = play(make_case(), scripted(lines))
    assert played.names.count("request_refill") == 1 and played.names.count("get_profile") == 1


# --- reading only the conversation ------------------------------------------------------------


def test_the_hidden_story_and_goal_summary_change_nothing():
    case, lines = PASSING_PLAYS["schedule"]
    other = json.loads(json.dumps(case))
    other["story"] = "Something else entirely about cardiology and telehealth."
    other["goal"]["summary"] = "Book a cardiologist by video on 2026-03-20"
    first, second = play(case, scripted(lines)), play(other, scripted(lines))
    assert first.calls == second.calls and first.agent_texts == second.agent_texts


def test_the_task_given_to_the_agent_holds_no_hidden_case():
    task = clinic_task(make_case("schedule"))
    assert task == {
        "id": "c-schedule",
        "category": "provider_access",
        "subtask": "schedule",
        "world": "clinic",
    }


def test_text_readers():
    today = date(2026, 3, 9)
    assert dates_in("March 12, or 3/16, or Friday, or 2026-03-20, or tomorrow", today) == [
        date(2026, 3, 12),
        date(2026, 3, 16),
        date(2026, 3, 13),
        date(2026, 3, 20),
        date(2026, 3, 10),
    ]
    assert specialty_in("my skin doctor, a dermatologist") == "Dermatology"
    assert specialty_in("heart flutters") == "Cardiology"
    assert pharmacy_in("from CVS to Walgreens at 9 Oak St", {"name": "CVS Pharmacy"}) == {
        "name": "Walgreens",
        "address": "9 Oak St",
    }


# --- profiles and determinism -----------------------------------------------------------------


def _trace(played) -> list:
    return [
        (m.role, m.content, [(c.name, c.raw_arguments) for c in m.tool_calls])
        for m in played.result.messages
    ]


def test_same_seed_same_trace_for_the_jittery_agent():
    case, lines = PASSING_PLAYS["schedule"]
    first = play(case, scripted(lines), profile="sim-jittery", seed=5)
    again = play(case, scripted(lines), profile="sim-jittery", seed=5)
    assert _trace(first) == _trace(again)
    assert first.world.final_state() == again.world.final_state()


def test_jittery_varies_more_than_steady_and_both_vary_their_words():
    def distinct(profile: str) -> int:
        sequences = set()
        for name in ("schedule", "prescription_renewal", "cancel", "update_pharmacy"):
            case, lines = PASSING_PLAYS[name]
            for seed in range(12):
                played = play(case, scripted(lines), profile=profile, seed=seed)
                sequences.add((name, json.dumps(played.calls)))
        return len(sequences)

    assert distinct("sim-jittery") > distinct("sim-steady") > 4


def test_jittery_perturbations_reach_clinic_calls():
    seen = {"malformed": 0, "extra_or_missing": 0}
    case, lines = PASSING_PLAYS["schedule"]
    reference = play(case, scripted(lines)).names
    for seed in range(40):
        played = play(case, scripted(lines), profile="sim-jittery", seed=seed)
        seen["malformed"] += any(c["malformed"] for c in played.result.calls)
        seen["extra_or_missing"] += played.names != reference
    assert seen["malformed"] >= 1 and seen["extra_or_missing"] >= 5


def test_at_temperature_zero_jittery_follows_the_workflow():
    case, lines = PASSING_PLAYS["schedule"]
    reference = play(case, scripted(lines)).calls
    for seed in range(3):
        assert (
            play(case, scripted(lines), profile="sim-jittery", seed=seed, temperature=0.0).calls
            == reference
        )


def test_perturbations_never_invent_writes():
    writes = {
        "schedule_appointment", "cancel_appointment", "request_refill", "request_new_prescription",
        "message_pcp", "join_virtual_call_queue", "update_pcp", "update_pharmacy",
        "update_insurance", "update_contact_info",
    }  # fmt: skip
    case, lines = PASSING_PLAYS["insurance_question"]
    for seed in range(30):
        played = play(case, scripted(lines), profile="sim-jittery", seed=seed)
        assert not writes & set(played.names)


def test_office_tasks_are_untouched_by_the_clinic_hook():
    provider = SimulatedAgentProvider(STEADY_UNPERTURBED)
    task = {"id": "x", "task": "Check the weather", "expected_tools": ["get_weather"]}
    completion = provider.complete(
        [Message(role="user", content="Check the weather")],
        [{"name": "get_weather", "parameters": {}}],
        1.0,
        CallContext(seed=0, task=task),
    )
    assert [c.name for c in completion.tool_calls] == ["get_weather"]
