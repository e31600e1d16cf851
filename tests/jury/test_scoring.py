"""Scoring a run's conversations with a panel: verdicts per dimension, honest failures,
idempotent jobs, both SDKs through their wire formats."""

import json
import os

import pytest
from django.urls import reverse

from jury import verdicts
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


def _anthropic_judge(server):
    os.environ["PAB_FAKE_KEY"] = "fake"
    return ModelConfig.objects.create(
        name="claude-judge",
        provider="anthropic",
        model_id="claude-judge",
        base_url=server.anthropic_base_url,
        api_key_env="PAB_FAKE_KEY",
    )


def test_anthropic_forced_tool_use_gives_verdicts(scenario_run, settings):
    settings.PROVIDER_BASE_DELAY_S = 0.01
    with FakeLLMServer() as server:
        panel = panel_of(_anthropic_judge(server))
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


def _verdict_json(score=3, not_applicable=False, rationale="Fine."):
    return json.dumps({"rationale": rationale, "score": score, "not_applicable": not_applicable})


def _one_job(scenario_run, model):
    jury_run = launch_jury(panel=panel_of(model), run=scenario_run, enqueue=False)
    return jury_run, jury_run.jobs.first()


def test_an_answer_cut_at_the_cap_is_retried_once_with_twice_the_cap_then_kept_truncated(
    scenario_run, settings, client, admin_user
):
    settings.PROVIDER_BASE_DELAY_S = 0.01
    with FakeLLMServer() as server:
        jury_run, job = _one_job(scenario_run, _openai_judge(server))
        cut = '{"rationale": "The agent first said'
        server.script(
            OPENAI,
            text_reply(cut, truncated=True),
            text_reply(cut + " call 911 and", truncated=True),  # cut again: truncated for good
            text_reply("not JSON", truncated=True),  # dimension 2: cut, then a good answer
            text_reply(_verdict_json(4)),
        )
        execute_job(job.pk)
        bodies = server.bodies(OPENAI)
    verdicts = {v.dimension: v for v in Verdict.objects.filter(job=job)}
    first, second = verdicts[SCORED[0]], verdicts[SCORED[1]]
    assert (first.status, first.score, first.attempts) == ("truncated", None, 2)
    assert [b["max_tokens"] for b in bodies[:4]] == [600, 1200, 600, 1200]
    assert [a["truncated"] for a in first.attempt_log] == [True, True]
    assert first.attempt_log[1]["raw"].endswith("call 911 and")
    assert "1200-token cap" in first.attempt_log[1]["problem"]
    assert (second.status, second.score, second.attempts) == ("ok", 4, 2)
    client.force_login(admin_user)
    page = client.get(reverse("jury_run", args=[jury_run.pk])).content.decode()
    assert "1 truncated" in page and "0 unparseable" in page


def test_anthropic_max_tokens_stop_is_truncated(scenario_run, settings):
    settings.PROVIDER_BASE_DELAY_S = 0.01
    with FakeLLMServer() as server:
        _, job = _one_job(scenario_run, _anthropic_judge(server))
        cut = single_tool_call("record_verdict", '{"rationale": "cut', truncated=True)
        server.script(
            ANTHROPIC, cut, single_tool_call("record_verdict", '{"rationale": "cu', truncated=True)
        )
        execute_job(job.pk)
        bodies = server.bodies(ANTHROPIC)
    first = Verdict.objects.get(job=job, dimension=SCORED[0])
    assert (first.status, first.attempts) == ("truncated", 2)
    assert [b["max_tokens"] for b in bodies[:2]] == [600, 1200]


def test_every_attempt_is_kept_with_why_it_failed_and_shown_escaped(
    scenario_run, settings, client, admin_user
):
    settings.PROVIDER_BASE_DELAY_S = 0.01
    with FakeLLMServer() as server:
        _, job = _one_job(scenario_run, _openai_judge(server))
        server.script(
            OPENAI,
            text_reply("Sure! I think it deserves a 4."),
            text_reply(_verdict_json(None)),  # not N/A and no score
            text_reply("<b>I can't help with that.</b>"),
        )
        execute_job(job.pk)
    first = Verdict.objects.get(job=job, dimension=SCORED[0])
    assert first.status == "unparseable" and first.attempts == 3
    assert [a["raw"] for a in first.attempt_log] == [
        "Sure! I think it deserves a 4.",
        _verdict_json(None),
        "<b>I can't help with that.</b>",
    ]
    assert [a["problem"] for a in first.attempt_log] == [
        "no JSON object in the answer",
        "no score, and not marked not applicable",
        "the judge refused to answer",
    ]
    client.force_login(admin_user)
    url = reverse("jury_conversation", args=[scenario_run.pk, job.jury_run.panel_id, job.trace_id])
    page = client.get(url).content.decode()
    assert "3 attempts: raw answers" in page and "no score, and not marked not applicable" in page
    assert "&lt;b&gt;I can&#x27;t help with that.&lt;/b&gt;" in page
    assert "<b>I can't" not in page


def test_a_not_applicable_the_rubric_forbids_is_a_counted_failure_of_the_judge(
    scenario_run, settings
):
    """Clinical safety is N/A only when the agent never replied; these agents replied."""
    settings.PROVIDER_BASE_DELAY_S = 0.01
    na = text_reply(_verdict_json(None, not_applicable=True, rationale="Nothing risky."))
    with FakeLLMServer() as server:
        _, job = _one_job(scenario_run, _openai_judge(server))
        server.script(OPENAI, na, na, na)
        execute_job(job.pk)
    safety = Verdict.objects.get(job=job, dimension="clinical_safety")
    assert (safety.status, safety.score, safety.attempts) == ("na_not_allowed", None, 3)
    assert "the agent replied" in safety.attempt_log[-1]["problem"]
    left_out = verdicts.conversation_verdicts(job.jury_run.panel)[0].left_out
    assert left_out["na_not_allowed"] == 1 and left_out["not_applicable"] == 0


def test_a_judge_call_retried_after_a_timeout_is_kept_on_its_job_and_shown(
    scenario_run, settings, client, researcher
):
    from tests.fakes.llm_server import delayed_reply

    settings.PROVIDER_BASE_DELAY_S = 0.01
    settings.PROVIDER_TIMEOUT_S = 0.3
    with FakeLLMServer() as server:
        jury_run, job = _one_job(scenario_run, _openai_judge(server, name="local-judge"))
        server.script(
            OPENAI,
            delayed_reply(1.0),  # the first call runs past the timeout, then is retried
            *[text_reply(_verdict_json(4)) for _ in range(len(SCORED) + 1)],
        )
        execute_job(job.pk)
    job.refresh_from_db()
    assert set(Verdict.objects.filter(job=job).values_list("status", flat=True)) == {"ok"}
    (warning,) = job.warnings
    assert (
        warning["kind"] == "timeout_retry" and "PROVIDER_TIMEOUT_S_LOCAL_JUDGE" in warning["detail"]
    )
    client.force_login(researcher)
    page = client.get(reverse("jury_run", args=[jury_run.pk])).content.decode()
    assert "1 judge call timed out and was retried" in page
