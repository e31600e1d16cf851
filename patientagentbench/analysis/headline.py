"""A headline figure as it is printed: the value with its n and interval beside it, or "not
enough evidence" when the sample is below a stated minimum.

A headline sits beside the paper's published value, so a reader compares the two at a
glance; below the minimum that comparison would be noise, so the value is not printed and
the paper's stands alone. Pure: plain numbers in, plain text out.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

__all__ = [
    "COMPARISON_WORDS",
    "MIN_CELLS_FOR_A_CORRELATION",
    "MIN_CELLS_FOR_A_MEAN",
    "MIN_CELLS_FOR_A_SHARE",
    "MIN_CELLS_FOR_AN_F_TEST",
    "MIN_PAIRS_FOR_AN_EFFECT_SIZE",
    "NOT_ENOUGH",
    "NOT_ENOUGH_HERE",
    "Headline",
    "Interval",
    "Minimum",
    "headline",
    "interval_withheld",
]


@dataclass(frozen=True)
class Minimum:
    """The fewest observations a kind of figure needs before it is set beside the paper's."""

    n: int
    why: str


# Checked with statistics._d_interval, the Fisher z and statsmodels' Wilson interval.
MIN_PAIRS_FOR_AN_EFFECT_SIZE = Minimum(
    10,
    "the paper's paired Cohen's d of 0.75 needs 10 pairs before its noncentral-t 95% CI excludes 0 "
    "(9 pairs: -0.01 to 1.48; 3 pairs: -0.63 to 2.01)",
)
MIN_CELLS_FOR_A_CORRELATION = Minimum(
    10,
    "below 10 cells the Fisher-z 95% CI of any r smaller than 0.63 includes 0",
)
MIN_CELLS_FOR_AN_F_TEST = Minimum(
    10,
    "the floor of a correlation: fewer than 10 cells leave an F under 8 residual df, "
    "where one cell moves it a lot",
)
MIN_CELLS_FOR_A_SHARE = Minimum(
    10,
    "below 10 cells a Wilson 95% interval of a share near the paper's 60% is wider than "
    "half the scale (10 cells: 31% to 83%)",
)
MIN_CELLS_FOR_A_MEAN = Minimum(
    5,
    "below 5 cells the t quantile of a 95% interval exceeds 3 (3.18 at 4 cells) and the sd "
    "rests on 3 df or fewer",
)

NOT_ENOUGH = "not enough evidence"
NOT_ENOUGH_HERE = f"{NOT_ENOUGH} here"
# What a headline may say about the paper's value only when the sample reaches its minimum.
COMPARISON_WORDS = (
    "match",
    "reproduc",
    "replicat",
    "confirm",
    "agree",
    "consistent",
    "differ",
    "inside",
    "outside",
)


@dataclass(frozen=True)
class Interval:
    low: float
    high: float
    method: str
    level: float = 0.95


@dataclass(frozen=True)
class Headline:
    """`value` stands where the study's figure goes, `beside` right after it; `comparison`
    goes beside the paper's value. `enough`: n reaches the minimum; `shown`: a figure is
    printed (enough, and the point could be computed)."""

    value: str
    beside: str
    comparison: str
    enough: bool
    shown: bool

    @property
    def text(self) -> str:
        separator = " " if self.beside.startswith("(") else ", "
        return f"{self.value}{separator}{self.beside}"


def _three(value: float) -> str:
    return f"{value:.3f}"


def _published(value: float) -> str:
    return f"{value:g}"


def headline(
    point: float | None,
    interval: Interval | None,
    n: int | None,
    minimum: Minimum,
    *,
    fmt: Callable[[float], str] = _three,
    published: float | None = None,
    published_fmt: Callable[[float], str] = _published,
    no_interval: str = "",
    missing: str = "",
    of: str = "",
) -> Headline:
    """The printed form of one headline figure. `no_interval` says why a figure has no CI
    (a test statistic); `missing` why there is no point at all; `of` what n counts when it
    is not cells ("run pairs"). n is printed in every case."""
    n = int(n or 0)
    count = f"n = {n:,} {of}" if of else f"n = {n:,}"
    if n < minimum.n:
        return Headline(
            NOT_ENOUGH,
            f"({count}; {minimum.n:,} needed)",
            NOT_ENOUGH_HERE,
            enough=False,
            shown=False,
        )
    if not _finite(point):
        beside = f"({count}{_colon(missing)})"
        return Headline("not computed", beside, "not computed here", enough=True, shown=False)
    if interval is None or not (_finite(interval.low) and _finite(interval.high)):
        why = no_interval or "the interval could not be computed"
        return Headline(fmt(point), f"{count}; no CI: {why}", "", enough=True, shown=True)
    if interval.low == interval.high:
        # Every observation alike: no spread to put an interval on, nothing to compare.
        beside = f"{count}; no CI: every value is the same"
        return Headline(fmt(point), beside, NOT_ENOUGH_HERE, enough=True, shown=True)
    level = f"{100 * interval.level:g}%"
    bounds = f"[{fmt(interval.low)}, {fmt(interval.high)}]"
    beside = f"{count}, {level} CI {bounds} ({interval.method})"
    comparison = _comparison(published, interval, published_fmt)
    return Headline(fmt(point), beside, comparison, enough=True, shown=True)


def interval_withheld(low: float, high: float, n: int | None, minimum: Minimum) -> str:
    """Why an interval is not printed, or "" when it stands. An interval of zero width
    ("1.00 to 1.00" from two cells that agree) reads as a certainty no sample gives, and one
    on fewer observations than its kind of figure needs covers far less often than it says."""
    n = int(n or 0)
    if n < minimum.n:
        return f"{NOT_ENOUGH} for an interval (n = {n:,}; {minimum.n:,} needed)"
    if high - low <= 1e-12:
        return f"{NOT_ENOUGH} for an interval: all {n:,} values are the same"
    return ""


def _comparison(published: float | None, interval: Interval, published_fmt) -> str:
    """Where the paper's value falls against this study's interval: a fact, not a verdict."""
    if not _finite(published):
        return ""
    where = "inside" if interval.low <= published <= interval.high else "outside"
    level = f"{100 * interval.level:g}%"
    return f"the paper's {published_fmt(published)} lies {where} this study's {level} CI"


def _colon(text: str) -> str:
    return f": {text}" if text else ""


def _finite(value: float | None) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
