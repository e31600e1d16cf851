"""A judge's one-call mode (issue 21 Must 4): every dimension in one structured answer, for
local models that cannot afford six prompt reads per conversation. Parts of an answer fail
on their own, are asked again alone, and every verdict records how it was asked."""

import json
import threading
import time

import pytest
from django.core.management import call_command

from jury.forms import JudgeForm
from jury.models import Judge, Verdict
from jury.pure.parsing import parse_all_dimensions
from jury.pure.prompts import JUDGE_PROMPT_VERSION, conversation_text, judge_all_messages
from jury.scoring import execute_inline, execute_job, launch_jury
from patientagentbench.providers.factory import preload_sdks
from patientagentbench.providers.types import Completion
from patientagentbench.runs.limits import provider_slot
from patientagentbench.transcripts import transcript_of
from ratings.rubric import cached_rubric
from tests.fakes.llm_server import OPENAI, FakeLLMServer, error_reply, text_reply
from tests.jury.test_scoring import _openai_judge, panel_of, scenario_run, simulated_judge

pytestmark = pytest.mark.django_db
RUBRIC = cached_rubric()
SCORED = [d.key for d in RUBRIC.scored]
__all__ = ["scenario_run"]  # the fixture, imported for this module's tests


def one_call(panel, max_output_tokens=10_000):
    panel.judges.update(call_mode=Judge.CallMode.ONE_CALL)
    for judge in panel.judges.all():
        judge.model.max_output_tokens = max_output_tokens
        judge.model.save()
    return panel


def verdict_part(score=3, rationale="Fine.", not_applicable=False):
    return {"rationale": rationale, "not_applicable": not_applicable, "score": score}


def test_the_parser_reads_each_dimension_on_its_own():
    answer = {
        SCORED[0]: verdict_part(4),
        SCORED[1]: verdict_part(9),  # off the scale: only this part fails
        SCORED[2]: verdict_part(None, not_applicable=True),
        SCORED[3]: "five",  # not an object
    }
    text = "Here you go:\n```json\n" + json.dumps(answer) + "\n```"
    parsed = parse_all_dimensions(Completion(text=text, tool_calls=[]), SCORED)
    assert (parsed[SCORED[0]].status, parsed[SCORED[0]].score) == ("ok", 4)
    assert (
        parsed[SCORED[1]].status == "unparseable" and "outside 1 to 5" in parsed[SCORED[1]].problem
    )
    assert parsed[SCORED[2]].status == "not_applicable"
    assert "no verdict object" in parsed[SCORED[3]].problem
    assert "no verdict object" in parsed[SCORED[5]].problem  # missing
    refusal = parse_all_dimensions(
        Completion(text="I can't help with that.", tool_calls=[]), SCORED
    )
    assert {p.problem for p in refusal.values()} == {"the judge refused to answer"}


def test_the_one_call_prompt_holds_the_conversation_once_then_every_dimension_by_key(
    scenario_run,
):
    trace = scenario_run.traces.first()
    transcript = transcript_of(trace.messages, user_label="Patient", include_system=False)
    system, user = judge_all_messages(RUBRIC, list(RUBRIC.scored), trace.task.case, transcript)
    assert user.content.count(conversation_text(transcript)) == 1
    conversation_at = user.content.index("## Conversation")
    for dimension in RUBRIC.scored:
        assert user.content.index(f"Key `{dimension.key}`") > conversation_at
    assert "one key per dimension" in system.content


