"""Whole runs against a local server speaking the OpenAI and Anthropic wire formats."""

from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.urls import reverse

from patientagentbench.models import ModelConfig, Run, Trace
from patientagentbench.runs.launch import execute_inline, launch_run
from tests.fakes.llm_server import OPENAI, FakeLLMServer, error_reply

pytestmark = pytest.mark.django_db


def test_a_model_added_with_add_model_runs_the_whole_suite(llm_server, office_suite, monkeypatch):
    monkeypatch.setenv("LOCAL_LLM_KEY", "sk-local")
    out = StringIO()
    call_command(
        "add_model",
        "local",
        "--provider",
        "openai_compatible",
        "--model",
        "qwen",
        "--base-url",
        llm_server.openai_base_url,
        "--api-key-env",
        "LOCAL_LLM_KEY",
        "--price-in",
        "1",
        "--price-out",
        "2",
        stdout=out,
    )
    assert "Added model local" in out.getvalue()
    model = ModelConfig.objects.get(name="local")
    run = launch_run(suite=office_suite, models=[model], repetitions=1, enqueue=False)
    execute_inline(run)
    run.refresh_from_db()
    assert run.status == Run.Status.FINISHED
    assert run.traces.filter(status=Trace.Status.DONE).count() == 19
    trace = run.traces.first()
    assert trace.tool_calls and trace.tool_calls[0]["id"] == "t1"
    assert trace.tokens_in > 0 and trace.cost > 0
    assert run.spent == sum(t.cost for t in run.traces.all())
    bodies = llm_server.bodies(OPENAI)
    assert all(b["model"] == "qwen" and b["temperature"] == 1.0 for b in bodies)
    assert {
        h.get("Authorization") or h.get("authorization")
        for h in (r.headers for r in llm_server.requests)
    } == {"Bearer sk-local"}


def test_429_with_retry_after_is_retried_and_the_run_finishes(llm_server, office_suite, settings):
    settings.PROVIDER_BASE_DELAY_S = 0.01
    llm_server.script(
        OPENAI, error_reply(429, "slow down", {"Retry-After": "0.05"}), error_reply(503, "busy")
    )
    model = ModelConfig.objects.create(
        name="m", provider="openai_compatible", model_id="x", base_url=llm_server.openai_base_url
    )
    trace = _one_task_run(office_suite, model)
    assert trace.status == Trace.Status.DONE, trace.error
    assert len(llm_server.requests) >= 4  # two failures, then the conversation


def test_a_provider_that_keeps_failing_ends_as_an_error_trace(llm_server, office_suite, settings):
    settings.PROVIDER_BASE_DELAY_S = 0.001
    settings.PROVIDER_MAX_ATTEMPTS = 3
    llm_server.script(OPENAI, *[error_reply(500, "boom")] * 3)
    model = ModelConfig.objects.create(
        name="m", provider="openai_compatible", model_id="x", base_url=llm_server.openai_base_url
    )
    run = launch_run(
        suite=office_suite,
        models=[model],
        repetitions=1,
        enqueue=False,
        tasks=list(office_suite.tasks.filter(task_id="retrieve-001")),
    )
    execute_inline(run)
    trace = run.traces.get()
    run.refresh_from_db()
    assert trace.status == Trace.Status.ERROR and "500" in trace.error
    assert run.status == Run.Status.FAILED
    assert len(llm_server.requests) == 3


def test_a_provider_rate_limiting_for_a_while_slows_the_run_and_it_completes(
    office_suite, settings
):
    """The fault: 429 for a window (a minute in production, 1.5 s here) across a whole run.
    What survives: every trace, done, none errored."""
    import time

    from tests.fakes.llm_server import error_reply, first_tool_then_answer

    settings.PROVIDER_BASE_DELAY_S = 0.05
    settings.PROVIDER_MAX_ATTEMPTS = 2  # a 429 window far longer than two attempts
    settings.PROVIDER_RATE_LIMIT_PATIENCE_S = 30
    until = time.monotonic() + 1.5

    def policy(route, body):
        if time.monotonic() < until:
            return error_reply(429, "rate limited", {"Retry-After": "0.2"})
        return first_tool_then_answer(route, body)

    with FakeLLMServer(policy=policy) as server:
        model = ModelConfig.objects.create(
            name="m", provider="openai_compatible", model_id="x", base_url=server.openai_base_url
        )
        run = launch_run(
            suite=office_suite,
            models=[model],
            repetitions=2,
            enqueue=False,
            tasks=list(office_suite.tasks.all()[:2]),
        )
        started = time.monotonic()
        execute_inline(run)
        statuses = list(run.traces.values_list("status", flat=True))
        requests = len(server.requests)
    run.refresh_from_db()
    assert run.status == Run.Status.FINISHED
    assert statuses == [Trace.Status.DONE] * 4
    assert time.monotonic() - started >= 1.5  # it waited the window out
    assert requests > 8  # two calls per conversation, plus the refused ones


