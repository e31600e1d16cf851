"""A lost worker never leaves a run stuck: claims name their worker, the heartbeat of the
workers still alive takes back what a silent one held, an old claim cannot store a result,
and resume and `run_benchmark --wait` know about lost claims."""

import signal
from io import StringIO

import pytest
from django.conf import settings
from django.core.management import CommandError, call_command
from django.urls import reverse

from config.celery import app
from patientagentbench.conversation import EndConversation, EndReason
from patientagentbench.models import Run, Trace, WorkerHeartbeat
from patientagentbench.runs import execution, jobs, workers
from patientagentbench.runs.execution import _save_error, claim, execute_trace, progress
from patientagentbench.runs.launch import execute_inline, launch_run, resume_run
from tests.factories import heard, silent

pytestmark = pytest.mark.django_db


@pytest.fixture
def trace_jobs_sent(monkeypatch):
    """Messages sent to workers, kept instead of going to the broker."""
    ids = []
    monkeypatch.setattr(execution.execute_trace_job, "delay", ids.append)
    return ids


def as_worker(worker_id: str, seconds_ago: float = 0) -> str:
    """A worker `worker_id`, last heard of `seconds_ago`."""
    return heard(worker_id, seconds_ago)


def small_run(suite, models, repetitions=1):
    tasks = list(suite.tasks.filter(task_id__in=["retrieve-001", "compute-001"]))
    return launch_run(
        suite=suite, models=models[:1], tasks=tasks, repetitions=repetitions, enqueue=False
    )


def test_a_claim_records_the_worker_that_holds_it(office_suite, sim_models, monkeypatch):
    run = small_run(office_suite, sim_models)
    trace = run.traces.first()
    held = claim(trace.pk, as_worker("w1@host#1#aa"))
    trace.refresh_from_db()
    assert (trace.status, trace.worker, trace.attempts) == ("running", "w1@host#1#aa", 1)
    assert (held.worker, held.attempt) == ("w1@host#1#aa", 1)
    assert claim(trace.pk, "w2@host#2#bb") is None  # delivered twice: claimed once


def test_the_celery_task_claims_under_its_workers_id_and_inline_under_none(
    office_suite, sim_models, monkeypatch
):
    run = small_run(office_suite, sim_models)
    first, second = run.traces.all()[:2]
    holders = []
    real_converse = execution._converse

    def converse(trace, claim=None):
        holders.append(Trace.objects.get(pk=trace.pk).worker)
        return real_converse(trace, claim)

    monkeypatch.setattr(execution, "_converse", converse)
    monkeypatch.setattr(workers, "_identity", "celery@box#7#cc")
    execution.execute_trace_job(first.pk)  # what a worker runs for a message
    execute_trace(second.pk)  # inline, in a process that also hosted a worker
    assert holders == ["celery@box#7#cc", ""]
    assert set(run.traces.values_list("status", "worker")) == {("done", "")}


def test_a_silent_workers_claim_is_requeued_sent_again_and_finished_once(
    office_suite, sim_models, monkeypatch, trace_jobs_sent
):
    run = small_run(office_suite, sim_models)
    lost, other = run.traces.all()[:2]
    claim(lost.pk, as_worker("dead@host#1#aa"))
    Run.objects.filter(pk=run.pk).update(status=Run.Status.RUNNING)
    heard("dead@host#1#aa", settings.WORKER_DEAD_AFTER_S + 5)  # it stopped beating
    as_worker("alive@host#2#bb")

    assert workers.recover_lost_work() == 1

    lost.refresh_from_db()
    assert (lost.status, lost.worker, lost.attempts) == ("queued", "", 1)
    assert (
        lost.pk in trace_jobs_sent and other.pk in trace_jobs_sent
    )  # its message, and the queued ones, again
    execute_inline(run)
    run.refresh_from_db()
    assert run.status == Run.Status.FINISHED
    lost.refresh_from_db()
    assert (lost.status, lost.attempts, lost.worker) == ("done", 2, "")
    assert run.traces.count() == 2 and progress(run.pk)["done"] == 2


def test_a_live_workers_claim_is_left_alone(office_suite, sim_models, monkeypatch, trace_jobs_sent):
    run = small_run(office_suite, sim_models)
    trace = run.traces.first()
    claim(trace.pk, as_worker("busy@host#1#aa", seconds_ago=1))
    assert workers.recover_lost_work() == 0
    trace.refresh_from_db()
    assert trace.status == "running" and trace_jobs_sent == []


