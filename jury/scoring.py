"""Scoring conversations with a panel, as background jobs.

One job per (conversation, judge, repetition) covers every scored dimension of the panel's
rubric, one call per dimension. Jobs are claimed with a conditional UPDATE (queued →
running), so a job delivered twice writes one set of verdicts; a job's key names what it
scores (panel, conversation, judge, repetition, versions), so launching the same scoring
twice resumes instead of duplicating. Calls go through the pipeline's retry and
per-endpoint concurrency rules, and their cost counts against the jury run's spend limit.

The judge sees the rubric, the case's profile and scenario, and the conversation as the
`transcripts` allow-list renders it; never the model's name or any run data.

A claim names the worker process holding the job, and verdicts are stored only while it
holds; the workers' heartbeat takes back jobs whose worker died (`requeue_lost_jobs`), as it
does for traces. A job stops after TRACE_WALL_CLOCK_S.
"""

from __future__ import annotations

import itertools
import logging
import time
from dataclasses import dataclass
from datetime import timedelta
from decimal import Decimal

from celery import shared_task
from django.conf import settings
from django.db import transaction
from django.db.models import Count, F
from django.utils import timezone

from jury.models import Judge, JudgeJob, JuryRun, Panel, Verdict
from jury.parsing import parse_completion
from jury.prompts import JSON_SCHEMA, TOOL_SPEC, judge_messages
from jury.rubric import Dimension, cached_rubric
from jury.simulated import SimulatedJudgeProvider
from patientagentbench.models import ModelConfig, Run, Trace
from patientagentbench.providers.factory import shared_provider
from patientagentbench.providers.redaction import redact
from patientagentbench.providers.retry import call_with_retries
from patientagentbench.providers.types import CallContext, OutputSchema, ProviderError
from patientagentbench.runs.claims import Claim, claim_row, held, max_attempts, release_lost
from patientagentbench.runs.dispatch import send_each
from patientagentbench.runs.limits import provider_slot
from patientagentbench.runs.workers import (
    current_worker,
    live_workers,
    on_lost_claims,
    on_lost_worker,
)
from patientagentbench.transcripts import transcript_of
from sandbox.seeding import trace_seed

log = logging.getLogger(__name__)

PARSE_ATTEMPTS = 3  # a judge that answers off-format is asked again, at most this often
JUDGE_MAX_OUTPUT_TOKENS = 600  # a verdict is a score and a paragraph; more is a runaway
OUTPUT = OutputSchema(
    name=TOOL_SPEC["name"], description=TOOL_SPEC["description"], schema=JSON_SCHEMA
)


class JuryError(ValueError):
    pass


class OutOfTime(Exception):
    """A judge job ran past the wall-clock limit (TRACE_WALL_CLOCK_S)."""


# --- launching -------------------------------------------------------------------------------


def job_key(panel: Panel, trace_id: int, judge: Judge, repetition: int) -> str:
    return (
        f"p{panel.pk}:t{trace_id}:j{judge.pk}:r{repetition}:"
        f"rubric{panel.rubric_version}:prompt{judge.prompt_version}"
    )


def launch_jury(
    *,
    panel: Panel,
    run: Run,
    repeat: int = 1,
    spend_limit: Decimal | None = None,
    created_by=None,
    enqueue: bool = True,
) -> JuryRun:
    """Queue a job for each conversation × judge × repetition not already scored."""
    if panel.imported:
        raise JuryError(f"Panel {panel.name} holds imported verdicts; it does not score.")
    judges = list(panel.judges.select_related("model"))
    if not judges:
        raise JuryError(f"Panel {panel.name} has no judges.")
    trace_ids = list(run.traces.filter(status=Trace.Status.DONE).values_list("pk", flat=True))
    if not trace_ids:
        raise JuryError(f"Run {run.pk} has no finished conversations to score.")
    with transaction.atomic():
        jury_run = JuryRun.objects.create(
            panel=panel, run=run, repeat=repeat, spend_limit=spend_limit, created_by=created_by
        )
        jobs = (
            JudgeJob(
                jury_run=jury_run,
                trace_id=trace_id,
                judge=judge,
                repetition=repetition,
                key=job_key(panel, trace_id, judge, repetition),
            )
            for trace_id in trace_ids
            for judge in judges
            for repetition in range(repeat)
        )
        for batch in itertools.batched(jobs, 1000):  # never every row in memory at once
            # ignore_conflicts: already scored by an earlier launch, nothing to redo.
            JudgeJob.objects.bulk_create(batch, ignore_conflicts=True)
        if not jury_run.jobs.exists():
            jury_run.status, jury_run.finished_at = JuryRun.Status.FINISHED, timezone.now()
            jury_run.save(update_fields=["status", "finished_at"])
        elif enqueue:
            transaction.on_commit(lambda: enqueue_queued(jury_run.pk))
    return jury_run


