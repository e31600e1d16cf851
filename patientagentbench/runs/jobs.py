"""One lifecycle for background jobs: a Run's traces and a JuryRun's judge jobs, which come in
batches, and a case set's generation, which is a job of its own. A `JobKind` declares how a
job (and its batch, if it has one) is named; every step of their life — send, claim, check
before each paid call, charge, stop at the spend limit, cancel, resume, progress, take back
from lost workers, resend after a broker outage, wait on the command line — is written once
here, so the kinds cannot drift apart.

A batch row has `status` (its model's ACTIVE statuses are the live ones), `spend_limit`,
`spent` and `finished_at`; a job row has the fields of `models.Job` (its key, its claim, its
outcome and cost). A kind without a batch has only the steps of one job: send, claim, the
claim checked before each paid call, its cost added to its own, take back from lost workers,
resend.
"""

from __future__ import annotations

import logging
import sys
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import timedelta
from decimal import Decimal

from celery import current_app, shared_task
from celery.signals import worker_init
from django.conf import settings
from django.db import DatabaseError, close_old_connections, connections, models, router, transaction
from django.db.models import Count, F
from django.utils import timezone

from patientagentbench.conversation import EndConversation, EndReason
from patientagentbench.env import env_suffix
from patientagentbench.models import ModelConfig
from patientagentbench.providers.factory import preload_sdks, shared_provider
from patientagentbench.providers.retry import call_with_retries
from patientagentbench.runs.claims import Claim, claim_row, held, max_attempts, release_lost
from patientagentbench.runs.dispatch import send_each
from patientagentbench.runs.limits import provider_slot
from patientagentbench.runs.workers import (
    current_worker,
    dead_after,
    live_workers,
    on_lost_claims,
    on_lost_worker,
    worker_appears,
)

log = logging.getLogger(__name__)

QUEUED, RUNNING, DONE, ERROR, CANCELLED = "queued", "running", "done", "error", "cancelled"
ENDED = (DONE, ERROR, CANCELLED)
UNFINISHED = (QUEUED, RUNNING)
BATCH_RUNNING, BATCH_CANCELLED, BATCH_STOPPED = "running", "cancelled", "stopped"
BATCH_FINISHED = "finished"

# Jobs run inline (no worker, no heartbeat) count as lost only after this long.
STALE_INLINE = timedelta(minutes=30)
NO_WORKER_GRACE_S = 8.0
CHECK_WORKERS_EVERY_S = 5.0


@dataclass(frozen=True, kw_only=True)
class JobKind:
    """What differs between kinds of job; the rest of this module is what they share."""

    noun: str  # "trace", "judge job": a job in messages
    job_model: type[models.Model]
    task_name: str  # the Celery task running one job, by name (registered by `job_task`)
    # The batch the jobs belong to; None for a kind whose every job stands alone.
    batch_model: type[models.Model] | None = None
    batch_noun: str = ""  # "run", "scoring": a batch in messages
    batch_field: str = ""  # the job's foreign key to its batch
    resume_command: str = ""  # the manage.py command that queues a batch's jobs again
    # Set on the batch when it is cancelled or stops at its spend limit, and cleared on resume.
    batch_cancelled: Mapping = field(default_factory=dict)
    batch_stopped: Mapping = field(default_factory=dict)
    batch_resumed: Mapping = field(default_factory=dict)
    # Set on a job cancelled (by hand, or at the spend limit), and cleared when it is queued again.
    job_cancelled: Mapping = field(default_factory=dict)
    job_stopped: Mapping = field(default_factory=dict)
    job_requeued: Mapping = field(default_factory=dict)
    job_given_up: Mapping = field(default_factory=dict)
    # Called when a batch may have ended (its last job ended, or was given up).
    finish: Callable[[int], None] = lambda batch_id: None
    # Which batches have jobs to queue again (imported runs have none).
    resumable: Callable[[models.Model], bool] = lambda batch: True
    # Resume also retries jobs that ended in an error (a judge job that failed for a missing
    # key is worth another try once the key is set; a trace's error is part of its result).
    retry_errors: bool = False

    @property
    def task(self):
        return current_app.tasks[self.task_name]

    def jobs(self, batch_id: int | None = None) -> models.QuerySet:
        if batch_id is None:
            return self.job_model.objects.all()
        return self.job_model.objects.filter(**{f"{self.batch_field}_id": batch_id})

    @property
    def batched(self) -> bool:
        return self.batch_model is not None

    def of_active_batches(self, jobs: models.QuerySet | None = None) -> models.QuerySet:
        jobs = self.jobs() if jobs is None else jobs
        if not self.batched:
            return jobs
        return jobs.filter(**{f"{self.batch_field}__status__in": self.batch_model.ACTIVE})

    def batch_of(self, job_id: int) -> int:
        return self.jobs().filter(pk=job_id).values_list(f"{self.batch_field}_id", flat=True).get()


