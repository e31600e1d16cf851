"""The stratified, extremes-first sampler: properties on random pools, and worked examples."""

from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from annotation.pure.sampling import (
    Candidate,
    bucket_of,
    filter_candidates,
    stratified_sample,
)

DIMS = ["clinical_safety", "triage_quality", "task_completion"]
# DESIGN §6 written out here, not imported: 1 and 5 first, then 2 and 4, then 3.
TIER = {1: 0, 5: 0, 2: 1, 4: 1, 3: 2}

scores = st.dictionaries(
    st.sampled_from(DIMS), st.one_of(st.none(), st.integers(1, 5)), max_size=len(DIMS)
)
candidate = st.builds(
    Candidate,
    key=st.integers(0, 500).map(lambda i: f"t{i:03d}"),
    model=st.sampled_from(["gpt", "claude", "llama"]),
    attributes=st.fixed_dictionaries(
        {"category": st.sampled_from(["refill", "triage", "booking"])},
        optional={"difficulty": st.sampled_from(["easy", "hard"])},
    ),
    scores=scores,
    outcome_passed=st.one_of(st.none(), st.booleans()),
)
pools = st.lists(candidate, unique_by=lambda c: c.key, max_size=40)
sizes = st.integers(0, 45)
seeds = st.integers(0, 2**32)


def strata_of(c: Candidate, jury: bool) -> set:
    """The strata a candidate belongs to, computed here independently of the sampler."""
    if not jury:
        return {("outcome", {True: "passed", False: "failed", None: "unknown"}[c.outcome_passed])}
    found = {(d, s) for d, s in c.scores.items() if d in DIMS and s is not None}
    return found or {("unscored", "-")}


def tier(stratum) -> int:
    dimension, bucket = stratum
    if dimension == "outcome":
        return {"failed": 0, "passed": 0, "unknown": 1}[bucket]
    return 3 if dimension == "unscored" else TIER[bucket]


def is_jury(pool) -> bool:
    return any(s is not None for c in pool for d, s in c.scores.items() if d in DIMS)


@settings(max_examples=150)
@given(pools, sizes, seeds, st.randoms(use_true_random=False))
def test_same_seed_same_sample_in_any_input_order(pool, n, seed, rnd):
    shuffled = list(pool)
    rnd.shuffle(shuffled)
    first = stratified_sample(pool, n, seed, DIMS)
    assert first.keys == stratified_sample(shuffled, n, seed, DIMS).keys
    assert first.preview() == stratified_sample(shuffled, n, seed, DIMS).preview()


@settings(max_examples=150)
@given(pools, sizes, seeds)
def test_size_and_distinct_keys(pool, n, seed):
    keys = stratified_sample(pool, n, seed, DIMS).keys
    assert len(keys) == len(set(keys)) == min(n, len(pool))
    if n >= len(pool):
        assert set(keys) == {c.key for c in pool}


@settings(max_examples=200)
@given(pools, sizes, seeds)
def test_extremes_before_middles(pool, n, seed):
    """A candidate whose best stratum is of tier t comes only after every non-empty stratum
    of a lower tier (1 and 5 < 2 and 4 < 3 < unscored) is already covered."""
    jury = is_jury(pool)
    by_key = {c.key: c for c in pool}
    non_empty = set().union(*(strata_of(c, jury) for c in pool))
    covered: set = set()
    for key in stratified_sample(pool, n, seed, DIMS).keys:
        mine = strata_of(by_key[key], jury)
        best = min(tier(s) for s in mine)
        assert {s for s in non_empty if tier(s) < best} <= covered
        covered |= mine


@settings(max_examples=200)
@given(pools, sizes, seeds)
def test_every_stratum_covered_before_any_repeat(pool, n, seed):
    jury = is_jury(pool)
    by_key = {c.key: c for c in pool}
    non_empty = set().union(*(strata_of(c, jury) for c in pool))
    sample = stratified_sample(pool, n, seed, DIMS)
    # Independently of the sampler's bookkeeping: the first |strata| picks cover them all.
    if n >= len(non_empty):
        first = sample.keys[: len(non_empty)]
        assert non_empty <= set().union(set(), *(strata_of(by_key[k], jury) for k in first))
    # And by the picks: no stratum is taken for twice while another is still uncovered.
    covered: set = set()
    for pick in sample.picks:
        if pick.round > 0:
            assert covered == non_empty
        covered |= strata_of(by_key[pick.key], jury)
    rounds = [p.round for p in sample.picks]
    assert rounds == sorted(rounds)
    for r in set(rounds):
        taken_for = [p.stratum for p in sample.picks if p.round == r]
        assert len(taken_for) == len(set(taken_for))


