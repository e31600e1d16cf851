"""Case attributes as a person reads them: "Health literacy: high", "Age: 45–64", "Subtask:
provider access", grouped by attribute for a filter's optgroups.

A case's attributes arrive flattened one level (`traits.health_literacy`) with snake_case
values, and a raw age takes one value per year: a filter built from them straight offered
about 130 options like `age = 27`. Ages are read in the generator's bands instead (under 18
for imported cases), which also makes `age_group` redundant. Values stay as they are stored
(the filter still matches on them); only the text a person reads changes.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from .chart import humanize, words

AGE = "age"
AGE_GROUP = "age_group"  # the generator's own band, the same as AGE's band
# (value, label, lowest age, highest age): values are ASCII so they travel in a query string.
AGE_BANDS = (
    ("under-18", "under 18", 0, 17),
    ("18-29", "18–29", 18, 29),
    ("30-44", "30–44", 30, 44),
    ("45-64", "45–64", 45, 64),
    ("65+", "65+", 65, 200),
)
BAND_LABELS = {value: label for value, label, _, _ in AGE_BANDS}
# The attributes a researcher filters by most come first; the rest follow alphabetically.
PREFERRED_ORDER = ("category", "subtask", "severity", "complexity", AGE, "sex", "gender")
NAMES = {"care_preference": "Care preference", "sex": "Sex", AGE: "Age"}
TRAIT_PREFIX = "traits."


@dataclass(frozen=True)
class Option:
    value: str  # "key=value", as the dashboards' filter reads it
    label: str  # "Health literacy: high"


@dataclass(frozen=True)
class OptionGroup:
    label: str  # "Health literacy"
    options: tuple[Option, ...]


def age_band(age: Any) -> str | None:
    """The band value of an age ("45-64"), or None when it is not a whole number of years."""
    if isinstance(age, bool) or not str(age).strip().isdecimal():
        return None
    years = int(str(age).strip())
    for value, _, low, high in AGE_BANDS:
        if low <= years <= high:
            return value
    return None


def banded(attributes: Mapping[str, Any]) -> dict[str, Any]:
    """The flat attributes with `age` in its band and `age_group` dropped (same information)."""
    flat = dict(attributes)
    if AGE in flat:
        band = age_band(flat[AGE])
        if band is None:
            flat.pop(AGE)
        else:
            flat[AGE] = band
        flat.pop(AGE_GROUP, None)
    elif AGE_GROUP in flat:
        flat[AGE] = str(flat.pop(AGE_GROUP)).replace("–", "-")
    return flat


def attribute_label(key: str) -> str:
    """ "traits.health_literacy" -> "Health literacy"; "care_preference" -> "Care preference"."""
    if key in NAMES:
        return NAMES[key]
    if key.startswith(TRAIT_PREFIX):
        key = key[len(TRAIT_PREFIX) :]
    return humanize(key.replace(".", " "))


def value_label(key: str, value: Any) -> str:
    """ "provider_access" -> "provider access"; an age band's value -> "45–64"."""
    text = str(value)
    if key == AGE:
        return BAND_LABELS.get(text, text)
    if isinstance(value, bool) or text in ("True", "False"):
        return "yes" if text == "True" else "no"
    return words(text)


def option_label(key: str, value: Any) -> str:
    return f"{attribute_label(key)}: {value_label(key, value)}"


def filter_label(selection: str) -> str:
    """A dashboard's "key=value" filter as a person reads it ("" for none)."""
    key, _, value = selection.partition("=")
    return option_label(key.strip(), value) if value else ""


def option_groups(values: Mapping[str, Iterable[Any]]) -> list[OptionGroup]:
    """One group per attribute, in PREFERRED_ORDER then alphabetically by label; values in
    their natural order (age bands youngest first, trait levels low to high)."""
    groups = []
    for key in ordered_keys(values):
        found = {str(v) for v in values[key]}
        options = tuple(Option(f"{key}={v}", option_label(key, v)) for v in _ordered(key, found))
        if options:
            groups.append(OptionGroup(attribute_label(key), options))
    return groups


def ordered_keys(keys: Iterable[str]) -> list[str]:
    def order(key: str) -> tuple:
        preferred = PREFERRED_ORDER.index(key) if key in PREFERRED_ORDER else len(PREFERRED_ORDER)
        return (preferred, key.startswith(TRAIT_PREFIX), attribute_label(key))

    return sorted(keys, key=order)


LEVEL_ORDER = {"low": 0, "mild": 0, "medium": 1, "moderate": 1, "high": 2, "severe": 2}


def _ordered(key: str, values: set[str]) -> list[str]:
    if key == AGE:
        bands = [value for value, *_ in AGE_BANDS]
        return sorted(values, key=lambda v: (bands.index(v) if v in bands else len(bands), v))
    return sorted(values, key=lambda v: (LEVEL_ORDER.get(v, len(LEVEL_ORDER)), value_label(key, v)))


def stratum_label(dimension: str, bucket: Any, dimension_label: str) -> str:
    """A sampler stratum as a person reads it: "Workflow accuracy: jury scored 1",
    "Automatic checks: failed", "Model: sim-careless", "Not scored by the jury"."""
    if dimension == "outcome":
        return f"Automatic checks: {bucket}"
    if dimension == "unscored":
        return "Not scored by the jury on any dimension"
    if dimension == "model":
        return f"Model: {bucket}"
    if dimension == "random":
        return "Every conversation (one random draw)"
    return f"{dimension_label}: jury scored {bucket}"