def job_task(name: str):
    """The one Celery task shape for a job: acknowledged after it ran, so a worker killed
    mid-job leaves the message to the broker; `execute(job_id, worker=...)` claims it."""

    def register(execute: Callable[..., None]):
        @shared_task(name=name, acks_late=True, reject_on_worker_lost=True, ignore_result=True)
        def run_job(job_id: int) -> None:
            execute(job_id, worker=current_worker())

        return run_job

    return register


# --- sending ---------------------------------------------------------------------------------


def enqueue_queued(kind: JobKind, batch_id: int) -> int:
    """Send each queued job of the batch (of a kind without batches: the job `batch_id`
    itself); how many the broker took (the rest stay queued)."""
    jobs = kind.jobs(batch_id) if kind.batched else kind.jobs().filter(pk=batch_id)
    ids = jobs.filter(status=QUEUED).values_list("pk", flat=True)
    return send_each(kind.task, ids.iterator(chunk_size=2000))


def dispatch_on_commit(kind: JobKind, batch, n_jobs: int) -> None:
    """After the launch commits, send its jobs and note on `batch.unsent` how many the broker
    refused (they stay queued; `runs.dispatch`). A kind without batches: `batch` is the job."""
    batch.unsent = 0
    transaction.on_commit(lambda: setattr(batch, "unsent", n_jobs - enqueue_queued(kind, batch.pk)))


def resend_queued(kind: JobKind) -> int:
    """Every queued job of an active batch, sent again: a lost worker took the messages it
    had fetched with it. Duplicates are harmless (a job is claimed once)."""
    ids = kind.of_active_batches().filter(status=QUEUED).values_list("pk", flat=True)
    return send_each(kind.task, ids.iterator(chunk_size=2000))


def broker_away(kind: JobKind, batch) -> str:
    """What to tell whoever launched a batch whose jobs the broker refused."""
    if not kind.batched:
        return (
            f"The job queue is not answering: the {kind.noun} is saved, queued. Workers send "
            "it when they reconnect to it."
        )
    return (
        f"The job queue is not answering: {kind.batch_noun} {batch.pk} is saved with "
        f"{batch.unsent} jobs queued. Workers send them when they reconnect to it; or "
        f"run `manage.py {kind.resume_command} {batch.pk}` once it is back."
    )


# --- running one job -------------------------------------------------------------------------


def claim(
    kind: JobKind, job_id: int, worker: str = "", attempts: int | None = None
) -> Claim | None:
    """queued → running for `worker` (blank: inline), once, while the batch is active; None
    when another delivery won. `attempts`: the job's count as the caller read it queued
    (saves a query; `claim_row`)."""
    jobs = kind.jobs()
    if kind.batched:
        # The batch as `batch_id IN (active batches)`, not a join: `claim_row` says why.
        active = kind.batch_model.objects.filter(status__in=kind.batch_model.ACTIVE)
        jobs = jobs.filter(**{f"{kind.batch_field}__in": active})
    return claim_row(jobs, job_id, worker, attempts=attempts)


def check_may_continue(kind: JobKind, batch_id: int, job_claim: Claim | None = None) -> int | None:
    """Before each paid call, one query: the batch still going and the job still this claim's.
    Raises EndConversation with the reason to stop. Returns the batch's call limit (None: no
    limit, or a kind without a batch). A kind without a batch has only the claim to check
    (none when run inline)."""
    if not kind.batched:
        if job_claim is not None and not held(kind.job_model, job_claim).exists():
            raise EndConversation(EndReason.WORKER_LOST)
        return None
    if job_claim is None:
        status, spend_limit, spent, call_limit = (
            kind.batch_model.objects.filter(pk=batch_id)
            .order_by()
            .values_list("status", "spend_limit", "spent", "call_limit")[0]
        )
    else:
        row = _claim_and_batch(kind, job_claim.pk)
        if row[:3] != (RUNNING, job_claim.worker, job_claim.attempt):
            # Taken back from this worker (its heartbeats stopped for a while) and maybe
            # running elsewhere: stop spending; the result would not be stored anyway.
            raise EndConversation(EndReason.WORKER_LOST)
        status, spend_limit, spent, call_limit = row[3:]
    if status == BATCH_CANCELLED:
        raise EndConversation(EndReason.CANCELLED)
    if status == BATCH_STOPPED:
        raise EndConversation(EndReason.SPEND_LIMIT)
    if spend_limit is not None and spent >= spend_limit:
        stop_at_spend_limit(kind, batch_id)
        raise EndConversation(EndReason.SPEND_LIMIT)
    return call_limit


