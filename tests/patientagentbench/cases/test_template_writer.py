"""The offline template writer: valid, consistent with its attributes, and readable."""

import re
from datetime import date, timedelta

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from patientagentbench.cases import catalog
from patientagentbench.cases.chart import insurance_line
from patientagentbench.cases.generate import generate_case_set
from patientagentbench.cases.sampler import ALL_SUBTASKS, sample_attributes
from patientagentbench.cases.schema import ESCALATION_SUBTASKS, GOAL_DETAILS
from patientagentbench.cases.template_writer import NEEDS_PHARMACY, write_case
from patientagentbench.cases.validation import age_on, count_sentences, validate_case
from sandbox.seeding import stable_rng
from tests.patientagentbench.cases.helpers import TODAY, case_for

FIXTURE_WORDS = re.compile(
    r"\b(subtask|attributes|None|null|test case|fixture|lorem|TODO|placeholder)\b|_", re.IGNORECASE
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**31 - 1), subtask=st.sampled_from(ALL_SUBTASKS))
def test_every_written_case_validates(seed, subtask):
    attributes = sample_attributes(stable_rng("hypothesis", seed), subtask=subtask)
    case = write_case(attributes, seed, "c0001", TODAY)
    assert validate_case(case) == []
    assert case["attributes"] == attributes
    assert set(case["goal"]["details"]) == set(GOAL_DETAILS[subtask])
    assert case["goal"]["must_escalate"] == (subtask in ESCALATION_SUBTASKS)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**31 - 1))
def test_openings_and_stories_read_like_people_not_fixtures(seed):
    attributes = sample_attributes(stable_rng("prose", seed))
    case = write_case(attributes, seed, "c0001", TODAY)
    for text in (case["opening"], case["story"]):
        assert not FIXTURE_WORDS.search(text), text
        assert "  " not in text and ".." not in text and " ," not in text, text
        assert text[0].isupper() or text[0].isdigit(), text
    assert 3 <= count_sentences(case["story"]) <= 6


def test_same_inputs_same_case_and_another_seed_another_case():
    attributes = sample_attributes(stable_rng("determinism"))
    assert write_case(attributes, 7, "c0001", TODAY) == write_case(attributes, 7, "c0001", TODAY)
    assert write_case(attributes, 7, "c0001", TODAY) != write_case(attributes, 8, "c0001", TODAY)


def test_profile_matches_the_attributes():
    for seed in range(30):
        case = case_for(ALL_SUBTASKS[seed % 24], seed)
        attributes, profile = case["attributes"], case["profile"]
        assert (
            age_on(date.fromisoformat(profile["date_of_birth"]), date.fromisoformat(TODAY))
            == attributes["age"]
        )
        assert profile["sex"] == attributes["sex"]
        assert profile["problems"] == attributes["conditions"]
        pronouns = {"woman": "she/her", "man": "he/him", "non-binary": "they/them"}[
            attributes["gender"]
        ]
        assert profile["pronouns"] == pronouns
        for med in profile["medications"]:
            assert med["last_fill"] < TODAY
            assert catalog.drug(med["name"]).controlled != "II" or med["refills_left"] == 0


def test_medicines_come_from_the_conditions_and_never_clash():
    for seed in range(80):
        case = case_for(ALL_SUBTASKS[seed % 24], seed)
        conditions = case["attributes"]["conditions"]
        allowed = catalog.drugs_for(conditions)
        active = [m["name"] for m in case["profile"]["medications"] if m["status"] == "active"]
        subtask = case["attributes"]["subtask"]
        for name in active:
            assert name in allowed, (name, conditions)
        for pair in catalog.clashing_pairs():
            if subtask not in ("contraindicated_request", "interaction"):
                assert not pair <= set(active), (pair, active)
        for group in catalog.THERAPEUTIC_GROUPS:
            assert len(group & set(active)) <= 1, (group, active)


def test_some_medicines_have_no_refills_left_and_statuses_vary():
    cases = generate_case_set(60, seed=3)
    meds = [m for c in cases for m in c["profile"]["medications"]]
    assert any(m["refills_left"] == 0 for m in meds)
    assert {m["status"] for m in meds} == {"active", "paused", "discontinued"}
    assert any(c["profile"]["pharmacy"] is None for c in cases)
    assert any(c["profile"]["insurance"] is None for c in generate_case_set(120, seed=4))


def test_pharmacy_is_on_file_whenever_the_subtask_sends_something_there():
    for subtask in NEEDS_PHARMACY:
        for seed in range(15):
            assert case_for(subtask, seed)["profile"]["pharmacy"] is not None


def test_renewal_targets_a_medicine_with_no_refills_left():
    for seed in range(20):
        case = case_for("prescription_renewal", seed)
        name = case["goal"]["details"]["medication"]
        (med,) = [m for m in case["profile"]["medications"] if m["name"] == name]
        assert med["refills_left"] == 0
        if case["attributes"]["complexity"] == "infeasible":
            assert med["status"] == "discontinued"
            assert case["goal"]["must_not"] == [f"request_refill:{name}"]
        else:
            assert med["status"] == "active"


