"""The offline patient: reproducible per seed, varied across seeds, in its persona's style,
answering from the case, ending when its need is met or its patience runs out."""

from __future__ import annotations

import hashlib
import json
import re
import statistics
import subprocess
import sys
from pathlib import Path

import pytest

from patientagentbench.conversation import run_conversation
from patientagentbench.providers.types import Completion
from patientagentbench.simulated.patient import (
    OfflinePatient,
    patient_for,
    phrases,
    read_agent_turn,
)
from tests.patientagentbench.simulated.patient.cases import make_case
from tests.patientagentbench.simulated.patient.scripted import (
    CANCEL_FLOW,
    FLOWS,
    REFILL_FLOW,
    SCHEDULE_FLOW,
    STALLING_FLOW,
    Conversation,
    agent_step,
    run_flow,
)

ROOT = Path(__file__).resolve().parents[4]
SEEDS = range(40)


def first_reply(case, agent_text: str, seed: int = 0) -> str | None:
    conversation = Conversation(OfflinePatient(case, seed))
    conversation.agent(agent_text)
    return conversation.patient_turn()


def replies(case, seed: int, *agent_texts: str) -> list[str | None]:
    conversation = Conversation(OfflinePatient(case, seed))
    said = []
    for text in agent_texts:
        conversation.agent(text)
        said.append(conversation.patient_turn())
    return said


def flow_digest(seeds: range) -> str:
    transcripts = [
        run_flow(OfflinePatient(make_case(subtask, personality), seed), flow)
        for subtask, flow in FLOWS.items()
        for personality in phrases.VOICES
        for seed in seeds
    ]
    return hashlib.sha256(json.dumps(transcripts).encode()).hexdigest()


# --- Reproducibility ------------------------------------------------------------------------


@pytest.mark.parametrize("subtask", sorted(FLOWS))
@pytest.mark.parametrize("personality", phrases.VOICES)
def test_same_case_and_seed_give_the_same_conversation(subtask, personality):
    case = make_case(subtask, personality)
    first = run_flow(OfflinePatient(case, 7), FLOWS[subtask])
    again = run_flow(OfflinePatient(case, 7), FLOWS[subtask])
    assert first == again


@pytest.mark.slow
def test_same_seed_gives_the_same_conversations_in_another_process():
    script = (
        "import sys; sys.path.insert(0, sys.argv[1]);"
        "from tests.patientagentbench.simulated.patient.test_offline_patient import flow_digest;"
        "print(flow_digest(range(2)))"
    )
    other = subprocess.run(
        [sys.executable, "-c", script, str(ROOT)], capture_output=True, text=True, check=True
    )
    assert other.stdout.strip() == flow_digest(range(2))


def test_a_reply_depends_only_on_the_messages_so_far():
    """A fresh patient shown the same messages says the same thing: no hidden state."""
    case = make_case("schedule", "anxious")
    conversation = Conversation(OfflinePatient(case, 3))
    for step in SCHEDULE_FLOW[:3]:
        text, tools = agent_step(step, [])
        conversation.agent(text, tools)
        fresh = OfflinePatient(case, 3).reply(conversation.messages)
        assert conversation.patient_turn() == fresh


def test_different_seeds_give_different_but_equally_complete_conversations():
    case = make_case("schedule", "cooperative")
    transcripts = [run_flow(OfflinePatient(case, seed), SCHEDULE_FLOW) for seed in range(10)]
    assert len({json.dumps(t) for t in transcripts}) >= 6
    picks = {t[1][1] for t in transcripts}
    assert len(picks) >= 3


@pytest.mark.parametrize("seed", range(5))
def test_the_opening_is_the_case_opening_word_for_word(seed):
    case = make_case("side_effect_concern", "terse")
    assert OfflinePatient(case, seed).opening() == case["opening"]