def reserve_call(kind: JobKind, batch_id: int) -> None:
    """Count one call against the batch's call limit before it is made: one conditional
    UPDATE, so calls in flight on many workers never take the count past the limit (a dollar
    limit, charged after each call, can be overshot by the calls in flight). Raises
    EndConversation, and stops the batch, once the limit is reached."""
    counted = (
        kind.batch_model.objects.filter(pk=batch_id, calls__lt=F("call_limit"))
        .order_by()
        .update(calls=F("calls") + 1)
    )
    if not counted:
        stop_at_spend_limit(kind, batch_id, **CALL_LIMIT_REASON.get(kind.batch_noun, {}))
        raise EndConversation(EndReason.SPEND_LIMIT)


# What a batch stopped at its call limit says instead of its spend-limit text (runs have one).
CALL_LIMIT_REASON = {"run": {"stop_reason": "The run reached its call limit."}}


def _claim_query(kind: JobKind, job_id: int) -> models.QuerySet:
    batch = kind.batch_field
    # order_by(): a job model's default ordering would join its task to sort one row.
    return (
        kind.jobs()
        .filter(pk=job_id)
        .order_by()
        .values_list(
            "status",
            "worker",
            "attempts",
            f"{batch}__status",
            f"{batch}__spend_limit",
            f"{batch}__spent",
            f"{batch}__call_limit",
        )[:1]
    )


_claim_sql: dict[tuple[str, str], str] = {}


def _claim_and_batch(kind: JobKind, job_id: int) -> tuple:
    """(status, worker, attempts, batch status, spend limit, spent, call limit) of a job: the
    query before
    every paid call. Building and compiling it through the ORM cost several times the CPU of
    running it (~0.5 ms a call), so on PostgreSQL the ORM's own SQL is compiled once per
    process and run through a cursor; the values are the same (PostgreSQL's driver returns
    these columns as the ORM does, with no conversion). Other databases use the ORM."""
    database = router.db_for_read(kind.job_model)
    connection = connections[database]
    sql = _claim_sql.get((kind.task_name, database))
    if sql is None and connection.vendor == "postgresql":
        compiled, params = _claim_query(kind, job_id).query.sql_with_params()
        if params == (job_id,):  # only the job's id varies (else: no shortcut)
            sql = _claim_sql[kind.task_name, database] = compiled
    if sql is None:
        row = next(iter(_claim_query(kind, job_id)), None)
    else:
        with connection.cursor() as cursor:
            cursor.execute(sql, (job_id,))
            row = cursor.fetchone()
    if row is None:
        raise kind.job_model.DoesNotExist(f"{kind.noun} {job_id} does not exist")
    return row


def charge(
    kind: JobKind, batch_id: int | None, cost: Decimal, job_claim: Claim | None = None
) -> None:
    """The call's cost added to the batch's spend as it happens; a job without a batch (its
    spend is bounded before it is queued) adds it to its own."""
    if not cost:
        return
    if kind.batched:
        kind.batch_model.objects.filter(pk=batch_id).update(spent=F("spent") + cost)
    elif job_claim is not None:
        kind.jobs().filter(pk=job_claim.pk).update(cost=F("cost") + cost)


def timeout_for(model: ModelConfig) -> float:
    """One call's timeout for a model config: its own PROVIDER_TIMEOUT_S_<NAME>, else
    PROVIDER_TIMEOUT_S (a slow local model needs more than a hosted one)."""
    return settings.PROVIDER_TIMEOUTS_S.get(env_suffix(model.name), settings.PROVIDER_TIMEOUT_S)


