"""Which conversations clinicians review: a stratified, extremes-first sample (DESIGN §6).

Clinician time is the scarce resource, and agreement between jury and clinicians is only
informative where the jury said something definite. So the sampler covers every
dimension × jury-score stratum, takes the extremes (scores 1 and 5) before 2 and 4 and those
before 3, and covers every non-empty stratum once before any stratum gets a second pick.
Within a stratum it goes round-robin over models and prefers case attributes not yet in the
sample, so no single model or kind of case dominates what clinicians see.

When no candidate has a jury score yet, the automatic outcome checks (passed / failed /
unknown) stand in for the strata. A candidate may sit in several strata (one per dimension),
and a pick counts toward every stratum its candidate belongs to.

Reproducible: the same candidates and seed give the same sample whatever their input order,
because candidates are sorted by key before the seed is used.

That sample is chosen for checkability, not at random, so nothing measured on it carries over
to the conversations left out. For that (the jury-corrected estimates of `annotation.pure.corrected`)
`random_share` draws at random instead, uniformly or the same number from each model, and
records every candidate's inclusion probability, sampled or not.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

from ratings.rubric import Scale
from ratings.scale import DEFAULT_SCALE

OUTCOMES = ("failed", "passed", "unknown")
OUTCOME_TIER = {"failed": 0, "passed": 0, "unknown": 1}
OUTCOME = "outcome"
JURY = "jury"
# Candidates with no jury score on any sampled dimension (all not applicable, or the judges'
# answers unparseable) still belong somewhere, so that a large n can take everything; their
# stratum comes last in every round.
UNSCORED = "unscored"
# Sampling designs, as a study records them.
EXTREMES_FIRST = "extremes_first"
UNIFORM = "uniform"  # simple random sample of the pool
PER_MODEL = "per_model"  # simple random sample of the same size from each model
DESIGNS = (EXTREMES_FIRST, UNIFORM, PER_MODEL)
RANDOM = "random"


@dataclass(frozen=True)
class Candidate:
    key: str
    model: str
    attributes: dict[str, str] = field(default_factory=dict)
    scores: dict[str, int | None] = field(default_factory=dict)
    outcome_passed: bool | None = None


class Stratum(NamedTuple):
    dimension: str  # a rubric dimension, "outcome" or "unscored"
    bucket: int | str  # a score 1..5, or passed / failed / unknown

    @property
    def label(self) -> str:
        return f"{self.dimension}={self.bucket}"


class Pick(NamedTuple):
    key: str
    stratum: Stratum  # the stratum this candidate was taken for
    round: int  # 0 = the covering round; round r gives each stratum its (r+1)-th member


@dataclass(frozen=True)
class Sample:
    mode: str  # "jury" or "outcome"
    picks: tuple[Pick, ...]
    strata: tuple[Stratum, ...]  # every stratum of the mode, in display order
    members: dict[Stratum, frozenset[str]]
    models: dict[str, str]  # candidate key → model, for the researcher's preview only
    design: str = EXTREMES_FIRST
    # candidate key → its probability of being sampled, for every candidate (random designs)
    inclusion: dict[str, float] = field(default_factory=dict)

    def stratum_of(self, key: str) -> str:
        """The stratum label a random design drew `key` in ("" for the whole pool)."""
        return self.models[key] if self.design == PER_MODEL else ""

    @property
    def keys(self) -> list[str]:
        return [pick.key for pick in self.picks]

    def preview(self) -> dict:
        """Counts per stratum and per model, for the study-setup form. A selected candidate
        counts in every stratum it belongs to, so stratum counts can sum to more than total."""
        chosen = set(self.keys)
        strata = [
            {
                "stratum": s.label,
                "dimension": s.dimension,
                "bucket": s.bucket,
                "available": len(self.members.get(s, ())),
                "selected": len(self.members.get(s, frozenset()) & chosen),
            }
            for s in self.strata
        ]
        available = Counter(self.models.values())
        selected = Counter(self.models[key] for key in chosen)
        models = [
            {"model": m, "available": available[m], "selected": selected[m]}
            for m in sorted(available)
        ]
        return {"mode": self.mode, "total": len(chosen), "strata": strata, "models": models}


def bucket_of(score: float, scale: Scale = DEFAULT_SCALE) -> int:
    """The bucket (a point of the scale) of a jury score; a mean of judges is rounded half up
    (2.5 → 3), never to even, as DESIGN §7 states for every mean."""
    bucket = math.floor(score + 0.5)
    if bucket not in scale:
        raise ValueError(f"jury score {score!r} is outside {scale.low}..{scale.high}")
    return bucket


def bucket_tier(bucket: int, scale: Scale) -> int:
    """Extremes first: a 1 or a 5 is where a jury's call is most checkable by a clinician, then
    the points next to them, the middle last (on 1..5: 1 and 5, then 2 and 4, then 3)."""
    index = scale.index(bucket)
    return min(index, len(scale.points) - 1 - index)


def outcome_of(candidate: Candidate) -> str:
    return {True: "passed", False: "failed", None: "unknown"}[candidate.outcome_passed]


def filter_candidates(
    candidates: Iterable[Candidate],
    models: Collection[str] | None = None,
    attributes: dict[str, str | Collection[str]] | None = None,
    outcome: str | None = None,
) -> list[Candidate]:
    """Candidates matching every given filter (None = no filter), in input order.
    An attribute filter takes one value or a collection of accepted values."""
    if outcome is not None and outcome not in OUTCOMES:
        raise ValueError(f"outcome must be one of {OUTCOMES}, got {outcome!r}")
    wanted = {
        name: {value} if isinstance(value, str) else set(value)
        for name, value in (attributes or {}).items()
    }
    return [
        c
        for c in candidates
        if (models is None or c.model in models)
        and all(c.attributes.get(name) in values for name, values in wanted.items())
        and (outcome is None or outcome_of(c) == outcome)
    ]


def stratified_sample(
    candidates: Iterable[Candidate],
    n: int,
    seed: int,
    dimensions: Sequence[str],
    scale: Scale = DEFAULT_SCALE,
) -> Sample:
    """Up to n candidate keys, extremes first (of the jury's `scale`), every non-empty stratum
    before any repeat."""
    pool = _sorted_unique(candidates)
    mode, membership = _membership(pool, dimensions, scale)
    strata = _all_strata(mode, dimensions, membership, scale)
    members = _members(membership)
    rank = _seeded_rank(pool, seed)
    picker = _Picker(pool, members, membership, rank)
    picker.run(_priority(mode, dimensions, members, scale), min(max(n, 0), len(pool)))
    return Sample(
        mode=mode,
        picks=tuple(picker.picks),
        strata=strata,
        members={s: frozenset(keys) for s, keys in members.items()},
        models={c.key: c.model for c in pool},
    )


def _sorted_unique(candidates: Iterable[Candidate]) -> list[Candidate]:
    pool = sorted(candidates, key=lambda c: c.key)
    repeated = sorted({a.key for a, b in zip(pool, pool[1:], strict=False) if a.key == b.key})
    if repeated:
        raise ValueError(f"candidate keys must be unique; repeated: {repeated[:5]}")
    return pool


def _jury_strata(candidate: Candidate, dimensions: Sequence[str], scale: Scale) -> list[Stratum]:
    strata = []
    for dimension in dimensions:
        score = candidate.scores.get(dimension)
        if score is None:  # not applicable or not scored: no stratum on this dimension
            continue
        try:
            strata.append(Stratum(dimension, bucket_of(score, scale)))
        except ValueError as error:
            raise ValueError(f"candidate {candidate.key}, {dimension}: {error}") from error
    return strata


def _membership(
    pool: list[Candidate], dimensions: Sequence[str], scale: Scale
) -> tuple[str, dict[str, list[Stratum]]]:
    """Each candidate's strata, and whether jury scores or outcomes define them."""
    jury = {c.key: _jury_strata(c, dimensions, scale) for c in pool}
    if not any(jury.values()):
        return OUTCOME, {c.key: [Stratum(OUTCOME, outcome_of(c))] for c in pool}
    return JURY, {key: strata or [Stratum(UNSCORED, "-")] for key, strata in jury.items()}


def _members(membership: dict[str, list[Stratum]]) -> dict[Stratum, list[str]]:
    members: dict[Stratum, list[str]] = {}
    for key, strata in membership.items():
        for stratum in strata:
            members.setdefault(stratum, []).append(key)
    return members


def _all_strata(
    mode: str, dimensions: Sequence[str], membership: dict[str, list[Stratum]], scale: Scale
) -> tuple[Stratum, ...]:
    """Every stratum the researcher should see, empty ones included (gaps are information)."""
    if mode == OUTCOME:
        return tuple(Stratum(OUTCOME, o) for o in OUTCOMES)
    strata = [Stratum(d, b) for d in dimensions for b in scale.points]
    if any(Stratum(UNSCORED, "-") in s for s in membership.values()):
        strata.append(Stratum(UNSCORED, "-"))
    return tuple(strata)


def _priority(
    mode: str, dimensions: Sequence[str], members: dict[Stratum, list[str]], scale: Scale
) -> list[Stratum]:
    """Non-empty strata in the order a round visits them: by tier (extremes, then 2 and 4,
    then 3), then by the caller's dimension order, with 1 before 5 (failures matter more)."""
    if mode == OUTCOME:
        return sorted(members, key=lambda s: (OUTCOME_TIER[s.bucket], OUTCOMES.index(s.bucket)))
    position = {d: i for i, d in enumerate(dimensions)}

    def order(stratum: Stratum) -> tuple:
        if stratum.dimension == UNSCORED:
            return (len(scale.points), 0, 0)
        return (bucket_tier(stratum.bucket, scale), position[stratum.dimension], stratum.bucket)

    return sorted(members, key=order)


def _seeded_rank(pool: list[Candidate], seed: int) -> dict[str, int]:
    keys = [c.key for c in pool]
    random.Random(seed).shuffle(keys)
    return {key: i for i, key in enumerate(keys)}


class _Picker:
    """Round-based selection state: what is taken, and how often each model and attribute
    value already appears (overall and per stratum) so the next pick can spread."""

    def __init__(
        self,
        pool: list[Candidate],
        members: dict[Stratum, list[str]],
        strata_of: dict[str, list[Stratum]],
        rank: dict[str, int],
    ) -> None:
        self.by_key = {c.key: c for c in pool}
        self.members = members
        self.rank = rank
        self.strata_of = strata_of
        self.picks: list[Pick] = []
        self.taken: set[str] = set()
        self.count: Counter[Stratum] = Counter()
        self.models_in: dict[Stratum, Counter[str]] = {s: Counter() for s in members}
        self.models: Counter[str] = Counter()
        self.values: Counter[tuple[str, str]] = Counter()

    def run(self, order: list[Stratum], target: int) -> None:
        round_ = 0
        while len(self.picks) < target:
            took = self._round(order, round_, target)
            round_ = round_ + 1 if took else self._lowest_open_level(order)

    def _lowest_open_level(self, order: list[Stratum]) -> int:
        # A round can find every open stratum already above its level (strata also fill up
        # through picks made for others); the next round starts at the lowest level still open.
        return min(self.count[s] for s in order if self.count[s] < len(self.members[s]))

    def _round(self, order: list[Stratum], round_: int, target: int) -> bool:
        took = False
        for stratum in order:
            if len(self.picks) >= target:
                break
            if self.count[stratum] > round_ or self.count[stratum] >= len(self.members[stratum]):
                continue
            self._take(self._choose(stratum), stratum, round_)
            took = True
        return took

    def _choose(self, stratum: Stratum) -> Candidate:
        # Round-robin over models within the stratum, then attribute values not yet in the
        # sample, then the model least seen overall; the seeded rank breaks remaining ties.
        open_ = (self.by_key[k] for k in self.members[stratum] if k not in self.taken)
        return min(
            open_,
            key=lambda c: (
                self.models_in[stratum][c.model],
                sum(self.values[item] for item in c.attributes.items()),
                self.models[c.model],
                self.rank[c.key],
            ),
        )

    def _take(self, candidate: Candidate, stratum: Stratum, round_: int) -> None:
        self.picks.append(Pick(candidate.key, stratum, round_))
        self.taken.add(candidate.key)
        for member_of in self.strata_of[candidate.key]:
            self.count[member_of] += 1
            self.models_in[member_of][candidate.model] += 1
        self.models[candidate.model] += 1
        self.values.update(candidate.attributes.items())


def random_share(
    candidates: Iterable[Candidate], n: int, seed: int, per_model: bool = False
) -> Sample:
    """A simple random sample of n candidates (or, per model, of about n / models from each
    model), with every candidate's inclusion probability: n / N, or n_m / N_m per model."""
    pool = _sorted_unique(candidates)
    rng = random.Random(seed)
    groups: dict[str, list[str]] = {}
    for candidate in pool:
        groups.setdefault(candidate.model if per_model else RANDOM, []).append(candidate.key)
    total = min(max(n, 0), len(pool))
    sizes = _equal_sizes(groups, total) if per_model else {RANDOM: total}
    picks, inclusion, members = [], {}, {}
    for name in sorted(groups):
        keys = groups[name]
        stratum = Stratum("model" if per_model else RANDOM, name)
        members[stratum] = frozenset(keys)
        chosen = rng.sample(keys, sizes[name])
        picks += [Pick(key, stratum, 0) for key in sorted(chosen)]
        inclusion |= {key: sizes[name] / len(keys) for key in keys}
    return Sample(
        mode=RANDOM,
        picks=tuple(picks),
        strata=tuple(sorted(members)),
        members=members,
        models={c.key: c.model for c in pool},
        design=PER_MODEL if per_model else UNIFORM,
        inclusion=inclusion,
    )


def _equal_sizes(groups: dict[str, list[str]], total: int) -> dict[str, int]:
    """`total` split as evenly as the groups allow: a small group gives all it has and the
    rest goes to the others; every non-empty group gets at least one when total allows."""
    sizes = dict.fromkeys(groups, 0)
    left = total
    while left > 0:
        open_ = sorted(g for g in groups if sizes[g] < len(groups[g]))
        share, extra = divmod(left, len(open_))
        for i, group in enumerate(open_):
            take = min(share + (i < extra), len(groups[group]) - sizes[group])
            sizes[group] += take
            left -= take
    return sizes
