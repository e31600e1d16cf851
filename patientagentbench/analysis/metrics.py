"""Consistency metrics of one cell (task or case x model x temperature), DESIGN §4.

A cell is a list of `TraceData`. Errored traces are left out of every metric and counted;
the pairwise metrics need at least two valid traces and are `None` otherwise.

Choices the definitions leave open, settled against `shared/golden/consistency-cases.json`
(the paper's own implementation; every expected value is reproduced to 1e-9):

- AC (Definition 4) pools the Jaccard of every step-aligned pair: for traces j < k and each
  step s present in *both* (zip to the shorter), one Jaccard; AC is the mean of them all. Steps
  only one trace has are not scored, and neither is a pair of call-free traces; a cell with no
  step-aligned pair at all ("no calls") is 1. Of the 36 cells with values, the variants miss:
  mean per pair 15, padding the shorter trace with 0s 21-23, mean per step 13, a call-free
  pair scored 1 one cell.
- Divergence point: a pair whose names agree on the shorter trace but differ in length
  diverges at the first missing step (min length + 1); leaving such pairs out misses 10 cells.
- Unique sequences counts distinct tool-*name* sequences (counting arguments too misses).

Settled against `shared/golden/paper-edge-cases.json` (the paper's code on edge cases):

- A cell with fewer than two valid traces is "insufficient": the paper's runner computes no
  metric for it and leaves it out of every study figure, so every metric here is None and the
  cell says why (`excluded_reason`).
- Output agreement keeps every truthy response and then strips it, so a whitespace-only
  response counts as "" and matches another one; fewer than two kept responses give 1.0 and one
  unique response (the paper's `output_agreement`). DESIGN §4's reading (pairs of non-empty
  stripped responses only) differs on exactly those cells.
- The divergence point compares arguments by Python equality of the argument dicts, as the
  paper's `!=` does: list order counts, 50 != "50", 5 == 5.0, True == 1, nested key order does
  not. AC keeps its flattened `str()` sets (Definition 4), so the two can disagree.
- Calls per trace: population sd (numpy's default) and cv 0 when the mean is 0.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from math import comb
from statistics import fmean, pstdev
from typing import Any

import numpy as np

from patientagentbench.analysis.alignment import (
    PairwiseAlignments,
    align_all_pairs,
    encode_sequences,
    levenshtein,
)

__all__ = [
    "CELL_METRICS",
    "CallStats",
    "TraceData",
    "ac_aligned",
    "argument_consistency",
    "calls_per_trace",
    "cell_metrics",
    "divergence_point",
    "divergence_steps",
    "equality_key",
    "error_rate",
    "flatten_arguments",
    "jaccard",
    "levenshtein",
    "malformed_rate",
    "output_agreement",
    "output_agreement_counts",
    "pass_hat_k",
    "tss",
    "unique_sequences",
]

Arguments = Mapping[str, Any] | None
Call = tuple[str, Arguments]


INSUFFICIENT = "insufficient valid traces"


@dataclass(slots=True)
class TraceData:
    """One run, reduced to what the metrics read. `arguments` is None for a malformed call.

    `correct` follows the suite's pass rule; `correct_all_checks` is the strict rule (every
    check passes); `tools_correct` and `args_correct` (share of argument checks passed) are
    the paper's two parts of its rule, None when the trace has no criteria checks.
    """

    calls: list[Call]
    final_response: str = ""
    error: str | None = None
    correct: bool | None = None
    correct_all_checks: bool | None = None
    tools_correct: bool | None = None
    args_correct: float | None = None


@dataclass(frozen=True, slots=True)
class CallStats:
    mean: float | None
    sd: float | None  # population standard deviation (ddof = 0), as the paper's np.std
    cv: float | None  # sd / mean; 0 when the mean is 0
    min: int | None = None
    max: int | None = None


def flatten_arguments(args: Arguments) -> frozenset[tuple[str, Any]]:
    """Top-level (key, str(value)); a list becomes the sorted tuple of its items' str (Def. 4).

    A malformed call (arguments None or not an object) counts as no arguments.
    """
    if not isinstance(args, Mapping):
        return frozenset()
    return frozenset((key, _flat_value(value)) for key, value in args.items())


def _flat_value(value: Any) -> str | tuple[str, ...]:
    if isinstance(value, list | tuple):
        return tuple(sorted(str(item) for item in value))
    return str(value)


def equality_key(value: Any) -> Any:
    """A hashable stand-in equal exactly when the values are == in Python (the paper compares
    argument dicts with `!=`): dicts ignore key order, lists keep item order, and numbers keep
    Python's own equality (5 == 5.0, True == 1, but 50 != "50")."""
    if isinstance(value, Mapping):
        return ("dict", frozenset((key, equality_key(item)) for key, item in value.items()))
    if isinstance(value, list | tuple):
        return ("list", tuple(equality_key(item) for item in value))
    return value


