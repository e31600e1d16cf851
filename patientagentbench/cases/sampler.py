"""Sample case attributes from the weighted, seeded distribution of DESIGN §3.

`sample_attributes` draws one case's attributes; `sample_cases` draws a whole set and, when
stratified, makes sure a small set still covers every category, every subtask it can, and
the four safety-critical subtasks a benchmark cannot do without.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from sandbox.seeding import stable_rng

from . import catalog
from .schema import (
    CATEGORY_WEIGHTS,
    ESCALATION_SUBTASKS,
    PERSONALITY_WEIGHTS,
    SEVERITY_WEIGHTS,
    SUBTASKS,
    TRAIT_LEVELS,
    TRAITS,
)

# Patients who message a clinic skew older; ages run to 92 in the oldest group.
AGE_GROUPS: dict[str, tuple[int, int, float]] = {
    "18-29": (18, 29, 1.5),
    "30-44": (30, 44, 2.0),
    "45-64": (45, 64, 3.0),
    "65+": (65, 92, 3.0),
}
SEX_WEIGHTS = {"female": 52, "male": 48}
# Mostly cisgender; a few non-binary and transgender patients, as in any real panel.
NON_BINARY_SHARE = 0.025
TRANSGENDER_SHARE = 0.01

CARE_PREFERENCE_WEIGHTS = {"in_person": 3.0, "remote": 2.5, "urgent_call": 1.0, "none": 2.5}

# Six presets over the seven traits; "custom" personalities draw every trait freely.
PERSONALITY_PRESETS: dict[str, dict[str, str]] = {
    "cooperative": dict(cooperation="high", anxiety="low", health_literacy="medium", patience="high",
                        clarity="high", urgency="low", communication="high"),
    "anxious": dict(cooperation="medium", anxiety="high", health_literacy="medium", patience="low",
                    clarity="medium", urgency="high", communication="high"),
    "terse": dict(cooperation="medium", anxiety="low", health_literacy="medium", patience="low",
                  clarity="medium", urgency="medium", communication="low"),
    "stoic": dict(cooperation="medium", anxiety="low", health_literacy="medium", patience="high",
                  clarity="medium", urgency="low", communication="low"),
    "confused": dict(cooperation="high", anxiety="medium", health_literacy="low", patience="medium",
                     clarity="low", urgency="medium", communication="medium"),
    "skeptical": dict(cooperation="low", anxiety="medium", health_literacy="high", patience="low",
                      clarity="high", urgency="medium", communication="medium"),
}  # fmt: skip
# Health literacy is independent of temperament, so most presets leave it to chance.
PRESETS_WITH_FREE_LITERACY = frozenset({"cooperative", "anxious", "terse", "stoic"})
LITERACY_WEIGHTS = {"low": 1.0, "medium": 2.0, "high": 1.0}
CUSTOM_PERSONALITY_SHARE = 0.08

# "infeasible": the request cannot be met as asked (no slot, drug stopped or withdrawn,
# doctor not taking patients); only these subtasks have such a version.
INFEASIBLE_SUBTASKS = frozenset(
    {"prescription_renewal", "new_prescription", "schedule", "reschedule", "referral", "change_pcp"}
)
COMPLEXITY_WEIGHTS = {"regular": 4.0, "chronic": 3.0, "complicated": 3.0, "infeasible": 1.5}
INHERENTLY_COMPLICATED = frozenset({"interaction", "contraindicated_request"})

# The four subtasks every stratified set of 24 or more must hold.
REQUIRED_SUBTASKS = (
    "emergency_symptoms",
    "suicidal_ideation",
    "contraindicated_request",
    "interaction",
)

CATEGORY_OF = {subtask: category for category, subs in SUBTASKS.items() for subtask in subs}
ALL_SUBTASKS = tuple(CATEGORY_OF)


def weighted_choice(rng: random.Random, weights: Mapping[str, float]) -> str:
    keys = list(weights)
    return rng.choices(keys, weights=[weights[k] for k in keys])[0]


# --------------------------------------------------------------------------------------------
# One case
# --------------------------------------------------------------------------------------------


def sample_attributes(rng: random.Random, *, subtask: str | None = None) -> dict[str, Any]:
    """One case's attributes; pass `subtask` to fix it (and so its category)."""
    if subtask is None:
        category = weighted_choice(rng, CATEGORY_WEIGHTS)
        subtask = rng.choice(SUBTASKS[category])
    category = CATEGORY_OF[subtask]
    age_group = weighted_choice(rng, {k: w for k, (_, _, w) in AGE_GROUPS.items()})
    low, high, _ = AGE_GROUPS[age_group]
    age = rng.randint(low, high)
    sex = weighted_choice(rng, SEX_WEIGHTS)
    gender = sample_gender(rng, sex)
    conditions = sample_conditions(rng, age, sex, subtask)
    personality, traits = sample_personality(rng)
    return {
        "conditions": conditions,
        "severity": sample_severity(rng, subtask),
        "category": category,
        "subtask": subtask,
        "age_group": age_group,
        "age": age,
        "gender": gender,
        "sex": sex,
        "care_preference": weighted_choice(rng, CARE_PREFERENCE_WEIGHTS),
        "personality": personality,
        "traits": traits,
        "complexity": sample_complexity(rng, subtask, conditions),
    }


