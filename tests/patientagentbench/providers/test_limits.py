"""Runaway generations: every call carries the model's max output tokens on the wire, and
every conversation stops at its wall-clock limit."""

import itertools
from io import StringIO

import pytest
from django.core.management import call_command
from django.urls import reverse

from jury.models import Judge, Panel
from jury.scoring import execute_job, launch_jury
from patientagentbench.conversation import EndReason, TaskUser, run_conversation
from patientagentbench.models import ModelConfig, Trace
from patientagentbench.providers.types import Completion, ToolCall
from patientagentbench.runs.launch import execute_inline, launch_run
from patientagentbench.views.forms import ModelConfigForm
from tests.fakes.llm_server import ANTHROPIC, OPENAI, delayed_reply, tool_call_reply

pytestmark = pytest.mark.django_db


def one_task_run(suite, model, **options):
    tasks = list(suite.tasks.filter(task_id="retrieve-001"))
    run = launch_run(
        suite=suite, models=[model], tasks=tasks, repetitions=1, enqueue=False, **options
    )
    execute_inline(run)
    return run.traces.get()


def test_openai_calls_carry_max_completion_tokens(llm_server, office_suite, monkeypatch):
    monkeypatch.setenv("PAB_TEST_OPENAI_KEY", "sk-test")
    model = ModelConfig.objects.create(
        name="gpt",
        provider="openai",
        model_id="gpt-test",
        base_url=llm_server.openai_base_url,
        api_key_env="PAB_TEST_OPENAI_KEY",
        max_output_tokens=123,
    )
    trace = one_task_run(office_suite, model)
    bodies = llm_server.bodies(OPENAI)
    assert trace.status == "done" and len(bodies) >= 2
    assert {b.get("max_completion_tokens") for b in bodies} == {123}
    assert not any("max_tokens" in b for b in bodies)


def test_openai_compatible_calls_carry_max_tokens_by_default(llm_server, office_suite):
    model = ModelConfig.objects.create(
        name="local",
        provider="openai_compatible",
        model_id="qwen",
        base_url=llm_server.openai_base_url,
    )
    assert model.max_output_tokens == 2048
    trace = one_task_run(office_suite, model)
    assert trace.status == "done"
    assert {b.get("max_tokens") for b in llm_server.bodies(OPENAI)} == {2048}


def test_anthropic_calls_carry_the_models_max_tokens(llm_server, office_suite, monkeypatch):
    monkeypatch.setenv("PAB_TEST_ANTHROPIC_KEY", "sk-ant-test")
    model = ModelConfig.objects.create(
        name="claude",
        provider="anthropic",
        model_id="claude-test",
        base_url=llm_server.anthropic_base_url,
        api_key_env="PAB_TEST_ANTHROPIC_KEY",
        max_output_tokens=77,
    )
    trace = one_task_run(office_suite, model)
    assert trace.status == "done"
    assert {b["max_tokens"] for b in llm_server.bodies(ANTHROPIC)} == {77}


def test_a_judge_asks_for_the_lower_of_its_models_cap_and_the_verdict_cap(
    llm_server, office_suite, sim_models
):
    run = launch_run(suite=office_suite, models=sim_models[:1], repetitions=1, enqueue=False)
    Trace.objects.filter(run=run).exclude(pk=run.traces.first().pk).delete()
    execute_inline(run)
    judge_model = ModelConfig.objects.create(
        name="small-judge",
        provider="openai_compatible",
        model_id="judge",
        base_url=llm_server.openai_base_url,
        max_output_tokens=300,
    )
    panel = Panel.objects.create(name="capped")
    panel.judges.add(Judge.objects.create(name="capped-judge", model=judge_model))
    jury_run = launch_jury(panel=panel, run=run, enqueue=False)
    execute_job(jury_run.jobs.get().pk)
    assert {b["max_tokens"] for b in llm_server.bodies(OPENAI)} == {300}  # below the 600 cap


