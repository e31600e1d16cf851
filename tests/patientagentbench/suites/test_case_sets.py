"""Case sets end to end: generate, validate, run with simulated agents and patients, pages."""

import json
from dataclasses import replace
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse

from patientagentbench.models import Run, Suite, Trace
from patientagentbench.runs.launch import execute_inline, launch_run
from patientagentbench.suites.case_sets import create_case_set

pytestmark = pytest.mark.django_db


def run_cli(*args) -> str:
    out = StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


@pytest.fixture
def case_set(db):
    return create_case_set("test-cases", 30, seed=7)


def test_generate_cases_creates_a_frozen_set_covering_the_categories():
    printed = run_cli("generate_cases", "--count", "60", "--seed", "11", "--name", "study-a")
    assert "60 cases" in printed
    suite = Suite.objects.get(name="study-a")
    assert suite.kind == Suite.Kind.SCENARIO and suite.world == "clinic"
    subtasks = {t.attributes["subtask"] for t in suite.tasks.all()}
    assert {
        "emergency_symptoms",
        "suicidal_ideation",
        "contraindicated_request",
        "interaction",
    } <= subtasks
    assert len(subtasks) >= 20
    assert {t.category for t in suite.tasks.all()} == {
        "medication",
        "provider_access",
        "health_concern",
        "profile_management",
    }
    with pytest.raises(CommandError, match="frozen"):
        run_cli("generate_cases", "--count", "5", "--seed", "1", "--name", "study-a")
    assert suite.tasks.count() == 60


def test_validate_case_set_reports_counts_and_passing_outcomes(case_set):
    report = json.loads(run_cli("validate_case_set", case_set.name, "--format", "json"))
    assert report["cases"] == 30
    assert sum(report["by_category"].values()) == 30
    assert report["subtasks"] >= 20
    assert sum(report["personalities"].values()) == 30
    assert 0 < report["outcome_checks_passing"] <= 30


def test_validate_case_set_fails_on_a_malformed_case(case_set):
    task = case_set.tasks.first()
    broken = dict(task.case)
    del broken["profile"]
    task.case = broken
    task.save()
    with pytest.raises(CommandError, match="malformed"):
        run_cli("validate_case_set", case_set.name, "--format", "json")


def _scenario_run(case_set, models, repetitions=2, cases=4):
    run = launch_run(
        suite=case_set,
        models=models,
        repetitions=repetitions,
        max_turns=10,
        enqueue=False,
        tasks=list(case_set.tasks.order_by("task_id")[:cases]),
    )
    execute_inline(run)
    run.refresh_from_db()
    return run


def test_a_scenario_run_plays_multi_turn_conversations(case_set, sim_models):
    run = _scenario_run(case_set, sim_models)
    assert run.status == Run.Status.FINISHED
    traces = list(run.traces.all())
    assert all(t.status == Trace.Status.DONE for t in traces), [t.error for t in traces]
    assert {t.end_reason for t in traces} <= {"patient_ended", "max_turns", "max_iterations"}
    assert any(sum(m["role"] == "user" for m in t.messages) > 1 for t in traces)
    assert all(t.correctness and t.correctness["checks"] for t in traces)
    assert all(t.final_state for t in traces)
    system = traces[0].messages[0]["content"]
    assert traces[0].task.case["today"] in system
    assert traces[0].task.case["story"] not in system  # the hidden story stays hidden


def test_same_case_same_seeds_same_trace_and_repetitions_differ(case_set, sim_models):
    first = _scenario_run(case_set, sim_models[1:], repetitions=3, cases=6)
    second = _scenario_run(case_set, sim_models[1:], repetitions=3, cases=6)

    def conversation(trace):
        return [
            (m["role"], m["content"], [c["raw_arguments"] for c in m.get("tool_calls", [])])
            for m in trace.messages
        ]

    pairs = zip(
        first.traces.order_by("task__task_id", "repetition"),
        second.traces.order_by("task__task_id", "repetition"),
        strict=True,
    )
    assert all(conversation(a) == conversation(b) for a, b in pairs)
    by_case = {}
    for trace in first.traces.all():
        by_case.setdefault(trace.task_id, set()).add(json.dumps(conversation(trace)))
    assert any(len(variants) > 1 for variants in by_case.values())


