"""Judges, panels, scoring batches, one job per (conversation, judge, repetition), and one
verdict per dimension of each job. Rows stay thin; `jury/scoring.py` does the work.

A verdict is honest about failure: `unparseable` (with the raw answer), `truncated`,
`na_not_allowed`, `not_applicable` and `error` are stored as such and never become a number
or a pass; every attempt's raw answer and failure reason is kept in `attempt_log`.
"""

from decimal import Decimal

from django.conf import settings
from django.db import models

from patientagentbench.models import Job
from ratings import rating
from ratings.rubric import MAX_SCALE_POINTS


class Judge(models.Model):
    """A model config plus the prompt version, temperature and call mode it judges with."""

    class CallMode(models.TextChoices):
        PER_DIMENSION = "per_dimension", "One call per dimension"
        ONE_CALL = "one_call", "One call for all dimensions"

    name = models.CharField(max_length=120, unique=True)
    model = models.ForeignKey(
        "patientagentbench.ModelConfig", on_delete=models.PROTECT, related_name="judges"
    )
    prompt_version = models.CharField(max_length=20, default="1")
    temperature = models.FloatField(default=0.0)
    # One call per dimension reads each dimension alone; one call for all sends the long
    # conversation once, which a slow local model needs (six calls cost six prompt reads).
    call_mode = models.CharField(
        max_length=16, choices=CallMode.choices, default=CallMode.PER_DIMENSION
    )
    # At most this many of this judge's calls at once, inside its model's own limit (a judge
    # sharing a local server with the agent under test); empty: the model's limit alone.
    max_concurrency = models.PositiveSmallIntegerField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name

    @property
    def concurrency_slot(self) -> tuple[str, int]:
        return (f"judge-{self.pk}", self.max_concurrency or 0)

    @property
    def one_call(self) -> bool:
        return self.call_mode == self.CallMode.ONE_CALL


class Panel(models.Model):
    class Aggregation(models.TextChoices):
        MEAN = "mean", "Mean"
        MEDIAN = "median", "Median"
        MAJORITY = "majority", "Majority on pass"

    name = models.CharField(max_length=120, unique=True)
    judges = models.ManyToManyField(Judge, related_name="panels")
    aggregation = models.CharField(
        max_length=16, choices=Aggregation.choices, default=Aggregation.MEAN
    )
    rubric_name = models.CharField(max_length=60, default="patientagentbench")
    rubric_version = models.CharField(max_length=20, default="1")
    # Verdicts imported from PatientAgentBench's evaluations.json, not scored here.
    imported = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)
    # A panel with a judge on a real provider costs money: only an admin launches it, unless
    # an admin approved it for researchers up to this limit per scoring (jury.spending).
    approved_spend_limit = models.DecimalField(
        max_digits=12, decimal_places=4, null=True, blank=True
    )
    approved_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    approved_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class JuryRun(models.Model):
    """A panel scoring a run's conversations, K times each."""

    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        FINISHED = "finished", "Finished"
        CANCELLED = "cancelled", "Cancelled"
        STOPPED = "stopped", "Stopped at spend limit"

    ACTIVE = (Status.QUEUED, Status.RUNNING)

    panel = models.ForeignKey(Panel, on_delete=models.PROTECT, related_name="jury_runs")
    run = models.ForeignKey(
        "patientagentbench.Run", on_delete=models.PROTECT, related_name="jury_runs"
    )
    repeat = models.PositiveSmallIntegerField(default=1)
    # Which conversations, in words ("a random sample of 10 of 360 …"); blank for all.
    subset = models.CharField(max_length=300, blank=True)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.QUEUED)
    spend_limit = models.DecimalField(max_digits=12, decimal_places=4, null=True, blank=True)
    spent = models.DecimalField(max_digits=14, decimal_places=6, default=Decimal(0))
    # At most this many judge calls (a panel with a judge on an unpriced real model,
    # jury.spending); `calls` counts them, each before it is made, only while there is a limit.
    call_limit = models.PositiveIntegerField(null=True, blank=True)
    calls = models.PositiveIntegerField(default=0)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"Jury run {self.pk} ({self.panel} on run {self.run_id})"

    @property
    def is_active(self) -> bool:
        return self.status in self.ACTIVE