def test_a_trace_whose_workers_keep_dying_ends_after_max_attempts(
    office_suite, sim_models, monkeypatch, trace_jobs_sent, settings
):
    settings.JOB_MAX_ATTEMPTS = 2
    run = small_run(office_suite, sim_models)
    trace, other = run.traces.all()[:2]
    for attempt in (1, 2):
        dead = as_worker(f"dead{attempt}@host#1#aa")
        claim(trace.pk, dead)
        heard(dead, settings.WORKER_DEAD_AFTER_S + 5)
        workers.recover_lost_work()
    trace.refresh_from_db()
    assert (trace.status, trace.end_reason, trace.attempts) == ("error", "worker_lost", 2)
    assert "stopped 2 times" in trace.error
    execute_trace(other.pk)  # the last trace ends the run, the given-up one counted
    run.refresh_from_db()
    assert run.status == Run.Status.FINISHED and progress(run.pk)["error"] == 1


def test_a_claim_taken_back_cannot_store_a_result_later(
    office_suite, sim_models, monkeypatch, trace_jobs_sent
):
    """Its worker was only slow (say, paused): the trace ran again elsewhere and stored once."""
    run = small_run(office_suite, sim_models)
    trace = run.traces.first()
    old_claim = claim(trace.pk, as_worker("slow@host#1#aa"))
    heard("slow@host#1#aa", settings.WORKER_DEAD_AFTER_S + 5)
    as_worker("other@host#2#bb")
    workers.recover_lost_work()
    execute_trace(trace.pk)  # the requeued delivery, on the live worker
    stored = Trace.objects.get(pk=trace.pk)

    _save_error(old_claim, "the slow worker's late failure")
    old_trace = Trace.objects.select_related("run", "task", "task__suite", "model").get(pk=trace.pk)
    result = execution._converse(old_trace)
    result.final_response = "the slow worker's late answer"
    execution._save_result(old_trace, old_claim, result)

    after = Trace.objects.get(pk=trace.pk)
    assert (after.status, after.error, after.attempts) == ("done", "", 2)
    assert after.final_response == stored.final_response
    assert after.messages == stored.messages


def test_a_worker_taken_for_lost_stops_its_conversation(office_suite, sim_models, monkeypatch):
    run = small_run(office_suite, sim_models)
    trace = run.traces.first()
    old_claim = claim(trace.pk, as_worker("w@host#1#aa"))
    Trace.objects.filter(pk=trace.pk).update(status="queued", worker="")  # taken back
    provider = jobs.GuardedProvider(trace.model, execution.TRACES, run.pk, old_claim)
    with pytest.raises(EndConversation) as stopped:
        provider.complete([], [], 1.0, None)
    assert stopped.value.reason == EndReason.WORKER_LOST


def test_a_newly_lost_worker_resends_the_queued_traces_once(
    office_suite, sim_models, monkeypatch, trace_jobs_sent
):
    """A dead worker takes the messages it had fetched with it (a filesystem broker deletes
    them on fetch; Redis holds them back for its visibility timeout)."""
    run = small_run(office_suite, sim_models, repetitions=2)
    Run.objects.filter(pk=run.pk).update(status=Run.Status.RUNNING)
    heard("gone@host#1#aa", settings.WORKER_DEAD_AFTER_S + 5)
    as_worker("alive@host#2#bb")
    workers.recover_lost_work()
    assert sorted(trace_jobs_sent) == sorted(run.traces.values_list("pk", flat=True))
    workers.recover_lost_work()
    assert len(trace_jobs_sent) == 4  # once per lost worker
    heard("gone@host#1#aa", 0)  # it beats again: it was only slow
    assert WorkerHeartbeat.objects.get(hostname="gone@host#1#aa").reaped_at is None


def test_a_claim_in_a_cancelled_run_is_cancelled_not_requeued(
    office_suite, sim_models, monkeypatch, trace_jobs_sent
):
    run = small_run(office_suite, sim_models)
    trace = run.traces.first()
    claim(trace.pk, as_worker("dead@host#1#aa"))
    Run.objects.filter(pk=run.pk).update(status=Run.Status.CANCELLED)
    heard("dead@host#1#aa", settings.WORKER_DEAD_AFTER_S + 5)
    as_worker("alive@host#2#bb")
    workers.recover_lost_work()
    trace.refresh_from_db()
    assert (trace.status, trace.end_reason) == ("cancelled", "cancelled")
    assert trace.pk not in trace_jobs_sent


