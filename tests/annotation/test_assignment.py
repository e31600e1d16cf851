"""Assignment with guaranteed overlap: every item covered by enough distinct clinicians of each
track, load balanced, reproducible; review orders per clinician; reassignment."""

from collections import Counter

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from annotation.pure.assignment import AssignmentError, Rater, assign, reassign, review_order

TRACKS = ("clinical", "operations")

track_sets = st.sampled_from(
    [frozenset({"clinical"}), frozenset({"operations"}), frozenset(TRACKS)]
)
raters = st.lists(
    st.builds(Rater, code=st.just(""), tracks=track_sets, load=st.integers(0, 6)),
    min_size=1,
    max_size=9,
).map(lambda rs: [Rater(f"C{i}", r.tracks, r.load) for i, r in enumerate(rs)])
item_lists = st.lists(st.integers(0, 999).map(lambda i: f"I{i:03d}"), unique=True, max_size=25)
seeds = st.integers(0, 2**32)


def loads(plan, clinicians) -> Counter:
    counted = Counter({r.code: r.load for r in clinicians})
    for tracks in plan.values():
        for codes in tracks.values():
            counted.update(codes)
    return counted


def eligible(clinicians, track):
    return [r for r in clinicians if track in r.tracks]


@settings(max_examples=200)
@given(raters, item_lists, st.integers(0, 3), st.integers(0, 3), seeds)
def test_every_item_gets_its_overlap_of_distinct_eligible_clinicians(
    clinicians, items, clinical, operations, seed
):
    overlap = {"clinical": clinical, "operations": operations}
    assume(all(len(eligible(clinicians, t)) >= k for t, k in overlap.items()))
    plan = assign(items, clinicians, overlap, seed)
    assert list(plan) == items
    by_code = {r.code: r for r in clinicians}
    for tracks in plan.values():
        assert set(tracks) == set(overlap)
        for track, codes in tracks.items():
            assert len(codes) == len(set(codes)) == overlap[track]
            assert all(track in by_code[code].tracks for code in codes)


@settings(max_examples=200)
@given(st.integers(1, 9), item_lists, st.integers(1, 4), seeds)
def test_one_track_from_equal_loads_stays_within_one(n_clinicians, items, overlap, seed):
    assume(overlap <= n_clinicians)
    clinicians = [Rater(f"C{i}", frozenset({"clinical"})) for i in range(n_clinicians)]
    counted = loads(assign(items, clinicians, {"clinical": overlap}, seed), clinicians)
    values = [counted[r.code] for r in clinicians]
    assert max(values) - min(values) <= 1
    assert sum(values) == overlap * len(items)


@settings(max_examples=200)
@given(st.lists(st.integers(0, 8), min_size=1, max_size=8), item_lists, st.integers(1, 3), seeds)
def test_one_track_never_widens_an_existing_spread(initial, items, overlap, seed):
    assume(overlap <= len(initial))
    clinicians = [Rater(f"C{i}", frozenset({"clinical"}), load) for i, load in enumerate(initial)]
    counted = loads(assign(items, clinicians, {"clinical": overlap}, seed), clinicians)
    values = [counted[r.code] for r in clinicians]
    assert max(values) - min(values) <= max(max(initial) - min(initial), 1)


def test_one_track_with_uneven_loads_evens_out_given_enough_items():
    clinicians = [Rater("A", frozenset({"clinical"}), 5), Rater("B", frozenset({"clinical"}), 0)]
    clinicians.append(Rater("C", frozenset({"clinical"}), 2))
    counted = loads(assign([f"I{i}" for i in range(9)], clinicians, {"clinical": 1}, 4), clinicians)
    assert sorted(counted.values()) == [5, 5, 6]


@settings(max_examples=150)
@given(raters, item_lists, seeds, st.randoms(use_true_random=False))
def test_same_seed_same_plan_in_any_input_order(clinicians, items, seed, rnd):
    overlap = {"clinical": 1, "operations": 1}
    assume(all(eligible(clinicians, t) for t in TRACKS))
    plan = assign(items, clinicians, overlap, seed)
    items2, clinicians2 = list(items), list(clinicians)
    rnd.shuffle(items2)
    rnd.shuffle(clinicians2)
    again = assign(items2, clinicians2, overlap, seed)
    assert {i: again[i] for i in items} == plan


def test_a_clinician_in_both_tracks_may_cover_both_tracks_of_one_item():
    clinicians = [
        Rater("X", frozenset(TRACKS)),
        Rater("Y", frozenset({"clinical"})),
        Rater("Z", frozenset({"operations"})),
    ]
    plan = assign(["I1", "I2"], clinicians, {"clinical": 2, "operations": 2}, seed=1)
    assert plan == {
        "I1": {"clinical": ["X", "Y"], "operations": ["X", "Z"]},
        "I2": {"clinical": ["X", "Y"], "operations": ["X", "Z"]},
    }


def test_least_loaded_goes_first():
    clinicians = [Rater("A", frozenset({"clinical"}), 3), Rater("B", frozenset({"clinical"}), 0)]
    plan = assign(["I1", "I2", "I3"], clinicians, {"clinical": 1}, seed=9)
    assert [plan[i]["clinical"] for i in ("I1", "I2", "I3")] == [["B"], ["B"], ["B"]]


