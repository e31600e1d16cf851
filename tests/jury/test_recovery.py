"""Judge jobs recover from lost workers as traces do: the claim names the worker, a silent
worker's jobs are taken back, an old claim stores no verdicts, resume works while running."""

from io import StringIO

import pytest
from django.core.management import call_command
from django.urls import reverse

from jury import scoring
from jury.models import JuryRun, Verdict
from jury.scoring import claim, execute_inline, execute_job, launch_jury, resume_jury
from patientagentbench.runs import jobs, workers
from ratings.rubric import cached_rubric
from tests.factories import heard, silent
from tests.jury.conftest import scenario_run, two_judge_panel
from tests.patientagentbench.runs.test_recovery import fails_instead_of_hanging  # noqa: F401 - a fixture
from tests.patientagentbench.runs.test_redis_away import broker_away  # noqa: F401 - a fixture

pytestmark = pytest.mark.django_db
DIMENSIONS = len(cached_rubric().scored)


@pytest.fixture
def judge_jobs_sent(monkeypatch):
    ids = []
    monkeypatch.setattr(scoring.score_job_task, "delay", ids.append)
    return ids


@pytest.fixture
def scoring_run(sim_models):
    run = scenario_run(sim_models)
    return launch_jury(panel=two_judge_panel(), run=run, enqueue=False)


def as_worker(worker_id: str, seconds_ago: float = 0) -> str:
    return heard(worker_id, seconds_ago)


def test_a_silent_workers_judge_job_is_requeued_and_scored_once(
    scoring_run, monkeypatch, judge_jobs_sent
):
    job = scoring_run.jobs.first()
    held = claim(job.pk, as_worker("dead@host#1#aa"))
    assert held.worker == "dead@host#1#aa"
    silent("dead@host#1#aa")
    as_worker("alive@host#2#bb")
    assert workers.recover_lost_work() == 1
    job.refresh_from_db()
    assert (job.status, job.worker, job.attempts) == ("queued", "", 1)
    assert job.pk in judge_jobs_sent
    execute_inline(scoring_run)
    scoring_run.refresh_from_db()
    job.refresh_from_db()
    assert scoring_run.status == JuryRun.Status.FINISHED
    assert (job.status, job.attempts) == ("done", 2)
    assert Verdict.objects.filter(job=job).count() == DIMENSIONS


def test_an_old_judge_claim_stores_no_verdicts(scoring_run, monkeypatch, judge_jobs_sent):
    job = scoring_run.jobs.select_related("jury_run__panel", "judge__model").first()
    old_claim = claim(job.pk, as_worker("slow@host#1#aa"))
    answers = scoring.score_conversation(job)
    silent("slow@host#1#aa")
    as_worker("alive@host#2#bb")
    workers.recover_lost_work()
    execute_job(job.pk)  # scored again on a live worker
    stored = {v.dimension: (v.score, v.status) for v in Verdict.objects.filter(job=job)}
    for answer in answers:
        answer.score, answer.status = 1, "ok"  # what the slow worker would write
    scoring._store(job, old_claim, answers)
    after = {v.dimension: (v.score, v.status) for v in Verdict.objects.filter(job=job)}
    assert after == stored
    scoring._fail(old_claim, "late failure")
    job.refresh_from_db()
    assert (job.status, job.error) == ("done", "")


def test_judge_jobs_whose_workers_keep_dying_end_as_errors(
    scoring_run, monkeypatch, judge_jobs_sent, settings
):
    settings.JOB_MAX_ATTEMPTS = 1
    job = scoring_run.jobs.first()
    claim(job.pk, as_worker("dead@host#1#aa"))
    silent("dead@host#1#aa")
    workers.recover_lost_work()
    job.refresh_from_db()
    assert job.status == "error" and "stopped 1 times" in job.error