def jaccard(a: frozenset, b: frozenset) -> float:
    """Jaccard index; both empty -> 1, one empty -> 0 (Definition 4)."""
    if not a and not b:
        return 1.0
    shared = len(a & b)
    return shared / (len(a) + len(b) - shared)


def tss(seqs: Sequence[Sequence[str]]) -> float | None:
    """Mean over pairs of 1 - Lev / max length; a pair of empty sequences counts 1."""
    return _Cell([[(name, None) for name in seq] for seq in seqs]).tss()


def argument_consistency(calls_list: Sequence[Sequence[Call]]) -> float | None:
    """AC, paper Definition 4: mean Jaccard over all step-aligned pairs; no calls -> 1."""
    return _Cell(calls_list).argument_consistency()


def ac_aligned(calls_list: Sequence[Sequence[Call]]) -> float | None:
    """AC over the same-tool steps that a minimum-edit alignment pairs, meaned per pair.

    Unlike AC, a pair whose structure differs (an inserted step shifts the rest) is compared
    tool call to matching tool call, so argument drift is not mixed with structural drift. A
    pair with no matched step scores 1 when both traces made no calls, else 0.
    """
    return _Cell(calls_list).ac_aligned()


def unique_sequences(seqs: Sequence[Sequence[str]]) -> int | None:
    """Number of distinct tool-name sequences (None for an empty cell)."""
    return len({tuple(seq) for seq in seqs}) or None


def divergence_point(calls_list: Sequence[Sequence[Call]]) -> float | None:
    """Mean 1-based step where a pair first differs: in names (a missing step differs), else
    in arguments; pairs equal in both are left out; None if none is left."""
    return _Cell(calls_list).divergence_point()


def divergence_steps(calls_list: Sequence[Sequence[Call]]) -> list[int]:
    """Every diverging pair's first diverging step (the paper's histogram counts pairs)."""
    steps = _Cell(calls_list).divergence_steps()
    return [] if steps is None else steps.tolist()


def output_agreement(responses: Sequence[str]) -> float:
    """Exact-match rate over pairs of final responses, as the paper computes it: responses
    that are not empty are kept and then stripped (a whitespace-only one becomes ""); fewer
    than two kept gives 1.0."""
    return output_agreement_counts(responses)[0]


def output_agreement_counts(responses: Sequence[str]) -> tuple[float, int]:
    """(exact-match rate, number of unique kept responses), the paper's `output_agreement`."""
    counts = Counter(response.strip() for response in responses if response)
    total = sum(counts.values())
    if total < 2:
        return 1.0, 1
    return sum(comb(c, 2) for c in counts.values()) / comb(total, 2), len(counts)


def pass_hat_k(successes: Sequence[bool]) -> list[float]:
    """pass^k = C(c, k) / C(n, k) for k = 1..n: the chance that k runs drawn all succeed."""
    n, c = len(successes), sum(bool(s) for s in successes)
    return [comb(c, k) / comb(n, k) for k in range(1, n + 1)]


