"""Redis away from the web side: launching a run or a case set keeps everything (the jobs wait
queued and go out when a worker reconnects), and pages that read the cache still answer."""

import logging

import pytest
from django.test import override_settings
from django.urls import reverse

from config.celery import app as celery_app
from patientagentbench.models import CaseSetJob, Run, Trace
from patientagentbench.runs.launch import execute_inline, launch_run
from patientagentbench.runs.workers import resend_queued_jobs
from tests.integration.workers import database_url, free_port, launch_from_the_command_line

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def broker_away():
    """This process's Celery app sending to a Redis nobody listens on."""
    saved = celery_app.conf.broker_write_url
    url = f"redis://127.0.0.1:{free_port()}/0"

    def send_to(to):
        celery_app.conf.broker_write_url = to
        celery_app._pool = None  # pools are made on first use, for the URL then set
        celery_app.amqp._producer_pool = None

    send_to(url)
    assert celery_app.connection_for_write().port == int(url.rsplit(":", 1)[1].split("/")[0])
    yield url
    send_to(saved)


def test_a_launch_with_the_broker_away_keeps_the_run_and_says_so(
    client, admin_user, office_suite, sim_models, broker_away
):
    client.force_login(admin_user)
    form = {
        "suite": office_suite.pk,
        "models": [sim_models[0].pk],
        "repetitions": 1,
        "temperatures": "0",
        "max_iterations": 10,
    }
    response = client.post(reverse("run_launch"), form, follow=True)
    assert response.status_code == 200
    run = Run.objects.get()
    body = response.content.decode()
    assert f"Launched run {run.pk}." in body
    assert "The job queue is not answering" in body and "19 jobs" in body
    assert f"manage.py resume_run {run.pk}" in body
    assert run.is_active
    assert set(run.traces.values_list("status", flat=True)) == {Trace.Status.QUEUED}


def test_queued_jobs_go_out_when_the_broker_is_back(
    office_suite, sim_models, broker_away, monkeypatch
):
    from patientagentbench.runs.execution import execute_trace, execute_trace_job

    run = launch_run(suite=office_suite, models=sim_models[:1], repetitions=2)
    assert run.unsent == 38
    # The broker is back (a stand-in that records what it is handed); a worker reconnecting
    # (runs.reconnect) or losing a peer sends every queued job again.
    sent: list[int] = []
    monkeypatch.setattr(execute_trace_job, "delay", sent.append)
    resend_queued_jobs()
    assert sorted(sent) == sorted(run.traces.values_list("pk", flat=True))
    for trace_id in sent:
        execute_trace(trace_id)
    run.refresh_from_db()
    assert run.status == Run.Status.FINISHED


@pytest.mark.slow
def test_the_command_line_says_the_broker_is_away(office_suite, sim_models, tmp_path):
    env = {
        "PATH": "/usr/bin:/bin",
        "DEBUG": "true",  # a local operator, as make demo runs it
        "DATABASE_URL": database_url(),
        "CELERY_BROKER_URL": f"redis://127.0.0.1:{free_port()}/0",
        "PAB_VAR_DIR": str(tmp_path),
    }
    run, said = launch_from_the_command_line(
        env, "--models", sim_models[0].name, "--tasks", "retrieve-001,retrieve-002"
    )
    queued = run.traces.filter(status=Trace.Status.QUEUED).count()
    assert queued == run.traces.count() == 2 * run.repetitions
    assert "The job queue is not answering" in said
    assert f"{queued} jobs queued" in said
    assert "Traceback" not in said


def test_a_case_set_asked_for_with_the_broker_away_waits_queued(
    client, admin_user, broker_away, monkeypatch
):
    client.force_login(admin_user)
    form = {"name": "away-cases", "count": 3, "seed": 1, "writer": "template"}
    response = client.post(reverse("case_set_list"), form, follow=True)
    assert response.status_code == 200
    job = CaseSetJob.objects.get()
    assert job.status == CaseSetJob.Status.QUEUED
    body = response.content.decode()
    assert "The job queue is not answering" in body and "saved, queued" in body
    from patientagentbench.suites import case_sets

    received: list[int] = []
    monkeypatch.setattr(case_sets.generate_case_set_job, "delay", received.append)
    resend_queued_jobs()
    assert received == [job.pk]


@pytest.fixture
def cache_away():
    url = f"redis://127.0.0.1:{free_port()}/0"
    backend = {
        "BACKEND": "patientagentbench.cache.ForgivingRedisCache",
        "LOCATION": url,
        "OPTIONS": {"socket_connect_timeout": 1, "socket_timeout": 1},
    }
    with override_settings(CACHES={"default": backend}):
        yield


def test_pages_that_cache_answer_with_redis_away(
    client, researcher, office_suite, sim_models, cache_away, caplog, monkeypatch
):
    from django.conf import settings
    from django.core.cache import cache, caches

    import patientagentbench.cache

    # The outage is logged once a minute; an earlier test in this process may have used it.
    monkeypatch.setattr(patientagentbench.cache, "_last_logged", 0.0)
    caplog.set_level(logging.WARNING, logger="patientagentbench.cache")

    run = launch_run(suite=office_suite, models=sim_models, repetitions=2, enqueue=False)
    execute_inline(run)
    client.force_login(researcher)
    for url in (
        reverse("run_report", args=[run.pk]),
        reverse("run_detail", args=[run.pk]),
        reverse("research_dashboards"),
        reverse("research_dashboard_jury"),
        reverse("research_dashboard_raters"),
    ):
        assert client.get(url, follow=True).status_code == 200, url
    assert type(caches["default"]).__name__ == "ForgivingRedisCache"
    assert caches["default"]._servers == [settings.CACHES["default"]["LOCATION"]]
    assert cache.get("anything", "missed") == "missed"
    assert cache.add("lock", 1) is True  # a compute lock: go on and compute
    assert "Redis is not answering" in caplog.text