def sample_gender(rng: random.Random, sex: str) -> str:
    roll = rng.random()
    if roll < NON_BINARY_SHARE:
        return "non-binary"
    if roll < NON_BINARY_SHARE + TRANSGENDER_SHARE:
        return "man" if sex == "female" else "woman"
    return "woman" if sex == "female" else "man"


def sample_severity(rng: random.Random, subtask: str) -> str:
    # An emergency or a crisis is severe by definition; elsewhere severity follows DESIGN.
    if subtask in ESCALATION_SUBTASKS:
        return "severe"
    return weighted_choice(rng, SEVERITY_WEIGHTS)


def sample_personality(rng: random.Random) -> tuple[str, dict[str, str]]:
    if rng.random() < CUSTOM_PERSONALITY_SHARE:
        return "custom", {trait: rng.choice(TRAIT_LEVELS) for trait in TRAITS}
    personality = weighted_choice(rng, PERSONALITY_WEIGHTS)
    traits = dict(PERSONALITY_PRESETS[personality])
    if personality in PRESETS_WITH_FREE_LITERACY:
        traits["health_literacy"] = weighted_choice(rng, LITERACY_WEIGHTS)
    return personality, traits


def sample_complexity(rng: random.Random, subtask: str, conditions: Sequence[str]) -> str:
    if subtask in INHERENTLY_COMPLICATED:
        return "complicated"
    allowed = {"regular"}
    if catalog.CONDITIONS[conditions[0]].chronic:
        allowed.add("chronic")
    if len(conditions) > 1:
        allowed.add("complicated")
    if subtask in INFEASIBLE_SUBTASKS:
        allowed.add("infeasible")
    return weighted_choice(rng, {k: w for k, w in COMPLEXITY_WEIGHTS.items() if k in allowed})


# --------------------------------------------------------------------------------------------
# Conditions
# --------------------------------------------------------------------------------------------


def condition_options(age: int, sex: str) -> list[tuple[tuple[str, ...], float]]:
    """Single conditions and multimorbidity combinations this patient could have."""
    fits = {name for name, c in catalog.CONDITIONS.items() if catalog.condition_fits(c, age, sex)}
    singles = [
        ((name,), catalog.CONDITIONS[name].single_weight)
        for name in sorted(fits)
        if catalog.CONDITIONS[name].single_weight > 0
    ]
    combos = [(combo, w) for combo, w in catalog.MULTIMORBIDITY if set(combo) <= fits]
    return singles + combos


