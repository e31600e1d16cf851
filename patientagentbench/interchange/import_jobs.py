"""Transcript files imported in the background (issue 34): the import page stages an upload
and a worker reads it, so a file of hundreds of megabytes never sits in a web process.

One `ImportJob` per file and the runs already made from it (`ImportJob.key_for`) lives on
the shared job lifecycle (`runs.jobs`: claimed once, taken back from lost workers, resent
after a broker outage). It has two stages, each a claim of the same row:

- **check**: read the file and compute the import rolled back, for the preview;
- **import**, once a researcher confirms: read it again and write the run in one
  transaction, which also marks the job done, so the run appears complete or not at all and
  a job taken back from a worker presumed dead stores no second run.

While a stage reads it stores its progress (conversations read of the file's total) on the
row, outside any transaction, so the status page polls it. A file ends with its job: its
staged copy is discarded once imported or refused.
"""

from __future__ import annotations

import logging
import time
from typing import Any

from django.db import transaction
from django.utils import timezone

from patientagentbench.interchange import staging
from patientagentbench.interchange.importer import (
    FORMAT_NAMES,
    ImportFormatError,
    ImportSummary,
    parse_bytes,
    preview_records,
    sha256_of,
    write_records,
)
from patientagentbench.interchange.schema import one_line
from patientagentbench.models import ImportJob, Run
from patientagentbench.runs import jobs
from patientagentbench.runs.claims import Claim, held

log = logging.getLogger(__name__)

TASK_NAME = "patientagentbench.interchange.import_jobs.import_job"
# How often a reading stage writes its progress: often enough for a page polling each second.
PROGRESS_EVERY_S = 0.5
GONE = "the uploaded file is no longer waiting (kept one day): upload it again"


def start_import(*, sha256: str, file_name: str, size: int, again: bool, created_by) -> ImportJob:
    """The job checking these staged bytes, queued to a worker once its row is committed.
    Uploading the same bytes again while their job is under way or awaits confirmation
    queues nothing (the same job answers); a job that failed, or whose run was deleted since,
    is checked again. `job.unsent` is 1 when the broker refused it (`jobs.broker_away`)."""
    runs_before = Run.objects.filter(source_sha256=sha256).count()
    fields = {"file_name": file_name, "size": size, "again": again, "created_by": created_by}
    job, created = ImportJob.objects.get_or_create(
        key=ImportJob.key_for(sha256, runs_before), defaults={"sha256": sha256, **fields}
    )
    job.unsent = 0
    if created or _check_again(job, fields):
        jobs.dispatch_on_commit(IMPORTS, job, 1)
    return job


def _check_again(job: ImportJob, fields: dict) -> bool:
    ended = ImportJob.objects.filter(pk=job.pk, status=ImportJob.Status.ERROR) | (
        ImportJob.objects.filter(
            pk=job.pk, stage=ImportJob.Stage.IMPORT, status=ImportJob.Status.DONE
        )
    )
    # Attempts are kept: a claim (worker, attempt) is never made twice on one row.
    restarted = ended.update(
        stage=ImportJob.Stage.CHECK,
        status=ImportJob.Status.QUEUED,
        error="",
        worker="",
        finished_at=None,
        run=None,
        preview=None,
        **_progress_cleared(),
        **fields,
    )
    if restarted:
        job.refresh_from_db()
    return bool(restarted)


def confirm_import(job: ImportJob) -> bool:
    """Queue the import of a checked file; False when it was confirmed already (a double
    click, two tabs) or is not checked: nothing more is queued."""
    confirmed = ImportJob.objects.filter(
        pk=job.pk, stage=ImportJob.Stage.CHECK, status=ImportJob.Status.DONE
    ).update(
        stage=ImportJob.Stage.IMPORT,
        status=ImportJob.Status.QUEUED,
        finished_at=None,
        **_progress_cleared(),
    )
    job.unsent = 0
    if confirmed:
        jobs.dispatch_on_commit(IMPORTS, job, 1)
    return bool(confirmed)


def run_import_job(job_id: int, worker: str = "") -> None:
    """One stage of a job, claimed once (a redelivered message does nothing)."""
    job_claim = jobs.claim(IMPORTS, job_id, worker)
    if job_claim is None:
        return
    job = ImportJob.objects.select_related("created_by").get(pk=job_id)
    try:
        kind, records = parse_bytes(_staged_bytes(job), _Reporter(job_claim, job.stage))
        _held(job_claim, job.stage).update(phase=ImportJob.Phase.WRITING)
        if job.stage == ImportJob.Stage.CHECK:
            _store_preview(job, job_claim, preview_records(kind, records, **_import_of(job)))
        else:
            _import(job, job_claim, kind, records)
    except _TakenBack:
        log.warning("import job %s was taken back from this worker; it stopped", job_id)
    except ImportFormatError as exc:
        _fail(job, job_claim, f"{job.file_name}: {exc}. Nothing was imported.")
    except Exception as exc:  # a bug or the database away: said in one line, logged in full
        log.exception("import job %s failed", job_id)
        _fail(
            job,
            job_claim,
            f"The import failed ({type(exc).__name__}: {exc}). Nothing was imported.",
        )