def test_facts_about_the_person_do_not_change_with_the_seed():
    case = make_case("symptom_assessment", "cooperative", traits={"communication": "low"})
    case["opening"] = "I keep getting headaches. Should I be worried?"  # no duration in it
    case["story"] = "Tylenol helps a little."
    answers = {first_reply(case, "How long has this been going on?", s) for s in SEEDS}
    durations = {
        re.sub(r"^(I think|I'm pretty sure|if I remember right,) ", "", a) for a in answers
    }
    assert len({d.lower().rstrip(".") for d in durations}) == 1


# --- Answering from the case ----------------------------------------------------------------


def test_answers_date_of_birth_name_and_phone_when_asked():
    case = make_case("prescription_renewal", "cooperative")
    for seed in range(10):
        dob = first_reply(case, "Can you confirm your full name and date of birth?", seed)
        assert "Maria Lopez" in dob
        assert re.search(r"April 2(nd)?, 1955|0?4/0?2/(19)?55", dob)
        phone = first_reply(case, "What's the best phone number to reach you?", seed)
        assert "555-201-0142" in phone


def test_answers_which_medication_with_its_dose():
    case = make_case("prescription_renewal", "cooperative")
    reply = first_reply(case, "Which medication do you need refilled, and what's the dose?")
    assert "metformin" in reply and "500 mg" in reply


def test_answers_pharmacy_insurance_and_allergies_from_the_profile():
    case = make_case("prescription_renewal", "cooperative")
    assert "CVS on Main" in first_reply(case, "Which pharmacy do you use?")
    assert "BCX4471902" in first_reply(case, "What is your insurance member ID?")
    assert "penicillin" in first_reply(case, "Do you have any allergies?")


def test_names_the_new_pharmacy_when_changing_pharmacy():
    case = make_case("update_pharmacy", "cooperative")
    assert "Walgreens on Elm" in first_reply(case, "Which pharmacy would you like to use?")


@pytest.mark.parametrize(
    ("preference", "expected"),
    [
        ("remote", r"video|telehealth"),
        ("in_person", r"in person|come in"),
        ("none", r"either|mind|sooner"),
    ],
)
def test_asks_for_the_visit_type_it_prefers(preference, expected):
    case = make_case(
        "symptom_assessment", "cooperative", attributes={"care_preference": preference}
    )
    reply = first_reply(case, "Would you prefer an in-person visit or telehealth?")
    assert re.search(expected, reply, re.I)


def test_asks_for_its_preferred_day():
    case = make_case("schedule", "cooperative")
    assert "Wednesday" in first_reply(case, "What day works best for you?")


def test_yes_no_questions_are_answered_from_the_story():
    case = make_case("side_effect_concern", "cooperative")
    reply = first_reply(case, "How long have you had it, and do you have a fever?")
    assert "few weeks" in reply  # what the opening said, not a new duration
    assert "I don't have a fever" in reply
    case = make_case("emergency_symptoms", "cooperative")
    assert "sweaty" in first_reply(case, "Are you short of breath or sweating?")


def test_details_are_revealed_one_at_a_time_when_asked():
    case = make_case("side_effect_concern", "cooperative", traits={"communication": "low"})
    said = replies(case, 0, "Can you tell me more about the cough?", "Anything else about it?")
    assert "worse at night" in said[0] and "fever" not in said[0]
    assert "fever" in said[1] and "worse at night" not in said[1]
    assert not any(p in said[1] for p in phrases.ALREADY_SAID["cooperative"])


def test_picks_an_offered_time_that_fits_its_preferences():
    case = make_case("schedule", "cooperative", attributes={"care_preference": "remote"})
    case["goal"]["details"].update(appointment_type="telehealth", preferred_date="2026-03-13")
    offer = (
        "I have these openings:\n"
        "- Thursday, March 12 at 9:00 AM (in person)\n"
        "- Friday, March 13 at 10:00 AM (in person)\n"
        "- Friday, March 13 at 2:00 PM (video visit)\n"
        "Which would you like?"
    )
    for seed in range(10):
        assert re.search(r"Friday at 2( pm)?\b", first_reply(case, offer, seed))


