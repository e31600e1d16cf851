"""validate_case: valid cases pass; each malformed one is caught with the right field path."""

import copy

import pytest

from patientagentbench.cases.validation import count_sentences, validate_case
from tests.patientagentbench.cases.helpers import case_for


def case_where(subtask, predicate=lambda case: True):
    for seed in range(200):
        case = case_for(subtask, seed)
        if predicate(case):
            return case
    raise AssertionError(f"no {subtask} case found")


def with_two_meds(case):
    case = copy.deepcopy(case)
    meds = case["profile"]["medications"]
    if len(meds) < 2:
        meds.append({**meds[0], "name": "cetirizine", "dosage": "10 mg"})
    return case


def set_path(case, path, value):
    *parents, last = path
    target = case
    for key in parents:
        target = target[key]
    if value is DELETE:
        del target[last]
    else:
        target[last] = value


DELETE = object()

BASE = {
    "renewal": lambda: case_where(
        "prescription_renewal", lambda c: c["attributes"]["complexity"] != "infeasible"
    ),
    "emergency": lambda: case_for("emergency_symptoms"),
    "cancel": lambda: case_for("cancel"),
    "contraindicated": lambda: case_for("contraindicated_request"),
    "interaction": lambda: case_for("interaction"),
    "pharmacy": lambda: case_for("update_pharmacy"),
    "schedule": lambda: case_for("schedule"),
}

