"""What a dashboard shows: the `Filters` a page is asked for, read leniently from its query
string (an unknown value selects nothing rather than failing a poll), and turned back into a
query string and a digest for the cache key. Kept apart so the loading, the cache and the
planner share one reading of the selection.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields
from typing import Any
from urllib.parse import urlencode

from annotation.pure import agreement

# --- what a page shows ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Filters:
    """A dashboard's selection, read leniently from a query string (an unknown value selects
    nothing rather than failing a poll)."""

    study: int | None = None  # a study or a calibration round
    run: int | None = None
    model: str = ""
    attribute: str = ""  # "key=value" of the case's attributes
    panel: int | None = None  # None: the panel with most verdicts on these conversations
    judge: int | None = None  # one judge of the panel alone as the jury
    margin: float = agreement.MARGIN
    epsilon: float = agreement.alt.EPSILON  # the alt-test's cost-benefit margin
    breakdown: str = ""  # "", "model", "judge", "panel" or "attr:<key>"
    dimension: str = ""  # the raters page's clinician matrix
    realism_by: str = ""  # the raters page's realism breakdown (a case attribute)
    # "show": the researcher overrides the rule that an unqualified jury is offered no
    # envelope verdict (annotation.pure.envelope.offered); every page then says so.
    unqualified: str = ""

    @classmethod
    def from_query(cls, query: Mapping[str, Any]) -> Filters:
        # NUL never reaches a query: PostgreSQL text refuses it (a 500).
        text = {
            f.name: str(query.get(f.name) or "").replace("\x00", "").strip()[:200]
            for f in fields(cls)
        }
        return cls(
            study=parse_id(text["study"]),
            run=parse_id(text["run"]),
            model=text["model"],
            attribute=text["attribute"] if "=" in text["attribute"] else "",
            panel=parse_id(text["panel"]),
            judge=parse_id(text["judge"]),
            margin=_margin(text["margin"]),
            epsilon=_epsilon(text["epsilon"]),
            breakdown=text["breakdown"],
            dimension=text["dimension"],
            realism_by=text["realism_by"],
            unqualified="show" if text["unqualified"] == "show" else "",
        )

    def query(self) -> str:
        """The query string giving these filters back; defaults left out."""
        defaults = Filters()
        chosen = {
            name: value
            for name, value in asdict(self).items()
            if value not in (None, "") and value != getattr(defaults, name)
        }
        return urlencode(chosen)

    def digest(self) -> str:
        return hashlib.sha256(json.dumps(asdict(self), sort_keys=True).encode()).hexdigest()[:24]


def parse_id(text: str) -> int | None:
    """A database id read from query text, or None (never an error)."""
    # isdecimal, not isdigit ("²" is a digit int() refuses); 19 digits and more are no id.
    return int(text) if text.isdecimal() and len(text) <= 18 else None


def _epsilon(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        return agreement.alt.EPSILON
    return min(max(value, 0.0), 0.5) if math.isfinite(value) else agreement.alt.EPSILON


def _margin(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        return agreement.MARGIN
    return min(max(value, 0.01), 1.0) if math.isfinite(value) else agreement.MARGIN
