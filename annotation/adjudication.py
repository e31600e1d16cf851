"""Adjudication and references: where clinicians disagree, a researcher decides, and what the
decisions add up to can become the reference of the next calibration round.

The queue holds every (item, dimension) whose clinicians' current scores spread by the
study's threshold or more (`calibration.disagreements`). What it returns names clinicians by
their pseudonymous code and carries nothing about the model or run: an adjudicator who knows
which model wrote a conversation judges the model, not the conversation.

Nothing is overwritten: a new decision is a new Adjudication row and the newest per item and
dimension is the consensus; every decision and every reference change writes an audit row.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime

from django.db import transaction

from annotation import audit
from annotation.models import Adjudication, Assignment, Clinician, Item, Study, Submission
from annotation.pure.calibration import disagreements
from annotation.qualification import is_qualified
from annotation.reviewing import ReviewMaterial, material_for
from ratings.rubric import Level, Rubric, cached_rubric

MAX_REASON = 4000


class AdjudicationError(ValueError):
    """A decision or reference the server will not store; the message says why."""


@dataclass(frozen=True)
class Opinion:
    clinician: str  # pseudonymous code
    score: int | None  # None: not applicable
    why: str
    flags: tuple[str, ...]
    version: int


@dataclass(frozen=True)
class Decision:
    score: int | None
    reason: str
    decided_by: str
    decided_at: datetime


@dataclass(frozen=True)
class Dispute:
    item_id: int
    dimension: str
    label: str
    opinions: tuple[Opinion, ...]
    decision: Decision | None
    levels: tuple[Level, ...] = ()  # the rubric's anchors, to decide against

    @property
    def spread(self) -> int:
        numeric = [o.score for o in self.opinions if o.score is not None]
        return max(numeric) - min(numeric) if numeric else 0


def rubric_of(study: Study) -> Rubric:
    return cached_rubric(study.rubric_name, study.rubric_version)


def current_submissions(study: Study, item_ids=None) -> dict[int, list[dict]]:
    """Item id → each clinician's current submission (code, scores, justifications, flags)."""
    rows = Submission.objects.current().filter(assignment__item__study=study)
    if item_ids is not None:
        rows = rows.filter(assignment__item_id__in=item_ids)
    by_item: dict[int, list[dict]] = defaultdict(list)
    for row in rows.values(
        "assignment__item_id",
        "assignment__clinician__code",
        "scores",
        "justifications",
        "flags",
        "version",
    ).order_by("assignment__item_id", "assignment__clinician__code"):
        by_item[row["assignment__item_id"]].append(row)
    return by_item


def latest_decisions(study: Study, item_ids=None) -> dict[tuple[int, str], Decision]:
    rows = Adjudication.objects.filter(item__study=study).select_related("decided_by")
    if item_ids is not None:
        rows = rows.filter(item_id__in=item_ids)
    latest: dict[tuple[int, str], Decision] = {}
    for row in rows.order_by("decided_at", "pk"):  # later rows replace earlier ones
        latest[(row.item_id, row.dimension)] = Decision(
            row.score, row.reason, row.decided_by.username, row.decided_at
        )
    return latest


def own_item_ids(study: Study, person) -> set[int]:
    """The study's items assigned to this person as a clinician, in any status (withdrawn
    too: they have read the item, and may have scored it before it was reassigned)."""
    return set(
        Assignment.objects.filter(item__study=study, clinician__user_id=person.pk).values_list(
            "item_id", flat=True
        )
    )


def is_own_item(item_pk: int, person) -> bool:
    """Whether this person is (or was) one of the item's clinicians: they may not adjudicate
    it, nor read its audit trail (their own score beside the others', by code)."""
    return Assignment.objects.filter(item_id=item_pk, clinician__user_id=person.pk).exists()


