"""SIGKILL on a prefork worker mid-jury and mid-case-set, as test_worker_faults does mid-run:
the child holding a job (as the OOM killer picks one), or the main process alone (its
children orphaned). Whatever dies, every judge job is scored once and the case set is stored
once, and nothing is left queued or running."""

import os
import signal

import pytest

from jury.models import JudgeJob, JuryRun, Verdict
from jury.scoring import launch_jury
from patientagentbench.models import CaseSetJob, Suite
from patientagentbench.suites.case_sets import start_generation
from ratings.rubric import cached_rubric
from tests.integration.workers import alive, pool_children, wait_until
from tests.jury.conftest import make_panel, scenario_run

pytestmark = pytest.mark.django_db(transaction=True)
POOL = 2


def holders(queryset) -> dict[int, str]:
    return dict(queryset.filter(status="running").values_list("pk", "worker"))


def pid_of(holder: str) -> int:
    return int(holder.split("#")[1])  # "node@host#pid#nonce": a child claims under its own pid


@pytest.mark.parametrize("victim", ["child", "main process"])
def test_a_jury_survives_a_killed_prefork_worker(workers, sim_models, slow_model, victim):
    run = scenario_run(sim_models)  # six finished conversations, scored inline
    panel = make_panel("slow-panel", slow_model)
    worker = workers.start("jury", pool="prefork", concurrency=POOL)
    children = pool_children(worker, POOL)
    # A stub without prices: the limit counts calls, set far above what it makes.
    scoring = launch_jury(panel=panel, run=run, repeat=2, call_limit=100_000)
    jobs = JudgeJob.objects.filter(jury_run=scoring)
    wait_until(lambda: jobs.filter(status="done").exists() and holders(jobs), 90, "judging", None)
    held = holders(jobs)
    if victim == "child":
        os.kill(pid_of(next(iter(held.values()))), signal.SIGKILL)  # a child of our worker
    else:
        os.kill(worker.pid, signal.SIGKILL)
        worker.wait(timeout=30)
        # An idle child may take one last job the main process had already handed it, so what
        # the dead worker held is read once its orphans are gone too.
        wait_until(lambda: not any(map(alive, children)), 30, "the orphans exiting", None)
        held = holders(jobs)
        workers.start("second", pool="prefork", concurrency=POOL)

    finished = lambda: not JuryRun.objects.get(pk=scoring.pk).is_active  # noqa: E731
    wait_until(finished, 120, "the scoring finishing", None)
    scoring.refresh_from_db()
    assert scoring.status == JuryRun.Status.FINISHED
    assert set(jobs.values_list("status", "worker")) == {("done", "")}
    # Only what was held when the kill came ran again; each job has its verdicts once.
    assert {pk for pk, attempts in jobs.values_list("pk", "attempts") if attempts > 1} <= set(held)
    per_job = cached_rubric().scored
    assert Verdict.objects.filter(job__jury_run=scoring).count() == jobs.count() * len(per_job)
    if victim == "child":
        assert worker.poll() is None  # the pool replaced its child and went on


def test_a_case_set_survives_its_killed_prefork_child(workers, sim_models):
    worker = workers.start("writer", pool="prefork", concurrency=POOL)
    # The template writer takes ~6 ms a case: long enough to be killed in the middle.
    job, _ = start_generation(
        name="big-set", count=1500, seed=7, writer="template", created_by=None
    )
    rows = CaseSetJob.objects.filter(pk=job.pk)
    wait_until(lambda: holders(rows), 60, "the generation starting", None)
    os.kill(pid_of(holders(rows)[job.pk]), signal.SIGKILL)  # a child of our worker

    wait_until(lambda: rows.get().status not in ("queued", "running"), 120, "the set", None)
    job.refresh_from_db()
    assert (job.status, job.worker, job.attempts) == ("done", "", 2), job.error
    assert Suite.objects.filter(name="big-set").count() == 1
    assert job.suite.tasks.count() == 1500
    assert worker.poll() is None
