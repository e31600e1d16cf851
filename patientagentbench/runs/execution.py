"""Executing one job: claim the trace, hold the conversation, save what happened, and close
the run when its last trace ends. Its Celery task sits here, beside the function it runs.

A claim names the worker process holding the trace; the result is stored only while that
claim holds, so a trace taken back from a lost worker (`requeue_lost_traces`, run by the
workers' heartbeat) and run again stores one result. A conversation stops after
TRACE_WALL_CLOCK_S, and every call asks for at most the model's max output tokens.
"""

from __future__ import annotations

import logging
import time
from datetime import timedelta

from celery import shared_task
from django.conf import settings
from django.db import transaction
from django.db.models import Count, F
from django.utils import timezone

from patientagentbench.conversation import EndConversation, EndReason, TaskUser, run_conversation
from patientagentbench.models import ModelConfig, Run, Task, Trace
from patientagentbench.prompts import system_prompt_for
from patientagentbench.providers.factory import shared_provider
from patientagentbench.providers.redaction import redact
from patientagentbench.providers.retry import call_with_retries
from patientagentbench.providers.types import CallContext
from patientagentbench.results.cells import recompute_run_metrics
from patientagentbench.results.scoring import score_trace
from patientagentbench.runs.claims import Claim, claim_row, held, max_attempts, release_lost
from patientagentbench.runs.dispatch import send_each
from patientagentbench.runs.limits import provider_slot
from patientagentbench.runs.workers import current_worker, on_lost_claims, on_lost_worker
from patientagentbench.runs.worlds import build_world
from sandbox.seeding import trace_seed

log = logging.getLogger(__name__)


@shared_task(acks_late=True, reject_on_worker_lost=True, ignore_result=True)
def execute_trace_job(trace_id: int) -> None:
    execute_trace(trace_id, worker=current_worker())


def claim(trace_id: int, worker: str = "") -> Claim | None:
    """queued → running for `worker` (blank: inline), once; None when another delivery won."""
    active = Trace.objects.filter(run__status__in=Run.ACTIVE)
    return claim_row(active, trace_id, worker)


def execute_trace(trace_id: int, worker: str = "") -> None:
    """Run one trace; `worker` names the worker process claiming it (blank when inline)."""
    held_claim = claim(trace_id, worker)
    if held_claim is None:
        return
    trace = Trace.objects.select_related(
        "run", "run__patient_model", "task", "task__suite", "model"
    ).get(pk=trace_id)
    run = trace.run
    Run.objects.filter(pk=run.pk, status=Run.Status.QUEUED).update(status=Run.Status.RUNNING)
    try:
        result = _converse(trace, held_claim)
    except Exception as exc:  # noqa: BLE001 - a job must end as a kept error, never vanish
        log.exception("trace %s failed before the conversation", trace_id)
        _save_error(held_claim, f"{type(exc).__name__}: {exc}")
    else:
        _save_result(trace, held_claim, result)
    finish_run_if_done(run.pk)


class GuardedProvider:
    """A provider call as a job makes it: run still going and the trace still ours, under the
    endpoint's concurrency limit, at most the model's output tokens, retried on
    429/5xx/timeouts, its cost added to the run as it happens."""

    def __init__(self, model: ModelConfig, run_id: int, claim: Claim | None = None):
        self.model, self.run_id, self.claim = model, run_id, claim
        self.provider = shared_provider(
            model.provider,
            model.model_id,
            model.base_url,
            model.api_key_env,
            timeout=settings.PROVIDER_TIMEOUT_S,
            max_output_tokens=model.max_output_tokens,
        )

    def complete(self, messages, tools, temperature, context):
        _check_run_may_continue(self.run_id, self.claim)
        limit = 0 if self.model.is_simulated else self.model.max_concurrency

        def one_call():
            with provider_slot(self.model.concurrency_key, limit):
                return self.provider.complete(messages, tools, temperature, context)

        completion = call_with_retries(
            one_call,
            max_attempts=settings.PROVIDER_MAX_ATTEMPTS,
            base_delay=settings.PROVIDER_BASE_DELAY_S,
            rate_limit_patience=settings.PROVIDER_RATE_LIMIT_PATIENCE_S,
        )
        cost = self.model.cost_of(completion.tokens_in, completion.tokens_out)
        if cost:
            Run.objects.filter(pk=self.run_id).update(spent=F("spent") + cost)
        return completion


def _converse(trace: Trace, claim: Claim | None = None):
    deadline = time.monotonic() + settings.TRACE_WALL_CLOCK_S
    run, task, model = trace.run, trace.task, trace.model
    world = build_world(task.suite, task)
    seed = trace_seed(task.task_id, model.name, trace.temperature, trace.repetition)
    context = CallContext(seed=seed, task=task.as_data(), timeout_s=settings.PROVIDER_TIMEOUT_S)
    tools = world.tool_schemas()
    agent = GuardedProvider(model, run.pk, claim)
    if task.case is not None:
        user = _patient(run, task, trace.repetition, claim)
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
        deadline=deadline,
    )
    if task.case is not None and result.end_reason == EndReason.USER_ENDED:
        result.end_reason = EndReason.PATIENT_ENDED
    result.world = world
    return result


def _patient(run: Run, task: Task, repetition: int, claim: Claim | None = None):
    """The same case and repetition meet the same patient, whichever agent is tested."""
    from patientagentbench.simulated.patient import patient_for  # heavy; scenario runs only

    seed = trace_seed(task.task_id, "patient", None, repetition)
    provider = GuardedProvider(run.patient_model, run.pk, claim) if run.patient_model else None
    return patient_for(task.case, seed, provider)