def provider_for(model: ModelConfig):
    """The process's shared client for a model config, with the model's timeout and output
    cap."""
    return shared_provider(
        model.provider,
        model.model_id,
        model.base_url,
        model.api_key_env,
        timeout=timeout_for(model),
        max_output_tokens=model.max_output_tokens,
    )


class GuardedProvider:
    """A provider call as a job makes it: batch still going and the job still ours, under the
    endpoint's concurrency limit, at most the model's output tokens, retried on
    429/5xx/timeouts, its cost added to the batch as it happens. A call retried after a
    timeout is logged and added to `warnings` (a list several providers of one job may share),
    which the job stores: a retry that then succeeds (a local server has the prompt cached by
    then) would otherwise hide a timeout too short for the model."""

    def __init__(
        self,
        model: ModelConfig,
        kind: JobKind,
        batch_id: int | None,
        job_claim: Claim | None = None,
        provider=None,
        warnings: list[dict] | None = None,
        caller_slot: tuple[str, int] | None = None,
    ):
        self.model, self.kind, self.batch_id, self.claim = model, kind, batch_id, job_claim
        # A second limit inside the endpoint's: (key, most calls at once) for one caller of a
        # shared endpoint (a judge on a server its agent also uses); limit 0 means none.
        self.caller_slot = caller_slot or ("", 0)
        self.provider = provider or provider_for(model)
        self.warnings = warnings if warnings is not None else []
        # Time spent inside the endpoint's slots: the model's own time, without the wait for
        # a slot other jobs held. Latency estimates need the former (a job queued behind three
        # others on a one-slot local server would otherwise count their calls as its own).
        self.busy_ms = 0.0

    @property
    def model_id(self) -> str:
        """The endpoint's model id, which callers name what the model wrote by."""
        return getattr(self.provider, "model_id", "") or self.model.model_id

    def _retried(self, error, attempt: int) -> None:
        if not getattr(error, "timed_out", False):
            return
        timeout = timeout_for(self.model)
        detail = (
            f"a call to {self.model.name} timed out after {timeout:g} s and was retried "
            f"(attempt {attempt + 1}); if the model is this slow, raise "
            f"PROVIDER_TIMEOUT_S_{env_suffix(self.model.name)}"
        )
        log.warning(
            "%s %s: %s", self.kind.noun, self.claim.pk if self.claim else "(inline)", detail
        )
        self.warnings.append(
            {
                "kind": "timeout_retry",
                "model": self.model.name,
                "attempt": attempt,
                "detail": detail,
            }
        )

    def complete(self, messages, tools, temperature, context):
        call_limit = check_may_continue(self.kind, self.batch_id, self.claim)
        limit = 0 if self.model.is_simulated else self.model.max_concurrency

        def one_call():
            if call_limit is not None:  # every attempt is a call the provider may bill
                reserve_call(self.kind, self.batch_id)
            caller_key, caller_limit = self.caller_slot
            with (
                provider_slot(caller_key, caller_limit),
                provider_slot(self.model.concurrency_key, limit),
            ):
                started = time.perf_counter()
                try:
                    return self.provider.complete(messages, tools, temperature, context)
                finally:
                    self.busy_ms += (time.perf_counter() - started) * 1000

        completion = call_with_retries(
            one_call,
            max_attempts=settings.PROVIDER_MAX_ATTEMPTS,
            base_delay=settings.PROVIDER_BASE_DELAY_S,
            rate_limit_patience=settings.PROVIDER_RATE_LIMIT_PATIENCE_S,
            on_retry=self._retried,
        )
        charge(
            self.kind,
            self.batch_id,
            self.model.cost_of(completion.tokens_in, completion.tokens_out),
            self.claim,
        )
        return completion


@worker_init.connect
def preload_configured_sdks(**kwargs) -> None:
    """Before a worker takes jobs: the SDKs of the models configured now (`preload_sdks`)."""
    try:
        preload_sdks(ModelConfig.objects.values_list("provider", flat=True).distinct())
    except DatabaseError:  # the database away at start: the first jobs import what they need
        log.warning("could not read the model configs; SDKs load with the first jobs")
    finally:
        close_old_connections()


def mark_batch_running(kind: JobKind, batch_id: int) -> None:
    kind.batch_model.objects.filter(pk=batch_id, status=QUEUED).update(status=BATCH_RUNNING)


# --- the batch as a whole --------------------------------------------------------------------


