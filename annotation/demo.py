"""Demo review data, so every review page has something to show from the first start:
clinician1 in the clinical track, clinician2 in operations, clinician3 in both; a finished
calibration round with reference scores (closed, each clinician's result recorded), an
open round, and a study on the demo's scenario
conversations with assignments for all three and some submitted scores.

Demo scores are made up, seeded and labelled as such: a reference follows the automatic
outcome check (a failed conversation scores low on its track's dimensions), and demo
clinicians score near the reference.
"""

from __future__ import annotations

import random
from pathlib import Path

from django.contrib.auth.models import User
from django.db import transaction

from annotation import judge_calibration, lifecycle, reviewing
from annotation.models import Assignment, Clinician, Item, Study
from annotation.studies import StudySpec, create_study, reviewable_traces, sample_for
from jury.models import Judge, Panel
from jury.rubrics import import_rubric
from jury.scoring import execute_inline, launch_jury
from patientagentbench.models import Trace
from ratings.rubric import Rubric, cached_rubric

DEMO_TRACKS = {
    "clinician1": (Clinician.Track.CLINICAL, "Family medicine", 12),
    "clinician2": (Clinician.Track.OPERATIONS, "Practice operations", 7),
    "clinician3": (Clinician.Track.BOTH, "Internal medicine", 21),
}
# Made-up people on a reserved domain, so the People page reads like a real team's.
DEMO_PEOPLE = {
    "clinician1": ("Dr Ana", "Silva", "ana.silva@example.org"),
    "clinician2": ("Ben", "Okafor", "ben.okafor@example.org"),
    "clinician3": ("Dr Mei", "Tanaka", "mei.tanaka@example.org"),
}
ROUND_ONE, ROUND_TWO, STUDY = "Calibration round 1", "Calibration round 2", "Demo study"
SEED = 2026
# A team's own rubric beside the built-in one: three dimensions on 1 to 7, its own study and
# its own simulated panel (a panel is compared only with studies of its rubric).
TEAM_RUBRIC_FILE = (
    Path(__file__).resolve().parent.parent / "fixtures" / "demo" / "nurse-line-v1.json"
)
TEAM_STUDY, TEAM_PANEL = "Nurse line study (team rubric)", "sim-jury-nurse-line"


def seed_review_demo(actor=None) -> str:
    clinicians = _clinicians()
    if not clinicians:
        return "No demo clinicians; run seed_demo first."
    if Study.objects.filter(name=STUDY).exists():
        return "Demo review data already present."
    keys = _demo_conversations()
    if len(keys) < 20:
        return "Not enough finished scenario conversations for the review demo."
    round_one, round_two, study_keys = keys[:4], keys[4:8], keys[8:20]
    with transaction.atomic():
        first = _round(ROUND_ONE, round_one, clinicians, Study.Feedback.END, actor)
        second = _round(ROUND_TWO, round_two, clinicians, Study.Feedback.IMMEDIATE, actor)
        lifecycle.open_study(first, actor)
        _score_all(first, actor)
        lifecycle.close_study(first, actor)  # finished: each clinician's result recorded
        lifecycle.open_study(second, actor)
        study = create_study(
            StudySpec(
                name=STUDY,
                seed=SEED,
                overlap={"clinical": 2, "operations": 2},
                reference_share=0.0,
                require_calibration=True,
                blind_adjudication=True,
                instructions="Score each conversation as you would a colleague's patient call.",
            ),
            [int(k) for k in study_keys],
            clinicians,
            actor,
        )
        try:
            lifecycle.open_study(study, actor)
        except lifecycle.LifecycleError as refused:
            # Smaller demos (fewer repetitions) can leave a clinician short of the round's
            # targets; the study then waits as a draft, as it would for a real team.
            return (
                f"Review demo: {first.name} (closed), {second.name} (open), {study.name} "
                f"(draft: {refused})."
            )
        _score_some(study, per_clinician=3, actor=actor)
    return f"Review demo: {first.name} (closed), {second.name} (open), {study.name} (open)."