def queue(study: Study, item_ids=None, *, adjudicator=None) -> list[Dispute]:
    """Disputed (item, dimension) pairs, undecided first, then by item and rubric order. For
    an `adjudicator`, without the items they are assigned to: nobody judges their own."""
    rubric = rubric_of(study)
    order = {d.key: i for i, d in enumerate(rubric.dimensions)}
    decisions = latest_decisions(study, item_ids)
    excluded = own_item_ids(study, adjudicator) if adjudicator is not None else set()
    disputes = []
    for item_id, rows in current_submissions(study, item_ids).items():
        if item_id in excluded:
            continue
        scores = {row["assignment__clinician__code"]: row["scores"] for row in rows}
        for dimension in disagreements(scores, study.adjudication_threshold, rubric.scale):
            disputes.append(
                Dispute(
                    item_id=item_id,
                    dimension=dimension,
                    label=_label(rubric, dimension),
                    levels=_levels(rubric, dimension),
                    opinions=tuple(_opinion(row, dimension) for row in rows),
                    decision=decisions.get((item_id, dimension)),
                )
            )
    return sorted(
        disputes,
        key=lambda d: (d.decision is not None, d.item_id, order.get(d.dimension, len(order))),
    )


def _opinion(row: dict, dimension: str) -> Opinion:
    return Opinion(
        clinician=row["assignment__clinician__code"],
        score=row["scores"].get(dimension),
        why=(row["justifications"] or {}).get(dimension, ""),
        flags=tuple(row["flags"] or ()),
        version=row["version"],
    )


def _levels(rubric: Rubric, dimension: str) -> tuple[Level, ...]:
    try:
        return rubric.dimension(dimension).levels
    except KeyError:
        return ()


def _label(rubric: Rubric, dimension: str) -> str:
    try:
        return rubric.dimension(dimension).label
    except KeyError:
        return dimension


def material_of(item: Item) -> ReviewMaterial | None:
    """The item as its clinicians see it (chart, story, conversation, nothing else), built
    from any of its assignments since all share the conversation; None if nobody has one."""
    assignment = item.assignments.select_related("item").first()
    return material_for(assignment) if assignment else None


def dispute_for(item: Item, dimension: str, adjudicator=None) -> Dispute | None:
    """One entry of the queue, as it stands now (None when it is no longer disputed, or is
    the `adjudicator`'s own item)."""
    disputes = queue(item.study, [item.pk], adjudicator=adjudicator)
    found = [d for d in disputes if d.dimension == dimension]
    return found[0] if found else None


def decide(item: Item, dimension: str, score: int | None, reason: str, actor) -> Adjudication:
    """Record a decision: a point of the rubric's scale or None (not applicable), always with a reason; never
    by one of the item's own clinicians."""
    if is_own_item(item.pk, actor):
        raise AdjudicationError(
            "You are one of this item's clinicians: another adjudicator decides it."
        )
    rubric = rubric_of(item.study)
    if dimension not in {d.key for d in rubric.dimensions}:
        raise _unknown(dimension)
    if score is not None and score not in rubric.scale:
        raise AdjudicationError(f"Choose a score from {rubric.scale.span}, or not applicable.")
    if not reason.strip():
        raise AdjudicationError("Give the reason for the decision.")
    with transaction.atomic():
        decision = Adjudication.objects.create(
            item=item,
            dimension=dimension,
            score=score,
            reason=reason.strip()[:MAX_REASON],
            decided_by=actor,
        )
        audit.record(actor, "adjudicated", item=item, dimension=dimension, score=score)
    return decision


def _unknown(dimension: str) -> AdjudicationError:
    return AdjudicationError(f"The rubric has no dimension {dimension!r}.")


# --- references: what a calibration round is scored against ------------------------------