class JudgeJob(Job):
    """One judge reading one conversation once, covering every dimension; claimed once. The
    key names panel, conversation, judge, repetition and versions (`jury.scoring.job_key`)."""

    jury_run = models.ForeignKey(JuryRun, on_delete=models.CASCADE, related_name="jobs")
    trace = models.ForeignKey(
        "patientagentbench.Trace", on_delete=models.PROTECT, related_name="judge_jobs"
    )
    judge = models.ForeignKey(Judge, on_delete=models.PROTECT, related_name="jobs")
    repetition = models.PositiveSmallIntegerField(default=0)
    # Calls retried after a timeout ({"kind", "model", "attempt", "detail"}), as on a trace:
    # a retry that then succeeds would otherwise hide a timeout too short for the model.
    warnings = models.JSONField(default=list, blank=True)

    class Meta:
        ordering = ["jury_run", "trace", "judge", "repetition"]
        indexes = [
            models.Index(fields=["jury_run", "status"]),
            models.Index(fields=["status", "worker"], name="judge_job_claims"),
        ]

    def __str__(self) -> str:
        return self.key


# Which reading a verdict is: one judge, one conversation, one dimension, one repetition, under
# one rubric and prompt version (unique; a scoring run again stores over it).
VERDICT_KEY = (
    "panel",
    "judge",
    "trace",
    "dimension",
    "repetition",
    "rubric_version",
    "prompt_version",
)


class Verdict(models.Model):
    class Status(models.TextChoices):
        OK = rating.OK, "Scored"
        NOT_APPLICABLE = rating.NOT_APPLICABLE, "Not applicable"
        UNPARSEABLE = rating.UNPARSEABLE, "Unparseable"
        # The answer stopped at the output cap, even after one retry with a larger cap.
        TRUNCATED = "truncated", "Truncated"
        # N/A where the rubric's rule and the conversation forbid it (Dimension.not_applicable_refusal).
        NA_NOT_ALLOWED = "na_not_allowed", "N/A where not allowed"
        ERROR = "error", "Provider error"

    job = models.ForeignKey(
        JudgeJob, null=True, blank=True, on_delete=models.CASCADE, related_name="verdicts"
    )
    panel = models.ForeignKey(Panel, on_delete=models.PROTECT, related_name="verdicts")
    judge = models.ForeignKey(Judge, on_delete=models.PROTECT, related_name="verdicts")
    trace = models.ForeignKey(
        "patientagentbench.Trace", on_delete=models.PROTECT, related_name="verdicts"
    )
    repetition = models.PositiveSmallIntegerField(default=0)
    dimension = models.CharField(max_length=60)
    status = models.CharField(max_length=20, choices=Status.choices)
    score = models.PositiveSmallIntegerField(null=True, blank=True)  # only when status is ok
    rationale = models.TextField(blank=True)
    raw = models.TextField(blank=True)  # the judge's answer as sent, kept for unparseable ones
    attempts = models.PositiveSmallIntegerField(default=1)
    # Every attempt, for researchers: [{"attempt", "raw", "problem", "truncated",
    # "max_output_tokens"}]; `raw` above is the last one's.
    attempt_log = models.JSONField(default=list, blank=True)
    rubric_version = models.CharField(max_length=20)
    prompt_version = models.CharField(max_length=20)  # the judge's label, chosen by people
    # The prompt text this verdict was asked with (jury.pure.prompts.JUDGE_PROMPT_VERSION, with
    # "-one-call" when every dimension was asked at once); blank on verdicts from before it
    # was recorded and on imported ones.
    prompt_text_version = models.CharField(max_length=30, blank=True)
    latency_ms = models.FloatField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["trace", "dimension", "judge", "repetition"]
        constraints = [
            models.UniqueConstraint(
                fields=list(VERDICT_KEY), name="one_verdict_per_judge_dimension_repetition"
            ),
            models.CheckConstraint(
                # Any rubric's scale (1 … at most MAX_SCALE_POINTS); the panel rubric's own
                # points are checked where the verdict is parsed.
                condition=models.Q(status="ok", score__gte=1, score__lte=MAX_SCALE_POINTS)
                | (~models.Q(status="ok") & models.Q(score__isnull=True)),
                name="a_score_only_when_scored",
            ),
        ]
        indexes = [models.Index(fields=["panel", "trace"])]

    def __str__(self) -> str:
        return f"{self.judge} {self.dimension} {self.status} {self.score}"