def seed_team_rubric_demo(actor=None) -> str:
    """The team-rubric demo: the rubric imported, a study of eight demo conversations on it
    scored by every demo clinician on its seven points (made up, near the simulated jury's
    model of each conversation), and a simulated panel of two judges on it."""
    clinicians = _clinicians()
    if not clinicians:
        return "No demo clinicians; run seed_demo first."
    if Study.objects.filter(name=TEAM_STUDY).exists():
        return "Team-rubric demo already present."
    rubric = import_rubric(TEAM_RUBRIC_FILE.read_bytes(), by=actor).rubric
    keys = sample_for(reviewable_traces(), n=8, seed=SEED + 1, rubric=rubric).keys
    if len(keys) < 4:
        return "Not enough finished scenario conversations for the team-rubric demo."
    with transaction.atomic():
        study = create_study(
            StudySpec(
                name=TEAM_STUDY,
                seed=SEED,
                overlap={"clinical": 2, "operations": 2},
                instructions="Score on the nurse line's own 7-point rubric.",
                rubric_name=rubric.name,
                rubric_version=rubric.version,
            ),
            [int(k) for k in keys],
            clinicians,
            actor,
        )
        lifecycle.open_study(study, actor)
        for assignment in Assignment.objects.filter(item__study=study).select_related(
            "item__trace", "clinician__user"
        ):
            _submit_on(assignment, rubric)
    panel = team_panel(rubric)
    run = Trace.objects.get(pk=int(keys[0])).run
    execute_inline(
        launch_jury(panel=panel, run=run, trace_ids=[int(k) for k in keys], enqueue=False)
    )
    return (
        f"Team-rubric demo: {rubric.name} v{rubric.version} imported, {study.name} scored by "
        f"{len(clinicians)} clinicians on {len(keys)} conversations, panel {panel.name}."
    )


def team_panel(rubric: Rubric) -> Panel:
    panel, _ = Panel.objects.get_or_create(
        name=TEAM_PANEL,
        defaults={"rubric_name": rubric.name, "rubric_version": rubric.version},
    )
    for judge in Judge.objects.filter(name__in=("sim-judge-a", "sim-judge-b")):
        panel.judges.add(judge)
    return panel


def _submit_on(assignment: Assignment, rubric: Rubric) -> None:
    """A made-up score per dimension: high on conversations that passed the automatic checks,
    low on those that failed, spread over the rubric's points."""
    rng = random.Random(f"{SEED}/team/{assignment.code}")
    scale = rubric.scale
    failed = assignment.item.trace.correct is False
    base = scale.low + 1 if failed else scale.high - 2
    scores = {
        d.key: min(scale.high, max(scale.low, base + rng.choice([-1, 0, 0, 1, 1])))
        for d in reviewing.dimensions_of(assignment, rubric)
    }
    reviewing.submit(
        assignment,
        {"scores": scores, "why": {}, "flags": [], "comments": []},
        nonce=f"demo-team-{assignment.code}",
        seconds=rng.randint(120, 420),
        actor=assignment.clinician.user,
    )


def _clinicians() -> list[Clinician]:
    found = []
    for username, (track, specialty, years) in DEMO_TRACKS.items():
        user = User.objects.filter(username=username).first()
        if user is None:
            continue
        _name(user, *DEMO_PEOPLE[username])
        clinician = reviewing.clinician_for(user)
        clinician.track, clinician.specialty, clinician.years_in_practice = track, specialty, years
        clinician.save(update_fields=["track", "specialty", "years_in_practice"])
        found.append(clinician)
    return found


def _name(user: User, first: str, last: str, email: str) -> None:
    if (user.first_name, user.last_name, user.email) != (first, last, email):
        user.first_name, user.last_name, user.email = first, last, email
        user.save(update_fields=["first_name", "last_name", "email"])


def _demo_conversations() -> list[str]:
    sample = sample_for(reviewable_traces(), n=20, seed=SEED)
    return sample.keys


def _round(name, keys, clinicians, feedback, actor) -> Study:
    study = create_study(
        StudySpec(
            name=name,
            kind=Study.Kind.CALIBRATION,
            seed=SEED,
            overlap={"clinical": 2, "operations": 2},
            feedback=feedback,
            min_exact=0.5,
            min_adjacent=0.75,
            min_alpha=0.0,
        ),
        [int(k) for k in keys],
        clinicians,
        actor,
    )
    for item in study.items.select_related("trace__task"):
        item.reference = _reference(item)
        item.save(update_fields=["reference"])
    return study


