"""Pages researchers and admins use: content, escaping, htmx partials, query counts."""

import json
import os

import pytest
from django.urls import reverse
from django_htmx.http import HttpResponseStopPolling

from patientagentbench.models import ModelConfig, Run, Trace
from patientagentbench.runs.launch import execute_inline, launch_run

pytestmark = pytest.mark.django_db


def two_task_run(office_suite, sim_models) -> Run:
    """Two office tasks × the simulated models × 2 repetitions, queued, not run."""
    return launch_run(
        suite=office_suite,
        models=sim_models,
        repetitions=2,
        tasks=list(office_suite.tasks.filter(task_id__in=["retrieve-001", "schedule-001"])),
        enqueue=False,
    )


@pytest.fixture
def finished_two_task_run(office_suite, sim_models):
    run = two_task_run(office_suite, sim_models)
    execute_inline(run)
    return run


def test_model_list_shows_whether_a_key_is_set_never_the_key(client, admin_user, monkeypatch):
    monkeypatch.setenv("PAB_TEST_KEY", "sk-very-secret-value")
    ModelConfig.objects.create(
        name="gpt", provider="openai", model_id="gpt-4.1", api_key_env="PAB_TEST_KEY"
    )
    ModelConfig.objects.create(
        name="claude", provider="anthropic", model_id="c", api_key_env="PAB_UNSET_KEY"
    )
    client.force_login(admin_user)
    body = client.get(reverse("model_list")).content.decode()
    assert "PAB_TEST_KEY set" in body and "PAB_UNSET_KEY not set" in body
    assert "sk-very-secret-value" not in body


def test_create_edit_and_disable_a_model(client, admin_user):
    client.force_login(admin_user)
    response = client.post(
        reverse("model_create"),
        {
            "name": "local-llama",
            "provider": "openai_compatible",
            "model_id": "llama3",
            "base_url": "http://127.0.0.1:11434/v1",
            "api_key_env": "",
            "price_in": "0",
            "price_out": "0",
            "max_concurrency": 4,
            "enabled": "on",
        },
    )
    assert response.status_code == 302
    model = ModelConfig.objects.get(name="local-llama")
    client.post(reverse("model_toggle", args=[model.pk]))
    model.refresh_from_db()
    assert model.enabled is False


def test_openai_compatible_without_base_url_is_refused(client, admin_user):
    client.force_login(admin_user)
    response = client.post(
        reverse("model_create"),
        {
            "name": "x",
            "provider": "openai_compatible",
            "model_id": "m",
            "price_in": "0",
            "price_out": "0",
            "max_concurrency": 4,
        },
    )
    assert response.status_code == 200
    assert "needs a base URL" in response.content.decode()
    assert not ModelConfig.objects.filter(name="x").exists()


def test_launch_preview_counts_jobs_and_cost(client, admin_user, office_suite, sim_models):
    priced = ModelConfig.objects.create(
        name="p", provider="simulated", model_id="sim-steady", price_in=1, price_out=2
    )
    client.force_login(admin_user)
    response = client.get(
        reverse("run_preview"),
        {
            "suite": office_suite.pk,
            "models": [sim_models[0].pk, priced.pk],
            "repetitions": 10,
            "temperatures": "0, 1.0",
        },
        headers={"HX-Request": "true"},
    )
    body = response.content.decode()
    assert ">760<" in body  # 19 tasks × 2 models × 2 temperatures × 10 runs
    assert "<html" not in body  # only the partial


def test_launch_form_creates_a_run_and_queues_its_jobs(
    client, admin_user, office_suite, sim_models, django_capture_on_commit_callbacks, monkeypatch
):
    sent = []
    monkeypatch.setattr("patientagentbench.runs.execution.execute_trace_job.delay", sent.append)
    client.force_login(admin_user)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            reverse("run_launch"),
            {
                "suite": office_suite.pk,
                "models": [m.pk for m in sim_models],
                "repetitions": 3,
                "temperatures": "1.0",
                "max_iterations": 10,
            },
        )
    run = Run.objects.get()
    assert response["Location"] == reverse("run_detail", args=[run.pk])
    assert run.traces.count() == 19 * 2 * 3 == len(sent)


def test_run_detail_polls_while_active_and_stops_when_done(
    client, researcher, finished_two_task_run
):
    client.force_login(researcher)
    url = reverse("run_detail", args=[finished_two_task_run.pk])
    finished = client.get(url, headers={"HX-Request": "true"})
    assert finished.status_code == HttpResponseStopPolling.status_code
    assert "hx-trigger" not in finished.content.decode()
    Run.objects.filter(pk=finished_two_task_run.pk).update(status=Run.Status.RUNNING)
    live = client.get(url, headers={"HX-Request": "true"})
    assert live.status_code == 200 and 'hx-trigger="every 1s"' in live.content.decode()


