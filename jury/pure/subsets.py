"""Which of a run's finished conversations a scoring covers: all of them, a seeded random
sample of N, given ids, or a set another app names (a study's items: the review app
registers it, since jury never imports annotation).

Plain data and functions; the registry is filled from an AppConfig.ready().
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

MAX_SAMPLE = 50_000  # as many as a run holds


@dataclass(frozen=True)
class ConversationSet:
    """Sets of conversations another app offers: `options(run_id)` lists (key, label) pairs,
    `traces(run_id, key)` the trace ids of one, or None when the key names nothing."""

    kind: str  # "study"
    noun: str  # "study", for messages
    options: Callable[[int], list[tuple[str, str]]]
    traces: Callable[[int, str], list[int] | None]


_sets: dict[str, ConversationSet] = {}


def add_conversation_set(conversation_set: ConversationSet) -> None:
    _sets[conversation_set.kind] = conversation_set


def conversation_set(kind: str) -> ConversationSet | None:
    return _sets.get(kind)


def conversation_sets() -> tuple[ConversationSet, ...]:
    return tuple(_sets.values())


def sample(trace_ids: Iterable[int], n: int, seed: int) -> list[int]:
    """N of the ids, drawn without replacement by a seeded generator (the same ids and seed
    give the same sample on every machine), in id order; all of them when N ≥ their count."""
    ordered = sorted(set(trace_ids))
    if n >= len(ordered):
        return ordered
    return sorted(random.Random(seed).sample(ordered, n))


def sample_description(n: int, seed: int, of: int) -> str:
    return f"a random sample of {n} of {of} finished conversations (seed {seed})"


def ids_description(trace_ids: Sequence[int]) -> str:
    shown = ", ".join(str(i) for i in trace_ids[:8])
    more = f" and {len(trace_ids) - 8} more" if len(trace_ids) > 8 else ""
    return (
        f"{len(trace_ids)} chosen conversation{'s' if len(trace_ids) != 1 else ''} ({shown}{more})"
    )


def parse_ids(text: str) -> list[int]:
    """'3, 5 9' → [3, 5, 9]; ValueError naming the first piece that is not a whole number."""
    ids = []
    for piece in text.replace(",", " ").split():
        if not piece.isdigit():
            raise ValueError(f"{piece!r} is not a conversation id (a whole number)")
        ids.append(int(piece))
    return ids