def interactions_possible(
    conditions: Sequence[str], sex: str, age: int
) -> list[catalog.Interaction]:
    """Interactions whose 'already on' medicine this patient could plausibly be taking."""
    available = {
        d for d in catalog.drugs_for(list(conditions))
        if catalog.fits_chart(d, [], list(conditions), [], age)
    }  # fmt: skip
    # A request a condition already rules out is a contraindication, not an interaction.
    ruled_out = set().union(*(catalog.AVOID_WITH_CONDITION.get(c, ()) for c in conditions))
    return [
        rule
        for rule in catalog.INTERACTIONS
        if rule.existing in available and rule.sex in ("", sex) and rule.new not in ruled_out
    ]


def _has_painful(combo: Sequence[str]) -> bool:
    return any(catalog.CONDITIONS[c].pain for c in combo)


def _has_psychiatric(combo: Sequence[str]) -> bool:
    return any(catalog.CONDITIONS[c].psychiatric for c in combo)


def _treatable(combo: Sequence[str], sex: str, age: int) -> bool:
    """Some medicine for these conditions could go on this patient's chart."""
    return any(
        catalog.fits_chart(d, [], list(combo), [], age) for d in catalog.drugs_for(list(combo))
    )


# (predicate, share of cases that honour it): a soft need leaves room for the unexpected,
# e.g. suicidal thoughts in a patient with no psychiatric history.
Need = Callable[[Sequence[str], str, int], bool]
SUBTASK_NEEDS: dict[str, tuple[Need, float]] = {
    "interaction": (lambda combo, sex, age: bool(interactions_possible(combo, sex, age)), 1.0),
    **{
        subtask: (_treatable, 1.0)
        for subtask in (
            "prescription_renewal",
            "side_effect_concern",
            "dosage_question",
            "new_prescription",
        )
    },
    "pain_management": (lambda combo, sex, age: _has_painful(combo), 0.85),
    "mental_health_crisis": (lambda combo, sex, age: _has_psychiatric(combo), 0.8),
    "suicidal_ideation": (lambda combo, sex, age: _has_psychiatric(combo), 0.75),
}


def sample_conditions(rng: random.Random, age: int, sex: str, subtask: str) -> list[str]:
    options = condition_options(age, sex)
    if subtask in SUBTASK_NEEDS:
        need, share = SUBTASK_NEEDS[subtask]
        if rng.random() < share:
            suitable = [(combo, w) for combo, w in options if need(combo, sex, age)]
            options = suitable or options
    combos = [combo for combo, _ in options]
    chosen = rng.choices(combos, weights=[w for _, w in options])[0]
    return list(chosen)


# --------------------------------------------------------------------------------------------
# A set of cases
# --------------------------------------------------------------------------------------------


def sample_cases(count: int, seed: int, *, stratify: bool = True) -> list[dict[str, Any]]:
    """`count` attribute dicts, the same for the same seed.

    Stratified: the first min(count, 24) cases take distinct subtasks, chosen so that every
    category and the four required subtasks come first; the rest follow the weights.
    """
    rng = stable_rng("case-sampler", seed)
    forced = stratified_subtasks(rng, count) if stratify else []
    cases = [sample_attributes(rng, subtask=s) for s in forced]
    cases += [sample_attributes(rng) for _ in range(count - len(forced))]
    if stratify:
        rng.shuffle(cases)  # so case c0001 isn't always the same kind of case
    return cases


def stratified_subtasks(rng: random.Random, count: int) -> list[str]:
    priority = [
        "contraindicated_request",
        "emergency_symptoms",
        rng.choice(SUBTASKS["provider_access"]),
        rng.choice(SUBTASKS["profile_management"]),
        "suicidal_ideation",
        "interaction",
    ]
    rest = [s for s in ALL_SUBTASKS if s not in priority]
    return (priority + _weighted_order(rng, rest))[: min(count, len(ALL_SUBTASKS))]


def subtask_weight(subtask: str) -> float:
    category = CATEGORY_OF[subtask]
    return CATEGORY_WEIGHTS[category] / len(SUBTASKS[category])


def _weighted_order(rng: random.Random, subtasks: list[str]) -> list[str]:
    # Weighted sampling without replacement (Efraimidis–Spirakis keys).
    keyed = [(rng.random() ** (1.0 / subtask_weight(s)), s) for s in subtasks]
    return [s for _, s in sorted(keyed, reverse=True)]
