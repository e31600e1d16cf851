"""The scale and the pass mark are defined once, and the newest rubric agrees with the default;
alpha's reasons read the same wherever alpha is computed."""

import copy
import json

import pytest

from ratings.alpha import ALPHA_NAN, alpha_undefined, no_variation
from ratings.rubric import RUBRICS_DIR, load_rubric, parse_rubric
from ratings.scale import PASS_THRESHOLD, SCORES


def test_the_newest_rubric_states_the_default_pass_mark():
    # PASS_THRESHOLD is the default of the current rubric: a rubric version with another pass
    # mark must change it too, or pages without a rubric at hand would disagree with it.
    assert load_rubric().pass_threshold == PASS_THRESHOLD
    assert tuple(range(1, 6)) == SCORES


def test_a_rubric_without_a_pass_mark_takes_the_default():
    raw = json.loads((RUBRICS_DIR / "patientagentbench-v1.json").read_text())
    stated = copy.deepcopy(raw)
    stated["pass_threshold"] = 4
    assert parse_rubric(stated).pass_threshold == 4
    raw.pop("pass_threshold")
    assert parse_rubric(raw).pass_threshold == PASS_THRESHOLD


@pytest.mark.parametrize(
    ("args", "kwargs", "reason"),
    [
        ((1, 0), {}, "fewer than 2 raters gave scores"),
        ((3, 0), {"rater": "clinician"}, "no item has scores from 2 or more clinicians"),
        (
            (2, 1, [2, 4]),
            {"unit": "conversation", "rater": "repetition"},
            "not enough evidence: only 1 conversation has scores from 2 or more repetitions",
        ),
        (
            (2, 4, [4.0, 4.0]),
            {"unit": "conversation"},
            "no variation: every score on shared conversations was 4",
        ),
        ((2, 4, [3, 4]), {}, None),
        ((2, 4, None), {}, None),  # the caller checks variation itself
    ],
)
def test_alpha_reasons(args, kwargs, reason):
    assert alpha_undefined(*args, **kwargs) == reason


def test_no_variation_without_a_value_and_nan():
    assert no_variation() == "no variation: every score on shared items is the same"
    assert ALPHA_NAN.startswith("undefined")


def test_the_rubric_carries_its_scale():
    scale = load_rubric().scale
    assert (scale.points, scale.pass_mark) == (SCORES, PASS_THRESHOLD)
    assert scale.labels == ("Fail", "Poor", "Adequate", "Good", "Excellent")
    assert scale.span == "1 to 5"
    assert [s in scale for s in (0, 1, 5, 6, True, 2.5)] == [False, True, True, False, False, False]


def _shortened(raw, keep):
    """The rubric with every dimension's levels cut to the first `keep`."""
    for dimension in raw["dimensions"]:
        dimension["levels"] = dimension["levels"][:keep]
    return raw


def test_a_scale_of_other_length_is_read_from_the_levels():
    raw = json.loads((RUBRICS_DIR / "patientagentbench-v1.json").read_text())
    raw.pop("pass_threshold")
    scale = parse_rubric(_shortened(raw, 4)).scale
    # No pass mark stated: from the middle point up, as 3 is on 1 to 5.
    assert (scale.points, scale.pass_mark, scale.span) == ((1, 2, 3, 4), 3, "1 to 4")
    assert scale.passes(3) and not scale.passes(2.9)


def test_point_labels_fall_back_to_numbers_where_dimensions_disagree():
    raw = json.loads((RUBRICS_DIR / "patientagentbench-v1.json").read_text())
    raw["dimensions"][0]["levels"][4]["label"] = "Outstanding"
    assert parse_rubric(raw).scale.labels == ("Fail", "Poor", "Adequate", "Good", "5")
