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

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from patientagentbench.conversation import EndReason, TaskUser, run_conversation
from patientagentbench.models import Run, Task, Trace
from patientagentbench.prompts import system_prompt_for
from patientagentbench.providers.redaction import redact
from patientagentbench.providers.types import CallContext
from patientagentbench.results.cells import recompute_run_metrics
from patientagentbench.results.scoring import score_trace
from patientagentbench.runs import jobs
from patientagentbench.runs.claims import Claim, held
from patientagentbench.runs.jobs import STALE_INLINE  # noqa: F401 - re-exported for callers
from patientagentbench.runs.worlds import build_world
from sandbox.seeding import trace_seed

log = logging.getLogger(__name__)


def execute_trace(trace_id: int, worker: str = "") -> None:
    """Run one trace; `worker` names the worker process claiming it (blank when inline)."""
    # Read once, before the claim: the row as read (queued, its attempts) is what the claim
    # compares and sets, so it needs no read of its own, and nothing is read after it.
    try:
        trace = Trace.objects.select_related(
            "run", "run__patient_model", "task", "task__suite", "model"
        ).get(pk=trace_id, status=Trace.Status.QUEUED)
    except Trace.DoesNotExist:  # another delivery claimed it, or it was cancelled meanwhile
        return
    held_claim = jobs.claim(TRACES, trace_id, worker, attempts=trace.attempts)
    if held_claim is None:
        return
    trace.status, trace.worker, trace.attempts = Trace.Status.RUNNING, worker, held_claim.attempt
    run = trace.run
    if run.status == Run.Status.QUEUED:  # the run's first trace (the UPDATE is queued-only)
        jobs.mark_batch_running(TRACES, run.pk)
    try:
        result = _converse(trace, held_claim)
    except Exception as exc:  # noqa: BLE001 - a job must end as a kept error, never vanish
        log.exception("trace %s failed before the conversation", trace_id)
        _save_error(held_claim, f"{type(exc).__name__}: {exc}")
    else:
        _save_result(trace, held_claim, result)
    finish_run_if_done(run.pk)


execute_trace_job = jobs.job_task("patientagentbench.runs.execution.execute_trace_job")(
    execute_trace
)


def claim(trace_id: int, worker: str = "") -> Claim | None:
    """queued → running for `worker` (blank: inline), once; None when another delivery won."""
    return jobs.claim(TRACES, trace_id, worker)


def _converse(trace: Trace, claim: Claim | None = None):
    deadline = time.monotonic() + settings.TRACE_WALL_CLOCK_S
    run, task, model = trace.run, trace.task, trace.model
    world = build_world(task.suite, task)
    seed = trace_seed(task.task_id, model.name, trace.temperature, trace.repetition)
    context = CallContext(seed=seed, task=task.as_data(), timeout_s=jobs.timeout_for(model))
    tools = world.tool_schemas()
    warnings: list[dict] = []  # the agent's and the patient's calls retried after a timeout
    agent = jobs.GuardedProvider(model, TRACES, run.pk, claim, warnings=warnings)
    if task.case is not None:
        user = _patient(run, task, trace.repetition, claim, warnings)
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
    # A broken patient raised out of its reply; what it said before that is in its log.
    result.patient_rejected_attempts = getattr(user, "rejected_attempts", [])
    if task.case is not None and result.end_reason == EndReason.USER_ENDED:
        result.end_reason = EndReason.PATIENT_ENDED
    result.world = world
    result.warnings = warnings
    return result


def _patient(run: Run, task: Task, repetition: int, claim: Claim | None = None, warnings=None):
    """The same case and repetition meet the same patient, whichever agent is tested."""
    from patientagentbench.simulated.patient import patient_for  # heavy; scenario runs only

    seed = trace_seed(task.task_id, "patient", None, repetition)
    provider = (
        jobs.GuardedProvider(run.patient_model, TRACES, run.pk, claim, warnings=warnings)
        if run.patient_model
        else None
    )
    return patient_for(task.case, seed, provider)


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
    trace.patient_rejected_attempts = result.patient_rejected_attempts
    trace.warnings = result.warnings
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
    "patient_rejected_attempts",
    "warnings",
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
    return jobs.progress(TRACES, run_id)


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
    jobs.stop_at_spend_limit(TRACES, run_id)


TRACES = jobs.JobKind(
    noun="trace",
    batch_noun="run",
    job_model=Trace,
    batch_model=Run,
    batch_field="run",
    task_name="patientagentbench.runs.execution.execute_trace_job",
    resume_command="resume_run",
    batch_cancelled={"stop_reason": "Cancelled."},
    batch_stopped={"stop_reason": "The run reached its spend limit."},
    batch_resumed={"stop_reason": ""},
    job_cancelled={"end_reason": EndReason.CANCELLED},
    job_stopped={"end_reason": EndReason.SPEND_LIMIT},
    job_requeued={"end_reason": "", "error": ""},
    job_given_up={"end_reason": EndReason.WORKER_LOST},
    finish=lambda run_id: finish_run_if_done(run_id),
    resumable=lambda run: run.source == Run.Source.LAUNCHED,
)
jobs.recover_with_workers(TRACES)


def requeue_lost_traces(live: list[str], run_id: int | None = None) -> int:
    return jobs.requeue_lost(TRACES, live, batch_id=run_id)


def resend_queued_traces() -> int:
    return jobs.resend_queued(TRACES)


def lost_traces(run_id: int) -> int:
    """Running traces of a run whose worker stopped beating (what `--wait` reports)."""
    return jobs.lost_count(TRACES, run_id)
