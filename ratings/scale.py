"""The default rubric's scale, for callers with no rubric at hand.

A rubric carries its own scale (`Rubric.scale`: its points, pass mark and the words for each
point); whoever knows which rubric version it scores reads that one. These names are the
newest default rubric's scale, read from its file, never restated here.
"""

from __future__ import annotations

from ratings.rubric import Scale, cached_rubric

DEFAULT_SCALE: Scale = cached_rubric().scale
SCORES = DEFAULT_SCALE.points  # whole numbers only: the scale has no half steps
PASS_THRESHOLD = DEFAULT_SCALE.pass_mark  # a score at or above it passes