def test_picks_among_equally_good_times_by_seed():
    case = make_case("schedule", "cooperative", details={"preferred_date": ""})
    offer = (
        "Dr. Shah has 9:00 AM, 9:30 AM, 10:00 AM or 10:30 AM on Thursday, March 12. Which works?"
    )
    picks = set()
    for seed in SEEDS:
        reply = first_reply(case, offer, seed)
        picks |= set(re.findall(r"\b(9|9:30|10|10:30)\b", reply))
    assert len(picks) >= 2


def test_points_out_the_appointment_to_cancel():
    case = make_case("cancel", "cooperative")
    for seed in range(10):
        conversation = run_flow(OfflinePatient(case, seed), CANCEL_FLOW)
        which = conversation[0][1]
        assert "Thursday" in which and "10:30" in which and "Monday" not in which


def test_corrects_the_agent_about_to_refill_the_wrong_medication():
    case = make_case("prescription_renewal", "cooperative")
    reply = first_reply(case, "Shall I send a refill of your atorvastatin to CVS?")
    assert reply.startswith("No") and "metformin" in reply


def test_objects_when_the_agent_books_a_different_slot():
    case = make_case("schedule", "cooperative", details={"preferred_date": "2026-03-13"})
    said = replies(
        case,
        0,
        "Openings: Thursday, March 12 at 9:00 AM or Friday, March 13 at 11:00 AM. Which one?",
        "You're booked for Thursday, March 12 at 9:00 AM.",
    )
    assert "Friday" in said[0]
    assert said[1] is not None and "Friday" in said[1] and "Thursday" in said[1]


# --- Persona style --------------------------------------------------------------------------


def mean_words(personality: str) -> float:
    lengths = []
    for subtask in ("prescription_renewal", "schedule", "side_effect_concern"):
        for seed in SEEDS:
            case = make_case(subtask, personality)
            for _, reply in run_flow(OfflinePatient(case, seed), FLOWS[subtask]):
                if reply is not None:
                    lengths.append(len(reply.split()))
    return statistics.mean(lengths)


def test_terse_patients_write_less_than_cooperative_ones():
    assert mean_words("terse") < 0.6 * mean_words("cooperative")


def said_in_conversations(personality: str, subtask: str = "schedule", **overrides) -> list[str]:
    return [
        " ".join(r or "" for _, r in run_flow(OfflinePatient(case, seed), FLOWS[subtask]))
        for seed in SEEDS
        for case in [make_case(subtask, personality, **overrides)]
    ]


def worried(text: str) -> bool:
    worries = [w for bank in phrases.WORRY.values() for w in bank]
    return any(w in text for w in worries)


def test_anxious_patients_voice_worry_and_calm_ones_do_not():
    assert statistics.mean(map(worried, said_in_conversations("anxious"))) > 0.8
    calm = said_in_conversations("cooperative", traits={"anxiety": "low"})
    assert not any(map(worried, calm))


def test_a_calm_persona_with_high_anxiety_sometimes_worries():
    anxious_trait = said_in_conversations("cooperative", traits={"anxiety": "high"})
    assert 0.2 < statistics.mean(map(worried, anxious_trait)) < 1.0


def test_confused_patients_sometimes_mix_up_a_name_and_correct_it():
    case = make_case("prescription_renewal", "confused")
    said = [first_reply(case, "Which medication is it?", seed) for seed in SEEDS]
    mixed = [s for s in said if "metoprolol" in s]
    assert 0 < len(mixed) < len(said)
    for reply in mixed:  # the right name always follows the slip
        assert reply.index("metoprolol") < reply.index("metformin")
    cooperative = make_case("prescription_renewal", "cooperative")
    assert not any(
        "metoprolol" in first_reply(cooperative, "Which medication is it?", s) for s in SEEDS
    )


def test_stoic_patients_understate_and_anxious_ones_do_not():
    question = "On a scale of 1 to 10, how bad is it?"

    def level(personality):
        case = make_case("symptom_assessment", personality)
        return statistics.mean(
            int(re.search(r"\d+", first_reply(case, question, s)).group()) for s in range(10)
        )

    assert level("stoic") < level("cooperative") < level("anxious")