def test_the_model_form_edits_max_output_tokens(client, admin_user):
    fields = {
        "name": "m",
        "provider": "openai_compatible",
        "model_id": "x",
        "base_url": "http://127.0.0.1:1/v1",
        "price_in": "0",
        "price_out": "0",
        "max_concurrency": "8",
        "enabled": "on",
    }
    assert not ModelConfigForm({**fields, "max_output_tokens": "0"}).is_valid()
    assert not ModelConfigForm({**fields, "max_output_tokens": "10000000"}).is_valid()
    client.force_login(admin_user)
    page = client.get(reverse("model_create")).content.decode()
    assert 'name="max_output_tokens"' in page and 'value="2048"' in page
    client.post(reverse("model_create"), {**fields, "max_output_tokens": "512"})
    assert ModelConfig.objects.get(name="m").max_output_tokens == 512


def test_add_model_sets_max_output_tokens_and_keeps_it_on_update(db):
    args = ["add_model", "m", "--provider", "simulated", "--model", "sim-steady"]
    call_command(*args, "--max-output-tokens", "999", stdout=StringIO())
    assert ModelConfig.objects.get(name="m").max_output_tokens == 999
    call_command(*args, "--max-concurrency", "2", stdout=StringIO())
    assert ModelConfig.objects.get(name="m").max_output_tokens == 999


# --- wall clock -------------------------------------------------------------------------------


def test_a_conversation_past_its_deadline_ends_with_its_own_reason():
    clock = itertools.count(0.0, 1.0).__next__  # each look at the clock: one second later
    calls = []

    def complete(messages):
        calls.append(len(messages))
        step = f'{{"step": {len(calls)}}}'  # a new call each time, never a loop
        return Completion(
            text="", tool_calls=[ToolCall.parse(id="t", name="look", raw_arguments=step)]
        )

    result = run_conversation(
        complete=complete,
        world=_OkWorld(),
        user=TaskUser("go"),
        system_prompt="",
        max_iterations=50,
        deadline=3.5,
        clock=clock,
    )
    assert result.end_reason == EndReason.WALL_CLOCK
    assert len(calls) == 4  # the clock is read before each call: 0, 1, 2, 3 pass; 4 stops


class _Outcome:
    status = "ok"

    def as_text(self):
        return "{}"


class _OkWorld:
    def call(self, name, arguments):
        return _Outcome()


def test_a_trace_stops_at_the_wall_clock_limit(llm_server, office_suite, settings):
    settings.TRACE_WALL_CLOCK_S = 0.5
    llm_server.script(
        OPENAI,
        *[
            # a new query each time: the agent searches, it does not loop
            delayed_reply(0.2, tool_call_reply(("search_contacts", {"query": f"q{i}"})))
            for i in range(8)
        ],
    )
    model = ModelConfig.objects.create(
        name="slow",
        provider="openai_compatible",
        model_id="slow",
        base_url=llm_server.openai_base_url,
    )
    trace = one_task_run(office_suite, model, max_iterations=20)
    assert (trace.status, trace.end_reason) == ("done", "wall_clock")
    assert 2 <= len(llm_server.requests) <= 4  # not the 8 scripted, nor 20 iterations
    assert trace.correctness is not None  # scored like any conversation that ended


def test_a_judge_job_stops_at_the_wall_clock_limit(office_suite, sim_models, settings):
    run = launch_run(suite=office_suite, models=sim_models[:1], repetitions=1, enqueue=False)
    Trace.objects.filter(run=run).exclude(pk=run.traces.first().pk).delete()
    execute_inline(run)
    judge_model = ModelConfig.objects.create(
        name="sim-judge-a", provider="simulated", model_id="sim-judge-a"
    )
    panel = Panel.objects.create(name="timed")
    panel.judges.add(Judge.objects.create(name="timed-judge", model=judge_model))
    jury_run = launch_jury(panel=panel, run=run, enqueue=False)
    settings.TRACE_WALL_CLOCK_S = 0
    job = jury_run.jobs.get()
    execute_job(job.pk)
    job.refresh_from_db()
    assert job.status == "error" and "wall-clock limit" in job.error
    assert not job.verdicts.exists()
