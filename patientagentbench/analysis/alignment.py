"""Edit distance and minimum-edit alignment of tool-name sequences.

One dynamic programme gives both the Levenshtein distance (TSS) and the alignment whose matched
same-tool steps AC-aligned compares (DESIGN §4). Among the alignments with the fewest edits we
take one that pairs the most same-tool steps: the cost `edits * big - matches`, with `big`
larger than any possible match count, orders alignments by edits first and matches second in a
single integer DP. Remaining ties are broken in the traceback (match or substitution first,
then deletion, then insertion) after putting the pair in a canonical order, so that aligning
(a, b) or (b, a) pairs the same steps: a metric must not depend on the order traces are listed.

The DP runs in numpy over every pair of a cell at once (N = 100 traces are 4,950 pairs), row by
row; within a row the left-to-right dependency is a running minimum.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from itertools import islice

import numpy as np

# Cap on DP cells held at once (pairs x (L+1)^2 int64 values, ~32 MB).
_MAX_BATCH_CELLS = 4_000_000


def levenshtein(a: Sequence[Hashable], b: Sequence[Hashable]) -> int:
    """Unit-cost edit distance between two sequences (insert, delete, substitute)."""
    if len(a) < len(b):
        a, b = b, a
    if not b:
        return len(a)
    previous = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        left = i
        current = [i]
        for y, diagonal, up in zip(b, previous, islice(previous, 1, None), strict=False):
            if x != y:
                diagonal += 1
            left += 1
            up += 1
            if up < left:
                left = up
            if diagonal < left:
                left = diagonal
            current.append(left)
        previous = current
    return previous[-1]


@dataclass(frozen=True)
class PairwiseAlignments:
    """Alignments of every pair (u < v) of a list of sequences, in `np.triu_indices` order.

    Matched steps are flat arrays sorted by pair, then step: matched step m pairs step
    `match_left[m]` of sequence `left[match_pair[m]]` with step `match_right[m]` of sequence
    `right[match_pair[m]]`.
    """

    left: np.ndarray
    right: np.ndarray
    edits: np.ndarray
    match_pair: np.ndarray
    match_left: np.ndarray
    match_right: np.ndarray


def align(a: Sequence[Hashable], b: Sequence[Hashable]) -> tuple[int, list[tuple[int, int]]]:
    """Edit distance of a and b and the (i, j) steps their alignment pairs as the same tool."""
    pairwise = align_all_pairs([a, b])
    steps = zip(pairwise.match_left.tolist(), pairwise.match_right.tolist(), strict=True)
    return int(pairwise.edits[0]), list(steps)


def align_all_pairs(sequences: Sequence[Sequence[Hashable]]) -> PairwiseAlignments:
    """Align every pair of `sequences` (best with duplicates removed: equal pairs are trivial)."""
    left, right = np.triu_indices(len(sequences), k=1)
    codes, lengths = encode_sequences(sequences)
    # Canonical order: the lexicographically smaller sequence goes first into the DP.
    rank = np.empty(len(sequences), dtype=np.int64)
    rank[sorted(range(len(sequences)), key=lambda s: tuple(sequences[s]))] = np.arange(
        len(sequences)
    )
    flipped = rank[left] > rank[right]
    first, second = np.where(flipped, right, left), np.where(flipped, left, right)
    edits, match_pair, match_first, match_second = _align_batches(codes, lengths, first, second)
    flip_match = flipped[match_pair]
    match_left = np.where(flip_match, match_second, match_first)
    match_right = np.where(flip_match, match_first, match_second)
    order = np.lexsort((match_left, match_pair))
    return PairwiseAlignments(
        left=left,
        right=right,
        edits=edits,
        match_pair=match_pair[order],
        match_left=match_left[order],
        match_right=match_right[order],
    )


def encode_sequences(sequences: Sequence[Sequence[Hashable]]) -> tuple[np.ndarray, np.ndarray]:
    """Symbols to ints >= 0 in a (sequences x longest) array padded with -1, and the lengths."""
    symbols: dict[Hashable, int] = {}
    lengths = np.array([len(s) for s in sequences], dtype=np.int64)
    width = int(lengths.max(initial=0))
    codes = np.full((len(sequences), width), -1, dtype=np.int64)
    for row, sequence in enumerate(sequences):
        codes[row, : len(sequence)] = [symbols.setdefault(x, len(symbols)) for x in sequence]
    return codes, lengths


def _align_batches(codes, lengths, first, second):
    width = codes.shape[1]
    chunk = max(1, _MAX_BATCH_CELLS // (width + 1) ** 2)
    parts = [
        _align_batch(codes, lengths, first[start : start + chunk], second[start : start + chunk])
        for start in range(0, len(first), chunk)
    ]
    if not parts:
        return (np.empty(0, dtype=np.int64),) * 4
    edits = np.concatenate([p[0] for p in parts])
    offsets = range(0, len(first), chunk)
    match_pair = np.concatenate([p[1] + offset for p, offset in zip(parts, offsets, strict=True)])
    return (
        edits,
        match_pair,
        np.concatenate([p[2] for p in parts]),
        np.concatenate([p[3] for p in parts]),
    )


def _align_batch(codes, lengths, first, second):
    width = codes.shape[1]
    big = width + 1  # more than any match count
    same = codes[first].T[:, None, :] == codes[second].T[None, :, :]  # [i, j, pair]
    costs = _fill_costs(np.where(same, -1, big), width, big)
    first_lengths, second_lengths = lengths[first], lengths[second]
    final = costs[first_lengths, second_lengths, np.arange(len(first))]
    edits = -(-final // big)  # cost = edits * big - matches, 0 <= matches < big
    return (edits, *_traceback(costs, same, first_lengths, second_lengths, big))


def _fill_costs(step_cost: np.ndarray, width: int, big: int) -> np.ndarray:
    """The DP table [i, j, pair]. Cells past a pair's own lengths hold padding, but a cell
    depends only on the prefixes above and left of it, and the traceback never goes there."""
    offsets = (np.arange(width + 1) * big)[:, None]
    costs = np.empty((width + 1, width + 1, step_cost.shape[2]), dtype=np.int64)
    costs[0] = offsets
    for i in range(1, width + 1):
        previous = costs[i - 1]
        best = np.empty_like(previous)
        best[0] = i * big
        np.minimum(previous[1:] + big, previous[:-1] + step_cost[i - 1], out=best[1:])
        # Insertions chain left to right: row[j] = min over k <= j of best[k] + (j - k) * big.
        costs[i] = np.minimum.accumulate(best - offsets, axis=0) + offsets
    return costs


def _traceback(costs, same, first_lengths, second_lengths, big):
    """Walk every pair back from its corner; tie-breaks: match/substitution, deletion, insertion."""
    pair_ids = np.arange(costs.shape[2])
    i, j = first_lengths.copy(), second_lengths.copy()
    found: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
    while (active := (i > 0) & (j > 0)).any():
        pair, row, col = pair_ids[active], i[active], j[active]
        cost = costs[row, col, pair]
        diagonal = costs[row - 1, col - 1, pair]
        is_match = same[row - 1, col - 1, pair] & (cost == diagonal - 1)
        is_substitution = ~is_match & (cost == diagonal + big)
        is_deletion = ~is_match & ~is_substitution & (cost == costs[row - 1, col, pair] + big)
        found.append((pair[is_match], row[is_match] - 1, col[is_match] - 1))
        i[active] -= is_match | is_substitution | is_deletion
        j[active] -= ~is_deletion
    if not found:
        return (np.empty(0, dtype=np.int64),) * 3
    return tuple(np.concatenate(column) for column in zip(*found, strict=True))