def test_rows_of_workers_long_gone_are_pruned(db, monkeypatch):
    heard("ancient@host#1#aa", 3 * 24 * 3600)
    as_worker("alive@host#2#bb")
    workers.recover_lost_work()  # reaps it
    workers.recover_lost_work()  # prunes it
    assert not WorkerHeartbeat.objects.filter(hostname="ancient@host#1#aa").exists()


def test_worker_ids_are_never_reused():
    first, second = workers.new_identity("celery@box"), workers.new_identity("celery@box")
    assert first != second and first.startswith("celery@box#")


# --- resume ---------------------------------------------------------------------------------


def lost_claims_run(suite, models, monkeypatch):
    run = small_run(suite, models)
    trace = run.traces.first()
    claim(trace.pk, as_worker("dead@host#1#aa"))
    Run.objects.filter(pk=run.pk).update(status=Run.Status.RUNNING)
    heard("dead@host#1#aa", settings.WORKER_DEAD_AFTER_S + 5)
    return run, trace


def test_resume_takes_back_a_running_runs_dead_claims_at_once(
    office_suite, sim_models, monkeypatch, trace_jobs_sent, django_capture_on_commit_callbacks
):
    run, trace = lost_claims_run(office_suite, sim_models, monkeypatch)
    with django_capture_on_commit_callbacks(execute=True):
        assert resume_run(run.pk) == 1
    trace.refresh_from_db()
    assert trace.status == "queued" and trace.pk in trace_jobs_sent
    execute_inline(run)
    run.refresh_from_db()
    assert run.status == Run.Status.FINISHED and progress(run.pk)["done"] == 2


def test_resume_run_command(office_suite, sim_models, monkeypatch, trace_jobs_sent):
    run, trace = lost_claims_run(office_suite, sim_models, monkeypatch)
    out, err = StringIO(), StringIO()
    call_command("resume_run", str(run.pk), stdout=out, stderr=err)
    assert f"Run {run.pk} (running): 1 jobs queued again." in out.getvalue()
    assert "No Celery worker is reporting" in err.getvalue()
    with pytest.raises(CommandError, match="No run 999999"):
        call_command("resume_run", "999999")


def test_resume_button_on_a_running_run_and_404_for_a_missing_one(
    client,
    admin_user,
    office_suite,
    sim_models,
    monkeypatch,
    trace_jobs_sent,
    django_capture_on_commit_callbacks,
):
    run, trace = lost_claims_run(office_suite, sim_models, monkeypatch)
    client.force_login(admin_user)
    page = client.get(reverse("run_detail", args=[run.pk])).content.decode()
    assert "Resume 1 lost" in page and "Cancel run" in page  # offered while it runs
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(reverse("run_resume", args=[run.pk]), follow=True)
    assert "1 jobs queued again" in response.content.decode()
    trace.refresh_from_db()
    assert trace.status == "queued" and trace.pk in trace_jobs_sent
    assert client.post(reverse("run_resume", args=[999999])).status_code == 404


# --- run_benchmark --wait -----------------------------------------------------------------


@pytest.fixture
def fails_instead_of_hanging():
    def hung(signum, frame):
        raise TimeoutError("run_benchmark --wait hung")

    previous = signal.signal(signal.SIGALRM, hung)
    signal.alarm(60)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, previous)


@pytest.mark.django_db(transaction=True)
def test_wait_reports_a_run_stuck_with_a_dead_worker_instead_of_hanging(
    office_suite, sim_models, monkeypatch, settings, fails_instead_of_hanging
):
    """The worker took the jobs and died mid-run; nothing else is running."""

    settings.WORKER_DEAD_AFTER_S = 1
    monkeypatch.setattr(jobs, "NO_WORKER_GRACE_S", 0.5)
    monkeypatch.setattr(jobs, "CHECK_WORKERS_EVERY_S", 0.2)
    heard("doomed@host#1#aa", 0)

    def taken_by_the_doomed_worker(trace_id):
        Trace.objects.filter(pk=trace_id).update(
            status="running", worker="doomed@host#1#aa", attempts=1
        )

    monkeypatch.setattr(execution.execute_trace_job, "delay", taken_by_the_doomed_worker)
    err = StringIO()
    with pytest.raises(SystemExit) as exited:
        call_command(
            "run_benchmark",
            "--suite",
            "office-19",
            "--models",
            "sim-steady",
            "--runs",
            "1",
            "--tasks",
            "retrieve-001,compute-001",
            "--wait",
            stdout=StringIO(),
            stderr=err,
        )
    assert exited.value.code == 2
    assert "No Celery worker is reporting" in err.getvalue()
    assert "2 running trace(s), 2 of them held by a worker that stopped" in err.getvalue()