def _one_task_run(office_suite, model):
    run = launch_run(
        suite=office_suite,
        models=[model],
        repetitions=1,
        enqueue=False,
        tasks=list(office_suite.tasks.filter(task_id="retrieve-001")),
    )
    execute_inline(run)
    return run.traces.get()


def test_a_call_retried_after_a_timeout_is_a_warning_on_the_trace_and_in_the_log(
    llm_server, office_suite, settings, caplog
):
    from tests.fakes.llm_server import delayed_reply

    settings.PROVIDER_BASE_DELAY_S = 0.01
    settings.PROVIDER_TIMEOUT_S = 0.3
    llm_server.script(OPENAI, delayed_reply(1.0))  # the first call runs past the timeout
    model = ModelConfig.objects.create(
        name="local-qwen2.5",
        provider="openai_compatible",
        model_id="x",
        base_url=llm_server.openai_base_url,
    )
    with caplog.at_level("WARNING", logger="patientagentbench.runs.jobs"):
        trace = _one_task_run(office_suite, model)
    assert trace.status == Trace.Status.DONE, trace.error  # the retry saved it...
    (warning,) = trace.warnings  # ...and the researcher hears of it
    assert warning["kind"] == "timeout_retry" and warning["model"] == "local-qwen2.5"
    assert "timed out after 0.3 s" in warning["detail"]
    assert "PROVIDER_TIMEOUT_S_LOCAL_QWEN2_5" in warning["detail"]
    assert any("timed out after 0.3 s" in r.getMessage() for r in caplog.records)


def test_a_model_with_its_own_timeout_waits_for_a_slow_answer(llm_server, office_suite, settings):
    from tests.fakes.llm_server import delayed_reply

    settings.PROVIDER_BASE_DELAY_S = 0.01
    settings.PROVIDER_TIMEOUT_S = 0.3
    settings.PROVIDER_TIMEOUTS_S = {"LOCAL_QWEN2_5": 5.0}  # PROVIDER_TIMEOUT_S_LOCAL_QWEN2_5=5
    llm_server.script(OPENAI, delayed_reply(1.0))
    model = ModelConfig.objects.create(
        name="local-qwen2.5",
        provider="openai_compatible",
        model_id="x",
        base_url=llm_server.openai_base_url,
    )
    trace = _one_task_run(office_suite, model)
    assert trace.status == Trace.Status.DONE, trace.error
    assert trace.warnings == []
    assert trace.latency_ms >= 1000  # it waited for the slow first answer, no retry


# --- a real model without prices: the limit counts calls (issue 34 #1, for runs) -------------


def unpriced_local(llm_server) -> ModelConfig:
    return ModelConfig.objects.create(
        name="qwen-local",
        provider="openai_compatible",
        model_id="qwen",
        base_url=llm_server.openai_base_url,
    )


def test_run_benchmark_on_an_unpriced_model_needs_a_call_limit(llm_server, office_suite):
    unpriced_local(llm_server)
    with pytest.raises(CommandError, match="No price for qwen-local.*the limit counts calls"):
        call_command(
            "run_benchmark", "--suite", "office-19", "--models", "qwen-local",
            "--spend-limit", "0.01", stdout=StringIO(),
        )  # fmt: skip
    assert not Run.objects.exists()


def test_a_run_stops_at_its_call_limit_without_one_call_more(llm_server, office_suite):
    model = unpriced_local(llm_server)
    run = launch_run(suite=office_suite, models=[model], call_limit=5, enqueue=False)
    execute_inline(run)
    run.refresh_from_db()
    assert run.status == Run.Status.STOPPED and "call limit" in run.stop_reason
    assert run.calls == 5 == len(llm_server.bodies(OPENAI))  # counted before each call
    assert run.spent == 0  # what a dollar limit would have seen


def test_the_launch_page_asks_for_a_call_limit_for_an_unpriced_model(
    client, admin_user, llm_server, office_suite
):
    model = unpriced_local(llm_server)
    client.force_login(admin_user)
    form = {
        "suite": office_suite.pk,
        "models": [model.pk],
        "repetitions": 1,
        "temperatures": "1.0",
        "max_iterations": 10,
        "spend_limit": "0.01",
    }
    page = client.post(reverse("run_launch"), form).content.decode()
    assert "No price for qwen-local" in page and not Run.objects.exists()
    preview = client.get(reverse("run_preview"), form).content.decode()
    assert "the limit counts calls" in preview
    client.post(reverse("run_launch"), {**form, "call_limit": 40})
    assert Run.objects.get().call_limit == 40
