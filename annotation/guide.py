"""A first study, step by step: what a newcomer must have before a calibration round can
qualify anyone (conversations, the rubric, enough clinicians, a round, its references), read
from what exists, each step with what is missing and where to do it.

The minimums are the qualification rule's own (`qualification.design_blockers` on stand-in
clinicians), so the guide cannot promise a design the round form would refuse. Researchers'
side only.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from django.urls import reverse

from annotation import adjudication, lifecycle
from annotation.models import Clinician, Qualification, Study
from annotation.pure.calibration import Thresholds
from annotation.pure.envelope import MIN_INTERVAL_ITEMS
from annotation.qualification import design_blockers
from annotation.studies import pool
from ratings.rubric import Rubric, cached_rubric

TRACKS = ("clinical", "operations")
MOST_ITEMS_TRIED = 40
DEFAULT_THRESHOLDS = Thresholds(
    min_exact=Study._meta.get_field("min_exact").default,
    min_adjacent=Study._meta.get_field("min_adjacent").default,
    min_alpha=Study._meta.get_field("min_alpha").default,
)


@dataclass(frozen=True)
class StandIn:
    """A clinician as the qualification rule sees one: a code and the tracks scored."""

    code: str
    tracks: frozenset[str]


@dataclass(frozen=True)
class Minimums:
    clinicians_per_track: int
    items: int  # the rule's minimum: fewer and nobody could pass

    @property
    def suggested_items(self) -> int:
        """Below this the agreement pages give no interval, so a round this small says
        whether someone passed but not how surely."""
        return max(self.items, MIN_INTERVAL_ITEMS)


@dataclass(frozen=True)
class Step:
    title: str
    done: bool
    detail: str
    link: str = ""
    link_text: str = ""


@cache
def _minimums_for(rubric_key: tuple[str, str], thresholds: Thresholds) -> Minimums:
    rubric = cached_rubric(*rubric_key)
    for clinicians in range(1, 6):
        track = [StandIn(f"C-{n}", frozenset({"clinical"})) for n in range(clinicians)]
        if not design_blockers(track, rubric, MOST_ITEMS_TRIED, thresholds):
            break
    track = [StandIn(f"C-{n}", frozenset({"clinical"})) for n in range(clinicians)]
    items = next(
        (
            n
            for n in range(1, MOST_ITEMS_TRIED + 1)
            if not design_blockers(track, rubric, n, thresholds)
        ),
        MOST_ITEMS_TRIED,
    )
    return Minimums(clinicians, items)


def minimums(rubric: Rubric, thresholds: Thresholds = DEFAULT_THRESHOLDS) -> Minimums:
    """The fewest clinicians on a track and items a round needs before anyone could pass."""
    return _minimums_for((rubric.name, rubric.version), thresholds)


def first_study(is_admin: bool) -> list[Step]:
    rubric = cached_rubric()
    need = minimums(rubric)
    latest = Study.objects.filter(kind=Study.Kind.CALIBRATION).order_by("-pk").first()
    return [
        _conversations(need, is_admin),
        _rubric(rubric),
        _clinicians(need),
        _round(latest, need),
        _references(latest),
        _opened(latest),
        _study(),
    ]


def _conversations(need: Minimums, is_admin: bool) -> Step:
    n = pool(Study.Kind.CALIBRATION).count()
    launch = " or launch a run (Runs → Launch)" if is_admin else ""
    return Step(
        "Conversations to review",
        n >= need.items,
        f"{n} finished conversation{'s' if n != 1 else ''} can be reviewed (patient scenario "
        f"runs and imported transcripts). A round needs at least {need.items} "
        f"({need.suggested_items} or more for figures with intervals), and a study needs others "
        f"besides: import your own transcripts (Inspect logs, JSONL){launch}.",
        reverse("import_upload"),
        "Import transcripts",
    )


def _rubric(rubric: Rubric) -> Step:
    by_track = {track: [d.label for d in rubric.scored if d.track == track] for track in TRACKS}
    return Step(
        "The rubric",
        True,
        f"Every round and study scores “{rubric.name}” version {rubric.version}: "
        + "; ".join(f"{track}: {', '.join(labels)}" for track, labels in by_track.items())
        + ". A clinician scores the dimensions of their track.",
    )


def _clinicians(need: Minimums) -> Step:
    active = Clinician.objects.filter(user__is_active=True)
    counts = {track: sum(track in c.tracks for c in active) for track in TRACKS}
    enough = [track for track, n in counts.items() if n >= need.clinicians_per_track]
    return Step(
        "Clinicians",
        bool(enough),
        f"A round can qualify clinicians on a track only with at least "
        f"{need.clinicians_per_track} of them on it (their agreement with each other is part "
        "of passing). You have "
        + ", ".join(f"{n} on {track}" for track, n in counts.items())
        + (
            f": enough for {' and '.join(enough)}."
            if enough
            else f": invite {need.clinicians_per_track} on one track at least."
        ),
        reverse("research_people"),
        "Invite clinicians",
    )


def _round(latest: Study | None, need: Minimums) -> Step:
    if latest is None:
        return Step(
            "A calibration round",
            False,
            f"Draw at least {need.items} conversations ({need.suggested_items} or more for "
            "agreement figures with intervals) and give them to every clinician of the track; "
            "they score them against your reference scores.",
            reverse("research_round_new"),
            "New calibration round",
        )
    return Step(
        "A calibration round",
        True,
        f"“{latest.name}” ({latest.get_status_display().lower()}, "
        f"{latest.items.count()} conversations).",
        reverse("research_study", args=[latest.pk]),
        "Its page",
    )


def _references(latest: Study | None) -> Step:
    title = "Reference scores"
    if latest is None:
        return Step(title, False, "Write them once the round exists.")
    gaps = adjudication.reference_gaps(latest)
    missing = sum(1 for g in gaps.values() if g)
    return Step(
        title,
        missing == 0,
        (
            f"{missing} of {len(gaps)} conversations lack a reference: write them, or adopt "
            "the consensus of qualified clinicians from an earlier round."
            if missing
            else f"Every one of its {len(gaps)} conversations has a reference."
        ),
        reverse("research_references", args=[latest.pk]),
        "Write references",
    )


def _opened(latest: Study | None) -> Step:
    title = "Open the round"
    if latest is None:
        return Step(title, False, "Once the round has its references.")
    if latest.status != Study.Status.DRAFT:
        return Step(title, True, f"“{latest.name}” is {latest.get_status_display().lower()}.")
    problems = lifecycle.problems(latest)
    return Step(
        title,
        False,
        " ".join(problems) if problems else "Its checklist holds: it can open.",
        reverse("research_study", args=[latest.pk]),
        "Open it on its page",
    )


def _study() -> Step:
    qualified = (
        Qualification.objects.filter(passed=True, reopened_at__isnull=True)
        .values("clinician")
        .distinct()
        .count()
    )
    studies = Study.objects.filter(kind=Study.Kind.STUDY).count()
    return Step(
        "The study",
        studies > 0,
        f"When the round closes, its results qualify clinicians ({qualified} qualified so "
        "far); a study that requires calibration gives its conversations to them. "
        + (f"{studies} stud{'ies' if studies != 1 else 'y'} so far." if studies else ""),
        reverse("research_study_new"),
        "New study",
    )