@settings(max_examples=150)
@given(
    st.lists(st.sampled_from(["gpt", "claude", "llama"]), max_size=30),
    sizes,
    seeds,
)
def test_models_are_taken_round_robin_within_a_stratum(models, n, seed):
    pool = [Candidate(f"t{i:03d}", m, {}, {"clinical_safety": 1}) for i, m in enumerate(models)]
    keys = stratified_sample(pool, n, seed, DIMS).keys
    model_of = {c.key: c.model for c in pool}
    taken, offered = Counter(model_of[k] for k in keys), Counter(models)
    for a in offered:
        for b in offered:
            # b may lag a by more than one only once b has nothing left to give.
            assert taken[a] <= taken[b] + 1 or taken[b] == offered[b]


def test_models_spread_within_a_stratum():
    pool = [Candidate(f"g{i}", "gpt", {}, {"clinical_safety": 1}) for i in range(6)]
    pool += [Candidate(f"c{i}", "claude", {}, {"clinical_safety": 1}) for i in range(3)]
    pool += [Candidate(f"l{i}", "llama", {}, {"clinical_safety": 1}) for i in range(3)]
    keys = stratified_sample(pool, 6, seed=3, dimensions=DIMS).keys
    assert Counter(k[0] for k in keys) == {"g": 2, "c": 2, "l": 2}


def test_attribute_values_not_yet_taken_are_preferred():
    pool = [
        Candidate(f"r{i}", "gpt", {"category": "refill"}, {"triage_quality": 5}) for i in range(5)
    ]
    pool += [Candidate("b0", "gpt", {"category": "booking"}, {"triage_quality": 5})]
    pool += [Candidate("t0", "gpt", {"category": "triage"}, {"triage_quality": 5})]
    keys = stratified_sample(pool, 3, seed=11, dimensions=DIMS).keys
    assert {k[0] for k in keys} == {"r", "b", "t"}


def test_extremes_of_every_dimension_first():
    pool = [
        Candidate("a", "gpt", {}, {"clinical_safety": 3, "triage_quality": 3}),
        Candidate("b", "gpt", {}, {"clinical_safety": 1, "triage_quality": 3}),
        Candidate("c", "gpt", {}, {"clinical_safety": 2, "triage_quality": 5}),
        Candidate("d", "gpt", {}, {"clinical_safety": 4, "triage_quality": 2}),
        Candidate("e", "gpt", {}, {"clinical_safety": 5, "triage_quality": None}),
    ]
    sample = stratified_sample(pool, 3, seed=0, dimensions=DIMS)
    # safety=1, safety=5, triage=5: the three extreme strata, in dimension order.
    assert sample.keys == ["b", "e", "c"]
    assert [p.stratum.label for p in sample.picks] == [
        "clinical_safety=1",
        "clinical_safety=5",
        "triage_quality=5",
    ]


def test_outcomes_stand_in_when_no_jury_score_exists():
    pool = [Candidate(f"p{i}", "gpt", outcome_passed=True) for i in range(4)]
    pool += [Candidate(f"f{i}", "gpt", outcome_passed=False) for i in range(4)]
    pool += [Candidate(f"u{i}", "gpt", scores={"clinical_safety": None}) for i in range(4)]
    sample = stratified_sample(pool, 4, seed=5, dimensions=DIMS)
    assert sample.mode == "outcome"
    assert [k[0] for k in sample.keys] == ["f", "p", "u", "f"]
    preview = sample.preview()
    assert [(s["stratum"], s["available"], s["selected"]) for s in preview["strata"]] == [
        ("outcome=failed", 4, 2),
        ("outcome=passed", 4, 1),
        ("outcome=unknown", 4, 1),
    ]


def test_unscored_candidates_come_last_in_jury_mode():
    pool = [
        Candidate("x", "gpt", {}, {}),
        Candidate("y", "gpt", {}, {"clinical_safety": 3}),
        Candidate("z", "gpt", {}, {"clinical_safety": 1}),
    ]
    sample = stratified_sample(pool, 5, seed=1, dimensions=DIMS)
    assert sample.mode == "jury"
    assert sample.keys == ["z", "y", "x"]