# --- deliveries -----------------------------------------------------------------------------


def test_deliveries_survive_a_lost_worker():
    conf = app.conf
    assert conf.task_acks_late and conf.task_reject_on_worker_lost
    assert execution.execute_trace_job.acks_late
    assert execution.execute_trace_job.reject_on_worker_lost
    longest = settings.TRACE_WALL_CLOCK_S + settings.PROVIDER_MAX_ATTEMPTS * (
        settings.PROVIDER_TIMEOUT_S + 600  # a call's timeout, then the longest Retry-After
    )
    assert longest <= settings.LONGEST_JOB_S


def test_a_redis_broker_gets_a_visibility_timeout_longer_than_the_longest_job(monkeypatch):
    import importlib

    import config.settings as project_settings

    monkeypatch.setenv("CELERY_BROKER_URL", "redis://127.0.0.1:6379/9")
    try:
        redis_settings = importlib.reload(project_settings)
        timeout = redis_settings.CELERY_BROKER_TRANSPORT_OPTIONS["visibility_timeout"]
        assert timeout > redis_settings.LONGEST_JOB_S
    finally:
        monkeypatch.undo()
        importlib.reload(project_settings)


# --- case-set generation jobs ------------------------------------------------------------------


@pytest.fixture
def generations(monkeypatch):
    """Generation messages sent to workers, kept instead of going to the broker."""
    from patientagentbench.suites import case_sets

    ids = []
    monkeypatch.setattr(case_sets.generate_case_set_job, "delay", ids.append)
    return ids


def test_a_case_set_lost_with_its_worker_is_generated_again_once(generations, monkeypatch):
    from patientagentbench.models import CaseSetJob, Suite
    from patientagentbench.runs.claims import claim_row
    from patientagentbench.suites import case_sets

    job = CaseSetJob.objects.create(name="lost-set", count=3, seed=5)
    # A worker claims it (as run_generation_job does first) and is killed mid-generation.
    dead = as_worker("gone@box#1#aa")
    assert claim_row(CaseSetJob.objects.all(), job.pk, dead) is not None
    heard(dead, 60)  # and has been silent since

    workers.recover_lost_work()  # a live worker's heartbeat
    job.refresh_from_db()
    assert (job.status, job.worker, job.attempts) == ("queued", "", 1)
    assert generations == [job.pk]

    monkeypatch.setattr(workers, "_identity", as_worker("alive@box#2#bb"))
    case_sets.run_generation_job(job.pk)
    case_sets.run_generation_job(job.pk)  # delivered twice: generated once
    job.refresh_from_db()
    assert (job.status, job.worker, job.attempts) == ("done", "", 2)
    assert Suite.objects.filter(name="lost-set").count() == 1
    assert job.finished_at is not None and job.suite.tasks.count() == 3


def test_a_claim_younger_than_the_dead_after_window_is_kept_whoever_made_it(
    office_suite, sim_models, trace_jobs_sent
):
    """A worker that started after the live list was read (a prefork child replacing a dead
    one) may claim before it is seen beating; its claim is not taken back, and one that old
    with no beat since is."""
    run = small_run(office_suite, sim_models)
    trace = run.traces.first()
    claim(trace.pk, "newborn@host#2#bb")  # no heartbeat row yet
    workers.recover_lost_work()
    trace.refresh_from_db()
    assert (trace.status, trace.worker) == ("running", "newborn@host#2#bb")
    silent("newborn@host#2#bb")
    workers.recover_lost_work()
    trace.refresh_from_db()
    assert (trace.status, trace.worker) == ("queued", "")


def test_a_case_set_whose_worker_dies_every_time_fails_with_the_reason(generations):
    from patientagentbench.models import CaseSetJob

    job = CaseSetJob.objects.create(
        name="deadly-set",
        count=3,
        seed=5,
        status="running",
        worker=as_worker("gone@box#3#cc", seconds_ago=60),
        attempts=settings.JOB_MAX_ATTEMPTS,
    )
    workers.recover_lost_work()
    job.refresh_from_db()
    assert job.status == "error" and job.worker == ""
    assert f"case set generation stopped {settings.JOB_MAX_ATTEMPTS} times" in job.error
    assert generations == []
