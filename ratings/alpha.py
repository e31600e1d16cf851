"""Why Krippendorff's alpha has no value, worded once.

Alpha is computed in three places: the jury's test-retest (`jury.pure.consistency`: repetitions
rate conversations), the clinicians' agreement (`annotation.pure.agreement`: raters rate items)
and calibration rounds (`annotation.pure.calibration`: clinicians rate items). Where it is
undefined each shows "—" with one of these reasons, in the same words, so a reader meets one
explanation on every page. The callers count; this module only says what the counts mean.
"""

from __future__ import annotations

from collections.abc import Collection

# krippendorff returned NaN: the expected disagreement is zero, so alpha's ratio has no value.
ALPHA_NAN = "undefined: no expected disagreement between the scores"


def alpha_undefined(
    raters: int,
    shared_units: int,
    values: Collection[float] | None = None,
    *,
    rater: str = "rater",
    unit: str = "item",
) -> str | None:
    """Why alpha cannot be computed, or None.

    raters: how many raters (or repetitions) gave scores; shared_units: units scored by 2 or
    more of them; values: the scores on those shared units (None: the caller checks variation
    itself, per level of measurement). `rater` and `unit` name them for the reader.
    """
    if raters < 2:
        return f"fewer than 2 {rater}s gave scores"
    if shared_units == 0:
        return f"no {unit} has scores from 2 or more {rater}s"
    if shared_units == 1:
        # Alpha is computable from one unit (0 when two raters differ), but it then compares
        # the raters with their own two scores: a number no reader should quote.
        return f"not enough evidence: only 1 {unit} has scores from 2 or more {rater}s"
    if values is not None and len(set(values)) < 2:
        return no_variation(unit, set(values))
    return None


def no_variation(unit: str = "item", values: Collection[float] = ()) -> str:
    """Every score on the shared units is one value: chance agreement is total."""
    distinct = set(values)
    if len(distinct) == 1:
        (only,) = distinct
        return f"no variation: every score on shared {unit}s was {_number(only)}"
    return f"no variation: every score on shared {unit}s is the same"


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)
