"""Executing one job: claim the trace, hold the conversation, save what happened, and close
the run when its last trace ends. Its Celery task sits here, beside the function it runs."""

from __future__ import annotations

import logging

from celery import shared_task
from django.conf import settings
from django.db import transaction
from django.db.models import Count, F
from django.utils import timezone

from patientagentbench.conversation import EndConversation, EndReason, TaskUser, run_conversation
from patientagentbench.models import ModelConfig, Run, Task, Trace
from patientagentbench.prompts import system_prompt_for
from patientagentbench.providers.factory import shared_provider
from patientagentbench.providers.retry import call_with_retries
from patientagentbench.providers.types import CallContext
from patientagentbench.results.cells import recompute_run_metrics
from patientagentbench.results.scoring import score_trace
from patientagentbench.runs.limits import provider_slot
from patientagentbench.runs.worlds import build_world
from sandbox.seeding import trace_seed

log = logging.getLogger(__name__)


@shared_task(acks_late=True, ignore_result=True)
def execute_trace_job(trace_id: int) -> None:
    execute_trace(trace_id)


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
    if task.case is not None and result.end_reason == EndReason.USER_ENDED:
        result.end_reason = EndReason.PATIENT_ENDED
    result.world = world
    return result


def _patient(run: Run, task: Task, repetition: int):
    """The same case and repetition meet the same patient, whichever agent is tested."""
    from patientagentbench.simulated.patient import patient_for  # heavy; scenario runs only

    seed = trace_seed(task.task_id, "patient", None, repetition)
    provider = GuardedProvider(run.patient_model, run.pk) if run.patient_model else None
    return patient_for(task.case, seed, provider)


def _check_run_may_continue(run_id: int) -> None:
    status, spend_limit, spent = Run.objects.filter(pk=run_id).values_list(
        "status", "spend_limit", "spent"
    )[0]
    if status == Run.Status.CANCELLED:
        raise EndConversation(EndReason.CANCELLED)
    if status == Run.Status.STOPPED:
        raise EndConversation(EndReason.SPEND_LIMIT)
    if spend_limit is not None and spent >= spend_limit:
        stop_at_spend_limit(run_id)
        raise EndConversation(EndReason.SPEND_LIMIT)


def _save_result(trace: Trace, result) -> None:
    if result.error:
        status = Trace.Status.ERROR
    elif result.end_reason in (EndReason.CANCELLED, EndReason.SPEND_LIMIT):
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
        status=Trace.Status.ERROR,
        error=error,
        end_reason=EndReason.ERROR,
        finished_at=timezone.now(),
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
    with transaction.atomic():
        # The run's row is the lock: of two workers ending its last traces at once, one
        # stores the metrics, and "finished" is visible only together with them.
        active = Run.objects.select_for_update().filter(pk=run_id, status__in=Run.ACTIVE)
        if active.first() is None:  # evaluated with FOR UPDATE: the lock is taken here
            recompute_run_metrics(run_id)  # a cancelled or stopped run: what did end counts
            return
        counts = progress(run_id)
        failed = counts["done"] == 0 and counts["error"] > 0
        recompute_run_metrics(run_id)
        active.update(
            status=Run.Status.FAILED if failed else Run.Status.FINISHED, finished_at=timezone.now()
        )
        transaction.on_commit(lambda: _warm_analysis(run_id))


def _warm_analysis(run_id: int) -> None:
    """Compute a finished run's analysis now, so its first visitor does not wait for it."""
    from patientagentbench.results.study import warm_run_analysis

    try:
        warm_run_analysis(run_id)
    except Exception:  # noqa: BLE001 - a failed warm-up only costs the first visitor time
        log.exception("could not precompute the analysis of run %s", run_id)


def stop_at_spend_limit(run_id: int) -> None:
    with transaction.atomic():
        stopped = Run.objects.filter(pk=run_id, status__in=Run.ACTIVE).update(
            status=Run.Status.STOPPED,
            stop_reason="The run reached its spend limit.",
            finished_at=timezone.now(),
        )
        if stopped:
            Trace.objects.filter(run_id=run_id, status=Trace.Status.QUEUED).update(
                status=Trace.Status.CANCELLED, end_reason=EndReason.SPEND_LIMIT
            )