def _check_run_may_continue(run_id: int, claim: Claim | None = None) -> None:
    """Before each call, one query: the run still going, and the trace still this claim's."""
    if claim is None:
        status, spend_limit, spent = Run.objects.filter(pk=run_id).values_list(
            "status", "spend_limit", "spent"
        )[0]
    else:
        row = Trace.objects.filter(pk=claim.pk).values_list(
            "status", "worker", "attempts", "run__status", "run__spend_limit", "run__spent"
        )[0]
        if row[:3] != (Trace.Status.RUNNING, claim.worker, claim.attempt):
            # Taken back from this worker (its heartbeats stopped for a while) and maybe
            # running elsewhere: stop spending; the result would not be stored anyway.
            raise EndConversation(EndReason.WORKER_LOST)
        status, spend_limit, spent = row[3:]
    if status == Run.Status.CANCELLED:
        raise EndConversation(EndReason.CANCELLED)
    if status == Run.Status.STOPPED:
        raise EndConversation(EndReason.SPEND_LIMIT)
    if spend_limit is not None and spent >= spend_limit:
        stop_at_spend_limit(run_id)
        raise EndConversation(EndReason.SPEND_LIMIT)


def _save_result(trace: Trace, claim: Claim, result) -> None:
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
    trace.error = redact(result.error)
    trace.side_effects = list(result.world.side_effects)
    trace.final_state = result.world.final_state()
    trace.tokens_in = result.tokens_in
    trace.tokens_out = result.tokens_out
    trace.latency_ms = result.latency_ms
    trace.cost = trace.model.cost_of(result.tokens_in, result.tokens_out)
    trace.finished_at = timezone.now()
    if status == Trace.Status.DONE:
        score_trace(trace)
    stored = held(Trace, claim).update(
        worker="", **{name: getattr(trace, name) for name in RESULT_FIELDS}
    )
    if not stored:
        log.warning("trace %s was taken back from this worker; its result is dropped", trace.pk)


RESULT_FIELDS = (
    "status",
    "messages",
    "tool_calls",
    "final_response",
    "end_reason",
    "error",
    "side_effects",
    "final_state",
    "tokens_in",
    "tokens_out",
    "latency_ms",
    "cost",
    "finished_at",
    "correctness",
    "correct",
)


def _save_error(claim: Claim, error: str) -> None:
    held(Trace, claim).update(
        status=Trace.Status.ERROR,
        worker="",
        error=redact(error),
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


# --- lost workers ----------------------------------------------------------------------------


@on_lost_claims
def requeue_lost_traces(live: list[str], run_id: int | None = None) -> int:
    """Traces claimed by workers no longer beating: queued and sent again (each claim counted
    an attempt), or ended with end reason `worker_lost` after JOB_MAX_ATTEMPTS; in a run that
    is no longer active, cancelled. `run_id` limits it to one run (resume), and then traces
    run inline that started STALE_INLINE ago count as lost too. Returns how many it queued."""
    traces = Trace.objects.all() if run_id is None else Trace.objects.filter(run_id=run_id)
    stale_inline = STALE_INLINE if run_id is not None else None
    inactive = traces.filter(status=Trace.Status.RUNNING).exclude(run__status__in=Run.ACTIVE)
    cancelled = list(
        inactive.exclude(worker="")
        .exclude(worker__in=live)
        .values_list("run_id", flat=True)
        .distinct()
    )
    inactive.exclude(worker="").exclude(worker__in=live).update(
        status=Trace.Status.CANCELLED, worker="", end_reason=EndReason.CANCELLED
    )
    released = release_lost(
        traces.filter(run__status__in=Run.ACTIVE),
        live,
        give_up={
            "end_reason": EndReason.WORKER_LOST,
            "error": f"The worker running this trace stopped {max_attempts()} times (killed, "
            "out of memory or its machine lost), so it was given up.",
        },
        stale_inline=stale_inline,
    )
    if released.requeued:
        log.warning("requeued %d traces from lost workers", len(released.requeued))
        requeued = list(released.requeued)
        transaction.on_commit(lambda: send_each(execute_trace_job, requeued))
    ended = Trace.objects.filter(pk__in=released.given_up).values_list("run_id", flat=True)
    for affected in {*ended, *cancelled}:
        finish_run_if_done(affected)
    return len(released.requeued)


# Traces run inline (no worker, no heartbeat) count as lost only after this long.
STALE_INLINE = timedelta(minutes=30)


@on_lost_worker
def resend_queued_traces() -> int:
    """Every queued trace of an active run, sent again: a lost worker took the messages it had
    fetched with it. Duplicates are harmless (a trace is claimed once)."""
    ids = Trace.objects.filter(status=Trace.Status.QUEUED, run__status__in=Run.ACTIVE).values_list(
        "pk", flat=True
    )
    return send_each(execute_trace_job, ids.iterator(chunk_size=2000))


def lost_traces(run_id: int) -> int:
    """Running traces of a run whose worker stopped beating (what `--wait` reports)."""
    from patientagentbench.runs.workers import live_workers

    return (
        Trace.objects.filter(run_id=run_id, status=Trace.Status.RUNNING)
        .exclude(worker="")
        .exclude(worker__in=live_workers())
        .count()
    )