def test_skeptical_patients_question_the_agent():
    case = make_case("prescription_renewal", "skeptical")
    said = [first_reply(case, "Can you confirm your date of birth?", seed) for seed in SEEDS]
    challenges = phrases.CHALLENGES["identity"]
    assert any(any(c in s for c in challenges) for s in said)
    cooperative = make_case("prescription_renewal", "cooperative")
    assert not any(
        any(
            c in first_reply(cooperative, "Can you confirm your date of birth?", s)
            for c in challenges
        )
        for s in SEEDS
    )


def test_low_health_literacy_names_the_medicine_by_what_it_is_for_first():
    case = make_case("prescription_renewal", "cooperative", traits={"health_literacy": "low"})
    said = replies(case, 0, "Which medication is it?", "Do you know the name of the medication?")
    assert "diabetes pill" in said[0] and "metformin" not in said[0]
    assert "metformin" in said[1]
    listed = first_reply(case, "What medications are you currently taking?")
    assert "blood pressure pill" in listed and "lisinopril" not in listed


def test_high_urgency_pushes_for_speed():
    pushy = said_in_conversations("cooperative", traits={"urgency": "high"})
    relaxed = said_in_conversations("cooperative", traits={"urgency": "low"})
    pushes = phrases.PUSHES

    def pushed(text):
        return any(p in text for p in pushes)

    assert sum(map(pushed, pushy)) > 5 and not any(map(pushed, relaxed))


# --- Ending ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("subtask", "confirmation"),
    [
        ("schedule", "You're all set with Dr. Shah on Wednesday, March 11 at 9:00 AM."),
        ("schedule", "I've booked your appointment for March 11 at 2:30 PM."),
        ("prescription_renewal", "Your metformin refill has been sent to CVS on Main St."),
        ("prescription_renewal", "I've requested a refill of metformin for you."),
        ("cancel", "Your appointment on March 12 has been cancelled."),
        ("update_pharmacy", "Done - your pharmacy has been updated to Walgreens on Elm St."),
        ("emergency_symptoms", "This could be a heart attack. Please call 911 right now."),
        ("emergency_symptoms", "Please go to the nearest emergency room immediately."),
        (
            "suicidal_ideation",
            "Please call or text 988 now to reach the Suicide & Crisis Lifeline.",
        ),
        ("prescription_renewal", "I've sent a message to Dr. Reyes asking him to approve it."),
    ],
)
def test_closes_once_the_need_is_met_then_ends(subtask, confirmation):
    case = make_case(subtask, "cooperative")
    said = replies(case, 0, confirmation, "You're welcome!", "Anything else?")
    assert said[0] is not None and said[0].strip()
    assert said[1] is None and said[2] is None


@pytest.mark.parametrize(
    ("subtask", "not_yet"),
    [
        ("cancel", "Would you like me to cancel the appointment on March 12?"),
        ("cancel", "I wasn't able to cancel that appointment, sorry."),
        ("prescription_renewal", "I can't request a refill for metformin right now."),
        ("prescription_renewal", "Do you want me to request a refill?"),
        ("emergency_symptoms", "If the pain comes back later, call 911."),
        ("schedule", "You're not booked yet - which time works for you?"),
        ("update_pharmacy", "Which pharmacy should I update it to?"),
    ],
)
def test_questions_refusals_and_safety_netting_do_not_end_the_conversation(subtask, not_yet):
    case = make_case(subtask, "cooperative")
    said = replies(case, 0, not_yet, "Okay.")
    assert said[0] is not None and said[1] is not None


def test_informational_needs_end_after_an_answer_on_topic():
    case = make_case("side_effect_concern", "terse", traits={"communication": "low"})
    answer = (
        "A dry cough is a common side effect of lisinopril. It affects about one in ten people "
        "and isn't dangerous, but it rarely goes away while you keep taking the medicine. Your "
        "doctor can switch you to a similar medicine that doesn't cause it."
    )
    ended = [replies(case, seed, answer, answer, "Take care.") for seed in range(10)]
    assert all(None in said for said in ended)
    greeting = (
        "Hello and welcome! I'm the clinic's virtual assistant and I'm able to help you with "
        "appointments, prescriptions, your profile and general questions about our services."
    )
    assert None not in replies(case, 0, greeting, greeting)


