"""How a mean that falls between two scores is compared with whole scores: the tie rule.

A clinicians' mean of 2.5 or a two-judge panel's mean of 3.5 lies on no point of the scale.
Exact and adjacent agreement and kappa compare whole scores, so such a mean has to go to a
score, and which one moves those figures: half up favours a lenient jury, half down a strict
one. The rule is a setting, stated beside every figure it touches:

- `half_up`: 2.5 → 3 (never to the even neighbour, as Python's `round` would);
- `half_down`: 2.5 → 2;
- `half_credit`: 2.5 counts half as a 2 and half as a 3, which favours neither side.

A mean that is not a half goes to the nearest score under every rule. MAE, bias and the
correlations never round: they use the mean itself.
"""

from __future__ import annotations

import math

import numpy as np

from ratings.rubric import Scale
from ratings.scale import DEFAULT_SCALE

HALF_UP, HALF_DOWN, HALF_CREDIT = "half_up", "half_down", "half_credit"
TIE_RULES = (HALF_UP, HALF_DOWN, HALF_CREDIT)
DEFAULT_TIE_RULE = HALF_UP
TIE_RULE_WORDS = {
    HALF_UP: "halves rounded up (2.5 → 3)",
    HALF_DOWN: "halves rounded down (2.5 → 2)",
    HALF_CREDIT: "halves counted half to each neighbour (2.5 → ½ 2, ½ 3)",
}


def half_up(value: float) -> int:
    """The nearest integer, halves up: 2.5 → 3, 3.5 → 4 (never to the even neighbour).

    A mean of a few whole scores is a half only when it is exactly k + 0.5, which a float
    holds exactly, so adding 0.5 and flooring has no representation error to trip on."""
    return int(math.floor(value + 0.5))


def check_rule(rule: str) -> str:
    if rule not in TIE_RULES:
        raise ValueError(f"unknown tie rule {rule!r}; one of {', '.join(TIE_RULES)}")
    return rule


def score_shares(
    values: np.ndarray, rule: str = DEFAULT_TIE_RULE, scale: Scale = DEFAULT_SCALE
) -> np.ndarray:
    """(len(values), points on the scale): how much of each value counts as each whole score
    (rows sum to 1).

    Whole scores count wholly as themselves; a half follows `rule`; anything else goes to
    its nearest score."""
    check_rule(rule)
    values = np.asarray(values, dtype=float)
    low = np.floor(values)
    is_half = np.isclose(values - low, 0.5)
    nearest = np.floor(values + 0.5)
    down_share = np.where(is_half, {HALF_UP: 0.0, HALF_DOWN: 1.0, HALF_CREDIT: 0.5}[rule], 0.0)
    points = len(scale.points)
    shares = np.zeros((len(values), points))
    rows = np.arange(len(values))
    target_up = np.where(is_half, low + 1, nearest).astype(int) - scale.low
    target_down = np.where(is_half, low, nearest).astype(int) - scale.low
    np.add.at(shares, (rows, np.clip(target_up, 0, points - 1)), 1 - down_share)
    np.add.at(shares, (rows, np.clip(target_down, 0, points - 1)), down_share)
    return shares