def malformed_rate(calls_list: Sequence[Sequence[Call]]) -> float | None:
    """Share of calls whose arguments were not an object (None when there are no calls)."""
    calls = [call for calls in calls_list for call in calls]
    if not calls:
        return None
    return sum(not isinstance(args, Mapping) for _, args in calls) / len(calls)


def error_rate(traces: Sequence[TraceData]) -> float | None:
    if not traces:
        return None
    return sum(t.error is not None for t in traces) / len(traces)


def calls_per_trace(calls_list: Sequence[Sequence[Call]]) -> CallStats:
    counts = [len(calls) for calls in calls_list]
    if not counts:
        return CallStats(None, None, None)
    mean = fmean(counts)
    sd = pstdev(counts)
    return CallStats(mean, sd, sd / mean if mean > 0 else 0.0, min(counts), max(counts))


CELL_METRICS = (
    "tss",
    "ac",
    "ac_aligned",
    "unique_sequences",
    "divergence_point",
    "output_exact_match",
    "output_unique_responses",
    "correct_rate",
    "correct_rate_all_checks",
    "tools_correct_rate",
    "args_correct_rate",
    "n_scored",
    "pass_hat_k",
    "malformed_rate",
    "calls_mean",
    "calls_sd",
    "calls_cv",
    "calls_min",
    "calls_max",
)


def cell_metrics(traces: Sequence[TraceData]) -> dict[str, Any]:
    """Every metric of one cell as JSON-ready numbers; undefined ones are None. A cell with
    fewer than two valid traces has no metrics at all and says why."""
    valid = [t for t in traces if t.error is None]
    counts = {"n_runs": len(traces), "n_valid": len(valid), "n_error": len(traces) - len(valid)}
    if len(valid) < 2:
        reason = f"{INSUFFICIENT} ({len(valid)} of {len(traces)} valid)"
        return counts | dict.fromkeys(CELL_METRICS) | {"excluded_reason": reason}
    calls_list = [t.calls for t in valid]
    cell = _Cell(calls_list)
    calls = calls_per_trace(calls_list)
    exact_match, unique_responses = output_agreement_counts([t.final_response for t in valid])
    return (
        counts
        | {
            "tss": cell.tss(),
            "ac": cell.argument_consistency(),
            "ac_aligned": cell.ac_aligned(),
            "unique_sequences": unique_sequences(cell.names),
            "divergence_point": cell.divergence_point(),
            "output_exact_match": exact_match,
            "output_unique_responses": unique_responses,
            **_correctness(valid),
            "malformed_rate": malformed_rate(calls_list),
            "calls_mean": calls.mean,
            "calls_sd": calls.sd,
            "calls_cv": calls.cv,
            "calls_min": calls.min,
            "calls_max": calls.max,
        }
        | {"excluded_reason": None}
    )


def _correctness(valid: Sequence[TraceData]) -> dict[str, Any]:
    """Correct rates over the valid traces that have a verdict (the paper's `n_scored`)."""
    graded = [t for t in valid if t.correct is not None]
    if not graded:
        return {
            "correct_rate": None,
            "correct_rate_all_checks": None,
            "tools_correct_rate": None,
            "args_correct_rate": None,
            "n_scored": 0,
            "pass_hat_k": None,
        }
    successes = [bool(t.correct) for t in graded]
    return {
        "correct_rate": fmean(successes),
        "correct_rate_all_checks": _mean_or_none(t.correct_all_checks for t in graded),
        "tools_correct_rate": _mean_or_none(t.tools_correct for t in graded),
        "args_correct_rate": _mean_or_none(t.args_correct for t in graded),
        "n_scored": len(graded),
        "pass_hat_k": pass_hat_k(successes),
    }


def _mean_or_none(values) -> float | None:
    present = [float(v) for v in values if v is not None]
    return fmean(present) if present else None