def test_run_detail_query_count_does_not_grow_with_traces(
    client, researcher, finished_two_task_run, office_suite, sim_models
):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    client.force_login(researcher)
    # Both queued, so both pages ask the same questions (a live run also counts lost traces).
    smaller = launch_run(
        suite=office_suite,
        models=sim_models,
        repetitions=1,
        tasks=list(office_suite.tasks.all()[:2]),
        enqueue=False,
    )
    bigger = launch_run(suite=office_suite, models=sim_models, repetitions=5, enqueue=False)
    counts = []
    for run in (smaller, bigger):
        client.get(reverse("run_detail", args=[run.pk]))  # warm the session and user caches
        with CaptureQueriesContext(connection) as queries:
            client.get(reverse("run_detail", args=[run.pk]))
        counts.append(len(queries))
    assert bigger.traces.count() > 10 * smaller.traces.count()
    assert counts[0] == counts[1] <= 12


def test_trace_page_escapes_model_and_tool_text(client, researcher, finished_two_task_run):
    trace = finished_two_task_run.traces.first()
    evil = "<script>alert('x')</script>"
    messages = trace.messages + [
        {
            "role": "assistant",
            "content": evil,
            "tool_calls": [
                {
                    "id": "t99",
                    "name": "create_note",
                    "raw_arguments": json.dumps({"title": evil}),
                    "arguments": {"title": evil},
                    "provider_id": "call_zz",
                    "malformed": False,
                }
            ],
        },
        {
            "role": "tool",
            "content": json.dumps({"note": evil}),
            "tool_call_id": "t99",
            "status": "ok",
        },
    ]
    Trace.objects.filter(pk=trace.pk).update(messages=messages, final_response=evil)
    client.force_login(researcher)
    body = client.get(reverse("trace_detail", args=[trace.pk])).content.decode()
    assert evil not in body
    assert "&lt;script&gt;" in body
    assert "call_zz" not in body  # provider ids stay in the raw payload


def test_trace_page_shows_tool_cards_side_effects_and_state(
    client, researcher, finished_two_task_run
):
    trace = finished_two_task_run.traces.get(
        task__task_id="retrieve-001", model_name="sim-steady", repetition=0
    )
    client.force_login(researcher)
    body = client.get(reverse("trace_detail", args=[trace.pk])).content.decode()
    assert "send_email" in body and "email_sent" in body
    assert "Final sandbox state" in body
    assert "Correctness" in body


@pytest.mark.slow
def test_no_secret_key_refuses_to_start_without_debug():
    import subprocess
    import sys

    env = {**os.environ, "DEBUG": "false", "SECRET_KEY": ""}
    result = subprocess.run(
        [
            sys.executable,
            "-c",
            "import django, os; os.environ['DJANGO_SETTINGS_MODULE']='config.settings'; django.setup()",
        ],
        env=env,
        capture_output=True,
        text=True,
    )
    assert result.returncode != 0
    assert "SECRET_KEY must be set" in result.stderr


def test_run_detail_says_how_many_conversations_hit_which_limit(
    client, researcher, office_suite, sim_models
):
    from patientagentbench.models import Trace
    from patientagentbench.runs.launch import execute_inline, launch_run

    run = launch_run(
        suite=office_suite,
        models=sim_models[:1],
        repetitions=3,
        tasks=list(office_suite.tasks.all()[:2]),
        enqueue=False,
    )
    execute_inline(run)
    first, second = run.traces.order_by("pk")[:2]
    Trace.objects.filter(pk=first.pk).update(end_reason="max_iterations")
    Trace.objects.filter(pk=second.pk).update(end_reason="repeated_call")
    client.force_login(researcher)
    body = client.get(reverse("run_detail", args=[run.pk])).content.decode()
    assert "How conversations ended: " in body
    assert "4 answered" in body
    assert "1 hit the tool-call limit in one turn" in body
    assert "1 the agent repeated one call three times" in body


def _running_shown(client, run) -> str:
    body = client.get(reverse("run_detail", args=[run.pk])).content.decode()
    return body.split('data-testid="running-count">', 1)[1].split("<", 1)[0]


def test_the_running_count_counts_claimed_traces_and_those_that_just_ended(
    client, researcher, office_suite, sim_models
):
    """Issue 20 Must 8: 'Running 0' stayed 0 through a live run. A claimed trace is running;
    and as a simulated conversation lasts milliseconds and the page polls each second, a
    trace that ended a moment ago was running too: both count while the run is live."""
    from datetime import timedelta

    from django.utils import timezone

    from patientagentbench.runs.execution import claim

    run = two_task_run(office_suite, sim_models)
    first, second, third, *_rest = run.traces.order_by("pk")
    assert claim(first.pk, "worker-a") is not None  # queued → running
    Run.objects.filter(pk=run.pk).update(status=Run.Status.RUNNING)
    now = timezone.now()
    Trace.objects.filter(pk=second.pk).update(
        status=Trace.Status.DONE, started_at=now, finished_at=now - timedelta(seconds=1)
    )
    Trace.objects.filter(pk=third.pk).update(  # ended long ago: not running lately
        status=Trace.Status.DONE, started_at=now, finished_at=now - timedelta(minutes=5)
    )
    client.force_login(researcher)
    assert _running_shown(client, run) == "2"
    Run.objects.filter(pk=run.pk).update(status=Run.Status.FINISHED)
    assert _running_shown(client, run) == "0"  # an ended run has nothing running
