"""Statistics follow the rubric's scale: on scores that use only the default scale's points,
a wider scale with the same pass mark must give every figure the default scale gives (unused
points weigh nothing in kappa, alpha, Fleiss, the envelope or the alt-test), and scores the
default scale refuses are computed on, not clipped."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from annotation.pure.agreement import CLINICIAN, JURY, OK, Rating, agreement
from ratings.rubric import Scale
from ratings.scale import DEFAULT_SCALE

SEVEN = Scale(tuple(range(1, 8)), DEFAULT_SCALE.pass_mark, tuple(str(p) for p in range(1, 8)))

items_strategy = st.lists(
    st.tuples(
        st.lists(st.integers(1, 5), min_size=2, max_size=4),  # the clinicians' scores
        st.integers(1, 5),  # the jury's
    ),
    min_size=3,
    max_size=12,
)


def as_ratings(items, shift: int = 0) -> list[Rating]:
    ratings = []
    for n, (clinicians, jury) in enumerate(items):
        for c, score in enumerate(clinicians):
            ratings.append(Rating(f"i{n}", f"c{c}", "task", score + shift, OK, CLINICIAN))
        ratings.append(Rating(f"i{n}", "panel", "task", jury + shift, OK, JURY))
    return ratings


def figures(result) -> dict:
    """Every value the agreement computes, as a flat dict (intervals left out: none asked)."""
    flat = {}

    def walk(prefix, value):
        if isinstance(value, dict):
            for key, inner in value.items():
                walk(f"{prefix}.{key}", inner)
        elif isinstance(value, list):
            for i, inner in enumerate(value):
                walk(f"{prefix}[{i}]", inner)
        elif isinstance(value, float) and not math.isnan(value):
            flat[prefix] = round(value, 12)
        else:
            flat[prefix] = value

    walk("", result["task"].as_dict())
    return flat


@settings(max_examples=40, deadline=None)
@given(items_strategy)
def test_a_wider_scale_gives_the_default_scales_figures_on_the_default_points(items):
    options = {"n_resamples": 0, "verdict_resamples": 0, "min_items": 6}
    on_five = figures(agreement(as_ratings(items), **options))
    on_seven = figures(agreement(as_ratings(items), scale=SEVEN, **options))
    assert on_seven == on_five


@settings(max_examples=25, deadline=None)
@given(items_strategy)
def test_figures_that_compare_distances_do_not_move_when_every_score_moves_up_two(items):
    """Scores 3–7 on the 1–7 scale with the pass mark moved up two are the 1–5 study shifted:
    agreement, kappa, correlations, alpha and Fleiss cannot tell them apart."""
    shifted = Scale(SEVEN.points, DEFAULT_SCALE.pass_mark + 2, SEVEN.labels)
    options = {"n_resamples": 0, "verdict_resamples": 0}
    five = agreement(as_ratings(items), **options)["task"]
    seven = agreement(as_ratings(items, shift=2), scale=shifted, **options)["task"]
    for name in ("adjacent", "exact", "weighted_kappa", "mae", "bias"):
        assert getattr(seven.clinicians, name).value == pytest.approx(
            getattr(five.clinicians, name).value, nan_ok=True
        ), name
    for level in ("ordinal", "interval", "pass_fail"):
        assert getattr(seven.alpha, level).value == pytest.approx(
            getattr(five.alpha, level).value, nan_ok=True
        ), level
    assert seven.fleiss_kappa.value == pytest.approx(five.fleiss_kappa.value, nan_ok=True)


def test_a_seven_on_the_seven_point_scale_is_computed_on_and_refused_on_the_default():
    items = [([7, 6], 7), ([6, 6], 5), ([1, 2], 1), ([4, 4], 3)]
    with pytest.raises(ValueError, match="from 1 to 5"):
        agreement(as_ratings(items), n_resamples=0)
    result = agreement(as_ratings(items), scale=SEVEN, n_resamples=0)["task"]
    # Clinician pairs, both orders: 7–6 and 1–2 are adjacent, not exact; 6–6 and 4–4 exact.
    assert result.clinicians.exact.value == pytest.approx(0.5)
    assert result.clinicians.adjacent.value == pytest.approx(1.0)


def scale_of(points: int, pass_mark: int) -> Scale:
    return Scale(tuple(range(1, points + 1)), pass_mark, tuple(str(p) for p in range(points)))


@pytest.mark.parametrize("points", [2, 3])
def test_adjacent_agreement_is_not_a_figure_below_four_points(points):
    items = [([1, points], 1), ([points, points], points), ([1, 1], 1), ([2, 1], 2)] * 2
    result = agreement(as_ratings(items), scale=scale_of(points, 2), n_resamples=0)["task"]
    assert result.clinicians.adjacent.value is None
    assert f"does not apply on a {points}-point scale" in result.clinicians.adjacent.reason
    assert result.clinicians.exact.value is not None
    assert result.modes["every_pair"].adjacent.value is None


def test_on_two_points_the_envelope_decides_on_kappa_alone():
    """A binary dimension (1 not met, 2 met): 40 items, the jury agreeing with the clinicians
    as they agree with each other. The verdict comes from kappa, and says so."""
    rng = np.random.default_rng(7)
    items = []
    for _ in range(40):
        truth = int(rng.integers(1, 3))
        noisy = [truth if rng.random() < 0.9 else 3 - truth for _ in range(4)]
        items.append((noisy[:3], noisy[3]))
    figures = {"n_resamples": 200, "verdict_resamples": 2000}
    result = agreement(as_ratings(items), scale=scale_of(2, 2), **figures)["task"]
    envelope = result.envelope
    assert envelope.jury_adjacent.value is None and envelope.adjacent_difference.value is None
    assert envelope.verdict != "not enough evidence", envelope.reason
    assert "κ alone" in envelope.reason
    on_four = agreement(as_ratings(items), scale=scale_of(4, 2), **figures)["task"]
    assert on_four.envelope.jury_adjacent.value == 1.0  # 1 and 2 are neighbours on any scale