def test_resume_takes_back_a_running_scorings_lost_jobs(
    scoring_run, monkeypatch, judge_jobs_sent, django_capture_on_commit_callbacks
):
    job = scoring_run.jobs.first()
    claim(job.pk, as_worker("dead@host#1#aa"))
    JuryRun.objects.filter(pk=scoring_run.pk).update(status=JuryRun.Status.RUNNING)
    silent("dead@host#1#aa")
    with django_capture_on_commit_callbacks(execute=True):
        assert resume_jury(scoring_run.pk) == 1
    job.refresh_from_db()
    assert job.status == "queued" and job.pk in judge_jobs_sent


def test_the_resume_button_works_on_a_running_scoring(
    client, researcher, scoring_run, judge_jobs_sent
):
    job = scoring_run.jobs.first()
    claim(job.pk, as_worker("dead@host#1#aa"))
    JuryRun.objects.filter(pk=scoring_run.pk).update(status=JuryRun.Status.RUNNING)
    silent("dead@host#1#aa")
    client.force_login(researcher)
    page = client.post(reverse("jury_run_resume", args=[scoring_run.pk]), follow=True)
    assert "1 judge jobs queued again" in page.content.decode()
    job.refresh_from_db()
    assert job.status == "queued"


@pytest.mark.usefixtures("fails_instead_of_hanging")
def test_run_jury_wait_reports_lost_jobs_instead_of_hanging(sim_models, monkeypatch, settings):
    from jury.management.commands import run_jury

    run = scenario_run(sim_models)
    two_judge_panel()
    settings.WORKER_DEAD_AFTER_S = 1
    monkeypatch.setattr(jobs, "NO_WORKER_GRACE_S", 0.5)
    monkeypatch.setattr(jobs, "CHECK_WORKERS_EVERY_S", 0.2)
    monkeypatch.setattr(jobs, "enqueue_queued", lambda kind, batch_id: 0)
    doomed = as_worker("doomed@host#1#aa")
    real_launch = scoring.launch_jury

    def launched_and_taken(**kwargs):
        jury_run = real_launch(**kwargs)
        for job in jury_run.jobs.all():
            claim(job.pk, doomed)  # taken by the doomed worker, which then dies
        return jury_run

    monkeypatch.setattr(run_jury, "launch_jury", launched_and_taken)
    err = StringIO()
    with pytest.raises(SystemExit) as exited:
        call_command(
            "run_jury",
            "--run",
            str(run.pk),
            "--panel",
            "sim-panel",
            "--wait",
            stdout=StringIO(),
            stderr=err,
        )
    assert exited.value.code == 2
    assert "held by a worker that stopped" in err.getvalue()


def test_a_judge_job_taken_back_mid_conversation_makes_no_further_call(scoring_run, monkeypatch):
    """Its worker was presumed dead and the job queued again for another worker: the old
    holder stops paying at once instead of judging the remaining dimensions."""
    job = scoring_run.jobs.select_related("judge__model").first()
    real = scoring.judge_provider(job.judge.model)
    calls = []

    class TakenBackAfterTwoCalls:
        def complete(self, *args, **kwargs):
            calls.append(1)
            if len(calls) == 2:  # the heartbeat takes the job back while this call runs
                type(job).objects.filter(pk=job.pk).update(status="queued", worker="")
            return real.complete(*args, **kwargs)

    monkeypatch.setattr(scoring, "judge_provider", lambda model: TakenBackAfterTwoCalls())
    execute_job(job.pk, worker=as_worker("slow@host#1#aa"))
    assert len(calls) == 2 < DIMENSIONS
    job.refresh_from_db()
    assert job.status == "queued"  # left to its new holder
    assert not Verdict.objects.filter(job=job).exists()


