"""Runs as background jobs: plan, claim, execute, finish, cancel, resume.

A job is one Trace row with a unique key. Workers claim it with a conditional UPDATE
(queued → running), so a job delivered twice, or re-sent by a resume, runs once.
"""

from __future__ import annotations

import hashlib
import logging
from datetime import timedelta
from decimal import Decimal

from django.conf import settings
from django.db import transaction
from django.db.models import Count, F
from django.utils import timezone

from patientagentbench.case_sets import system_prompt_for
from patientagentbench.conversation import EndConversation, TaskUser, run_conversation
from patientagentbench.limits import provider_slot
from patientagentbench.metrics_store import recompute_run_metrics
from patientagentbench.models import ModelConfig, Run, Suite, Task, Trace, WorkerHeartbeat
from patientagentbench.providers.factory import shared_provider
from patientagentbench.providers.retry import call_with_retries
from patientagentbench.providers.types import CallContext
from patientagentbench.scoring import score_trace
from patientagentbench.worlds import build_world

log = logging.getLogger(__name__)

STALE_RUNNING = timedelta(minutes=30)


def job_key(run_id: int, task_id: str, model_name: str, temperature, repetition: int) -> str:
    return f"run{run_id}:{task_id}:{model_name}:t{temperature}:r{repetition}"


def trace_seed(task_id: str, model_name: str, temperature, repetition: int) -> int:
    """Seeded by what the job is, not by the run: the same job run again is the same input."""
    text = f"{task_id}|{model_name}|{temperature}|{repetition}"
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big")


def job_count(n_tasks: int, n_models: int, n_temperatures: int, repetitions: int) -> int:
    return n_tasks * n_models * n_temperatures * repetitions


def launch_run(
    *,
    suite: Suite,
    models: list[ModelConfig],
    tasks: list[Task] | None = None,
    repetitions: int = 1,
    temperatures: list[float] | None = None,
    max_iterations: int = 10,
    max_turns: int = 1,
    spend_limit: Decimal | None = None,
    patient_model: ModelConfig | None = None,
    created_by=None,
    label: str = "",
    enqueue: bool = True,
) -> Run:
    temperatures = temperatures or [1.0]
    tasks = list(tasks) if tasks is not None else list(suite.tasks.all())
    with transaction.atomic():
        run = Run.objects.create(
            suite=suite,
            repetitions=repetitions,
            temperatures=temperatures,
            max_iterations=max_iterations,
            max_turns=max_turns,
            spend_limit=spend_limit,
            patient_model=patient_model,
            created_by=created_by,
            label=label,
        )
        Trace.objects.bulk_create(
            Trace(
                run=run,
                task=task,
                model=model,
                model_name=model.name,
                temperature=temperature,
                repetition=repetition,
                key=job_key(run.pk, task.task_id, model.name, temperature, repetition),
            )
            for task in tasks
            for model in models
            for temperature in temperatures
            for repetition in range(repetitions)
        )
        if enqueue:
            transaction.on_commit(lambda: enqueue_queued(run.pk))
    return run


def execute_inline(run: Run) -> None:
    """Run every queued job in this process (demo seeding, tests, small scripts)."""
    for trace_id in run.traces.filter(status=Trace.Status.QUEUED).values_list("pk", flat=True):
        execute_trace(trace_id)


def enqueue_queued(run_id: int) -> int:
    from patientagentbench.tasks import execute_trace_job

    ids = list(
        Trace.objects.filter(run_id=run_id, status=Trace.Status.QUEUED).values_list("pk", flat=True)
    )
    for trace_id in ids:
        execute_trace_job.delay(trace_id)
    return len(ids)


def claim(trace_id: int) -> bool:
    """queued → running, once. The row count says whether this delivery won."""
    claimed = Trace.objects.filter(
        pk=trace_id, status=Trace.Status.QUEUED, run__status__in=Run.ACTIVE
    ).update(status=Trace.Status.RUNNING, attempts=F("attempts") + 1, started_at=timezone.now())
    return claimed == 1