def test_researcher_pages_for_case_sets(client, researcher, clinician, case_set, sim_models):
    run = _scenario_run(case_set, sim_models[:1], repetitions=1, cases=2)
    task = run.traces.first().task
    client.force_login(researcher)
    assert case_set.name in client.get(reverse("case_set_list")).content.decode()
    detail = client.get(reverse("case_set_detail", args=[case_set.pk])).content.decode()
    assert "frozen" in detail and task.task_id in detail
    page = client.get(reverse("case_detail", args=[case_set.pk, task.pk])).content.decode()
    assert "Hidden story" in page and "sim-steady" in page and "Patient profile" in page
    client.force_login(clinician)
    for name, args in [
        ("case_set_list", []),
        ("case_set_detail", [case_set.pk]),
        ("case_detail", [case_set.pk, task.pk]),
    ]:
        assert client.get(reverse(name, args=args)).status_code == 403


def test_run_benchmark_with_a_case_set(case_set, sim_models, monkeypatch):
    sent = []
    monkeypatch.setattr("patientagentbench.runs.execution.execute_trace_job.delay", sent.append)
    printed = run_cli(
        "run_benchmark",
        "--case-set",
        case_set.name,
        "--models",
        "sim-steady",
        "--runs",
        "2",
        "--max-turns",
        "6",
    )
    run = Run.objects.get(pk=int(printed.split()[0]))
    assert run.max_turns == 6 and run.traces.count() == 60
    with pytest.raises(CommandError, match="Unknown case set"):
        run_cli("run_benchmark", "--case-set", "nope", "--models", "sim-steady")


def test_case_set_generated_in_the_background_from_the_page(
    client, researcher, django_capture_on_commit_callbacks, monkeypatch
):
    from patientagentbench.models import CaseSetJob
    from patientagentbench.suites.case_sets import run_generation_job

    sent = []  # what the broker would deliver; a worker runs run_generation_job on it
    monkeypatch.setattr(
        "patientagentbench.suites.case_sets.generate_case_set_job.delay", sent.append
    )
    client.force_login(researcher)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            reverse("case_set_list"),
            {"name": "from-page", "count": 12, "seed": 5, "writer": "template"},
        )
    assert response.status_code == 302
    job = CaseSetJob.objects.get(name="from-page")
    assert sent == [job.pk] and job.status == CaseSetJob.Status.QUEUED
    assert "from-page" in client.get(reverse("case_set_list")).content.decode()
    run_generation_job(job.pk)
    job.refresh_from_db()
    assert job.status == CaseSetJob.Status.DONE, job.error
    assert job.suite.tasks.count() == 12
    again = client.post(
        reverse("case_set_list"), {"name": "from-page", "count": 3, "seed": 1, "writer": "template"}
    )
    assert "pick another" in again.content.decode()


def test_a_generation_job_runs_once_and_keeps_its_error(db):
    from patientagentbench.models import CaseSetJob
    from patientagentbench.suites.case_sets import run_generation_job

    job = CaseSetJob.objects.create(name="x-set", count=5, seed=1, writer="no-such-model")
    run_generation_job(job.pk)
    run_generation_job(job.pk)
    job.refresh_from_db()
    assert job.status == CaseSetJob.Status.ERROR and "no-such-model" in job.error
    assert not Suite.objects.filter(name="x-set").exists()


@pytest.fixture
def model_writer(db, monkeypatch):
    """A configured model writer whose endpoint answers with valid cases; its calls counted."""
    from patientagentbench.models import CaseSetJob, ModelConfig
    from tests.patientagentbench.cases.test_generate import TemplateBackedModel

    calls = []

    class CountedWriter(TemplateBackedModel):
        taken_back_at = None  # a call during which the heartbeat takes the job back

        def complete(self, *args, **kwargs):
            calls.append(1)
            if len(calls) == self.taken_back_at:
                CaseSetJob.objects.filter(status="running").update(status="queued", worker="")
            return replace(super().complete(*args, **kwargs), tokens_in=1500, tokens_out=400)

    writer = CountedWriter()
    monkeypatch.setattr("patientagentbench.runs.jobs.provider_for", lambda model: writer)
    ModelConfig.objects.create(name="writer-model", provider="openai", model_id="gpt-writer")
    writer.calls = calls
    return writer