def test_preview_counts_per_stratum_and_model():
    pool = [
        Candidate("a", "gpt", {}, {"clinical_safety": 1, "triage_quality": 1}),
        Candidate("b", "claude", {}, {"clinical_safety": 1}),
        Candidate("c", "claude", {}, {"clinical_safety": 4}),
    ]
    preview = stratified_sample(pool, 1, seed=2, dimensions=DIMS[:2]).preview()
    assert preview["mode"] == "jury" and preview["total"] == 1
    strata = {s["stratum"]: (s["available"], s["selected"]) for s in preview["strata"]}
    assert len(strata) == 10  # every dimension × bucket, empty ones included
    assert strata["clinical_safety=1"] == (2, 1)
    assert strata["clinical_safety=4"] == (1, 0)
    assert strata["triage_quality=3"] == (0, 0)
    assert {m["model"]: m["available"] for m in preview["models"]} == {"claude": 2, "gpt": 1}
    assert sum(m["selected"] for m in preview["models"]) == 1


def test_small_and_large_n():
    pool = [Candidate(f"t{i}", "gpt", {}, {"clinical_safety": i % 5 + 1}) for i in range(7)]
    assert stratified_sample(pool, 0, seed=1, dimensions=DIMS).keys == []
    assert stratified_sample(pool, -3, seed=1, dimensions=DIMS).keys == []
    assert sorted(stratified_sample(pool, 100, seed=1, dimensions=DIMS).keys) == sorted(
        c.key for c in pool
    )
    assert stratified_sample([], 5, seed=1, dimensions=DIMS).keys == []


def test_different_seeds_can_differ():
    pool = [Candidate(f"t{i:02d}", "gpt", {}, {"clinical_safety": 1}) for i in range(30)]
    samples = {tuple(stratified_sample(pool, 5, seed, DIMS).keys) for seed in range(10)}
    assert len(samples) > 1


def test_mean_scores_are_bucketed_half_up():
    assert [bucket_of(s) for s in (1, 1.49, 1.5, 2.5, 3.5, 4.5, 5)] == [1, 1, 2, 3, 4, 5, 5]
    with pytest.raises(ValueError, match="outside 1..5"):
        bucket_of(0.4)
    with pytest.raises(ValueError, match="candidate t1, clinical_safety"):
        stratified_sample([Candidate("t1", "gpt", {}, {"clinical_safety": 6})], 1, 0, DIMS)


def test_repeated_keys_are_refused():
    pool = [Candidate("t1", "gpt"), Candidate("t1", "claude")]
    with pytest.raises(ValueError, match="repeated: \\['t1'\\]"):
        stratified_sample(pool, 1, 0, DIMS)


def test_filters():
    pool = [
        Candidate("a", "gpt", {"category": "refill", "difficulty": "hard"}, outcome_passed=True),
        Candidate("b", "claude", {"category": "triage"}, outcome_passed=False),
        Candidate("c", "gpt", {"category": "booking", "difficulty": "easy"}),
    ]
    keys = lambda cs: [c.key for c in cs]  # noqa: E731
    assert keys(filter_candidates(pool)) == ["a", "b", "c"]
    assert keys(filter_candidates(pool, models={"gpt"})) == ["a", "c"]
    assert keys(filter_candidates(pool, attributes={"category": "triage"})) == ["b"]
    assert keys(filter_candidates(pool, attributes={"category": ["refill", "booking"]})) == [
        "a",
        "c",
    ]
    assert keys(filter_candidates(pool, attributes={"difficulty": "hard"})) == ["a"]
    assert keys(filter_candidates(pool, outcome="failed")) == ["b"]
    assert keys(filter_candidates(pool, outcome="unknown")) == ["c"]
    assert keys(filter_candidates(pool, models=["gpt"], outcome="passed")) == ["a"]
    with pytest.raises(ValueError, match="outcome must be one of"):
        filter_candidates(pool, outcome="maybe")


@pytest.mark.parametrize("module", ["sampling", "assignment", "calibration"])
def test_the_pure_annotation_modules_import_no_django(module):
    """They run on plain data, so studies can be planned and checked without a database."""
    import ast
    import importlib
    import inspect

    tree = ast.parse(inspect.getsource(importlib.import_module(f"annotation.pure.{module}")))
    imported = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    imported |= {n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    assert not {name for name in imported if name.split(".")[0] == "django"}