def test_ties_are_broken_by_the_seed():
    clinicians = [Rater(f"C{i}", frozenset({"clinical"})) for i in range(6)]
    firsts = {
        assign(["I1"], clinicians, {"clinical": 1}, seed)["I1"]["clinical"][0] for seed in range(20)
    }
    assert len(firsts) > 1


def test_too_few_clinicians_in_a_track_is_an_error():
    clinicians = [Rater("A", frozenset({"clinical"})), Rater("B", frozenset(TRACKS))]
    with pytest.raises(
        AssignmentError, match="'operations' needs 2 .* only 1 belong to it \\(B\\)"
    ):
        assign(["I1"], clinicians, {"clinical": 2, "operations": 2}, seed=0)
    with pytest.raises(AssignmentError, match="only 0 belong to it \\(none\\)"):
        assign(["I1"], clinicians, {"triage": 1}, seed=0)


def test_bad_input_is_an_error():
    clinicians = [Rater("A", frozenset({"clinical"}))]
    with pytest.raises(AssignmentError, match="repeated: \\['I1'\\]"):
        assign(["I1", "I1"], clinicians, {"clinical": 1}, 0)
    with pytest.raises(AssignmentError, match="clinician code"):
        assign(["I1"], clinicians * 2, {"clinical": 1}, 0)
    with pytest.raises(AssignmentError, match="0 or more"):
        assign(["I1"], clinicians, {"clinical": -1}, 0)


# --- review order ------------------------------------------------------------------------------

codes = [f"R{i:02d}" for i in range(12)]


@given(st.permutations(codes), st.sampled_from(["A", "B", "C"]), seeds)
def test_review_order_is_a_stable_permutation(shuffled, clinician, seed):
    order = review_order(shuffled, clinician, seed)
    assert sorted(order) == codes
    assert order == review_order(codes, clinician, seed)


def test_review_orders_differ_between_clinicians_and_are_fixed_across_processes():
    assert review_order(codes, "A", 7) != review_order(codes, "B", 7)
    assert review_order(codes, "A", 7) != review_order(codes, "A", 8)
    # A string seed is hashed with sha512, so this holds in every process and Python run.
    assert review_order(["x", "y", "z", "w"], "A", 1) == review_order(["w", "z", "y", "x"], "A", 1)


# --- reassignment ------------------------------------------------------------------------------


def test_reassign_replaces_the_leaving_clinician_with_someone_free_and_least_loaded():
    clinicians = [
        Rater("A", frozenset({"clinical"}), 2),
        Rater("B", frozenset({"clinical"}), 5),
        Rater("C", frozenset({"clinical"}), 1),
        Rater("D", frozenset({"clinical"}), 0),
    ]
    open_items = {
        "I1": {"clinical": ["A", "D"]},
        "I2": {"clinical": ["A", "B"]},
        "I3": {"clinical": ["B", "C"]},
    }
    plan = reassign(open_items, "A", clinicians, seed=0)
    assert plan == {
        "I1": {"clinical": ["C", "D"]},  # D is already on I1; C is the least loaded of the rest
        "I2": {"clinical": ["D", "B"]},  # D (load 0) before C (now 2)
        "I3": {"clinical": ["B", "C"]},  # untouched
    }
    assert open_items["I1"] == {"clinical": ["A", "D"]}  # the input is not changed


def test_reassign_prefers_someone_not_on_the_item_then_allows_the_other_track():
    clinicians = [
        Rater("L", frozenset({"clinical"})),
        Rater("X", frozenset(TRACKS)),
        Rater("Y", frozenset(TRACKS), load=9),
    ]
    item = {"I1": {"clinical": ["L"], "operations": ["X"]}}
    assert reassign(item, "L", clinicians, 0)["I1"]["clinical"] == ["Y"]
    without_y = clinicians[:2]
    assert reassign(item, "L", without_y, 0)["I1"] == {"clinical": ["X"], "operations": ["X"]}


def test_reassign_raises_when_no_one_is_free():
    clinicians = [Rater("A", frozenset({"clinical"})), Rater("B", frozenset({"clinical"}))]
    open_items = {"I1": {"clinical": ["A", "B"]}}
    with pytest.raises(
        AssignmentError, match=r"item I1: no clinical clinician .* \(already on it: B\)"
    ):
        reassign(open_items, "A", clinicians, seed=0)


@settings(max_examples=150)
@given(raters, item_lists, seeds)
def test_reassign_keeps_the_rules(clinicians, items, seed):
    overlap = {"clinical": 1, "operations": 1}
    assume(all(len(eligible(clinicians, t)) >= 2 for t in TRACKS))
    plan = assign(items, clinicians, overlap, seed)
    leaving = clinicians[0].code
    moved = reassign(plan, leaving, clinicians, seed)
    by_code = {r.code: r for r in clinicians}
    for item, tracks in moved.items():
        for track, codes in tracks.items():
            assert leaving not in codes
            assert len(codes) == len(set(codes)) == overlap[track]
            assert all(track in by_code[c].tracks for c in codes)
            if leaving not in plan[item][track]:
                assert codes == plan[item][track]
