"""The study planner (DESIGN §7): narrower intervals with more items, the cheapest design that
reaches the target, seeded and order-free, never inventing clinicians; planned on a chosen
quantile of the simulated widths (80% by default), the pilot's own uncertainty from resamples
of its items, a warning below 50 pilot items, a reason for every missing width (a width of 0
by construction is no prediction), and the plug-in correction.

Simulation sizes are small here: these check behaviour, `benchmarks/planner_check.py` checks
that recommendations reach their target on fresh studies."""

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from annotation.pure import planning
from annotation.pure.agreement import Rating
from annotation.pure.planning import plan_study
from tests.annotation.test_agreement import simulated

FAST = {"n_sim": 40, "n_boot": 80, "pilot_resamples": 8}


def flat(items=40, dimension="tone"):
    """Every clinician and the jury give every item 4: nothing varies."""
    return [
        Rating(f"i{item:03d}", rater, dimension, 4, kind=kind)
        for item in range(items)
        for rater, kind in (("A", "clinician"), ("B", "clinician"), ("panel", "jury"))
    ]


# --- designs, moved from test_agreement ----------------------------------------------------------


def test_more_items_give_narrower_intervals():
    pilot = simulated(items=40, dimensions=("safety", "triage"))
    plan = plan_study(pilot, [10, 40, 160], [2, 3], target_width=0.2, seed=1, n_sim=60, n_boot=100)
    assert len(plan.rows) == 2 * 3 * 2
    for dimension in ("safety", "triage"):
        for overlap in (2, 3):
            rows = [r for r in plan.rows if (r.dimension, r.overlap) == (dimension, overlap)]
            alpha = [r.alpha_width for r in sorted(rows, key=lambda r: r.items)]
            difference = [r.difference_width for r in sorted(rows, key=lambda r: r.items)]
            assert alpha == sorted(alpha, reverse=True) and alpha[0] > 1.5 * alpha[-1]
            assert difference == sorted(difference, reverse=True)
            # Planned on the 80th percentile: at least as wide as the median.
            assert all(r.alpha_width_median <= r.alpha_width for r in rows)
            assert all(r.difference_width_median <= r.difference_width for r in rows)


def test_the_recommendation_is_the_cheapest_design_reaching_the_target():
    pilot = simulated(items=30)
    loose = plan_study(pilot, [10, 20], [2, 3], target_width=5, seed=0, **FAST)
    assert loose.recommended == (10, 2) and loose.recommended_by_dimension == {"safety": (10, 2)}
    strict = plan_study(pilot, [10, 20], [2, 3], target_width=0.001, seed=0, **FAST)
    assert strict.recommended is None and not any(r.reaches_target for r in strict.rows)
    middle = plan_study(pilot, [10, 40, 160], [2, 3], target_width=0.25, seed=0, n_sim=40)
    reaching = [r for r in middle.rows if r.reaches_target]
    cheapest = min(reaching, key=lambda r: (r.ratings, r.items))
    assert middle.recommended == (cheapest.items, cheapest.overlap)


def test_the_planner_is_seeded_and_never_invents_clinicians():
    pilot = simulated(items=20, clinicians="AB")
    first = plan_study(pilot, [10], [2, 3], target_width=0.3, seed=2, **FAST)
    assert first.as_rows() == plan_study(pilot, [10], [2, 3], 0.3, 2, **FAST).as_rows()
    three = next(r for r in first.rows if r.overlap == 3)
    assert (three.alpha_width, three.difference_width, three.reaches_target) == (None, None, False)
    assert three.alpha_reason == three.difference_reason == "no pilot item has 3 clinicians"
    with pytest.raises(ValueError, match="overlap"):
        plan_study(pilot, [10], [1], 0.3, 0)
    with pytest.raises(ValueError, match="items"):
        plan_study(pilot, [1], [2], 0.3, 0)
    with pytest.raises(ValueError, match="quantile"):
        plan_study(pilot, [10], [2], 0.3, 0, quantile=1.5)


