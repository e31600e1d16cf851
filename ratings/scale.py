"""The default rubric's scale, for callers with no rubric at hand.

A rubric carries its own scale (`Rubric.scale`: its points, pass mark and the words for each
point); whoever knows which rubric version it scores reads that one. These names are the
newest default rubric's scale, read from its file, never restated here.
"""

from __future__ import annotations

import functools

import numpy as np

from ratings.rubric import Scale, cached_rubric

DEFAULT_SCALE: Scale = cached_rubric().scale
SCORES = DEFAULT_SCALE.points  # whole numbers only: the scale has no half steps
PASS_THRESHOLD = DEFAULT_SCALE.pass_mark  # a score at or above it passes


# Weights between the points of a scale, built once per scale: every agreement figure that
# compares whole scores reads them, so a 7-point rubric gets 7 × 7 tables, not the default's.
@functools.cache
def score_values(scale: Scale) -> np.ndarray:
    return _frozen(np.array(scale.points, dtype=float))


@functools.cache
def adjacent_weights(scale: Scale) -> np.ndarray:
    """1 where two points are within one point of each other ("adjacent agreement")."""
    values = score_values(scale)
    return _frozen((np.abs(values[:, None] - values[None, :]) <= 1).astype(float))


@functools.cache
def quadratic_weights(scale: Scale) -> np.ndarray:
    """Squared distance between points: quadratic-weighted kappa's disagreement weights."""
    values = score_values(scale)
    return _frozen((values[:, None] - values[None, :]) ** 2)


def _frozen(array: np.ndarray) -> np.ndarray:
    array.flags.writeable = False  # shared by every caller through the cache
    return array