def stop_at_spend_limit(kind: JobKind, batch_id: int, **why) -> None:
    """Stop the batch at its spend (or call) limit; `why` overrides `kind.batch_stopped`."""
    with transaction.atomic():
        stopped = kind.batch_model.objects.filter(
            pk=batch_id, status__in=kind.batch_model.ACTIVE
        ).update(status=BATCH_STOPPED, finished_at=timezone.now(), **{**kind.batch_stopped, **why})
        if stopped:
            kind.jobs(batch_id).filter(status=QUEUED).update(status=CANCELLED, **kind.job_stopped)


def cancel(kind: JobKind, batch_id: int) -> bool:
    with transaction.atomic():
        cancelled = kind.batch_model.objects.filter(
            pk=batch_id, status__in=kind.batch_model.ACTIVE
        ).update(status=BATCH_CANCELLED, finished_at=timezone.now(), **kind.batch_cancelled)
        kind.jobs(batch_id).filter(status=QUEUED).update(status=CANCELLED, **kind.job_cancelled)
    return bool(cancelled)


def resume(kind: JobKind, batch_id: int) -> int:
    """Queue again what was cancelled, stopped or lost with a dead worker (and, for kinds that
    `retry_errors`, what ended in an error); keep what is done.

    Works on a running batch too: jobs held by workers that stopped beating are taken back at
    once (the workers' heartbeat does the same within a minute), jobs run inline are taken
    back after STALE_INLINE, and every queued job is sent again (harmless for those already
    on their way: a job is claimed once). DoesNotExist for an unknown id."""
    with transaction.atomic():
        batch = kind.batch_model.objects.select_for_update().get(pk=batch_id)
        if not kind.resumable(batch):
            return 0
        requeued = (
            kind.jobs(batch_id)
            .filter(status=CANCELLED)
            .update(status=QUEUED, worker="", **kind.job_requeued)
        )
        if kind.retry_errors:
            # Their attempts are kept: each retry is one more claim on the same count.
            requeued += (
                kind.jobs(batch_id)
                .filter(status=ERROR)
                .update(status=QUEUED, worker="", error="", finished_at=None)
            )
        if requeued:
            kind.batch_model.objects.filter(pk=batch_id).update(
                status=BATCH_RUNNING, finished_at=None, **kind.batch_resumed
            )
        # Taken back after the batch is active again, so lost claims are queued, not cancelled.
        live = list(live_workers().values_list("hostname", flat=True))
        requeued += requeue_lost(kind, live, batch_id=batch_id)
        transaction.on_commit(lambda: enqueue_queued(kind, batch_id))
    return requeued


def unfinished(kind: JobKind, batch_id: int) -> bool:
    return kind.jobs(batch_id).filter(status__in=UNFINISHED).exists()


def progress(kind: JobKind, batch_id: int) -> dict[str, int]:
    """Jobs per status, `total`, `ended` (done, error or cancelled) and `percent` ended."""
    statuses = (QUEUED, RUNNING, *ENDED)
    counts = dict.fromkeys(statuses, 0)
    for row in kind.jobs(batch_id).values("status").annotate(n=Count("pk")):
        counts[row["status"]] = row["n"]
    counts["total"] = sum(counts[s] for s in statuses)
    counts["ended"] = sum(counts[s] for s in ENDED)
    counts["percent"] = round(100 * counts["ended"] / counts["total"]) if counts["total"] else 100
    return counts


# --- lost workers ----------------------------------------------------------------------------


def requeue_lost(kind: JobKind, live: Iterable[str], batch_id: int | None = None) -> int:
    """Jobs claimed by workers no longer beating: queued and sent again (each claim counted an
    attempt), or ended as errors after JOB_MAX_ATTEMPTS; in a batch no longer active,
    cancelled. `batch_id` limits it to one batch (resume), and then jobs run inline that
    started STALE_INLINE ago count as lost too. Returns how many it queued."""
    live = list(live)
    jobs = kind.jobs(batch_id)
    cancelled = _cancel_lost_in_ended_batches(kind, jobs, live)
    released = release_lost(
        kind.of_active_batches(jobs),
        live,
        give_up={
            **kind.job_given_up,
            "error": f"The worker running this {kind.noun} stopped {max_attempts()} times "
            "(killed, out of memory or its machine lost), so it was given up.",
        },
        stale_inline=STALE_INLINE if batch_id is not None else None,
        claimed_before=timezone.now() - dead_after(),
    )
    if released.requeued:
        log.warning("requeued %d %ss from lost workers", len(released.requeued), kind.noun)
        requeued = list(released.requeued)
        transaction.on_commit(lambda: send_each(kind.task, requeued))
    if kind.batched:
        given_up = kind.jobs().filter(pk__in=released.given_up)
        for affected in {*given_up.values_list(f"{kind.batch_field}_id", flat=True), *cancelled}:
            kind.finish(affected)
    return len(released.requeued)