def enqueue_queued(jury_run_id: int) -> int:
    ids = JudgeJob.objects.filter(
        jury_run_id=jury_run_id, status=JudgeJob.Status.QUEUED
    ).values_list("pk", flat=True)
    return send_each(score_job_task, ids.iterator(chunk_size=2000))


def execute_inline(jury_run: JuryRun) -> None:
    """Every queued job in this process (demo seeding, tests)."""
    for job_id in jury_run.jobs.filter(status=JudgeJob.Status.QUEUED).values_list("pk", flat=True):
        execute_job(job_id)


def cancel_jury(jury_run_id: int) -> bool:
    with transaction.atomic():
        cancelled = JuryRun.objects.filter(pk=jury_run_id, status__in=JuryRun.ACTIVE).update(
            status=JuryRun.Status.CANCELLED, finished_at=timezone.now()
        )
        JudgeJob.objects.filter(jury_run_id=jury_run_id, status=JudgeJob.Status.QUEUED).update(
            status=JudgeJob.Status.CANCELLED
        )
    return bool(cancelled)


def resume_jury(jury_run_id: int) -> int:
    """Queue again what was cancelled or stopped, and, on a running scoring, what workers that
    stopped beating held; every queued job is sent again (a job is claimed once)."""
    with transaction.atomic():
        JuryRun.objects.select_for_update().get(pk=jury_run_id)  # DoesNotExist: unknown id
        requeued = JudgeJob.objects.filter(
            jury_run_id=jury_run_id, status=JudgeJob.Status.CANCELLED
        ).update(status=JudgeJob.Status.QUEUED, worker="")
        if requeued:
            JuryRun.objects.filter(pk=jury_run_id).update(
                status=JuryRun.Status.RUNNING, finished_at=None
            )
        live = list(live_workers().values_list("hostname", flat=True))
        requeued += requeue_lost_jobs(live, jury_run_id=jury_run_id)
        transaction.on_commit(lambda: enqueue_queued(jury_run_id))
    return requeued


# --- executing -------------------------------------------------------------------------------


@shared_task(acks_late=True, reject_on_worker_lost=True, ignore_result=True)
def score_job_task(job_id: int) -> None:
    execute_job(job_id, worker=current_worker())


def claim(job_id: int, worker: str = "") -> Claim | None:
    """queued → running for `worker` (blank: inline), once: a job delivered twice scores
    once."""
    active = JudgeJob.objects.filter(jury_run__status__in=JuryRun.ACTIVE)
    return claim_row(active, job_id, worker)


def execute_job(job_id: int, worker: str = "") -> None:
    job_claim = claim(job_id, worker)
    if job_claim is None:
        return
    job = JudgeJob.objects.select_related("jury_run__panel", "judge__model").get(pk=job_id)
    JuryRun.objects.filter(pk=job.jury_run_id, status=JuryRun.Status.QUEUED).update(
        status=JuryRun.Status.RUNNING
    )
    try:
        answers = score_conversation(job, deadline=time.monotonic() + settings.TRACE_WALL_CLOCK_S)
    except OutOfTime as exc:
        _fail(job_claim, str(exc))
    except Exception as exc:  # noqa: BLE001 - a job ends as a kept error, never vanishes
        log.exception("judge job %s failed", job_id)
        _fail(job_claim, f"{type(exc).__name__}: {exc}")
    else:
        _store(job, job_claim, answers)
    finish_if_done(job.jury_run_id)


def _fail(job_claim: Claim, error: str) -> None:
    held(JudgeJob, job_claim).update(
        status=JudgeJob.Status.ERROR,
        worker="",
        error=redact(error)[:2000],
        finished_at=timezone.now(),
    )


@dataclass
class Answer:
    dimension: str
    status: str
    score: int | None
    rationale: str
    raw: str
    attempts: int
    latency_ms: float
    cost: Decimal


def score_conversation(job: JudgeJob, deadline: float | None = None) -> list[Answer]:
    panel, judge = job.jury_run.panel, job.judge
    rubric = cached_rubric(panel.rubric_name, panel.rubric_version)
    messages, case, signals = _conversation(job.trace_id)
    transcript = transcript_of(messages, user_label="Patient", include_system=False)
    provider = judge_provider(judge.model)
    answers = []
    for dimension in rubric.scored:
        if _stopped(job.jury_run_id):
            break
        if deadline is not None and time.monotonic() >= deadline:
            raise OutOfTime(
                f"The judge job ran past its wall-clock limit ({settings.TRACE_WALL_CLOCK_S:g} s)"
                f" after {len(answers)} of {len(rubric.scored)} dimensions."
            )
        seed = trace_seed(
            f"{job.trace_id}:{dimension.key}", judge.name, judge.temperature, job.repetition
        )
        context = CallContext(
            seed=seed,
            # Read only by the simulated judge, which imitates a judge from these signals;
            # real providers never send `task` anywhere.
            task={**signals, "dimension": dimension.key},
            timeout_s=settings.PROVIDER_TIMEOUT_S,
            output_schema=OUTPUT,
            max_output_tokens=JUDGE_MAX_OUTPUT_TOKENS,
        )
        prompt = judge_messages(rubric, dimension, case, transcript)
        answers.append(_judge_dimension(provider, judge, dimension, prompt, context, job))
    return answers