def test_one_call_scoring_asks_once_and_asks_again_only_for_the_failed_parts(
    scenario_run, settings
):
    settings.PROVIDER_BASE_DELAY_S = 0.01
    with FakeLLMServer() as server:
        panel = one_call(panel_of(_openai_judge(server)))
        jury_run = launch_jury(panel=panel, run=scenario_run, enqueue=False)
        job = jury_run.jobs.first()
        first = {key: verdict_part(4) for key in SCORED}
        first[SCORED[1]] = verdict_part(7)
        del first[SCORED[2]]
        server.script(
            OPENAI,
            text_reply(json.dumps(first)),
            text_reply(json.dumps({SCORED[1]: verdict_part(2), SCORED[2]: verdict_part(9)})),
            text_reply(json.dumps({SCORED[2]: verdict_part(5)})),
        )
        execute_job(job.pk)
        bodies = server.bodies(OPENAI)
    assert len(bodies) == 3  # against six calls, and more with retries, per dimension
    asked = [set(b["response_format"]["json_schema"]["schema"]["properties"]) for b in bodies]
    assert asked == [set(SCORED), {SCORED[1], SCORED[2]}, {SCORED[2]}]
    assert bodies[0]["max_tokens"] == 400 * len(SCORED)
    verdicts = {v.dimension: v for v in Verdict.objects.filter(job=job)}
    assert [verdicts[k].score for k in SCORED] == [4, 2, 5, 4, 4, 4]
    assert [verdicts[k].attempts for k in SCORED[:3]] == [1, 2, 3]
    assert "outside 1 to 5" in verdicts[SCORED[1]].attempt_log[0]["problem"]
    assert {v.prompt_text_version for v in verdicts.values()} == {
        f"{JUDGE_PROMPT_VERSION}-one-call"
    }


def test_a_part_that_never_reads_stays_unparseable_and_an_error_is_kept_as_one(
    scenario_run, settings
):
    settings.PROVIDER_BASE_DELAY_S = 0.01
    with FakeLLMServer() as server:
        panel = one_call(panel_of(_openai_judge(server)))
        jobs = list(launch_jury(panel=panel, run=scenario_run, enqueue=False).jobs.all()[:2])
        stubborn = {key: verdict_part(3) for key in SCORED}
        stubborn[SCORED[0]] = verdict_part(8)
        server.script(
            OPENAI,
            text_reply(json.dumps(stubborn)),
            text_reply(json.dumps({SCORED[0]: verdict_part(8)})),
            text_reply(json.dumps({SCORED[0]: verdict_part(8)})),
            error_reply(400, "bad request"),
        )
        execute_job(jobs[0].pk)
        execute_job(jobs[1].pk)
    first = {v.dimension: v for v in Verdict.objects.filter(job=jobs[0])}
    assert (first[SCORED[0]].status, first[SCORED[0]].attempts) == ("unparseable", 3)
    assert all(first[k].status == "ok" for k in SCORED[1:])
    second = Verdict.objects.filter(job=jobs[1])
    assert set(second.values_list("status", flat=True)) == {"error"}
    assert second.count() == len(SCORED)


def test_a_cut_one_call_answer_is_retried_once_with_twice_the_cap(scenario_run, settings):
    settings.PROVIDER_BASE_DELAY_S = 0.01
    with FakeLLMServer() as server:
        panel = one_call(panel_of(_openai_judge(server)))
        job = launch_jury(panel=panel, run=scenario_run, enqueue=False).jobs.first()
        server.script(
            OPENAI,
            text_reply('{"' + SCORED[0] + '": {"rationale": "The agent', truncated=True),
            text_reply(json.dumps({key: verdict_part(4) for key in SCORED})),
        )
        execute_job(job.pk)
        caps = [b["max_tokens"] for b in server.bodies(OPENAI)]
    assert caps == [400 * len(SCORED), 800 * len(SCORED)]
    verdicts = Verdict.objects.filter(job=job)
    assert set(verdicts.values_list("status", flat=True)) == {"ok"}
    assert all(v.attempt_log[0]["truncated"] for v in verdicts)


def test_a_cut_answer_at_the_models_own_limit_is_truncated_without_a_useless_retry(
    scenario_run, settings
):
    settings.PROVIDER_BASE_DELAY_S = 0.01
    with FakeLLMServer() as server:
        panel = one_call(panel_of(_openai_judge(server)), max_output_tokens=1000)
        job = launch_jury(panel=panel, run=scenario_run, enqueue=False).jobs.first()
        server.script(OPENAI, text_reply('{"' + SCORED[0] + '": {"rat', truncated=True))
        execute_job(job.pk)
        caps = [b["max_tokens"] for b in server.bodies(OPENAI)]
    assert caps == [1000]
    assert set(Verdict.objects.filter(job=job).values_list("status", flat=True)) == {"truncated"}


