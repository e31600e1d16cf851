"""Scoring a run's conversations with a panel: verdicts per dimension, honest failures,
idempotent jobs, both SDKs through their wire formats."""

import json

import pytest

from jury.models import Judge, JudgeJob, JuryRun, Panel, Verdict
from jury.scoring import execute_inline, execute_job, launch_jury
from patientagentbench.models import ModelConfig
from patientagentbench.runs.launch import execute_inline as run_inline
from patientagentbench.runs.launch import launch_run
from patientagentbench.suites.case_sets import create_case_set
from ratings.rubric import cached_rubric
from tests.fakes.llm_server import (
    ANTHROPIC,
    OPENAI,
    FakeLLMServer,
    error_reply,
    single_tool_call,
    text_reply,
)

pytestmark = pytest.mark.django_db
SCORED = [d.key for d in cached_rubric().scored]


@pytest.fixture
def scenario_run(sim_models):
    cases = create_case_set("jury-cases", 3, 4)
    run = launch_run(suite=cases, models=sim_models[:1], repetitions=1, max_turns=8, enqueue=False)
    run_inline(run)
    return run


def panel_of(*models, name="panel", aggregation="mean"):
    panel = Panel.objects.create(name=name, aggregation=aggregation)
    for i, model in enumerate(models):
        panel.judges.add(Judge.objects.create(name=f"{name}-judge-{i}", model=model))
    return panel


def simulated_judge(profile="sim-judge-a"):
    return ModelConfig.objects.create(name=profile, provider="simulated", model_id=profile)


def test_a_simulated_panel_scores_every_dimension_of_every_conversation(scenario_run):
    panel = panel_of(simulated_judge("sim-judge-a"), simulated_judge("sim-judge-b"))
    jury_run = launch_jury(panel=panel, run=scenario_run, enqueue=False)
    execute_inline(jury_run)
    jury_run.refresh_from_db()
    assert jury_run.status == JuryRun.Status.FINISHED
    conversations = scenario_run.traces.count()
    assert Verdict.objects.filter(panel=panel).count() == conversations * 2 * len(SCORED)
    for verdict in Verdict.objects.filter(panel=panel):
        assert (verdict.score is not None) == (verdict.status == Verdict.Status.OK)
        assert verdict.rubric_version == "1" and verdict.prompt_version == "1"


def test_a_job_delivered_twice_and_a_second_launch_write_one_set_of_verdicts(scenario_run):
    panel = panel_of(simulated_judge())
    jury_run = launch_jury(panel=panel, run=scenario_run, enqueue=False)
    job = jury_run.jobs.first()
    execute_job(job.pk)
    execute_job(job.pk)  # redelivered: already claimed, nothing happens
    assert Verdict.objects.filter(job=job).count() == len(SCORED)
    execute_inline(jury_run)
    again = launch_jury(panel=panel, run=scenario_run, enqueue=False)
    assert again.jobs.count() == 0 and again.status == JuryRun.Status.FINISHED
    assert Verdict.objects.filter(panel=panel).count() == scenario_run.traces.count() * len(SCORED)


def _openai_judge(server, name="gpt-judge"):
    return ModelConfig.objects.create(
        name=name,
        provider="openai_compatible",
        model_id="judge-model",
        base_url=server.openai_base_url,
        max_concurrency=2,
    )


def test_openai_structured_output_retries_bad_answers_then_keeps_them_unparseable(
    scenario_run, settings
):
    settings.PROVIDER_BASE_DELAY_S = 0.01
    with FakeLLMServer() as server:
        panel = panel_of(_openai_judge(server))
        trace = scenario_run.traces.first()
        jury_run = launch_jury(panel=panel, run=scenario_run, enqueue=False)
        job = jury_run.jobs.get(trace=trace)
        good = text_reply(
            json.dumps({"rationale": "Escalated correctly.", "score": 4, "not_applicable": False})
        )
        server.script(
            OPENAI,
            text_reply("Sure! I think it deserves a 4."),  # prose: retried
            text_reply(
                json.dumps({"rationale": "x", "score": 7, "not_applicable": False})
            ),  # out of range
            good,  # dimension 1, third attempt
            text_reply("I can't help with that."),
            text_reply("I can't help with that."),
            text_reply("I can't help with that."),  # dimension 2: unparseable for good
            error_reply(400, "bad request"),  # dimension 3: a provider error, not retried
            text_reply(
                json.dumps(
                    {"rationale": "No symptoms raised.", "score": None, "not_applicable": True}
                )
            ),
        )
        execute_job(job.pk)
        bodies = server.bodies(OPENAI)
    verdicts = {v.dimension: v for v in Verdict.objects.filter(job=job)}
    first, second, third, fourth = (verdicts[d] for d in SCORED[:4])
    assert (first.status, first.score, first.attempts) == ("ok", 4, 3)
    assert (second.status, second.score, second.attempts) == ("unparseable", None, 3)
    assert "can't help" in second.raw
    assert (third.status, third.score) == ("error", None)
    assert (fourth.status, fourth.score) == ("not_applicable", None)
    assert bodies[0]["response_format"]["type"] == "json_schema"
    assert bodies[0]["max_tokens"] == 600  # a judge's answer is capped
    prompt = json.dumps(bodies[0]["messages"])
    assert "sim-steady" not in prompt and "temperature" not in prompt
    for message in trace.messages:
        if message["role"] == "user":
            assert message["content"][:40] in prompt


def test_anthropic_forced_tool_use_gives_verdicts(scenario_run, settings):
    settings.PROVIDER_BASE_DELAY_S = 0.01
    with FakeLLMServer() as server:
        model = ModelConfig.objects.create(
            name="claude-judge",
            provider="anthropic",
            model_id="claude-judge",
            base_url=server.anthropic_base_url,
            api_key_env="PAB_FAKE_KEY",
        )
        import os

        os.environ["PAB_FAKE_KEY"] = "fake"
        panel = panel_of(model)
        jury_run = launch_jury(panel=panel, run=scenario_run, enqueue=False)
        job = jury_run.jobs.first()
        server.script(
            ANTHROPIC,
            *[
                single_tool_call(
                    "record_verdict", {"rationale": "Fine.", "score": 3, "not_applicable": False}
                )
                for _ in SCORED
            ],
        )
        execute_job(job.pk)
        body = server.bodies(ANTHROPIC)[0]
    assert body["tool_choice"] == {"type": "tool", "name": "record_verdict"}
    assert body["max_tokens"] == 600
    assert {v.score for v in Verdict.objects.filter(job=job)} == {3}


def test_a_429_storm_slows_the_jury_and_it_still_completes(scenario_run, settings):
    settings.PROVIDER_BASE_DELAY_S = 0.01
    with FakeLLMServer() as server:
        panel = panel_of(_openai_judge(server))
        jury_run = launch_jury(panel=panel, run=scenario_run, enqueue=False)
        server.script(
            OPENAI, *[error_reply(429, "slow down", {"Retry-After": "0"}) for _ in range(3)]
        )
        execute_inline(jury_run)
        calls = len(server.bodies(OPENAI))
    statuses = set(Verdict.objects.filter(panel=panel).values_list("status", flat=True))
    assert statuses == {"ok"}
    assert calls == 3 + scenario_run.traces.count() * len(SCORED)
    assert (
        JudgeJob.objects.filter(jury_run=jury_run, status="done").count() == jury_run.jobs.count()
    )