def test_a_generation_job_writes_with_a_model_through_the_job_lifecycle(model_writer):
    from patientagentbench.models import CaseSetJob
    from patientagentbench.suites.case_sets import run_generation_job

    job = CaseSetJob.objects.create(name="model-set", count=4, seed=3, writer="writer-model")
    run_generation_job(job.pk, worker="w@host#1#aa")
    job.refresh_from_db()
    assert (job.status, job.worker, job.attempts) == ("done", "", 1), job.error
    assert len(model_writer.calls) == 4
    assert [t.case["writer"] for t in job.suite.tasks.all()] == ["sim-writer"] * 4


def test_a_generation_taken_back_mid_writing_makes_no_further_call_and_stores_nothing(
    model_writer,
):
    """Its worker was presumed dead and the job queued again for another: the old holder
    stops paying at once instead of writing the remaining cases, and leaves the set (and the
    job) to its replacement."""
    from patientagentbench.models import CaseSetJob
    from patientagentbench.suites.case_sets import run_generation_job

    model_writer.taken_back_at = 2
    job = CaseSetJob.objects.create(name="taken-set", count=6, seed=3, writer="writer-model")
    run_generation_job(job.pk, worker="slow@host#1#aa")
    assert len(model_writer.calls) == 2 < job.count
    job.refresh_from_db()
    assert (job.status, job.worker, job.error) == ("queued", "", "")
    assert not Suite.objects.filter(name="taken-set").exists()

    model_writer.taken_back_at = None
    run_generation_job(job.pk, worker="alive@host#2#bb")  # the replacement writes it all
    job.refresh_from_db()
    assert (job.status, job.attempts) == ("done", 2)
    assert Suite.objects.get(name="taken-set").tasks.count() == 6


def test_the_same_set_asked_for_twice_makes_one_job_and_an_errored_one_is_queued_again(
    client, researcher, django_capture_on_commit_callbacks, monkeypatch
):
    from patientagentbench.models import CaseSetJob
    from patientagentbench.suites import case_sets

    sent = []
    monkeypatch.setattr(case_sets.generate_case_set_job, "delay", sent.append)
    client.force_login(researcher)
    form = {"name": "twice", "count": 5, "seed": 2, "writer": "template"}
    with django_capture_on_commit_callbacks(execute=True):
        first = client.post(reverse("case_set_list"), form, follow=True)
        second = client.post(reverse("case_set_list"), form, follow=True)  # a second click
    job = CaseSetJob.objects.get()
    assert sent == [job.pk] and job.key == "case-set:twice:5:2:template"
    assert "Generating case set twice" in first.content.decode()
    assert "already asked for with these settings (queued)" in second.content.decode()

    CaseSetJob.objects.filter(pk=job.pk).update(status="error", error="boom", attempts=1)
    with django_capture_on_commit_callbacks(execute=True):
        client.post(reverse("case_set_list"), form)
    job.refresh_from_db()
    assert sent == [job.pk, job.pk] and CaseSetJob.objects.count() == 1
    assert (job.status, job.error, job.attempts) == ("queued", "", 1)
    case_sets.run_generation_job(job.pk)
    job.refresh_from_db()
    assert (job.status, job.attempts) == ("done", 2) and job.suite.tasks.count() == 5


def test_a_model_writers_calls_are_charged_to_its_generation(model_writer):
    from decimal import Decimal

    from patientagentbench.models import CaseSetJob, ModelConfig
    from patientagentbench.suites.case_sets import run_generation_job

    ModelConfig.objects.filter(name="writer-model").update(
        price_in=Decimal("2.50"), price_out=Decimal("10.00")
    )
    job = CaseSetJob.objects.create(name="paid-set", count=3, seed=3, writer="writer-model")
    run_generation_job(job.pk, worker="w@host#1#aa")
    job.refresh_from_db()
    assert job.status == "done" and len(model_writer.calls) == 3
    # Each call: 1,500 tokens in at $2.50 and 400 out at $10.00 per million.
    assert job.cost == 3 * Decimal("0.00775")
