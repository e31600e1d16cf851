"""The weighted, seeded distribution of DESIGN §3."""

from collections import Counter

import pytest

from patientagentbench.cases import catalog
from patientagentbench.cases.sampler import (
    AGE_GROUPS,
    CUSTOM_PERSONALITY_SHARE,
    INFEASIBLE_SUBTASKS,
    PERSONALITY_PRESETS,
    REQUIRED_SUBTASKS,
    sample_attributes,
    sample_cases,
)
from patientagentbench.cases.schema import (
    CATEGORY_WEIGHTS,
    ESCALATION_SUBTASKS,
    PERSONALITY_WEIGHTS,
    SEVERITY_WEIGHTS,
    SUBTASKS,
    TRAIT_LEVELS,
    TRAITS,
)
from sandbox.seeding import stable_rng

N = 2000


@pytest.fixture(scope="module")
def unstratified():
    return sample_cases(N, seed=11, stratify=False)


def _shares(values):
    counts = Counter(values)
    return {k: counts[k] / len(values) for k in counts}


def _expected(weights):
    total = sum(weights.values())
    return {k: w / total for k, w in weights.items()}


def test_same_seed_same_attributes_and_different_seed_differs():
    assert sample_cases(60, seed=5) == sample_cases(60, seed=5)
    assert sample_cases(60, seed=5) != sample_cases(60, seed=6)


def test_categories_follow_their_weights(unstratified):
    shares = _shares([a["category"] for a in unstratified])
    for category, expected in _expected(CATEGORY_WEIGHTS).items():
        assert abs(shares.get(category, 0) - expected) < 0.035, category


def test_severity_follows_its_weights_outside_emergencies(unstratified):
    routine = [a for a in unstratified if a["subtask"] not in ESCALATION_SUBTASKS]
    shares = _shares([a["severity"] for a in routine])
    for severity, expected in _expected(SEVERITY_WEIGHTS).items():
        assert abs(shares[severity] - expected) < 0.04, severity
    assert all(
        a["severity"] == "severe" for a in unstratified if a["subtask"] in ESCALATION_SUBTASKS
    )


def test_personalities_follow_their_weights_with_a_small_custom_share(unstratified):
    shares = _shares([a["personality"] for a in unstratified])
    assert abs(shares["custom"] - CUSTOM_PERSONALITY_SHARE) < 0.025
    for personality, expected in _expected(PERSONALITY_WEIGHTS).items():
        assert abs(shares[personality] - expected * (1 - CUSTOM_PERSONALITY_SHARE)) < 0.035, (
            personality
        )


def test_traits_cover_all_seven_at_three_levels(unstratified):
    for a in unstratified:
        assert set(a["traits"]) == set(TRAITS)
        assert set(a["traits"].values()) <= set(TRAIT_LEVELS)
        preset = PERSONALITY_PRESETS.get(a["personality"])
        if preset:
            assert {k: v for k, v in a["traits"].items() if k != "health_literacy"} == {
                k: v for k, v in preset.items() if k != "health_literacy"
            }
    customs = {
        tuple(sorted(a["traits"].items())) for a in unstratified if a["personality"] == "custom"
    }
    assert len(customs) > 20  # free combinations, not a seventh preset
    assert len(PERSONALITY_PRESETS) == 6


def test_multimorbidity_is_more_common_than_a_single_condition(unstratified):
    multi = sum(len(a["conditions"]) > 1 for a in unstratified)
    assert multi / N > 0.5
    assert len({c for a in unstratified for c in a["conditions"]}) >= 60


def test_demographics_are_consistent(unstratified):
    for a in unstratified:
        low, high, _ = AGE_GROUPS[a["age_group"]]
        assert low <= a["age"] <= high
        for name in a["conditions"]:
            assert catalog.condition_fits(catalog.CONDITIONS[name], a["age"], a["sex"]), (
                name,
                a["age"],
                a["sex"],
            )
    genders = Counter((a["sex"], a["gender"]) for a in unstratified)
    cisgender = genders[("female", "woman")] + genders[("male", "man")]
    assert cisgender / N > 0.93
    assert any(g == "non-binary" for _, g in genders)


def test_complexity_respects_the_subtask_and_conditions(unstratified):
    for a in unstratified:
        if a["subtask"] in ("interaction", "contraindicated_request"):
            assert a["complexity"] == "complicated"
        elif a["complexity"] == "complicated":
            assert len(a["conditions"]) > 1
        if a["complexity"] == "infeasible":
            assert a["subtask"] in INFEASIBLE_SUBTASKS
    assert {a["complexity"] for a in unstratified} == {
        "infeasible",
        "regular",
        "chronic",
        "complicated",
    }


def test_care_preferences_all_occur(unstratified):
    assert {a["care_preference"] for a in unstratified} == {
        "in_person",
        "remote",
        "urgent_call",
        "none",
    }


def test_a_stratified_set_of_sixty_covers_every_category_and_subtask():
    cases = sample_cases(60, seed=2026)
    assert {a["category"] for a in cases} == set(CATEGORY_WEIGHTS)
    subtasks = {a["subtask"] for a in cases}
    assert len(subtasks) == 24
    assert set(REQUIRED_SUBTASKS) <= subtasks


@pytest.mark.parametrize("count", [4, 6, 10, 23])
def test_small_stratified_sets_still_cover_every_category(count):
    cases = sample_cases(count, seed=3)
    assert len(cases) == count
    assert {a["category"] for a in cases} == set(CATEGORY_WEIGHTS)
    assert len({a["subtask"] for a in cases}) == count


@pytest.mark.parametrize("seed", range(5))
def test_stratified_sets_of_24_hold_every_subtask(seed):
    cases = sample_cases(24, seed=seed)
    assert {a["subtask"] for a in cases} == {s for subs in SUBTASKS.values() for s in subs}


def test_forcing_a_subtask_fixes_its_category():
    attributes = sample_attributes(stable_rng("force"), subtask="update_pharmacy")
    assert (attributes["category"], attributes["subtask"]) == (
        "profile_management",
        "update_pharmacy",
    )


def test_interaction_cases_get_a_medicine_that_can_interact():
    from patientagentbench.cases.sampler import interactions_possible

    for seed in range(40):
        a = sample_attributes(stable_rng("interaction", seed), subtask="interaction")
        assert interactions_possible(a["conditions"], a["sex"], a["age"])