class _Cell:
    """The valid traces of a cell, prepared once and shared by the pairwise metrics.

    Each metric is computed for all trace pairs (j < k) at once on padded integer arrays
    (tool names and argument sets interned to ids, -1 for "no step here"), so a cell of
    N = 100 (4,950 pairs) costs a few numpy passes rather than a Python loop per pair.
    """

    def __init__(self, calls_list: Sequence[Sequence[Call]]):
        self.calls_list = calls_list
        self.size = len(calls_list)
        self.names = [tuple(name for name, _ in calls) for calls in calls_list]

    @cached_property
    def pairs(self) -> tuple[np.ndarray, np.ndarray]:
        return np.triu_indices(self.size, k=1)

    @cached_property
    def name_codes(self) -> tuple[np.ndarray, np.ndarray]:
        return encode_sequences(self.names)

    @cached_property
    def distinct_names(self) -> tuple[list[tuple[str, ...]], np.ndarray, np.ndarray]:
        """Distinct name sequences, each trace's index into them, and how many traces each has."""
        distinct = sorted(set(self.names))
        index = {names: position for position, names in enumerate(distinct)}
        of_trace = np.array([index[names] for names in self.names], dtype=np.int64)
        return distinct, of_trace, np.bincount(of_trace, minlength=len(distinct))

    @cached_property
    def alignments(self) -> PairwiseAlignments:
        return align_all_pairs(self.distinct_names[0])

    @cached_property
    def argument_ids(self) -> tuple[np.ndarray, list[frozenset]]:
        """Each step's flattened argument set as an id ([trace, step], -1 padded), and the sets."""
        interned: dict[frozenset, int] = {}
        ids = np.full(self.name_codes[0].shape, -1, dtype=np.int64)
        for row, calls in enumerate(self.calls_list):
            ids[row, : len(calls)] = [
                interned.setdefault(flatten_arguments(args), len(interned)) for _, args in calls
            ]
        return ids, list(interned)

    def tss(self) -> float | None:
        if self.size < 2:
            return None
        distinct, _, counts = self.distinct_names
        alignments = self.alignments
        lengths = np.array([len(names) for names in distinct], dtype=np.int64)
        # Distinct sequences are never both empty, so the longer length is > 0.
        longer = np.maximum(lengths[alignments.left], lengths[alignments.right])
        similarity = 1.0 - alignments.edits / longer
        weight = counts[alignments.left] * counts[alignments.right]
        identical_pairs = int((counts * (counts - 1) // 2).sum())  # each scores 1
        return float((similarity @ weight + identical_pairs) / comb(self.size, 2))

    def argument_consistency(self) -> float | None:
        if self.size < 2:
            return None
        ids, _ = self.argument_ids
        first, second = self.pairs
        left, right = ids[first], ids[second]
        both_present = (left >= 0) & (right >= 0)
        if not both_present.any():
            return 1.0
        return float(self._jaccard_of_ids(left[both_present], right[both_present]).mean())

    def ac_aligned(self) -> float | None:
        if self.size < 2:
            return None
        pair_of_step, left_ids, right_ids = self._aligned_argument_ids()
        pair_count = len(self.pairs[0])
        matched = np.bincount(pair_of_step, minlength=pair_count)
        score_sum = np.bincount(
            pair_of_step, weights=self._jaccard_of_ids(left_ids, right_ids), minlength=pair_count
        )
        lengths = self.name_codes[1]
        both_empty = (lengths[self.pairs[0]] == 0) & (lengths[self.pairs[1]] == 0)
        no_match_score = np.where(both_empty, 1.0, 0.0)
        per_pair = np.where(matched > 0, score_sum / np.maximum(matched, 1), no_match_score)
        return float(per_pair.mean())

    def divergence_point(self) -> float | None:
        steps = self.divergence_steps()
        return float(steps.mean()) if steps is not None and steps.size else None

    @cached_property
    def equal_argument_ids(self) -> np.ndarray:
        """Each step's arguments as an id under Python equality ([trace, step], -1 padded)."""
        interned: dict[Any, int] = {}
        ids = np.full(self.name_codes[0].shape, -1, dtype=np.int64)
        for row, calls in enumerate(self.calls_list):
            ids[row, : len(calls)] = [
                interned.setdefault(equality_key(args), len(interned)) for _, args in calls
            ]
        return ids

    def divergence_steps(self) -> np.ndarray | None:
        """The 1-based first diverging step of every diverging pair (j < k order)."""
        if self.size < 2:
            return None
        first, second = self.pairs
        codes = self.name_codes[0]
        if codes.shape[1] == 0:
            return np.empty(0, dtype=np.int64)  # no calls in any trace: every pair is equal
        ids = self.equal_argument_ids
        # -1 padding on both sides: a step one trace lacks differs, a step both lack does not.
        names_differ = codes[first] != codes[second]
        arguments_differ = ids[first] != ids[second]
        has_name_difference = names_differ.any(axis=1)
        step = np.where(
            has_name_difference, names_differ.argmax(axis=1), arguments_differ.argmax(axis=1)
        )
        diverging = has_name_difference | arguments_differ.any(axis=1)
        return step[diverging] + 1

    def _aligned_argument_ids(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """For every matched step of every trace pair: the pair, and the two argument ids."""
        first, second = self.pairs
        _, of_trace, _ = self.distinct_names
        same_names = of_trace[first] == of_trace[second]
        parts = [
            self._steps_matched_in_order(np.flatnonzero(same_names)),
            self._steps_matched_by_alignment(np.flatnonzero(~same_names)),
        ]
        return tuple(np.concatenate(column) for column in zip(*parts, strict=True))

    def _steps_matched_in_order(self, pairs: np.ndarray):
        """Pairs with equal name sequences: step s matches step s."""
        first, second = self.pairs
        ids, _ = self.argument_ids
        owner, step = _expand(self.name_codes[1][first[pairs]])
        pair = pairs[owner]
        return pair, ids[first[pair], step], ids[second[pair], step]

    def _steps_matched_by_alignment(self, pairs: np.ndarray):
        """Other pairs: the steps their distinct sequences' alignment matches. The alignment's
        left side is the sequence that sorts first, so a pair's traces may swap sides."""
        first, second = self.pairs
        distinct, of_trace, _ = self.distinct_names
        ids, _ = self.argument_ids
        alignments = self.alignments
        u, v = of_trace[first[pairs]], of_trace[second[pairs]]
        left_trace = np.where(u < v, first[pairs], second[pairs])
        right_trace = np.where(u < v, second[pairs], first[pairs])
        alignment = _triu_index(np.minimum(u, v), np.maximum(u, v), len(distinct))
        match_counts = np.bincount(alignments.match_pair, minlength=len(alignments.left))
        match_starts = np.cumsum(match_counts) - match_counts
        owner, offset = _expand(match_counts[alignment])
        match = match_starts[alignment][owner] + offset
        return (
            pairs[owner],
            ids[left_trace[owner], alignments.match_left[match]],
            ids[right_trace[owner], alignments.match_right[match]],
        )

    def _jaccard_of_ids(self, left: np.ndarray, right: np.ndarray) -> np.ndarray:
        """Jaccard of argument sets by id, computed once per distinct (unordered) pair of ids."""
        _, argument_sets = self.argument_ids
        count = len(argument_sets)
        keys = np.minimum(left, right) * count + np.maximum(left, right)
        distinct_keys, position = np.unique(keys, return_inverse=True)
        values = np.array(
            [
                jaccard(argument_sets[key // count], argument_sets[key % count])
                for key in distinct_keys.tolist()
            ],
            dtype=float,
        )
        return values[position]


def _expand(counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For counts [2, 0, 3]: owners [0, 0, 2, 2, 2] and offsets [0, 1, 0, 1, 2]."""
    owner = np.repeat(np.arange(len(counts)), counts)
    starts = np.cumsum(counts) - counts
    return owner, np.arange(len(owner)) - starts[owner]


def _triu_index(low: np.ndarray, high: np.ndarray, n: int) -> np.ndarray:
    """Position of pair (low < high) in `np.triu_indices(n, k=1)` order."""
    return low * n - low * (low + 1) // 2 + (high - low - 1)