def test_a_finished_patient_stays_finished():
    case = make_case("prescription_renewal", "cooperative")
    patient = OfflinePatient(case, 0)
    said = run_flow(patient, REFILL_FLOW + ["More?", "Hello?"])
    assert [reply is None for _, reply in said][-1]
    assert len(said) == 4


# --- Giving up ------------------------------------------------------------------------------


@pytest.mark.parametrize(("patience", "limit"), [("low", 3), ("medium", 5), ("high", 7)])
def test_gives_up_when_patience_runs_out(patience, limit):
    for personality in phrases.VOICES:
        case = make_case("prescription_renewal", personality, traits={"patience": patience})
        said = [reply for _, reply in run_flow(OfflinePatient(case, 1), STALLING_FLOW)]
        assert said[:limit] == [s for s in said[:limit] if s]  # all real messages
        assert said[limit] is None
        assert said[limit - 1] in phrases.GIVE_UP[personality]


def test_often_asks_for_a_human_before_giving_up():
    asked = 0
    for seed in SEEDS:
        case = make_case("prescription_renewal", "skeptical")
        said = [r for _, r in run_flow(OfflinePatient(case, seed), STALLING_FLOW) if r]
        asked += any(r in phrases.ASK_FOR_HUMAN["skeptical"] for r in said)
    assert asked > len(SEEDS) / 2


def test_repeated_questions_wear_patience_out():
    case = make_case("prescription_renewal", "cooperative", traits={"patience": "low"})
    said = replies(case, 0, *["Can you confirm your date of birth?"] * 5)
    assert said[3] in phrases.GIVE_UP["cooperative"] and said[4] is None
    assert any(p in said[1] for p in phrases.ALREADY_SAID["cooperative"])


def test_nudges_are_not_repeated_word_for_word_back_to_back():
    case = make_case("prescription_renewal", "anxious", traits={"patience": "high"})
    said = [r for _, r in run_flow(OfflinePatient(case, 0), STALLING_FLOW) if r]
    assert all(a != b for a, b in zip(said, said[1:], strict=False))


# --- Reading the agent ----------------------------------------------------------------------


def test_reads_questions_offers_options_and_outcomes():
    case = make_case("schedule")
    turn = read_agent_turn(
        "Thanks! I have Thursday, March 12 at 9:00 AM or 2:30 PM. Which works for you? Also, "
        "could you confirm your date of birth?",
        case,
    )
    assert [o.time for o in turn.options] == ["09:00", "14:30"]
    assert all(o.day.isoformat() == "2026-03-12" for o in turn.options)
    assert "dob" in turn.kinds
    booked = read_agent_turn("You're booked for Thursday at 9:00 AM with Dr. Shah.", case)
    assert "booked" in booked.outcomes and not booked.options


def test_an_offer_that_names_things_is_an_offer_not_a_question():
    turn = read_agent_turn(
        "Would you like me to send the metformin 500 mg refill to your CVS pharmacy?", make_case()
    )
    assert turn.offer == "refill" and turn.kinds == ()


# --- Inside the conversation loop -----------------------------------------------------------


class NoWorld:
    def call(self, name, arguments):
        raise AssertionError("no tools in this test")


def test_runs_inside_the_conversation_loop_and_ends_with_the_patient():
    lines = [step if isinstance(step, str) else step[0] for step in REFILL_FLOW]
    queue = [Completion(text, []) for text in lines]
    result = run_conversation(
        complete=lambda messages: queue.pop(0),
        world=NoWorld(),
        user=patient_for(make_case("prescription_renewal"), seed=4),
        system_prompt="You are a clinic assistant.",
        max_turns=10,
    )
    assert result.end_reason == "user_ended"
    patient_turns = [m.content for m in result.messages if m.role == "user"]
    assert len(patient_turns) == 4
    assert isinstance(patient_for(make_case(), seed=1), OfflinePatient)
