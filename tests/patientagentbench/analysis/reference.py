"""Slow, literal versions of the DESIGN §4 definitions, one pair and one step at a time.

The tests hold the fast, vectorised metrics to these on random cells.
"""

from __future__ import annotations

from itertools import combinations

from patientagentbench.analysis.metrics import flatten_arguments, jaccard, levenshtein


def align(a, b):
    """Minimum edits, then most matches; same tie-breaks and canonical order as the fast one."""
    if tuple(b) < tuple(a):
        edits, matches = align(b, a)
        return edits, sorted((j, i) for i, j in matches)
    big = min(len(a), len(b)) + 1
    rows = [[j * big for j in range(len(b) + 1)]]
    for i in range(1, len(a) + 1):
        row = [i * big]
        for j in range(1, len(b) + 1):
            step = -1 if a[i - 1] == b[j - 1] else big
            row.append(min(rows[i - 1][j] + big, row[j - 1] + big, rows[i - 1][j - 1] + step))
        rows.append(row)
    i, j, matches = len(a), len(b), []
    while i and j:
        cost, diagonal = rows[i][j], rows[i - 1][j - 1]
        if a[i - 1] == b[j - 1] and cost == diagonal - 1:
            i, j = i - 1, j - 1
            matches.append((i, j))
        elif cost == diagonal + big:
            i, j = i - 1, j - 1
        elif cost == rows[i - 1][j] + big:
            i -= 1
        else:
            j -= 1
    return -(-rows[-1][-1] // big), sorted(matches)


def _mean(values):
    return sum(values) / len(values) if values else None


def tss(seqs):
    if len(seqs) < 2:
        return None
    return _mean(
        [
            1.0 if not a and not b else 1 - levenshtein(a, b) / max(len(a), len(b))
            for a, b in combinations(seqs, 2)
        ]
    )


def argument_consistency(calls_list):
    if len(calls_list) < 2:
        return None
    scores = [
        jaccard(flatten_arguments(x[1]), flatten_arguments(y[1]))
        for a, b in combinations(calls_list, 2)
        for x, y in zip(a, b, strict=False)
    ]
    return 1.0 if not scores else _mean(scores)


def ac_aligned(calls_list):
    if len(calls_list) < 2:
        return None
    per_pair = []
    for a, b in combinations(calls_list, 2):
        _, matches = align([n for n, _ in a], [n for n, _ in b])
        if not matches:
            per_pair.append(1.0 if not a and not b else 0.0)
            continue
        per_pair.append(
            _mean(
                [
                    jaccard(flatten_arguments(a[i][1]), flatten_arguments(b[j][1]))
                    for i, j in matches
                ]
            )
        )
    return _mean(per_pair)


def divergence_point(calls_list):
    if len(calls_list) < 2:
        return None
    points = []
    for a, b in combinations(calls_list, 2):
        names_a, names_b = [n for n, _ in a], [n for n, _ in b]
        if names_a != names_b:
            points.append(
                next(
                    step
                    for step in range(1, max(len(a), len(b)) + 1)
                    if step > min(len(a), len(b)) or names_a[step - 1] != names_b[step - 1]
                )
            )
            continue
        for step, (x, y) in enumerate(zip(a, b, strict=True), 1):
            if x[1] != y[1]:  # the paper's `!=` on the argument dicts themselves
                points.append(step)
                break
    return _mean(points)


def output_agreement(responses):
    kept = [r.strip() for r in responses if r]  # the paper filters before it strips
    if len(kept) < 2:
        return 1.0
    return _mean([a == b for a, b in combinations(kept, 2)])