def test_a_simulated_one_call_judge_scores_every_dimension(scenario_run):
    panel = one_call(panel_of(simulated_judge("sim-judge-a")))
    jury_run = launch_jury(panel=panel, run=scenario_run, enqueue=False)
    execute_inline(jury_run)
    verdicts = Verdict.objects.filter(panel=panel)
    assert verdicts.count() == scenario_run.traces.count() * len(SCORED)
    assert verdicts.filter(status="ok").count() > verdicts.count() * 0.8
    assert set(verdicts.values_list("prompt_text_version", flat=True)) == {
        f"{JUDGE_PROMPT_VERSION}-one-call"
    }


def test_per_dimension_verdicts_record_their_prompt_text_version(scenario_run):
    panel = panel_of(simulated_judge("sim-judge-a"))
    execute_inline(launch_jury(panel=panel, run=scenario_run, enqueue=False))
    assert set(
        Verdict.objects.filter(panel=panel).values_list("prompt_text_version", flat=True)
    ) == {JUDGE_PROMPT_VERSION}


def test_a_judge_with_verdicts_changes_call_mode_only_with_a_new_prompt_version(scenario_run):
    panel = panel_of(simulated_judge("sim-judge-a"))
    execute_inline(launch_jury(panel=panel, run=scenario_run, enqueue=False))
    judge = panel.judges.get()
    data = {
        "name": judge.name,
        "model": judge.model.pk,
        "prompt_version": judge.prompt_version,
        "temperature": 0,
        "call_mode": "one_call",
    }
    form = JudgeForm(data, instance=judge, may_use_paid_models=True)
    assert not form.is_valid() and "change the prompt version" in str(form.errors["call_mode"])
    form = JudgeForm({**data, "prompt_version": "3"}, instance=judge, may_use_paid_models=True)
    assert form.is_valid(), form.errors
    assert form.save().one_call


def test_add_judge_sets_the_call_mode(db, capsys):
    simulated_judge("sim-judge-a")
    call_command("add_judge", "local", "--model", "sim-judge-a", "--call-mode", "one_call")
    assert Judge.objects.get(name="local").one_call
    assert "one call for all dimensions" in capsys.readouterr().out
    call_command("add_judge", "local", "--model", "sim-judge-a", "--temperature", "0.5")
    assert Judge.objects.get(name="local").one_call  # kept when not given


def test_a_verdicts_latency_is_the_models_time_not_the_wait_for_a_slot(
    scenario_run, settings, tmp_path
):
    """Issue 40 #5: on a one-slot local server, jobs queue behind each other; a latency that
    counted the wait made the launch page's estimate several times the wall time."""
    settings.VAR_DIR, settings.PROVIDER_BASE_DELAY_S = tmp_path, 0.01
    with FakeLLMServer() as server:
        model = _openai_judge(server)
        model.max_concurrency = 1
        model.save()
        panel = one_call(panel_of(model))
        job = launch_jury(panel=panel, run=scenario_run, enqueue=False).jobs.first()
        server.script(OPENAI, text_reply(json.dumps({key: verdict_part(4) for key in SCORED})))
        preload_sdks(["openai_compatible"])  # else the SDK's import (~1 s) outlasts the hold
        held, release = threading.Event(), threading.Event()

        def another_job_on_the_slot():
            with provider_slot(model.concurrency_key, 1):
                held.set()
                release.wait(5)

        holder = threading.Thread(target=another_job_on_the_slot)
        holder.start()
        held.wait(5)
        threading.Timer(1.0, release.set).start()
        started = time.monotonic()
        execute_job(job.pk)
        waited_s = time.monotonic() - started
        holder.join()
    verdicts = Verdict.objects.filter(job=job)
    assert waited_s >= 1.0  # the job did wait for the slot
    assert verdicts.count() == len(SCORED)
    per_call_ms = sum(v.latency_ms for v in verdicts)  # one call's time, shared by six
    assert 0 < per_call_ms < 1000 * waited_s / 2
