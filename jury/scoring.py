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
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from decimal import Decimal

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from jury.models import VERDICT_KEY, Judge, JudgeJob, JuryRun, Panel, Verdict
from jury.pure.parsing import parse_all_dimensions, parse_completion
from jury.pure.prompts import (
    ALL_DIMENSIONS_TOOL,
    JUDGE_PROMPT_VERSION,
    ONE_CALL_SUFFIX,
    TOOL_DESCRIPTION,
    TOOL_NAME,
    all_dimensions_schema,
    judge_all_messages,
    judge_messages,
    verdict_schema,
)
from jury.pure.simulated import SimulatedJudgeProvider
from patientagentbench.conversation import EndConversation
from patientagentbench.models import ModelConfig, Run, Trace
from patientagentbench.providers.redaction import redact
from patientagentbench.providers.types import CallContext, OutputSchema, ProviderError
from patientagentbench.runs import jobs
from patientagentbench.runs.claims import Claim, held
from patientagentbench.transcripts import transcript_of
from ratings.rubric import Dimension, Scale, cached_rubric
from sandbox.seeding import trace_seed

log = logging.getLogger(__name__)

PARSE_ATTEMPTS = 3  # a judge that answers off-format is asked again, at most this often
JUDGE_MAX_OUTPUT_TOKENS = 600  # a verdict is a score and a paragraph; more is a runaway
TRUNCATION_CAP_FACTOR = 2  # a cut answer is asked once more with this many times the cap
# One verdict with its reasons per dimension, asked all at once (a judge's one-call mode).
ONE_CALL_TOKENS_PER_DIMENSION = 400


def verdict_output(scale: Scale) -> OutputSchema:
    """The answer shape for one dimension, on the scale of the panel's rubric."""
    return OutputSchema(name=TOOL_NAME, description=TOOL_DESCRIPTION, schema=verdict_schema(scale))


def all_dimensions_output(keys: list[str], scale: Scale) -> OutputSchema:
    return OutputSchema(
        name=ALL_DIMENSIONS_TOOL,
        description="Record your verdict on every rubric dimension you were asked to score.",
        schema=all_dimensions_schema(keys, scale),
    )


def prompt_text_version(judge: Judge) -> str:
    return JUDGE_PROMPT_VERSION + (ONE_CALL_SUFFIX if judge.one_call else "")


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


def jobs_to_make(panel: Panel, trace_ids: Iterable[int], repeat: int) -> dict[Judge, int]:
    """Per judge, the jobs a launch of these conversations × `repeat` would queue: those an
    earlier launch already holds are skipped (`launch_jury` adds only what is missing), so an
    estimate counts what this launch will buy."""
    trace_ids = sorted(set(trace_ids))
    held = set(
        JudgeJob.objects.filter(jury_run__panel=panel, trace_id__in=trace_ids).values_list(
            "key", flat=True
        )
    )
    return {
        judge: sum(
            job_key(panel, trace_id, judge, repetition) not in held
            for trace_id in trace_ids
            for repetition in range(repeat)
        )
        for judge in panel.judges.all()
    }


def calls_per_job(judge: Judge, dimensions: int) -> int:
    """First-attempt calls of one job: one for all dimensions, or one per dimension."""
    return 1 if judge.one_call else dimensions