def _reference(item: Item) -> dict:
    """Made-up demo reference on the scored dimensions (what the reference form asks for):
    low where the outcome check failed, good where it passed, each rationale quoting the
    level's anchor and the patient's goal so the feedback teaches something."""
    rng = random.Random(f"{SEED}/reference/{item.trace_id}")
    failed = item.trace.correct is False
    goal = _goal_of(item)
    reference = {}
    for dimension in cached_rubric().scored:
        base = 2 if failed else 4
        score = min(5, max(1, base + rng.choice([0, 0, 1, -1])))
        reference[dimension.key] = {"score": score, "why": _rationale(dimension, score, goal)}
    return reference


def _goal_of(item: Item) -> str:
    case = item.trace.task.case or {}
    goal = case.get("goal") or {}
    return (goal.get("summary") if isinstance(goal, dict) else "") or "get help from the clinic"


def _rationale(dimension, score: int, goal: str) -> str:
    level = dimension.level(score)
    return (
        f"Demo reference, {dimension.label.lower()} {score} ({level.label.lower()}): "
        f"{level.anchor.rstrip('.')}. The patient's goal: {goal.rstrip('.')}."
    )


def _near(score: int, rng: random.Random) -> int:
    return min(5, max(1, score + rng.choice([0, 0, 0, 0, 0, 1, -1])))


def _answer(assignment: Assignment, reference: dict | None, rng: random.Random) -> dict:
    scores = {}
    for dimension in reviewing.dimensions_of(assignment, cached_rubric()):
        anchor = (reference or {}).get(dimension.key, {}).get("score")
        # On a reference, one point off at most and only on the first item, so every demo
        # clinician passes round 1 whatever the (random) assignment codes are.
        if anchor is not None:
            off = assignment.position == 0 and rng.random() < 0.3
            scores[dimension.key] = min(5, anchor + 1) if off else anchor
        else:
            scores[dimension.key] = _near(rng.randint(2, 5), rng)
    return {"scores": scores, "why": {}, "flags": [], "comments": []}


def _score_all(study: Study, actor) -> None:
    for assignment in Assignment.objects.filter(item__study=study).select_related(
        "item__study", "clinician__user"
    ):
        _submit(assignment)


def _score_some(study: Study, per_clinician: int, actor) -> None:
    for clinician in Clinician.objects.filter(assignments__item__study=study).distinct():
        for assignment in clinician.assignments.filter(item__study=study).order_by("position")[
            :per_clinician
        ]:
            _submit(assignment)


def _submit(assignment: Assignment) -> None:
    rng = random.Random(f"{SEED}/{assignment.code}")
    reference = assignment.item.reference if assignment.item.study.is_calibration else None
    answer = _answer(assignment, reference, rng)
    reviewing.submit(
        assignment,
        answer,
        nonce=f"demo-{assignment.code}",
        seconds=rng.randint(120, 420),
        actor=assignment.clinician.user,
    )


def seed_jury_calibration(panel_name: str = "sim-jury") -> str:
    """The demo jury takes the closed calibration round as its clinicians did: its result is
    recorded (pass or not, as the judges earned it), so the dashboards show what a
    qualification does. Idempotent: a record is written once."""
    panel = Panel.objects.filter(name=panel_name).first()
    round_ = Study.objects.filter(name=ROUND_ONE).first()
    if panel is None or round_ is None:
        return "No demo jury or calibration round; nothing to calibrate."
    try:
        judge_calibration.record(panel, round_)
    except judge_calibration.CalibrationError as exc:
        return f"Demo jury calibration skipped: {exc}"
    passed = sorted(
        q.track for q in panel.qualifications.filter(round=round_, judge__isnull=True, passed=True)
    )
    return (
        f"Demo jury {panel.name} took {round_.name}: qualified on "
        f"{', '.join(passed) if passed else 'no track'}."
    )