def test_a_judge_job_stops_calling_at_the_spend_limit_between_parse_attempts(
    scoring_run, monkeypatch
):
    """Every call is checked, retries of an off-format answer included."""
    from patientagentbench.providers.types import Completion

    JuryRun.objects.filter(pk=scoring_run.pk).update(spend_limit=1)
    job = scoring_run.jobs.first()
    calls = []

    class OffFormatAndCostly:
        def complete(self, *args, **kwargs):
            calls.append(1)
            JuryRun.objects.filter(pk=scoring_run.pk).update(spent=5)  # this call's cost
            return Completion(text="not json", tool_calls=[], tokens_in=1, tokens_out=1)

    monkeypatch.setattr(scoring, "judge_provider", lambda model: OffFormatAndCostly())
    execute_job(job.pk)
    assert len(calls) == 1
    scoring_run.refresh_from_db()
    assert scoring_run.status == JuryRun.Status.STOPPED


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("broker_away")
def test_a_jury_launch_with_the_broker_away_says_what_was_kept_queued(
    client, researcher, sim_models
):
    run = scenario_run(sim_models)
    panel = two_judge_panel()
    client.force_login(researcher)
    page = client.post(
        reverse("jury_launch", args=[run.pk]), {"panel": panel.pk, "repeat": 1}, follow=True
    )
    jury_run = JuryRun.objects.get()
    body = page.content.decode()
    assert f"Scoring {jury_run.pk} launched." in body
    assert "The job queue is not answering" in body and "12 jobs queued" in body
    assert f"manage.py resume_jury {jury_run.pk}" in body
    assert set(jury_run.jobs.values_list("status", flat=True)) == {"queued"}

    err = StringIO()
    call_command(
        "run_jury",
        "--run",
        str(run.pk),
        "--panel",
        panel.name,
        "--repeat",
        "2",
        stdout=StringIO(),
        stderr=err,
    )
    assert "12 jobs queued" in err.getvalue()  # the second repetition's twelve


def fail_every_job_for_a_missing_key(scoring_run, monkeypatch):
    def no_key(model):
        raise RuntimeError("OPENAI_API_KEY is not set")

    with monkeypatch.context() as patched:
        patched.setattr(scoring, "judge_provider", no_key)
        execute_inline(scoring_run)
    scoring_run.refresh_from_db()
    assert scoring_run.status == JuryRun.Status.FINISHED
    assert {j.status for j in scoring_run.jobs.all()} == {"error"}


def test_resume_retries_failed_judge_jobs_keeping_their_attempts(
    scoring_run, monkeypatch, judge_jobs_sent, django_capture_on_commit_callbacks
):
    fail_every_job_for_a_missing_key(scoring_run, monkeypatch)
    jobs_n = scoring_run.jobs.count()
    out = StringIO()
    with django_capture_on_commit_callbacks(execute=True):
        call_command("resume_jury", str(scoring_run.pk), stdout=out)
    assert f"{jobs_n} judge jobs queued again" in out.getvalue()
    assert {(j.status, j.attempts, j.error) for j in scoring_run.jobs.all()} == {("queued", 1, "")}
    assert sorted(judge_jobs_sent) == sorted(scoring_run.jobs.values_list("pk", flat=True))
    execute_inline(scoring_run)  # the key is set now
    scoring_run.refresh_from_db()
    assert scoring_run.status == JuryRun.Status.FINISHED
    assert {(j.status, j.attempts) for j in scoring_run.jobs.all()} == {("done", 2)}
    assert Verdict.objects.filter(job__jury_run=scoring_run).count() == jobs_n * DIMENSIONS


def test_the_scoring_page_offers_to_retry_failed_jobs(
    client, researcher, scoring_run, monkeypatch, judge_jobs_sent
):
    fail_every_job_for_a_missing_key(scoring_run, monkeypatch)
    jobs_n = scoring_run.jobs.count()
    client.force_login(researcher)
    page = client.get(reverse("jury_run", args=[scoring_run.pk])).content.decode()
    assert f"Retry the {jobs_n} failed judge jobs" in page
    page = client.post(reverse("jury_run_resume", args=[scoring_run.pk]), follow=True)
    assert f"{jobs_n} judge jobs queued again" in page.content.decode()
    assert not scoring_run.jobs.filter(status="error").exists()