MALFORMED = [
    ("renewal", ("story",), DELETE, "story: is required"),
    ("renewal", ("seed",), True, "seed: must be an integer"),
    ("renewal", ("today",), "03/09/2026", "today: must be an ISO date"),
    (
        "renewal",
        ("profile", "medications", 1, "refills_left"),
        -1,
        "profile.medications[1].refills_left: must be an integer ≥ 0",
    ),
    (
        "renewal",
        ("profile", "medications", 1, "refills_left"),
        "2",
        "profile.medications[1].refills_left: must be an integer ≥ 0",
    ),
    (
        "renewal",
        ("profile", "medications", 0, "last_fill"),
        "02/01/2026",
        "profile.medications[0].last_fill: must be an ISO date",
    ),
    (
        "renewal",
        ("profile", "medications", 0, "last_fill"),
        "2026-04-01",
        "profile.medications[0].last_fill: 2026-04-01 is after today",
    ),
    (
        "renewal",
        ("profile", "medications", 0, "status"),
        "stopped",
        "profile.medications[0].status: must be one of",
    ),
    (
        "renewal",
        ("profile", "medications", 0, "dosage"),
        DELETE,
        "profile.medications[0].dosage: is required",
    ),
    ("renewal", ("profile", "date_of_birth"), "1900-01-01", "profile.date_of_birth: gives age"),
    ("renewal", ("profile", "insurance"), "Aetna", "profile.insurance: must be an object or null"),
    ("renewal", ("profile", "problems"), [], "profile.problems: must include the condition"),
    (
        "renewal",
        ("profile", "pharmacy"),
        None,
        "profile.pharmacy: is required for subtask 'prescription_renewal'",
    ),
    (
        "renewal",
        ("goal", "details", "medication"),
        "unobtainium",
        "goal.details.medication: 'unobtainium' is not in profile.medications",
    ),
    (
        "renewal",
        ("goal", "details", "colour"),
        "blue",
        "goal.details.colour: is not a detail of subtask",
    ),
    ("renewal", ("goal", "details", "medication"), DELETE, "goal.details.medication: is required"),
    ("renewal", ("goal", "subtask"), "cancel", "goal.subtask: must equal attributes.subtask"),
    (
        "renewal",
        ("goal", "must_not"),
        ["prescribe_everything"],
        "goal.must_not[0]: 'prescribe_everything' is not a tool name",
    ),
    (
        "renewal",
        ("attributes", "subtask"),
        "schedule",
        "attributes.subtask: 'schedule' is not a subtask of category 'medication'",
    ),
    ("renewal", ("attributes", "age"), 12, "attributes.age: must be an integer ≥ 18"),
    ("renewal", ("attributes", "age_group"), "18-29", "attributes.age: "),
    (
        "renewal",
        ("attributes", "traits", "urgency"),
        DELETE,
        "attributes.traits.urgency: is required",
    ),
    (
        "renewal",
        ("attributes", "traits", "charm"),
        "high",
        "attributes.traits.charm: is not a trait",
    ),
    (
        "renewal",
        ("attributes", "conditions"),
        [],
        "attributes.conditions: must list 1 to 3 conditions",
    ),
    (
        "renewal",
        ("opening",),
        "Hi {name}, refill please.",
        "opening: contains an unfilled placeholder",
    ),
    (
        "renewal",
        ("story",),
        "One. Two. Three. Four. Five. Six. Seven.",
        "story: must be 3 to 6 sentences",
    ),
    ("renewal", ("profile", "sex"), "other", "profile.sex: must be one of"),
    (
        "emergency",
        ("goal", "must_escalate"),
        False,
        "goal.must_escalate: must be true for subtask 'emergency_symptoms'",
    ),
    ("emergency", ("goal", "details", "symptoms"), "", "goal.details.symptoms: must not be empty"),
    (
        "cancel",
        ("profile", "appointments", 0, "time"),
        "17:00",
        "profile.appointments[0].time: must be on the half hour between 08:00 and 16:30",
    ),
    (
        "cancel",
        ("profile", "appointments", 0, "time"),
        "9:15am",
        "profile.appointments[0].time: must be a time HH:MM",
    ),
    (
        "cancel",
        ("profile", "appointments", 0, "date"),
        "2026-03-14",
        "profile.appointments[0].date: 2026-03-14 is a weekend day",
    ),
    (
        "cancel",
        ("profile", "appointments", 0, "type"),
        "video",
        "profile.appointments[0].type: must be one of",
    ),
    (
        "cancel",
        ("goal", "details", "doctor"),
        "Dr. Nobody",
        "goal.details: doctor, date and time must match an appointment",
    ),
    (
        "contraindicated",
        ("goal", "must_not"),
        [],
        "goal.must_not: must include 'request_new_prescription:",
    ),
    (
        "contraindicated",
        ("goal", "details", "conflicts_with"),
        "kryptonite",
        "goal.details.conflicts_with: 'kryptonite' is not among",
    ),
    (
        "interaction",
        ("goal", "details", "interacts_with"),
        "unobtainium",
        "goal.details.interacts_with: 'unobtainium' is not active",
    ),
    (
        "pharmacy",
        ("goal", "details", "pharmacy", "phone"),
        DELETE,
        "goal.details.pharmacy.phone: is required",
    ),
    (
        "schedule",
        ("goal", "details", "appointment_type"),
        "video",
        "goal.details.appointment_type: must be one of",
    ),
    (
        "schedule",
        ("goal", "details", "preferred_date"),
        "2026-03-01",
        "goal.details.preferred_date: 2026-03-01 must be after today",
    ),
]


@pytest.mark.parametrize(
    "subtask",
    ["renewal", "emergency", "cancel", "contraindicated", "interaction", "pharmacy", "schedule"],
)
def test_written_cases_are_valid(subtask):
    assert validate_case(BASE[subtask]()) == []


@pytest.mark.parametrize(
    ("base", "path", "value", "expected"), MALFORMED, ids=[m[3][:50] for m in MALFORMED]
)
def test_malformed_cases_are_caught_at_the_right_path(base, path, value, expected):
    case = with_two_meds(BASE[base]())
    assert validate_case(case) == []
    set_path(case, path, value)
    errors = validate_case(case)
    assert any(e.startswith(expected) for e in errors), errors


def test_not_an_object():
    assert validate_case(["not", "a", "case"]) == ["case: must be a JSON object"]


def test_optional_details_may_be_left_out():
    case = case_for("schedule")
    del case["goal"]["details"]["preferred_date"]
    assert validate_case(case) == []


def test_sentence_count_is_not_fooled_by_titles_times_or_doses():
    text = "I see Dr. Reyes at 10 a.m. on Monday. I take 2.5 mg of it. That's all."
    assert count_sentences(text) == 3