# The task shape every job shares (acknowledged late, rejected when its worker is lost).
import_job = jobs.job_task(TASK_NAME)(run_import_job)


def _import_of(job: ImportJob) -> dict[str, Any]:
    return {"digest": job.sha256, "name": job.file_name, "again": job.again}


def _staged_bytes(job: ImportJob) -> bytes:
    raw = staging.staged(job.sha256)
    if raw is None or sha256_of(raw) != job.sha256:  # swept, or changed on disk
        raise ImportFormatError(GONE)
    return raw


def _store_preview(job: ImportJob, job_claim: Claim, summary: ImportSummary) -> None:
    _finish(job, job_claim, status=ImportJob.Status.DONE, preview=summary_data(summary))


def _import(job: ImportJob, job_claim: Claim, kind: str, records: list) -> None:
    with transaction.atomic():
        # The row locked while the run is written: the heartbeat cannot take it back midway,
        # and a claim taken back already writes nothing.
        if not list(_held(job_claim, job.stage).select_for_update().values_list("pk")):
            raise _TakenBack
        summary = write_records(kind, records, **_import_of(job), created_by=job.created_by)
        _finish(
            job,
            job_claim,
            status=ImportJob.Status.DONE,
            run=summary.run,
            preview=summary_data(summary),
        )
    discard_staged(
        job.sha256, keep_for=job
    )  # after the commit: an import rolled back keeps its file for the retry


def _fail(job: ImportJob, job_claim: Claim, error: str) -> None:
    if _finish(job, job_claim, status=ImportJob.Status.ERROR, error=one_line(error)):
        discard_staged(job.sha256, keep_for=job)  # a refused file is uploaded again, if at all


def _finish(job: ImportJob, job_claim: Claim, **fields) -> bool:
    return bool(
        _held(job_claim, job.stage).update(
            worker="", finished_at=timezone.now(), phase="", **fields
        )
    )


def discard_staged(sha256: str, keep_for: ImportJob | None = None) -> None:
    """Discard the staged file unless a job other than `keep_for` still needs it (under way,
    or checked and waiting for its confirmation)."""
    others = ImportJob.objects.filter(sha256=sha256)
    if keep_for is not None:
        others = others.exclude(pk=keep_for.pk)
    waiting = others.filter(status__in=jobs.UNFINISHED) | others.filter(
        stage=ImportJob.Stage.CHECK, status=ImportJob.Status.DONE
    )
    if not waiting.exists():
        staging.discard(sha256)


def _held(job_claim: Claim, stage: str):
    """The row while this claim holds it for this stage (a stage's writes never land on
    the next stage's claim)."""
    return held(ImportJob, job_claim).filter(stage=stage)


def _progress_cleared() -> dict:
    return {"phase": ImportJob.Phase.WAITING, "read": 0, "total": 0}


class _TakenBack(Exception):
    """The claim was taken back (its worker was presumed dead): stop, store nothing."""


class _Reporter:
    """Progress to the job's row at most every PROGRESS_EVERY_S (and at the end); stops the
    stage when its claim no longer holds."""

    def __init__(self, job_claim: Claim, stage: str):
        self.row = _held(job_claim, stage)
        self.next_at = 0.0
        self.row.update(phase=ImportJob.Phase.READING)

    def __call__(self, read: int, total: int) -> None:
        now = time.monotonic()
        if now < self.next_at and read < total:
            return
        self.next_at = now + PROGRESS_EVERY_S
        if not self.row.update(phase=ImportJob.Phase.READING, read=read, total=total):
            raise _TakenBack


def summary_data(summary: ImportSummary) -> dict[str, Any]:
    """What a check or an import found, as the plain data a job keeps."""
    return {
        "format_name": FORMAT_NAMES[summary.kind],
        "traces": summary.traces,
        "cells": summary.cells,
        "errors": summary.errors,
        "repetitions": summary.run.repetitions,
        "temperatures": summary.run.temperatures,
        "models": summary.models,
        "suite": summary.suite.name,
        "new_suite": summary.new_suite,
        "tasks": summary.tasks,
        "new_tasks": summary.new_tasks,
        "scored": summary.scored,
    }


IMPORTS = jobs.JobKind(
    noun="import",
    job_model=ImportJob,
    task_name=TASK_NAME,
    job_given_up={"status": ImportJob.Status.ERROR},
)
# Lost imports are queued again (or failed after JOB_MAX_ATTEMPTS claims, both stages
# counted) by the workers' heartbeat, and queued ones sent again when a worker is lost.
jobs.recover_with_workers(IMPORTS)