def _judge_dimension(provider, judge: Judge, dimension: Dimension, prompt, context, job) -> Answer:
    started, raw, attempt = time.perf_counter(), "", 0
    cost = Decimal(0)
    for attempt in range(1, PARSE_ATTEMPTS + 1):  # noqa: B007 - attempt is reported below
        try:
            completion = _call(provider, judge.model, prompt, judge.temperature, context)
        except ProviderError as exc:
            return Answer(
                dimension.key,
                Verdict.Status.ERROR,
                None,
                "",
                redact(str(exc))[:2000],
                attempt,
                _ms(started),
                cost,
            )
        cost += judge.model.cost_of(completion.tokens_in, completion.tokens_out)
        _charge(job.jury_run_id, judge.model.cost_of(completion.tokens_in, completion.tokens_out))
        parsed = parse_completion(completion)
        raw = parsed.raw
        if parsed.status != "unparseable":
            return Answer(
                dimension.key,
                parsed.status,
                parsed.score,
                parsed.rationale,
                raw,
                attempt,
                _ms(started),
                cost,
            )
    return Answer(
        dimension.key, Verdict.Status.UNPARSEABLE, None, "", raw, attempt, _ms(started), cost
    )


def _call(provider, model: ModelConfig, prompt, temperature: float, context):
    limit = 0 if model.is_simulated else model.max_concurrency

    def one_call():
        with provider_slot(model.concurrency_key, limit):
            return provider.complete(prompt, [], temperature, context)

    return call_with_retries(
        one_call,
        max_attempts=settings.PROVIDER_MAX_ATTEMPTS,
        base_delay=settings.PROVIDER_BASE_DELAY_S,
        rate_limit_patience=settings.PROVIDER_RATE_LIMIT_PATIENCE_S,
    )


def judge_provider(model: ModelConfig):
    """The simulated judge for simulated judge profiles; any pipeline provider otherwise."""
    if model.is_simulated:
        return SimulatedJudgeProvider(model.model_id)
    return shared_provider(
        model.provider,
        model.model_id,
        model.base_url,
        model.api_key_env,
        timeout=settings.PROVIDER_TIMEOUT_S,
        max_output_tokens=model.max_output_tokens,
    )


def _conversation(trace_id: int) -> tuple[list, dict, dict]:
    messages, case, correct, end_reason, calls = (
        Trace.objects.filter(pk=trace_id)
        .values_list("messages", "task__case", "correct", "end_reason", "tool_calls")
        .get()
    )
    signals = {
        "outcome_passed": correct,
        "end_reason": end_reason,
        "tool_calls": len(calls),
        "tool_errors": sum(1 for c in calls if c.get("status") == "error"),
        "subtask": ((case or {}).get("attributes") or {}).get("subtask", ""),
    }
    return messages, case or {}, signals


def _store(job: JudgeJob, job_claim: Claim, answers: list[Answer]) -> None:
    panel, judge = job.jury_run.panel, job.judge
    with transaction.atomic():
        # The job's row, locked while the claim holds: a job taken back from a worker
        # presumed lost and scored again elsewhere stores its verdicts once.
        mine = held(JudgeJob, job_claim).select_for_update().values_list("pk", flat=True)
        if mine.first() is None:
            log.warning("judge job %s was taken back from this worker; dropped", job.pk)
            return
        for answer in answers:
            Verdict.objects.update_or_create(
                panel=panel,
                judge=judge,
                trace_id=job.trace_id,
                dimension=answer.dimension,
                repetition=job.repetition,
                rubric_version=panel.rubric_version,
                prompt_version=judge.prompt_version,
                defaults={
                    "job": job,
                    "status": answer.status,
                    "score": answer.score if answer.status == Verdict.Status.OK else None,
                    "rationale": answer.rationale,
                    "raw": answer.raw,
                    "attempts": answer.attempts,
                    "latency_ms": answer.latency_ms,
                },
            )
        stopped = len(answers) < len(cached_rubric(panel.rubric_name, panel.rubric_version).scored)
        held(JudgeJob, job_claim).update(
            worker="",
            status=JudgeJob.Status.CANCELLED if stopped else JudgeJob.Status.DONE,
            cost=sum((a.cost for a in answers), Decimal(0)),
            finished_at=timezone.now(),
        )


