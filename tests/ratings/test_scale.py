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