def set_reference(item: Item, reference: dict[str, dict], actor) -> None:
    """Replace the item's reference: dimension → {"score": a point or None, "why": text}."""
    rubric = rubric_of(item.study)
    keys = {d.key for d in rubric.scored}
    for dimension, entry in reference.items():
        if dimension not in keys:
            raise _unknown(dimension)
        if entry.get("score") is not None and entry["score"] not in rubric.scale:
            raise AdjudicationError(
                f"{dimension}: a reference score is {rubric.scale.span} or N/A."
            )
    item.reference = reference or None
    item.save(update_fields=["reference"])
    audit.record(
        actor,
        "reference_set",
        item=item,
        scores={dim: entry.get("score") for dim, entry in reference.items()},
    )


def consensus(study: Study, counted: set[str] | None = None) -> dict[int, dict[str, dict]]:
    """Item id → dimension → {"score", "why"}: the newest adjudication where there is one;
    else, where the counted clinicians (every one when `counted` is None) did not dispute the
    dimension, the mean of their numeric scores rounded half up (2.5 → 3, never to even), or
    not applicable when all said so. A dispute nobody has decided yet gives no consensus."""
    return {
        item_id: {dimension: entry for dimension, (entry, _n) in entries.items()}
        for item_id, entries in _consensus(study, counted).items()
    }


def _consensus(study: Study, counted: set[str] | None) -> dict[int, dict[str, tuple[dict, int]]]:
    """`consensus` with, beside each entry, how many clinicians it rests on (0: a decision)."""
    rubric = rubric_of(study)
    decisions = latest_decisions(study)
    result: dict[int, dict[str, tuple[dict, int]]] = {}
    counted_scores = _counted_scores(study, counted)
    # A researcher's decision stands whoever scored the item; it needs no counted clinician.
    item_ids = sorted(set(counted_scores) | {item_id for item_id, _d in decisions})
    for item_id in item_ids:
        scores = counted_scores.get(item_id, {})
        disputed = set(disagreements(scores, study.adjudication_threshold, rubric.scale))
        entries = {}
        for dimension in (d.key for d in rubric.scored):
            decision = decisions.get((item_id, dimension))
            if decision is not None:
                entries[dimension] = ({"score": decision.score, "why": decision.reason}, 0)
            elif dimension not in disputed:
                agreed = _agreed(dimension, scores)
                if agreed is not None:
                    entries[dimension] = agreed
        if entries:
            result[item_id] = entries
    return result


def _counted_scores(study: Study, counted: set[str] | None) -> dict[int, dict[str, dict]]:
    """Item id → clinician code → scores, over the counted clinicians' current submissions."""
    return {
        item_id: scores
        for item_id, rows in current_submissions(study).items()
        if (
            scores := {
                row["assignment__clinician__code"]: row["scores"]
                for row in rows
                if counted is None or row["assignment__clinician__code"] in counted
            }
        )
    }


def _agreed(dimension: str, scores: dict[str, dict]) -> tuple[dict, int] | None:
    # The rationale becomes feedback a clinician reads: it names no clinician and no
    # individual score, only how many agreed (and not even that when it is one person).
    given = [s[dimension] for s in scores.values() if dimension in s]
    if not given:
        return None
    numeric = [v for v in given if v is not None]
    if not numeric:
        return {"score": None, "why": _consensus_why(len(given), applicable=False)}, len(given)
    mean = sum(numeric) / len(numeric)
    score = math.floor(mean + 0.5)
    return {"score": score, "why": _consensus_why(len(numeric), applicable=True)}, len(numeric)


def _consensus_why(clinicians: int, applicable: bool) -> str:
    if clinicians == 1:
        return "Taken from an earlier round's scoring."
    if not applicable:
        return f"Not applicable: the consensus of {clinicians} clinicians in an earlier round."
    return f"The consensus of {clinicians} clinicians in an earlier round (their mean, rounded half up)."


# Why a target item got no consensus from the source round.
NOT_IN_SOURCE = "its conversation is not in that round"
NOBODY_COUNTED = "no qualified clinician scored it there"
NOBODY_SCORED = "no clinician scored it there"
ALL_DISPUTED = "every dimension is disputed with no decision yet"