def test_the_planner_without_jury_plans_on_alpha_alone():
    pilot = [r for r in simulated(items=30) if r.kind == "clinician"]
    (row,) = plan_study(pilot, [30], [3], target_width=5, seed=0, **FAST).rows
    assert row.difference_width is None and row.difference_reason == planning.NO_JURY
    assert row.alpha_width is not None and row.alpha_reason is None and row.reaches_target


def test_shuffled_pilots_plan_alike():
    pilot = simulated(items=20, dimensions=("safety", "triage"))
    shuffled = pilot[:]
    random.Random(0).shuffle(shuffled)
    args = ([10, 20], [2], 0.3, 0)
    assert (
        plan_study(pilot, *args, **FAST).as_rows() == plan_study(shuffled, *args, **FAST).as_rows()
    )


# --- planned on a quantile -----------------------------------------------------------------------


def test_the_planner_plans_on_the_80th_percentile_not_the_median():
    pilot = simulated(items=60, seed=3)
    options = ([20, 40, 80, 160], [2, 3])
    median = plan_study(pilot, *options, target_width=0.3, seed=0, quantile=0.5, **FAST)
    # A target between a design's median and 80th-percentile widths: the median planner
    # recommends it, the 80% one (the default) does not.
    row = next(r for r in median.rows if (r.items, r.overlap) == (40, 3))
    default = plan_study(pilot, *options, target_width=0.3, seed=0, **FAST)
    twin = next(r for r in default.rows if (r.items, r.overlap) == (40, 3))
    assert twin.alpha_width_median < twin.alpha_width
    target = (max(row.alpha_width, row.difference_width) + twin.alpha_width) / 2
    target = max(target, row.alpha_width, row.difference_width) + 1e-9
    median = plan_study(pilot, *options, target_width=target, seed=0, quantile=0.5, **FAST)
    planned = plan_study(pilot, *options, target_width=target, seed=0, **FAST)
    assert planned.quantile == 0.8 and median.quantile == 0.5
    assert median.recommended is not None and median.recommended != planned.recommended
    chosen = next(r for r in planned.rows if (r.items, r.overlap) == median.recommended)
    assert not chosen.reaches_target
    for plan in (median, planned):
        for r in plan.rows:
            assert r.reaches_target == (r.alpha_width <= target and r.difference_width <= target)


def test_a_higher_quantile_never_plans_narrower():
    pilot = simulated(items=40, seed=4)
    widths = {
        q: [
            r.alpha_width for r in plan_study(pilot, [20, 80], [2], 0.2, 0, quantile=q, **FAST).rows
        ]
        for q in planning.QUANTILES
    }
    assert widths[0.5] <= widths[0.8] <= widths[0.9]


# --- the pilot's own uncertainty -----------------------------------------------------------------


def test_the_pilot_is_resampled_and_a_small_pilot_is_less_certain():
    def relative_range(items):
        plan = plan_study(simulated(items=items, seed=5), [60], [2], 0.2, 0, **FAST)
        (row,) = plan.rows
        low, high = row.alpha_width_range
        assert low <= high and 0 <= row.reach_share <= 1
        return (high - low) / row.alpha_width

    assert relative_range(20) > relative_range(300)


def test_the_stability_says_how_often_the_recommendation_changes():
    pilot = simulated(items=30, seed=6)
    plan = plan_study(pilot, [10, 20, 40, 80, 160], [2, 3], 0.25, 0, **FAST)
    stability = plan.stability
    assert stability.resamples == FAST["pilot_resamples"]
    assert sum(share for _, share in stability.designs) == pytest.approx(1)
    assert stability.same == dict(stability.designs).get(plan.recommended, 0)
    none = plan_study(pilot, [10, 20], [2, 3], 0.25, 0, pilot_resamples=0, n_sim=20)
    assert none.stability.resamples == 0 and none.rows[0].alpha_width_range is None