def launch_jury(
    *,
    panel: Panel,
    run: Run,
    repeat: int = 1,
    spend_limit: Decimal | None = None,
    call_limit: int | None = None,
    created_by=None,
    enqueue: bool = True,
    trace_ids: Iterable[int] | None = None,
    subset: str = "",
) -> JuryRun:
    """Queue a job for each conversation × judge × repetition not already scored: every
    finished conversation of the run, or those of `trace_ids` (each must be one; `subset`
    says which in words). `jury_run.unsent` says how many jobs the broker refused once the
    launch committed (they stay queued: `runs.dispatch`)."""
    if panel.imported:
        raise JuryError(f"Panel {panel.name} holds imported verdicts; it does not score.")
    judges = list(panel.judges.select_related("model"))
    if not judges:
        raise JuryError(f"Panel {panel.name} has no judges.")
    finished = list(run.traces.filter(status=Trace.Status.DONE).values_list("pk", flat=True))
    if not finished:
        raise JuryError(f"Run {run.pk} has no finished conversations to score.")
    if trace_ids is None:
        trace_ids = finished
    else:
        trace_ids = sorted(set(trace_ids))
        stray = sorted(set(trace_ids) - set(finished))
        if stray:
            raise JuryError(
                f"Conversation {stray[0]} is not a finished conversation of run {run.pk}"
                + (f" (nor are {len(stray) - 1} more)" if len(stray) > 1 else "")
                + "."
            )
        if not trace_ids:
            raise JuryError("No conversation was chosen to score.")
    with transaction.atomic():
        jury_run = JuryRun.objects.create(
            panel=panel,
            run=run,
            repeat=repeat,
            spend_limit=spend_limit,
            call_limit=call_limit,
            created_by=created_by,
            subset=subset[:300],
        )
        new_jobs = (
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
        for batch in itertools.batched(new_jobs, 1000):  # never every row in memory at once
            # ignore_conflicts: already scored by an earlier launch, nothing to redo.
            JudgeJob.objects.bulk_create(batch, ignore_conflicts=True)
        n_jobs = jury_run.jobs.count()
        jury_run.unsent = 0
        if not n_jobs:
            jury_run.status, jury_run.finished_at = JuryRun.Status.FINISHED, timezone.now()
            jury_run.save(update_fields=["status", "finished_at"])
        elif enqueue:
            jobs.dispatch_on_commit(JUDGE_JOBS, jury_run, n_jobs)
    return jury_run


def enqueue_queued(jury_run_id: int) -> int:
    return jobs.enqueue_queued(JUDGE_JOBS, jury_run_id)


def execute_inline(jury_run: JuryRun) -> None:
    """Every queued job in this process (demo seeding, tests)."""
    for job_id in jury_run.jobs.filter(status=JudgeJob.Status.QUEUED).values_list("pk", flat=True):
        execute_job(job_id)


def cancel_jury(jury_run_id: int) -> bool:
    return jobs.cancel(JUDGE_JOBS, jury_run_id)


def resume_jury(jury_run_id: int) -> int:
    """Queue again what was cancelled or stopped, and, on a running scoring, what workers that
    stopped beating held (`jobs.resume`). JuryRun.DoesNotExist for an unknown id."""
    return jobs.resume(JUDGE_JOBS, jury_run_id)


# --- executing -------------------------------------------------------------------------------


def claim(job_id: int, worker: str = "") -> Claim | None:
    """queued → running for `worker` (blank: inline), once: a job delivered twice scores
    once."""
    return jobs.claim(JUDGE_JOBS, job_id, worker)


def execute_job(job_id: int, worker: str = "") -> None:
    job_claim = claim(job_id, worker)
    if job_claim is None:
        return
    job = JudgeJob.objects.select_related("jury_run__panel", "judge__model").get(pk=job_id)
    jobs.mark_batch_running(JUDGE_JOBS, job.jury_run_id)
    warnings: list[dict] = []  # calls retried after a timeout, kept with the job
    try:
        answers = score_conversation(
            job,
            deadline=time.monotonic() + settings.TRACE_WALL_CLOCK_S,
            job_claim=job_claim,
            warnings=warnings,
        )
    except OutOfTime as exc:
        _fail(job_claim, str(exc), warnings)
    except Exception as exc:  # noqa: BLE001 - a job ends as a kept error, never vanishes
        log.exception("judge job %s failed", job_id)
        _fail(job_claim, f"{type(exc).__name__}: {exc}", warnings)
    else:
        _store(job, job_claim, answers, warnings)
    finish_if_done(job.jury_run_id)


score_job_task = jobs.job_task("jury.scoring.score_job_task")(execute_job)


def _fail(job_claim: Claim, error: str, warnings: list[dict] | None = None) -> None:
    held(JudgeJob, job_claim).update(
        status=JudgeJob.Status.ERROR,
        worker="",
        error=redact(error)[:2000],
        warnings=warnings or [],
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
    attempt_log: list[dict] = field(default_factory=list)


def score_conversation(
    job: JudgeJob,
    deadline: float | None = None,
    job_claim: Claim | None = None,
    warnings: list[dict] | None = None,
) -> list[Answer]:
    """One answer per scored dimension, in the rubric's order; fewer when the scoring was
    cancelled, stopped at its spend limit, or the job was taken back from this worker (each
    call checks first, `jobs.check_may_continue`)."""
    panel, judge = job.jury_run.panel, job.judge
    rubric = cached_rubric(panel.rubric_name, panel.rubric_version)
    messages, case, signals = _conversation(job.trace_id)
    transcript = transcript_of(messages, user_label="Patient", include_system=False)
    provider = jobs.GuardedProvider(
        judge.model,
        JUDGE_JOBS,
        job.jury_run_id,
        job_claim,
        provider=judge_provider(judge.model),
        caller_slot=judge.concurrency_slot,
        warnings=warnings,
    )
    if judge.one_call:
        return _judge_all(
            provider, judge, list(rubric.scored), rubric, case, transcript, signals, job, deadline
        )
    answers = []
    for dimension in rubric.scored:
        _check_deadline(deadline, len(answers), len(rubric.scored))
        seed = trace_seed(
            f"{job.trace_id}:{dimension.key}", judge.name, judge.temperature, job.repetition
        )
        context = CallContext(
            seed=seed,
            # Read only by the simulated judge, which imitates a judge from these signals;
            # real providers never send `task` anywhere.
            task={**signals, "dimension": dimension.key},
            timeout_s=jobs.timeout_for(judge.model),
            output_schema=verdict_output(rubric.scale),
            max_output_tokens=JUDGE_MAX_OUTPUT_TOKENS,
        )
        prompt = judge_messages(rubric, dimension, case, transcript)
        try:
            answers.append(
                _judge_dimension(
                    provider, judge, dimension, prompt, context, transcript, rubric.scale
                )
            )
        except EndConversation:
            break
    return answers


def _check_deadline(deadline: float | None, done: int, total: int) -> None:
    if deadline is not None and time.monotonic() >= deadline:
        raise OutOfTime(
            f"The judge job ran past its wall-clock limit ({settings.TRACE_WALL_CLOCK_S:g} s)"
            f" after {done} of {total} dimensions."
        )


def _judge_all(
    provider, judge: Judge, dimensions, rubric, case, transcript, signals, job, deadline
) -> list[Answer]:
    """Every dimension in one call. Dimensions whose part of the answer is off-format (or an
    N/A the rubric forbids) are asked again, alone together, up to PARSE_ATTEMPTS times; a
    cut answer once more with twice the cap, as in one-call-per-dimension scoring. A call's
    cost and time are shared equally among the dimensions it asked about."""
    pending = {d.key: d for d in dimensions}
    logs: dict[str, list[dict]] = {key: [] for key in pending}
    cost = dict.fromkeys(pending, Decimal(0))
    spent_ms = dict.fromkeys(pending, 0.0)
    done: dict[str, Answer] = {}
    failure: dict[str, str] = {}
    # The model's own output limit (set by an admin) bounds every call, the retry's too.
    ceiling = judge.model.max_output_tokens
    cap = min(ONE_CALL_TOKENS_PER_DIMENSION * len(dimensions), ceiling)
    retried_cut, parse_rounds, stopped = False, 0, False

    def answer(key, status, score=None, rationale="", raw="") -> Answer:
        return Answer(
            key, status, score, rationale, raw, len(logs[key]), spent_ms[key], cost[key], logs[key]
        )

    while pending and parse_rounds < PARSE_ATTEMPTS:
        _check_deadline(deadline, len(done), len(dimensions))
        keys = list(pending)
        context = CallContext(
            seed=trace_seed(
                f"{job.trace_id}:all:{parse_rounds}:{int(retried_cut)}",
                judge.name,
                judge.temperature,
                job.repetition,
            ),
            task={**signals, "dimensions": keys},  # read by the simulated judge only
            timeout_s=jobs.timeout_for(judge.model),
            output_schema=all_dimensions_output(keys, rubric.scale),
            max_output_tokens=cap,
        )
        prompt = judge_all_messages(rubric, list(pending.values()), case, transcript)
        started = _clock(provider)
        try:
            completion = provider.complete(prompt, [], judge.temperature, context)
        except EndConversation:  # cancelled, spend limit, or the claim was taken back
            stopped = True
            break
        except ProviderError as exc:
            error = redact(str(exc))[:2000]
            for key in keys:
                logs[key].append(_attempt(len(logs[key]) + 1, error, "provider error", cap))
                done[key] = answer(key, Verdict.Status.ERROR, raw=error)
            pending.clear()
            break
        share_ms = _elapsed(provider, started) / len(keys)
        share_cost = judge.model.cost_of(completion.tokens_in, completion.tokens_out) / len(keys)
        for key in keys:
            spent_ms[key] += share_ms
            cost[key] += share_cost
        if completion.truncated:
            for key in keys:
                problem = f"the answer stopped at the {cap}-token cap"
                raw = completion.text or ""
                logs[key].append(_attempt(len(logs[key]) + 1, raw, problem, cap, truncated=True))
            if retried_cut or cap >= ceiling:  # no larger cap to ask with
                for key in keys:
                    done[key] = answer(key, Verdict.Status.TRUNCATED, raw=logs[key][-1]["raw"])
                pending.clear()
                break
            retried_cut, cap = True, min(cap * TRUNCATION_CAP_FACTOR, ceiling)
            continue
        parsed = parse_all_dimensions(completion, keys, scale=rubric.scale)
        for key in keys:
            verdict = parsed[key]
            problem = verdict.problem
            if verdict.status == "not_applicable" and not problem:
                problem = not_applicable_refusal(rubric.dimension(key), transcript)
            logs[key].append(_attempt(len(logs[key]) + 1, verdict.raw, problem, cap))
            if not problem:
                done[key] = answer(
                    key, verdict.status, verdict.score, verdict.rationale, verdict.raw
                )
                del pending[key]
            else:
                failure[key] = (
                    Verdict.Status.NA_NOT_ALLOWED
                    if verdict.status == "not_applicable"
                    else Verdict.Status.UNPARSEABLE
                )
        parse_rounds += 1
    for key in [] if stopped else pending:
        if logs[key]:  # asked, and never answered usably
            done[key] = answer(
                key, failure.get(key, Verdict.Status.UNPARSEABLE), raw=logs[key][-1]["raw"]
            )
    return [done[d.key] for d in dimensions if d.key in done]


def not_applicable_refusal(dimension: Dimension, transcript) -> str:
    """Why the rubric forbids N/A on this dimension of this conversation, or ''."""
    return dimension.not_applicable_refusal(
        agent_replied=transcript.agent_replied, tools_called=bool(transcript.tool_cards)
    )


def _judge_dimension(
    provider, judge: Judge, dimension: Dimension, prompt, context, transcript, scale: Scale
) -> Answer:
    """Ask until the answer is usable: an off-format answer (or an N/A the rubric forbids
    here) is asked again up to PARSE_ATTEMPTS times, and a cut answer once more with twice
    the cap. Every attempt is logged; the last failure is what is stored."""
    started, cost, attempt_log = _clock(provider), Decimal(0), []
    cap, retried_cut, failure = JUDGE_MAX_OUTPUT_TOKENS, False, Verdict.Status.UNPARSEABLE
    parse_failures = 0

    def answer(status, score=None, rationale="", raw="") -> Answer:
        return Answer(
            dimension.key,
            status,
            score,
            rationale,
            raw,
            len(attempt_log),
            _elapsed(provider, started),
            cost,
            attempt_log,
        )

    while parse_failures < PARSE_ATTEMPTS:
        try:
            completion = provider.complete(
                prompt, [], judge.temperature, replace(context, max_output_tokens=cap)
            )
        except ProviderError as exc:
            error = redact(str(exc))[:2000]
            attempt_log.append(_attempt(len(attempt_log) + 1, error, "provider error", cap))
            return answer(Verdict.Status.ERROR, raw=error)
        cost += judge.model.cost_of(completion.tokens_in, completion.tokens_out)
        parsed = parse_completion(completion, scale=scale)
        if completion.truncated:
            problem = f"the answer stopped at the {cap}-token cap"
            attempt_log.append(
                _attempt(len(attempt_log) + 1, parsed.raw, problem, cap, truncated=True)
            )
            if retried_cut:
                return answer(Verdict.Status.TRUNCATED, raw=parsed.raw)
            retried_cut, cap = True, cap * TRUNCATION_CAP_FACTOR
            continue
        problem = parsed.problem
        if parsed.status == "not_applicable" and not problem:
            problem = not_applicable_refusal(dimension, transcript)
        attempt_log.append(_attempt(len(attempt_log) + 1, parsed.raw, problem, cap))
        if not problem:
            return answer(parsed.status, parsed.score, parsed.rationale, parsed.raw)
        failure = (
            Verdict.Status.NA_NOT_ALLOWED
            if parsed.status == "not_applicable"
            else Verdict.Status.UNPARSEABLE
        )
        parse_failures += 1
    return answer(failure, raw=attempt_log[-1]["raw"])


def _attempt(number: int, raw: str, problem: str, cap: int, truncated: bool = False) -> dict:
    return {
        "attempt": number,
        "raw": raw,
        "problem": problem,
        "truncated": truncated,
        "max_output_tokens": cap,
    }


def judge_provider(model: ModelConfig):
    """The simulated judge for simulated judge profiles; any pipeline provider otherwise."""
    if model.is_simulated:
        return SimulatedJudgeProvider(model.model_id)
    return jobs.provider_for(model)


def _conversation(trace_id: int) -> tuple[list, dict, dict]:
    messages, case, prompt, correct, end_reason, calls = (
        Trace.objects.filter(pk=trace_id)
        .values_list(
            "messages", "task__case", "task__prompt", "correct", "end_reason", "tool_calls"
        )
        .get()
    )
    if case is None and prompt:
        # An imported conversation without a case: the judge reads the task it was given,
        # as a clinician does (`jury.pure.prompts.scenario_text`).
        case = {"task": prompt}
    signals = {
        "outcome_passed": correct,
        "end_reason": end_reason,
        "tool_calls": len(calls),
        "tool_errors": sum(1 for c in calls if c.get("status") == "error"),
        "subtask": ((case or {}).get("attributes") or {}).get("subtask", ""),
    }
    return messages, case or {}, signals


def _store(
    job: JudgeJob, job_claim: Claim, answers: list[Answer], warnings: list[dict] | None = None
) -> None:
    panel, judge = job.jury_run.panel, job.judge
    with transaction.atomic():
        # The job's row, locked while the claim holds: a job taken back from a worker
        # presumed lost and scored again elsewhere stores its verdicts once.
        mine = held(JudgeJob, job_claim).select_for_update().values_list("pk", flat=True)
        if mine.first() is None:
            log.warning("judge job %s was taken back from this worker; dropped", job.pk)
            return
        # One INSERT … ON CONFLICT for the job's answers (not a read and a write each): a
        # scoring taken back and run again replaces its verdicts in place.
        Verdict.objects.bulk_create(
            [_verdict(job, panel, judge, answer) for answer in answers],
            update_conflicts=True,
            unique_fields=list(VERDICT_KEY),
            update_fields=VERDICT_VALUES,
        )
        stopped = len(answers) < len(cached_rubric(panel.rubric_name, panel.rubric_version).scored)
        held(JudgeJob, job_claim).update(
            worker="",
            status=JudgeJob.Status.CANCELLED if stopped else JudgeJob.Status.DONE,
            cost=sum((a.cost for a in answers), Decimal(0)),
            warnings=warnings or [],
            finished_at=timezone.now(),
        )


# What a verdict says, stored over an earlier one of the same key (models.VERDICT_KEY).
VERDICT_VALUES = [
    "job",
    "status",
    "score",
    "rationale",
    "raw",
    "attempts",
    "attempt_log",
    "latency_ms",
    "prompt_text_version",
]


def _verdict(job: JudgeJob, panel, judge, answer: Answer) -> Verdict:
    return Verdict(
        panel=panel,
        judge=judge,
        trace_id=job.trace_id,
        dimension=answer.dimension,
        repetition=job.repetition,
        rubric_version=panel.rubric_version,
        prompt_version=judge.prompt_version,
        job=job,
        status=answer.status,
        score=answer.score if answer.status == Verdict.Status.OK else None,
        rationale=answer.rationale,
        raw=answer.raw,
        attempts=answer.attempts,
        attempt_log=answer.attempt_log,
        latency_ms=answer.latency_ms,
        prompt_text_version=prompt_text_version(judge),
    )


def finish_if_done(jury_run_id: int) -> None:
    unfinished = (JudgeJob.Status.QUEUED, JudgeJob.Status.RUNNING)
    if JudgeJob.objects.filter(jury_run_id=jury_run_id, status__in=unfinished).exists():
        return
    JuryRun.objects.filter(pk=jury_run_id, status__in=JuryRun.ACTIVE).update(
        status=JuryRun.Status.FINISHED, finished_at=timezone.now()
    )


def progress(jury_run_id: int) -> dict[str, int]:
    return jobs.progress(JUDGE_JOBS, jury_run_id)


def _clock(provider) -> float:
    """A verdict's latency is the model's time on its calls (`GuardedProvider.busy_ms`), not
    the wall time, which would include waiting for a concurrency slot other jobs held."""
    busy = getattr(provider, "busy_ms", None)
    return busy if busy is not None else time.perf_counter() * 1000


def _elapsed(provider, started: float) -> float:
    return _clock(provider) - started


# --- the lifecycle ---------------------------------------------------------------------------

JUDGE_JOBS = jobs.JobKind(
    noun="judge job",
    batch_noun="scoring",
    job_model=JudgeJob,
    batch_model=JuryRun,
    batch_field="jury_run",
    task_name="jury.scoring.score_job_task",
    resume_command="resume_jury",
    finish=lambda jury_run_id: finish_if_done(jury_run_id),
    retry_errors=True,
)
jobs.recover_with_workers(JUDGE_JOBS)


def requeue_lost_jobs(live: list[str], jury_run_id: int | None = None) -> int:
    return jobs.requeue_lost(JUDGE_JOBS, live, batch_id=jury_run_id)


def resend_queued_jobs() -> int:
    return jobs.resend_queued(JUDGE_JOBS)


def lost_jobs(jury_run_id: int) -> int:
    """Running judge jobs of a scoring whose worker stopped beating."""
    return jobs.lost_count(JUDGE_JOBS, jury_run_id)