class JudgeQualification(models.Model):
    """A judge's (or, with no judge, the panel verdict's) result in one calibration round: the
    clinician's `annotation.Qualification` record, for a judge. Written once from the round's
    reference items and never changed; a researcher may re-open it (the reason kept), which
    takes it out of use without rewriting the result.

    A judge is its model, prompt version and temperature: `prompt_version` is the judge's (for
    the panel verdict, every judge's id and prompt version), so editing a prompt or the
    panel's judges needs a new round."""

    panel = models.ForeignKey(Panel, on_delete=models.PROTECT, related_name="qualifications")
    judge = models.ForeignKey(
        Judge, null=True, blank=True, on_delete=models.PROTECT, related_name="qualifications"
    )
    # A string reference, not an import: the jury never imports the review app.
    round = models.ForeignKey(
        "annotation.Study", on_delete=models.PROTECT, related_name="judge_qualifications"
    )
    rubric_name = models.CharField(max_length=60)
    rubric_version = models.CharField(max_length=20)
    track = models.CharField(max_length=16)
    prompt_version = models.CharField(max_length=200)
    # dimension -> {"passed": bool, "n": n, "exact": x, "adjacent": x, "excluded": n,
    #               "reason": str}: the clinician's per-dimension result against the round's
    # exact and adjacent thresholds.
    results = models.JSONField(default=dict)
    passed = models.BooleanField()
    at = models.DateTimeField(auto_now_add=True)
    recorded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    reopened_at = models.DateTimeField(null=True, blank=True)
    reopened_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    reopened_reason = models.TextField(blank=True)

    class Meta:
        ordering = ["panel", "judge", "at", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["panel", "judge", "round", "track", "prompt_version"],
                name="one_judge_result_per_round_and_track",
            ),
            models.UniqueConstraint(
                fields=["panel", "round", "track", "prompt_version"],
                condition=models.Q(judge__isnull=True),
                name="one_panel_result_per_round_and_track",
            ),
        ]

    def __str__(self) -> str:
        who = self.judge.name if self.judge_id else f"panel {self.panel.name}"
        return f"{who} in {self.round}, {self.track}: {'passed' if self.passed else 'not passed'}"

    @property
    def rater(self) -> str:
        return self.judge.name if self.judge_id else "panel verdict"


class StoredRubric(models.Model):
    """A researcher's own rubric version, imported from its JSON file (`jury.rubrics`), kept
    exactly as given. Never edited: changed wording is a new version, so every score keeps
    the text it was given under. The built-in rubrics stay files in `fixtures/rubrics`."""

    name = models.CharField(max_length=60)
    version = models.PositiveIntegerField()
    data = models.JSONField()
    fingerprint = models.CharField(max_length=64)  # ratings.rubric.fingerprint of `data`
    imported_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    imported_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name", "version"]
        constraints = [
            models.UniqueConstraint(fields=["name", "version"], name="one_stored_rubric_version")
        ]

    def __str__(self) -> str:
        return f"{self.name} v{self.version}"