# --- warnings and reasons ------------------------------------------------------------------------


def test_a_pilot_below_50_items_is_warned_about():
    small = plan_study(simulated(items=49), [20], [2], 0.3, 0, **FAST)
    assert small.pilot_items == {"safety": 49}
    assert "49 items" in small.warning and str(planning.MIN_PILOT_ITEMS) in small.warning
    enough = plan_study(simulated(items=50), [20], [2], 0.3, 0, **FAST)
    assert enough.warning is None


def test_a_pilot_that_does_not_vary_predicts_nothing_and_says_why():
    pilot = flat() + simulated(items=40, clinicians="AB")
    plan = plan_study(pilot, [20, 40], [2, 3], target_width=5, seed=0, **FAST)
    for row in (r for r in plan.rows if r.dimension == "tone" and r.overlap == 2):
        # Before, a 0.00 width that "reaches" any target: a flat line drawn as a prediction.
        assert row.alpha_width is None and row.difference_width is None
        assert row.alpha_reason == planning.NOT_EVIDENCE
        assert "0 by construction, not evidence" in row.difference_reason
        assert not row.reaches_target
    assert plan.recommended is None and plan.recommended_by_dimension["safety"] == (20, 2)


@settings(max_examples=15, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.integers(0, 11), st.sampled_from("ABCD"), st.sampled_from("xy"), st.integers(1, 5)
        ),
        min_size=4,
        max_size=60,
        unique_by=lambda t: t[:3],
    ),
    st.booleans(),
)
def test_every_missing_width_has_a_reason(scores, with_jury):
    ratings = [Rating(f"i{i}", c, d, s) for i, c, d, s in scores]
    if with_jury:
        ratings += [
            Rating(f"i{i}", "panel", d, s, kind="jury") for i, c, d, s in scores if c == "A"
        ]
    plan = plan_study(ratings, [6, 10], [2, 3], 0.3, 0, n_sim=12, n_boot=30, pilot_resamples=4)
    for row in plan.rows:
        assert (row.alpha_width is None) == (row.alpha_reason is not None)
        if row.difference_width is None:
            assert row.difference_reason
        assert row.alpha_width is None or row.alpha_width > 0
        assert row.difference_width is None or row.difference_width > 0
        assert not row.reaches_target or row.alpha_width is not None


# --- the correction ------------------------------------------------------------------------------


def test_widths_are_corrected_for_the_pilots_plug_in_spread():
    assert planning.variance_inflation(30) == pytest.approx((30 / 29) ** 0.5)
    pilot = simulated(items=30, seed=7)
    args = ([40], [3], 0.2, 0)
    quick = {"n_sim": 40, "n_boot": 80, "pilot_resamples": 0}
    (plain,) = plan_study(pilot, *args, correct=False, **quick).rows
    (inflated,) = plan_study(pilot, *args, **quick).rows
    assert inflated.alpha_width == pytest.approx(plain.alpha_width * (30 / 29) ** 0.5)
    # With resamples of the pilot, its uncertainty widens the planned width further.
    (folded,) = plan_study(pilot, *args, correct=True, **FAST).rows
    assert folded.difference_width > inflated.difference_width


def test_a_plan_past_the_work_budget_is_refused_before_any_draw_and_says_what_to_ask():
    # The form's own bounds: 8 item counts near 5,000 and 8 overlaps (120 s, a killed worker).
    items, overlaps = tuple(range(4993, 5001)), tuple(range(13, 21))
    with pytest.raises(planning.TooMuchWork, match="Try fewer or smaller item counts"):
        plan_study(flat(), items, overlaps, 0.01, **FAST)
    assert planning.plan_work(items, overlaps, 1) > planning.MAX_PLAN_WORK
    # The page's default request on a six-dimension rubric stays inside the budget.
    assert planning.work_refusal((20, 40, 80, 160), (2, 3, 4), 6) is None