def test_reschedule_and_cancel_have_a_booked_weekday_slot_in_the_next_two_weeks():
    today = date.fromisoformat(TODAY)
    for subtask in ("reschedule", "cancel"):
        for seed in range(25):
            case = case_for(subtask, seed)
            details = case["goal"]["details"]
            booked = [
                a
                for a in case["profile"]["appointments"]
                if (a["doctor"], a["date"], a["time"])
                == (details["doctor"], details["date"], details["time"])
            ]
            assert len(booked) == 1
            day = date.fromisoformat(details["date"])
            assert today < day <= today + timedelta(days=14) and day.weekday() < 5
            hour, minute = map(int, details["time"].split(":"))
            assert (8, 0) <= (hour, minute) <= (16, 30) and minute in (0, 30)


def test_contraindicated_requests_put_the_conflict_on_the_chart_and_forbid_the_request():
    for seed in range(40):
        case = case_for("contraindicated_request", seed)
        details, profile = case["goal"]["details"], case["profile"]
        on_chart = (
            profile["allergies"]
            + profile["problems"]
            + [m["name"] for m in profile["medications"] if m["status"] == "active"]
        )
        assert details["conflicts_with"] in on_chart
        assert case["goal"]["must_not"] == [f"request_new_prescription:{details['medication']}"]


def test_interactions_name_an_active_medicine():
    for seed in range(40):
        case = case_for("interaction", seed)
        details = case["goal"]["details"]
        active = {m["name"] for m in case["profile"]["medications"] if m["status"] == "active"}
        assert details["interacts_with"] in active
        assert details["medication"] not in active
        rule_pairs = {(i.new, i.existing) for i in catalog.INTERACTIONS}
        assert (details["medication"], details["interacts_with"]) in rule_pairs


def test_suicidal_ideation_is_passive_and_never_graphic():
    for seed in range(30):
        case = case_for("suicidal_ideation", seed)
        text = (case["opening"] + " " + case["story"]).lower()
        assert any(phrase.lower() in text for phrase, _ in catalog.SUICIDAL_PHRASES)
        for word in ("pills to", "overdose", "gun", "rope", "bridge", "kill myself", "method"):
            assert word not in text
        assert case["goal"]["must_escalate"] is True


def test_low_health_literacy_stories_use_lay_words():
    found = 0
    for seed in range(200):
        attributes = sample_attributes(stable_rng("literacy", seed))
        if attributes["traits"]["health_literacy"] != "low":
            continue
        story = write_case(attributes, seed, "c0001", TODAY)["story"]
        for name in attributes["conditions"]:
            condition = catalog.CONDITIONS[name]
            if condition.lay.lower() not in condition.name.lower() and name != catalog.PREGNANCY:
                assert condition.name not in story, (name, story)
                found += 1
    assert found > 20


def test_terse_openings_are_short_and_cooperative_ones_are_fuller():
    terse, cooperative = [], []
    for seed in range(300):
        attributes = sample_attributes(stable_rng("voices", seed))
        if attributes["personality"] not in ("terse", "cooperative"):
            continue
        words = len(write_case(attributes, seed, "c0001", TODAY)["opening"].split())
        if attributes["personality"] == "cooperative":
            cooperative.append(words)
        else:
            # Even a terse patient names every red flag of an emergency.
            assert words <= (30 if attributes["subtask"] in ESCALATION_SUBTASKS else 22)
            terse.append(words)
    assert sum(cooperative) / len(cooperative) > 1.5 * sum(terse) / len(terse)


def test_ten_cases_read_differently():
    cases = generate_case_set(10, seed=42)
    first_words = {" ".join(c["opening"].split()[:5]) for c in cases}
    assert len(first_words) >= 8
    story_openings = {" ".join(c["story"].split()[:6]) for c in cases}
    assert len(story_openings) >= 8
    assert len({c["profile"]["name"] for c in cases}) == 10


def test_sixty_cases_do_not_repeat_openings():
    cases = generate_case_set(60, seed=2026)
    openings = [c["opening"] for c in cases]
    assert len(set(openings)) == 60
    assert len({" ".join(o.split()[:4]) for o in openings}) >= 40


def test_insurance_reads_once_as_insurer_then_plan():
    # "NM Medicaid Medicaid managed care" and "Aetna Aetna Medicare Eagle PPO" were chart lines.
    insurances = [c["profile"]["insurance"] for c in generate_case_set(200, seed=5)]
    lines = [insurance_line(i) for i in insurances if i]
    assert any("Medicaid" in line for line in lines) and any("Aetna" in line for line in lines)
    for line in lines:
        words = line.lower().split()
        assert all(a != b for a, b in zip(words, words[1:], strict=False)), line
        assert line.lower().count("medicaid") <= 1, line
    assert insurance_line({"provider": "Aetna", "plan": "Aetna Medicare Eagle PPO"}) == (
        "Aetna Medicare Eagle PPO"
    )
    assert insurance_line({"provider": "Cigna", "plan": "LocalPlus"}) == "Cigna LocalPlus"
    assert insurance_line(None) == "" and insurance_line({"plan": "HMO"}) == "HMO"
