"""Who reviews what: load-balanced assignment of items to clinicians with guaranteed overlap.

Agreement between clinicians can only be measured on items that several of them scored, so
every item gets exactly `overlap[track]` distinct clinicians of each track (DESIGN §6). Within
that rule the work is spread evenly: the least-loaded clinician goes first, and a seeded
shuffle breaks ties so that the same people are not always paired. A clinician in both
tracks may cover both tracks of one item; that is one clinician per track, and both count
toward their load.

Each clinician sees their items in their own seeded order (`review_order`), so position
effects do not line up across raters. `reassign` moves a departing clinician's open items to
others under the same rules.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

Assignment = dict[str, dict[str, list[str]]]  # item → track → clinician codes


class AssignmentError(ValueError):
    """The assignment rules cannot be met; the message says which track or item and why."""


@dataclass(frozen=True)
class Rater:
    code: str
    tracks: frozenset[str]
    load: int = 0  # items already on this clinician's desk, counted as (item, track) pairs


def assign(
    items: list[str], clinicians: list[Rater], overlap: dict[str, int], seed: int
) -> Assignment:
    """Give every item `overlap[track]` distinct clinicians of each track, least-loaded first."""
    _require_unique(items, "item")
    _require_unique([r.code for r in clinicians], "clinician code")
    pools = {track: _eligible(clinicians, track, count) for track, count in overlap.items()}
    load = {r.code: r.load for r in clinicians}
    rng = random.Random(seed)
    # Sorted, so that the same items and seed give the same assignment in any input order.
    chosen = {
        item: {
            track: _take_least_loaded(pools[track], overlap[track], load, rng)
            for track in sorted(overlap)
        }
        for item in sorted(items)
    }
    return {item: chosen[item] for item in items}


def review_order(item_codes: list[str], clinician_code: str, seed: int) -> list[str]:
    """This clinician's own seeded order of their items: stable across calls and processes
    (a string seed is hashed with sha512, not Python's salted hash), different per clinician."""
    order = sorted(item_codes)
    random.Random(f"{seed}/{clinician_code}").shuffle(order)
    return order


def reassign(
    open_items: Assignment, leaving: str, clinicians: list[Rater], seed: int
) -> Assignment:
    """Replace `leaving` on every open item with an eligible clinician not yet on it.

    Someone on the item in no track is preferred; failing that, someone who covers the item's
    other track (allowed, as in `assign`); never someone already in the same track. `load`
    on each Rater should be their current open work. Nothing is changed when any item cannot
    be covered: the whole call raises.
    """
    load = {r.code: r.load for r in clinicians if r.code != leaving}
    rng = random.Random(seed)
    result = {
        item: {t: list(codes) for t, codes in tracks.items()} for item, tracks in open_items.items()
    }
    for item in sorted(result):
        for track in sorted(result[item]):
            codes = result[item][track]
            if leaving in codes:
                codes[codes.index(leaving)] = _replacement(
                    item, track, result[item], clinicians, leaving, load, rng
                )
    return result


def _require_unique(values: Iterable[str], what: str) -> None:
    repeated = sorted(v for v, n in Counter(values).items() if n > 1)
    if repeated:
        raise AssignmentError(f"each {what} must appear once; repeated: {repeated}")


def _eligible(clinicians: list[Rater], track: str, count: int) -> list[str]:
    if count < 0:
        raise AssignmentError(f"overlap for track {track!r} must be 0 or more, got {count}")
    codes = sorted(r.code for r in clinicians if track in r.tracks)
    if len(codes) < count:
        raise AssignmentError(
            f"track {track!r} needs {count} distinct clinicians per item, but only "
            f"{len(codes)} belong to it ({', '.join(codes) or 'none'})"
        )
    return codes


def _take_least_loaded(
    pool: list[str], count: int, load: dict[str, int], rng: random.Random
) -> list[str]:
    # Shuffle then stable-sort by load: least-loaded first, ties in seeded random order.
    shuffled = list(pool)
    rng.shuffle(shuffled)
    taken = sorted(shuffled, key=load.__getitem__)[:count]
    for code in taken:
        load[code] += 1
    return sorted(taken)


def _replacement(
    item: str,
    track: str,
    on_item: dict[str, list[str]],
    clinicians: list[Rater],
    leaving: str,
    load: dict[str, int],
    rng: random.Random,
) -> str:
    elsewhere = {code for t, codes in on_item.items() if t != track for code in codes}
    options = sorted(
        r.code
        for r in clinicians
        if track in r.tracks and r.code != leaving and r.code not in on_item[track]
    )
    if not options:
        raise AssignmentError(
            f"item {item}: no {track} clinician is free to replace {leaving} "
            f"(already on it: {', '.join(c for c in on_item[track] if c != leaving) or 'nobody'})"
        )
    rng.shuffle(options)
    best = min(options, key=lambda code: (code in elsewhere, load[code]))
    load[best] += 1
    return best
