"""Time the live agreement dashboards with 20,000 scores (DESIGN §10: warm partial < 300 ms,
cold recompute < 2 s).

Builds a fresh SQLite database shaped like a real study: 70 generated cases × 2 agents × 3
repetitions (420 conversations, with each cell's consistency metrics), 12 clinicians (6 per
track), every conversation scored by 3 clinicians per track on their track's 3 dimensions and
the 2 realism dimensions (12,600 scores, a tenth of them on hidden reference items), and a
jury of 3 judges on the 6 scored dimensions (7,560 verdicts): 20,160 scores. Scores are
synthetic but realistic: each conversation has a true quality per dimension; clinicians and
judges score near it with their own noise and leniency, a few say not applicable, a judge is
sometimes unparseable. The audit trail has the rows the review pages would have written.

Then, through Django's test client as a researcher, for each live page: the cold recompute
(nothing cached), the warm partial (an htmx poll after a new score elsewhere was already
computed: the cached rendering) and the quiet poll (nothing new: 204, nothing swapped), each
with its query count; and the planner on the study as its pilot.

    .venv/bin/python benchmarks/dashboards.py
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from datetime import timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.scratch import scratch_django  # noqa: E402

CASES, MODELS, REPETITIONS = 70, ("agent-steady", "agent-careless"), 3
PER_TRACK, OVERLAP, JUDGES = 6, 3, 3
REQUESTS, WARM_TARGET_MS, COLD_TARGET_S = 30, 300, 2.0


def setup_django() -> None:
    scratch_django("pab-dashboards-bench-")
    from django.core.management import call_command
    from django.test.utils import setup_test_environment

    setup_test_environment()
    call_command("migrate", verbosity=0)


def near(truth: int, rng: random.Random, noise: float, lean: int = 0) -> int:
    return min(5, max(1, round(truth + lean + rng.gauss(0, noise))))


def build() -> dict:
    """The synthetic study; returns what the timing needs."""
    from django.contrib.auth.models import Group, User

    from annotation.models import Assignment, AuditEvent, Clinician, Item, Study, Submission
    from jury.models import Judge, Panel, Verdict
    from patientagentbench.cases.generate import generate_case_set
    from patientagentbench.models import CellMetrics, ModelConfig, Run, Suite, Task, Trace
    from ratings.rubric import cached_rubric

    rng = random.Random(7)
    rubric = cached_rubric()
    suite = Suite.objects.create(name="bench-cases", kind=Suite.Kind.SCENARIO, world="clinic")
    tasks = [
        Task.objects.create(
            suite=suite,
            task_id=case["case_id"],
            case=case,
            attributes=case["attributes"],
            category=case["attributes"].get("subtask", ""),
        )
        for case in generate_case_set(CASES, 3)
    ]
    run = Run.objects.create(suite=suite, status=Run.Status.FINISHED)
    traces = Trace.objects.bulk_create(
        Trace(
            run=run,
            task=task,
            model_name=model,
            temperature=0.0,
            repetition=rep,
            key=f"bench-{task.pk}-{model}-{rep}",
            status=Trace.Status.DONE,
            correct=rng.random() < (0.8 if model == MODELS[0] else 0.55),
        )
        for task in tasks
        for model in MODELS
        for rep in range(REPETITIONS)
    )
    CellMetrics.objects.bulk_create(
        CellMetrics(
            run=run,
            task=task,
            model_name=model,
            temperature=0.0,
            values={
                "tss": rng.uniform(0.5, 1.0),
                "ac": rng.uniform(0.3, 1.0),
                "divergence_point": rng.uniform(1, 4),
                "correct_rate": rng.random(),
            },
        )
        for task in tasks
        for model in MODELS
    )
    truth = {
        (t.pk, d.key): rng.choice([1, 2, 3, 3, 4, 4, 4, 5, 5])
        for t in traces
        for d in rubric.dimensions
    }
    researcher = User.objects.create_user("bench-researcher", password="x")
    researcher.groups.add(Group.objects.get_or_create(name="researcher")[0])
    clinicians = []
    clinician_group = Group.objects.get_or_create(name="clinician")[0]
    for track in ("clinical", "operations"):
        for n in range(PER_TRACK):
            user = User.objects.create_user(f"bench-{track}-{n}", password="x")
            user.groups.add(clinician_group)
            clinicians.append(Clinician.objects.create(user=user, track=track))
    study = Study.objects.create(
        name="Bench study", overlap={"clinical": OVERLAP, "operations": OVERLAP}
    )
    items = Item.objects.bulk_create(
        Item(
            study=study,
            trace=trace,
            is_reference=i % 10 == 0,
            reference={
                d.key: {"score": truth[(trace.pk, d.key)], "why": "bench"} for d in rubric.scored
            }
            if i % 10 == 0
            else None,
        )
        for i, trace in enumerate(traces)
    )
    assignments, answers = [], []
    for i, item in enumerate(items):
        for track in ("clinical", "operations"):
            pool = [c for c in clinicians if c.track == track]
            for k in range(OVERLAP):
                clinician = pool[(i + k) % len(pool)]
                assignments.append(
                    Assignment(
                        item=item,
                        clinician=clinician,
                        tracks=[track],
                        status=Assignment.Status.SUBMITTED,
                        position=i,
                    )
                )
                lean = (clinicians.index(clinician) % 3) - 1
                scores = {
                    d.key: None
                    if d.scored and rng.random() < 0.02
                    else near(
                        truth[(item.trace_id, d.key)], rng, 0.7, lean if rng.random() < 0.3 else 0
                    )
                    for d in rubric.dimensions_for({track})
                }
                answers.append(scores)
    assignments = Assignment.objects.bulk_create(assignments)
    start = study.created_at - timedelta(days=20)
    submissions = Submission.objects.bulk_create(
        Submission(assignment=a, scores=s, nonce=f"bench-{a.pk}")
        for a, s in zip(assignments, answers, strict=True)
    )
    # Spread the submission times over the last 20 days, in assignment order (drift chart).
    step = timedelta(days=20) / len(submissions)
    for n, submission in enumerate(submissions):
        submission.submitted_at = start + n * step
    Submission.objects.bulk_update(submissions, ["submitted_at"])
    AuditEvent.objects.bulk_create(
        AuditEvent(action=action, study=study, item_id=a.item_id, assignment=a)
        for a in assignments
        for action in ("draft_saved", "draft_saved", "submitted")
    )
    panel = Panel.objects.create(name="bench-jury")
    judges = []
    for n in range(JUDGES):
        model = ModelConfig.objects.create(
            name=f"bench-judge-{n}", provider="simulated", model_id=f"sim-judge-{n}"
        )
        judges.append(Judge.objects.create(name=f"bench-judge-{n}", model=model))
        panel.judges.add(judges[-1])
    Verdict.objects.bulk_create(
        _verdict(panel, judge, trace, d.key, truth[(trace.pk, d.key)], rng, n)
        for trace in traces
        for n, judge in enumerate(judges)
        for d in rubric.scored
    )
    return {
        "researcher": researcher,
        "study": study,
        "scores": sum(1 for s in answers for v in s.values())
        + Verdict.objects.filter(panel=panel).count(),
        "clinician_scores": sum(len(s) for s in answers),
        "verdicts": Verdict.objects.filter(panel=panel).count(),
        "assignment": assignments[0],
    }


def _verdict(panel, judge, trace, dimension, truth, rng, n):
    from jury.models import Verdict

    unparseable = rng.random() < 0.01
    return Verdict(
        panel=panel,
        judge=judge,
        trace=trace,
        dimension=dimension,
        status="unparseable" if unparseable else "ok",
        score=None if unparseable else near(truth, rng, 0.8, (n % 2)),
        rubric_version=panel.rubric_version,
        prompt_version=judge.prompt_version,
    )


def timed(call) -> tuple[float, object]:
    started = time.perf_counter()
    result = call()
    return time.perf_counter() - started, result


def new_score(assignment) -> None:
    """A clinician revises one score: the stamp moves, the next poll recomputes."""
    from annotation.models import Submission

    current = assignment.submissions.get(is_current=True)
    Submission.objects.filter(pk=current.pk).update(is_current=False)
    scores = dict(current.scores) | {"clinical_safety": 1}
    Submission.objects.create(
        assignment=assignment,
        version=current.version + 1,
        scores=scores,
        nonce=f"bench-revision-{time.time()}",
        reason="bench",
    )


def main() -> None:
    setup_django()
    from django.core.cache import cache
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    from annotation import dashboards

    made = build()
    print(
        f"{made['scores']:,} scores: {made['clinician_scores']:,} clinician scores "
        f"+ {made['verdicts']:,} judge verdicts; live CIs from {dashboards.LIVE_RESAMPLES} "
        f"resamples (breakdowns {dashboards.BREAKDOWN_RESAMPLES})"
    )
    client = Client()
    client.force_login(made["researcher"])
    cold_ok = warm_ok = True
    for page in dashboards.LIVE_PAGES:
        url = f"/research/dashboards/{page}/"
        if page == "jury":
            url += "?breakdown=model"
        client.get(url)  # templates, imports, first connection
        cache.clear()
        cold, response = timed(lambda url=url: client.get(url, headers={"HX-Request": "true"}))
        assert response.status_code == 200, response.status_code
        cache.clear()
        compute, _ = timed(
            lambda page=page: dashboards.COMPUTE[page](dashboards.load(_filters(page)))
        )
        # A new score, computed once (by another researcher's poll), then polls that find the
        # cached rendering: what a researcher's poll costs after someone scored.
        new_score(made["assignment"])
        client.get(url, headers={"HX-Request": "true"})
        times = []
        for _ in range(REQUESTS):
            elapsed, response = timed(
                lambda url=url: client.get(url, headers={"HX-Request": "true"})
            )
            assert response.status_code == 200
            times.append(elapsed * 1000)
        with CaptureQueriesContext(connection) as warm_queries:
            client.get(url, headers={"HX-Request": "true"})
        current = dashboards.stamp()
        quiet_url = url + ("&" if "?" in url else "?") + f"stamp={current}"
        quiet_times = []
        for _ in range(REQUESTS):
            elapsed, response = timed(
                lambda quiet_url=quiet_url: client.get(quiet_url, headers={"HX-Request": "true"})
            )
            assert response.status_code == 204, response.status_code
            quiet_times.append(elapsed * 1000)
        with CaptureQueriesContext(connection) as quiet_queries:
            client.get(quiet_url, headers={"HX-Request": "true"})
        warm = statistics.median(times)
        cold_ok &= cold < COLD_TARGET_S
        warm_ok &= warm < WARM_TARGET_MS
        label = "jury (with a breakdown by model)" if page == "jury" else page
        print(
            f"{label}: cold recompute {cold:.2f} s (request; computation alone "
            f"{compute:.2f} s) · warm partial median {warm:.0f} ms, p95 "
            f"{sorted(times)[int(0.95 * len(times)) - 1]:.0f} ms, {len(warm_queries)} queries"
            f" · quiet poll (204) median {statistics.median(quiet_times):.0f} ms, "
            f"{len(quiet_queries)} queries"
        )
    study = made["study"]
    plan_url = f"/research/dashboards/planner/?pilot={study.pk}&items=20,40,80,160&overlaps=2,3"
    cache.clear()
    plan, response = timed(lambda: client.get(plan_url))
    assert response.status_code == 200
    bundle, response = timed(lambda: client.get(f"/research/studies/{study.pk}/bundle.zip"))
    assert response.status_code == 200
    print(
        f"planner (items 20–160 × overlap 2–3, 200 simulated studies each): {plan:.2f} s · "
        f"study bundle zip (its pages computed cold): {bundle:.2f} s, {len(response.content) / 1e6:.1f} MB"
    )
    print(
        f"targets: cold recompute < {COLD_TARGET_S:g} s: {'met' if cold_ok else 'MISSED'}; "
        f"warm partial < {WARM_TARGET_MS} ms: {'met' if warm_ok else 'MISSED'}"
    )


def _filters(page: str):
    from annotation.dashboards import Filters

    return Filters(breakdown="model") if page == "jury" else Filters()


if __name__ == "__main__":
    main()