def _charge(jury_run_id: int, cost: Decimal) -> None:
    if cost:
        JuryRun.objects.filter(pk=jury_run_id).update(spent=F("spent") + cost)


def _stopped(jury_run_id: int) -> bool:
    status, limit, spent = JuryRun.objects.filter(pk=jury_run_id).values_list(
        "status", "spend_limit", "spent"
    )[0]
    if status in (JuryRun.Status.CANCELLED, JuryRun.Status.STOPPED):
        return True
    if limit is not None and spent >= limit:
        _stop_at_spend_limit(jury_run_id)
        return True
    return False


def _stop_at_spend_limit(jury_run_id: int) -> None:
    with transaction.atomic():
        if JuryRun.objects.filter(pk=jury_run_id, status__in=JuryRun.ACTIVE).update(
            status=JuryRun.Status.STOPPED, finished_at=timezone.now()
        ):
            JudgeJob.objects.filter(jury_run_id=jury_run_id, status=JudgeJob.Status.QUEUED).update(
                status=JudgeJob.Status.CANCELLED
            )


def finish_if_done(jury_run_id: int) -> None:
    unfinished = (JudgeJob.Status.QUEUED, JudgeJob.Status.RUNNING)
    if JudgeJob.objects.filter(jury_run_id=jury_run_id, status__in=unfinished).exists():
        return
    JuryRun.objects.filter(pk=jury_run_id, status__in=JuryRun.ACTIVE).update(
        status=JuryRun.Status.FINISHED, finished_at=timezone.now()
    )


def progress(jury_run_id: int) -> dict[str, int]:
    counts = dict.fromkeys(JudgeJob.Status.values, 0)
    for row in (
        JudgeJob.objects.filter(jury_run_id=jury_run_id).values("status").annotate(n=Count("pk"))
    ):
        counts[row["status"]] = row["n"]
    counts["total"] = sum(counts[s] for s in JudgeJob.Status.values)
    ended = counts["done"] + counts["error"] + counts["cancelled"]
    counts["ended"] = ended
    counts["percent"] = round(100 * ended / counts["total"]) if counts["total"] else 100
    return counts


def _ms(started: float) -> float:
    return (time.perf_counter() - started) * 1000


# --- lost workers ----------------------------------------------------------------------------


@on_lost_claims
def requeue_lost_jobs(live: list[str], jury_run_id: int | None = None) -> int:
    """Judge jobs claimed by workers no longer beating: queued and sent again, or ended as
    errors after JOB_MAX_ATTEMPTS; in a scoring no longer active, cancelled. `jury_run_id`
    limits it to one scoring (resume), and then jobs run inline count after 30 minutes."""
    jobs = (
        JudgeJob.objects.all()
        if jury_run_id is None
        else JudgeJob.objects.filter(jury_run_id=jury_run_id)
    )
    lost_inactive = (
        jobs.filter(status=JudgeJob.Status.RUNNING)
        .exclude(jury_run__status__in=JuryRun.ACTIVE)
        .exclude(worker="")
        .exclude(worker__in=live)
    )
    lost_inactive.update(status=JudgeJob.Status.CANCELLED, worker="")
    released = release_lost(
        jobs.filter(jury_run__status__in=JuryRun.ACTIVE),
        live,
        give_up={
            "error": f"The worker running this judge job stopped {max_attempts()} times "
            "(killed, out of memory or its machine lost), so it was given up."
        },
        stale_inline=STALE_INLINE if jury_run_id is not None else None,
    )
    if released.requeued:
        log.warning("requeued %d judge jobs from lost workers", len(released.requeued))
        requeued = list(released.requeued)
        transaction.on_commit(lambda: send_each(score_job_task, requeued))
    ended = JudgeJob.objects.filter(pk__in=released.given_up).values_list("jury_run_id", flat=True)
    for affected in set(ended):
        finish_if_done(affected)
    return len(released.requeued)


STALE_INLINE = timedelta(minutes=30)


@on_lost_worker
def resend_queued_jobs() -> int:
    """Every queued judge job of an active scoring, sent again (see runs.workers)."""
    ids = JudgeJob.objects.filter(
        status=JudgeJob.Status.QUEUED, jury_run__status__in=JuryRun.ACTIVE
    ).values_list("pk", flat=True)
    return send_each(score_job_task, ids.iterator(chunk_size=2000))


def lost_jobs(jury_run_id: int) -> int:
    """Running judge jobs of a scoring whose worker stopped beating."""
    return (
        JudgeJob.objects.filter(jury_run_id=jury_run_id, status=JudgeJob.Status.RUNNING)
        .exclude(worker="")
        .exclude(worker__in=live_workers())
        .count()
    )
