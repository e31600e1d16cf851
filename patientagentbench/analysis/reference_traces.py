"""Reference tool sequences and a trace's deviation from one (the paper's §6.2 monitor).

The paper's guideline: run each task k times, take a reference tool sequence, compare each new
run's first two tool calls with it and send deviations to human review — "a run whose tool
sequence deviates from a reference trace is nearly three times more likely to fail", and "60%
of divergence occurs in steps 1–2". This module is the computation, on tool-*name* sequences:

- `choose_reference`: the medoid of a cell's repetitions by TSS — the sequence whose summed
  TSS to the other repetitions is highest (the existing `metrics.tss` of each pair, never a
  second copy). Ties (within TIE_TOLERANCE) go to the modal sequence among the tied, then the
  shortest, then the first in alphabetical order of the names, so the choice is deterministic.
- `deviation`: a trace against the reference: whether its first two calls match, its TSS to
  the reference (the pair's TSS), and the 1-based step where it leaves it (names differ; a
  step one has and the other lacks differs), None when the sequences are equal.
- `risk_ratio`: failure risk of deviating over matching traces with a Katz log interval, or
  "not enough evidence" under MIN_TRACES_PER_GROUP graded traces in a group, fewer than
  MIN_FAILURES failures in all, or no failure in one group (the log interval is undefined).
- `early_share`: the share of departures at steps 1–2, with a Wilson interval, or "not enough
  evidence" under MIN_DEPARTURES departures.

Arguments are not compared: the reference is a sequence of tools, as the paper's is.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from math import exp, log, sqrt

from scipy.stats import norm
from statsmodels.stats.proportion import proportion_confint

from patientagentbench.analysis.metrics import tss

__all__ = [
    "EARLY_STEPS",
    "MIN_DEPARTURES",
    "MIN_FAILURES",
    "MIN_TRACES_PER_GROUP",
    "NOT_ENOUGH",
    "PAPER_EARLY_SHARE",
    "PAPER_RISK_RATIO",
    "REFERENCE_RULE",
    "Deviation",
    "Reference",
    "choose_reference",
    "deviation",
    "early_share",
    "risk_ratio",
]

Names = tuple[str, ...]

TIE_TOLERANCE = 1e-9  # summed TSS are float sums; equal sequences of scores must tie
EARLY_STEPS = 2  # "the first two tool calls"
MIN_TRACES_PER_GROUP = 10
MIN_FAILURES = 5
MIN_DEPARTURES = 10
NOT_ENOUGH = "not enough evidence"
PAPER_RISK_RATIO = "nearly three times"
PAPER_EARLY_SHARE = 0.60

REFERENCE_RULE = (
    "medoid by TSS: the repetition's sequence with the highest summed TSS to the other "
    "repetitions; ties to the most frequent sequence, then the shortest, then the first "
    "alphabetically"
)


@dataclass(frozen=True, slots=True)
class Reference:
    sequence: Names
    mean_tss: float | None  # mean TSS of the chosen sequence to the other repetitions
    count: int  # repetitions that followed exactly this sequence
    n: int  # repetitions it was chosen from
    tied: int  # sequences tied on summed TSS before the tie-breaks (1: no tie)
    rule: str = REFERENCE_RULE


@dataclass(frozen=True, slots=True)
class Deviation:
    first_two_match: bool
    tss: float
    departure_step: int | None  # 1-based; None when the sequence equals the reference

    @property
    def deviates(self) -> bool:
        return self.departure_step is not None


def choose_reference(sequences: Sequence[Sequence[str]]) -> Reference:
    """The medoid of the repetitions' name sequences by TSS (REFERENCE_RULE)."""
    if not sequences:
        raise ValueError("a reference needs at least one repetition")
    counts = Counter(tuple(seq) for seq in sequences)
    distinct = sorted(counts)
    summed = {
        seq: (counts[seq] - 1)  # each other repetition identical to it scores 1
        + sum(counts[other] * tss([seq, other]) for other in distinct if other != seq)
        for seq in distinct
    }
    best = max(summed.values())
    tied = [seq for seq in distinct if best - summed[seq] <= TIE_TOLERANCE]
    chosen = min(tied, key=lambda seq: (-counts[seq], len(seq), seq))
    others = len(sequences) - 1
    return Reference(
        sequence=chosen,
        mean_tss=summed[chosen] / others if others else None,
        count=counts[chosen],
        n=len(sequences),
        tied=len(tied),
    )