def execute_trace(trace_id: int) -> None:
    if not claim(trace_id):
        return
    trace = Trace.objects.select_related(
        "run", "run__patient_model", "task", "task__suite", "model"
    ).get(pk=trace_id)
    run = trace.run
    Run.objects.filter(pk=run.pk, status=Run.Status.QUEUED).update(status=Run.Status.RUNNING)
    try:
        result = _converse(trace)
    except Exception as exc:  # noqa: BLE001 - a job must end as a kept error, never vanish
        log.exception("trace %s failed before the conversation", trace_id)
        _save_error(trace, f"{type(exc).__name__}: {exc}")
    else:
        _save_result(trace, result)
    finish_run_if_done(run.pk)


class GuardedProvider:
    """A provider call as a job makes it: run still going, under the endpoint's concurrency
    limit, retried on 429/5xx/timeouts, its cost added to the run as it happens."""

    def __init__(self, model: ModelConfig, run_id: int):
        self.model, self.run_id = model, run_id
        self.provider = shared_provider(
            model.provider,
            model.model_id,
            model.base_url,
            model.api_key_env,
            timeout=settings.PROVIDER_TIMEOUT_S,
        )

    def complete(self, messages, tools, temperature, context):
        _check_run_may_continue(self.run_id)
        limit = 0 if self.model.is_simulated else self.model.max_concurrency

        def one_call():
            with provider_slot(self.model.concurrency_key, limit):
                return self.provider.complete(messages, tools, temperature, context)

        completion = call_with_retries(
            one_call,
            max_attempts=settings.PROVIDER_MAX_ATTEMPTS,
            base_delay=settings.PROVIDER_BASE_DELAY_S,
        )
        cost = self.model.cost_of(completion.tokens_in, completion.tokens_out)
        if cost:
            Run.objects.filter(pk=self.run_id).update(spent=F("spent") + cost)
        return completion


def _converse(trace: Trace):
    run, task, model = trace.run, trace.task, trace.model
    world = build_world(task.suite, task)
    seed = trace_seed(task.task_id, model.name, trace.temperature, trace.repetition)
    context = CallContext(seed=seed, task=task.as_data(), timeout_s=settings.PROVIDER_TIMEOUT_S)
    tools = world.tool_schemas()
    agent = GuardedProvider(model, run.pk)
    if task.case is not None:
        user = _patient(run, task, trace.repetition)
        system_prompt = system_prompt_for(task.case)
    else:
        user, system_prompt = TaskUser(task.prompt), task.suite.system_prompt
    result = run_conversation(
        complete=lambda messages: agent.complete(messages, tools, trace.temperature, context),
        world=world,
        user=user,
        system_prompt=system_prompt,
        max_iterations=run.max_iterations,
        max_turns=run.max_turns,
    )
    if task.case is not None and result.end_reason == "user_ended":
        result.end_reason = "patient_ended"
    result.world = world
    return result


def _patient(run: Run, task: Task, repetition: int):
    """The same case and repetition meet the same patient, whichever agent is tested."""
    from patientagentbench.simulated.patient import patient_for

    seed = trace_seed(task.task_id, "patient", None, repetition)
    provider = GuardedProvider(run.patient_model, run.pk) if run.patient_model else None
    return patient_for(task.case, seed, provider)


def _check_run_may_continue(run_id: int) -> None:
    status, spend_limit, spent = Run.objects.filter(pk=run_id).values_list(
        "status", "spend_limit", "spent"
    )[0]
    if status == Run.Status.CANCELLED:
        raise EndConversation("cancelled")
    if status == Run.Status.STOPPED:
        raise EndConversation("spend_limit")
    if spend_limit is not None and spent >= spend_limit:
        stop_at_spend_limit(run_id)
        raise EndConversation("spend_limit")