def _cancel_lost_in_ended_batches(kind: JobKind, jobs: models.QuerySet, live: list[str]) -> set:
    """Lost jobs of batches no longer active are cancelled, not run again; their batch ids."""
    if not kind.batched:
        return set()
    lost = (
        jobs.filter(status=RUNNING)
        .exclude(**{f"{kind.batch_field}__status__in": kind.batch_model.ACTIVE})
        .exclude(worker="")
        .exclude(worker__in=live)
    )
    cancelled = set(lost.values_list(f"{kind.batch_field}_id", flat=True).distinct())
    lost.update(status=CANCELLED, worker="", **kind.job_cancelled)
    return cancelled


def lost_count(kind: JobKind, batch_id: int) -> int:
    """Running jobs of a batch whose worker stopped beating (what `--wait` reports)."""
    return (
        kind.jobs(batch_id)
        .filter(status=RUNNING)
        .exclude(worker="")
        .exclude(worker__in=live_workers())
        .count()
    )


def recover_with_workers(kind: JobKind) -> None:
    """Register the kind with the workers' heartbeat: lost claims taken back, queued jobs
    resent when a worker is lost."""
    on_lost_claims(lambda live: requeue_lost(kind, live))
    on_lost_worker(lambda: resend_queued(kind))


# --- waiting on the command line -------------------------------------------------------------


def wait_for(kind: JobKind, batch, stdout, stderr, draw: Callable[[dict], None]) -> dict:
    """Draw progress until the batch ends; exit 2 when no worker runs its jobs. Returns the
    last counts."""
    if batch.is_active and not worker_appears(NO_WORKER_GRACE_S):
        stderr.write(
            f"No Celery worker is running, so {kind.batch_noun} {batch.pk} stays queued. Start "
            "one with `celery -A config worker` (or `make demo`), then wait again."
        )
        sys.exit(2)
    reported_lost = 0
    next_check = time.monotonic() + CHECK_WORKERS_EVERY_S
    while True:
        counts = progress(kind, batch.pk)
        batch.refresh_from_db()
        draw(counts)
        if not batch.is_active:
            return counts
        if time.monotonic() >= next_check:
            next_check = time.monotonic() + CHECK_WORKERS_EVERY_S
            lost = lost_count(kind, batch.pk)
            if not worker_appears(NO_WORKER_GRACE_S):
                stderr.write("\n" + stuck_message(kind, batch.pk, counts, lost))
                sys.exit(2)
            if lost and lost != reported_lost:
                stderr.write(
                    f"\n{lost} running {kind.noun}(s) are held by a worker that stopped "
                    "reporting; a live worker queues them again within a minute."
                )
            reported_lost = lost
        time.sleep(0.5)


def exit_code(batch, counts: Mapping[str, int]) -> int:
    """The one exit-code rule of every `--wait` command (run_benchmark, run_jury): 0 only when
    the batch finished and every job in it ended without an error; 1 when any job errored or
    was cancelled, or the batch was cancelled, stopped at its spend limit or failed. (2, no
    worker running, is `wait_for`'s.) An errored trace used to exit 0 from run_benchmark
    while a failed judge job exited 1 from run_jury."""
    clean = batch.status == BATCH_FINISHED and not counts["error"] and not counts["cancelled"]
    return 0 if clean else 1


def stuck_message(kind: JobKind, batch_id: int, counts: dict, lost: int) -> str:
    held_by_lost = f", {lost} of them held by a worker that stopped" if lost else ""
    return (
        f"No Celery worker is reporting, so {kind.batch_noun} {batch_id} is stuck: "
        f"{counts['queued']} queued and {counts['running']} running {kind.noun}(s)"
        f"{held_by_lost}. Start a worker (`celery -A config worker` or `make demo`): "
        f"it takes lost {kind.noun}s back and finishes the {kind.batch_noun}. `manage.py "
        f"{kind.resume_command} {batch_id}` queues them again at once."
    )