def deviation(sequence: Sequence[str], reference: Sequence[str]) -> Deviation:
    return _deviation(tuple(sequence), tuple(reference))


# A live run page checks every finished trace on each poll, and a cell's repetitions mostly
# repeat a few sequences: each distinct (sequence, reference) is computed once.
@lru_cache(maxsize=4096)
def _deviation(names: Names, ref: Names) -> Deviation:
    return Deviation(
        first_two_match=names[:EARLY_STEPS] == ref[:EARLY_STEPS],
        tss=float(tss([names, ref])),
        departure_step=_departure(names, ref),
    )


def _departure(names: Names, ref: Names) -> int | None:
    for step, (mine, theirs) in enumerate(zip(names, ref, strict=False), start=1):
        if mine != theirs:
            return step
    return None if len(names) == len(ref) else min(len(names), len(ref)) + 1


def risk_ratio(
    failed_deviating: int,
    n_deviating: int,
    failed_matching: int,
    n_matching: int,
    level: float = 0.95,
) -> dict:
    """Failure risk of deviating traces over matching ones, Katz log interval:
    log RR ± z·sqrt(1/a − 1/n₁ + 1/c − 1/n₀). Each trace counts as independent."""
    result = {
        "failed_deviating": failed_deviating,
        "n_deviating": n_deviating,
        "failed_matching": failed_matching,
        "n_matching": n_matching,
        "direction": "failure risk of deviating traces ÷ failure risk of matching traces",
        "method": f"Katz log interval, {level:.0%}",
        "ratio": None,
        "low": None,
        "high": None,
        "reason": None,
    }
    reason = _too_little(failed_deviating, n_deviating, failed_matching, n_matching)
    if reason:
        return result | {"reason": reason}
    ratio = (failed_deviating / n_deviating) / (failed_matching / n_matching)
    se = sqrt(1 / failed_deviating - 1 / n_deviating + 1 / failed_matching - 1 / n_matching)
    z = norm.ppf(0.5 + level / 2)
    return result | {
        "ratio": ratio,
        "low": exp(log(ratio) - z * se),
        "high": exp(log(ratio) + z * se),
    }


def _too_little(a: int, n1: int, c: int, n0: int) -> str | None:
    if min(n1, n0) < MIN_TRACES_PER_GROUP:
        return (
            f"{NOT_ENOUGH}: {n1} deviating and {n0} matching traces with a verdict; "
            f"{MIN_TRACES_PER_GROUP} needed in each"
        )
    if a + c < MIN_FAILURES:
        failures = f"{a + c} failure{'' if a + c == 1 else 's'}"
        return f"{NOT_ENOUGH}: {failures} in all; {MIN_FAILURES} needed"
    if a == 0 or c == 0:
        group = "deviating" if a == 0 else "matching"
        return (
            f"{NOT_ENOUGH}: no failure among the {group} traces, so the log interval is undefined"
        )
    return None


def early_share(departure_steps: Sequence[int], level: float = 0.95) -> dict:
    """Share of departures at steps 1–2, Wilson interval, over the deviating traces."""
    n = len(departure_steps)
    early = sum(step <= EARLY_STEPS for step in departure_steps)
    result = {
        "early": early,
        "n": n,
        "direction": f"departures at steps 1–{EARLY_STEPS} ÷ all departures",
        "method": f"Wilson score interval, {level:.0%}",
        "share": None,
        "low": None,
        "high": None,
        "reason": None,
    }
    if n < MIN_DEPARTURES:
        return result | {"reason": f"{NOT_ENOUGH}: {n} deviating traces; {MIN_DEPARTURES} needed"}
    low, high = proportion_confint(early, n, alpha=1 - level, method="wilson")
    return result | {"share": early / n, "low": float(low), "high": float(high)}