def _save_result(trace: Trace, result) -> None:
    if result.error:
        status = Trace.Status.ERROR
    elif result.end_reason in ("cancelled", "spend_limit"):
        status = Trace.Status.CANCELLED
    else:
        status = Trace.Status.DONE
    trace.status = status
    trace.messages = [m.to_dict() for m in result.messages]
    trace.tool_calls = result.calls
    trace.final_response = result.final_response
    trace.end_reason = result.end_reason
    trace.error = result.error
    trace.side_effects = list(result.world.side_effects)
    trace.final_state = result.world.final_state()
    trace.tokens_in = result.tokens_in
    trace.tokens_out = result.tokens_out
    trace.latency_ms = result.latency_ms
    trace.cost = trace.model.cost_of(result.tokens_in, result.tokens_out)
    trace.finished_at = timezone.now()
    if status == Trace.Status.DONE:
        score_trace(trace)
    trace.save()


def _save_error(trace: Trace, error: str) -> None:
    Trace.objects.filter(pk=trace.pk).update(
        status=Trace.Status.ERROR, error=error, end_reason="error", finished_at=timezone.now()
    )


def progress(run_id: int) -> dict[str, int]:
    counts = dict.fromkeys(Trace.Status.values, 0)
    for row in Trace.objects.filter(run_id=run_id).values("status").annotate(n=Count("pk")):
        counts[row["status"]] = row["n"]
    counts["total"] = sum(counts[s] for s in Trace.Status.values)
    counts["ended"] = sum(counts[s] for s in Trace.ENDED)
    counts["percent"] = round(100 * counts["ended"] / counts["total"]) if counts["total"] else 100
    return counts


def finish_run_if_done(run_id: int) -> None:
    unfinished = (Trace.Status.QUEUED, Trace.Status.RUNNING)
    if Trace.objects.filter(run_id=run_id, status__in=unfinished).exists():
        return
    counts = progress(run_id)
    failed = counts["done"] == 0 and counts["error"] > 0
    Run.objects.filter(pk=run_id, status__in=Run.ACTIVE).update(
        status=Run.Status.FAILED if failed else Run.Status.FINISHED, finished_at=timezone.now()
    )
    recompute_run_metrics(run_id)


def stop_at_spend_limit(run_id: int) -> None:
    with transaction.atomic():
        stopped = Run.objects.filter(pk=run_id, status__in=Run.ACTIVE).update(
            status=Run.Status.STOPPED,
            stop_reason="The run reached its spend limit.",
            finished_at=timezone.now(),
        )
        if stopped:
            Trace.objects.filter(run_id=run_id, status=Trace.Status.QUEUED).update(
                status=Trace.Status.CANCELLED, end_reason="spend_limit"
            )


def cancel_run(run_id: int) -> bool:
    with transaction.atomic():
        cancelled = Run.objects.filter(pk=run_id, status__in=Run.ACTIVE).update(
            status=Run.Status.CANCELLED, stop_reason="Cancelled.", finished_at=timezone.now()
        )
        Trace.objects.filter(run_id=run_id, status=Trace.Status.QUEUED).update(
            status=Trace.Status.CANCELLED, end_reason="cancelled"
        )
    return bool(cancelled)


def resume_run(run_id: int) -> int:
    """Queue again what was cancelled, stopped or lost with a dead worker; keep what is done."""
    stale = timezone.now() - STALE_RUNNING
    with transaction.atomic():
        run = Run.objects.select_for_update().get(pk=run_id)
        if run.source != Run.Source.LAUNCHED:
            return 0
        requeued = Trace.objects.filter(run=run, status=Trace.Status.CANCELLED).update(
            status=Trace.Status.QUEUED, end_reason="", error=""
        )
        requeued += Trace.objects.filter(
            run=run, status=Trace.Status.RUNNING, started_at__lt=stale
        ).update(status=Trace.Status.QUEUED)
        if requeued:
            run.status, run.stop_reason, run.finished_at = Run.Status.RUNNING, "", None
            run.save(update_fields=["status", "stop_reason", "finished_at"])
        transaction.on_commit(lambda: enqueue_queued(run_id))
    return requeued


HEARTBEAT_FRESH = timedelta(seconds=20)


def worker_alive() -> bool:
    return WorkerHeartbeat.objects.filter(seen_at__gte=timezone.now() - HEARTBEAT_FRESH).exists()


def beat(hostname: str) -> None:
    WorkerHeartbeat.objects.update_or_create(
        hostname=hostname, defaults={"seen_at": timezone.now()}
    )