@dataclass(frozen=True)
class ConsensusBasis:
    """Whom a round's consensus would rest on: its clinicians with a current submission, and
    which of them hold a qualification for the round's rubric version."""

    clinicians: tuple[str, ...]
    qualified: tuple[str, ...]

    @property
    def unqualified(self) -> tuple[str, ...]:
        return tuple(c for c in self.clinicians if c not in self.qualified)

    def counted(self, include_unqualified: bool) -> set[str]:
        return set(self.clinicians if include_unqualified else self.qualified)


@dataclass(frozen=True)
class Adoption:
    """What adopting a consensus did, for the researcher to read."""

    adopted: int
    items: int
    missing: dict[str, int]  # why an item got no consensus → how many items
    single: int  # items whose consensus rests on one clinician on some dimension
    counted_unqualified: tuple[str, ...]  # codes counted although not qualified
    basis: ConsensusBasis


def consensus_basis(source: Study) -> ConsensusBasis:
    clinicians = (
        Clinician.objects.filter(
            assignments__item__study=source, assignments__submissions__isnull=False
        )
        .distinct()
        .order_by("code")
    )
    codes = tuple(c.code for c in clinicians)
    qualified = tuple(
        c.code for c in clinicians if is_qualified(c, source.rubric_name, source.rubric_version)
    )
    return ConsensusBasis(codes, qualified)


def adopt_consensus(target: Study, source: Study, actor, include_unqualified=False) -> Adoption:
    """Give the target's items the consensus of the same conversations in `source` as their
    reference. Only qualified clinicians' scores count unless `include_unqualified`: a
    reference is what clinicians are taught, and an unqualified clinician's reading of the
    rubric is what calibration exists to check."""
    basis = consensus_basis(source)
    counted = basis.counted(include_unqualified)
    agreed = _consensus(source, counted)
    scored, scored_by_counted = (
        set(current_submissions(source)),
        set(_counted_scores(source, counted)),
    )
    by_trace = dict(Item.objects.filter(study=source).values_list("trace_id", "pk"))
    adopted, single, missing = 0, 0, defaultdict(int)
    items = list(Item.objects.filter(study=target).select_related("study"))
    with transaction.atomic():
        for item in items:
            source_item = by_trace.get(item.trace_id)
            entries = agreed.get(source_item, {})
            if not entries:
                missing[_why_none(source_item, scored, scored_by_counted)] += 1
                continue
            set_reference(item, {d: entry for d, (entry, _n) in entries.items()}, actor)
            adopted += 1
            single += any(n == 1 for _entry, n in entries.values())
        audit.record(
            actor,
            "consensus_adopted",
            study=target,
            source=source.pk,
            items=adopted,
            unqualified_counted=include_unqualified,
        )
    unqualified = basis.unqualified if include_unqualified else ()
    return Adoption(adopted, len(items), dict(missing), single, unqualified, basis)


def _why_none(source_item: int | None, scored: set[int], scored_by_counted: set[int]) -> str:
    if source_item is None:
        return NOT_IN_SOURCE
    if source_item not in scored:
        return NOBODY_SCORED
    return ALL_DISPUTED if source_item in scored_by_counted else NOBODY_COUNTED


def reference_dimensions(study: Study) -> list[str]:
    """The scored dimensions a round's reference needs: those of the tracks it covers."""
    tracks = set(study.overlap or {}) or {"clinical", "operations"}
    return [d.key for d in rubric_of(study).scored if d.track in tracks]


def reference_gaps(study: Study) -> dict[int, list[str]]:
    """Item id → dimensions still without a reference (empty list: complete), over the items
    that need one: every item of a round, the hidden reference items of a study."""
    keys = reference_dimensions(study)
    items = Item.objects.filter(study=study)
    if not study.is_calibration:
        items = items.filter(is_reference=True)
    return {
        pk: [k for k in keys if k not in (reference or {})]
        for pk, reference in items.values_list("pk", "reference")
    }
