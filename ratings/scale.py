"""The score scale and the pass mark, defined once for judges, clinicians and every figure.

`PASS_THRESHOLD` is the pass mark of the current rubric and the default wherever no rubric is
at hand; a rubric file states its own (`pass_threshold`, `Rubric.pass_threshold`), and callers
that know which rubric version they read pass that one on. tests/ratings/test_rubric.py checks
that the newest rubric file agrees with this default.
"""

from __future__ import annotations

SCORES = (1, 2, 3, 4, 5)  # whole numbers only: the scale has no half steps
PASS_THRESHOLD = 3  # a score at or above it passes
