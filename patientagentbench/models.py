"""Suites, model configs, runs and traces. Logic lives in plain modules; rows stay thin."""

import os
from decimal import Decimal

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models

from patientagentbench.providers.factory import (
    DEFAULT_KEY_ENV,
    DEFAULT_MAX_OUTPUT_TOKENS,
    MAX_OUTPUT_TOKENS_CEILING,
    PROVIDER_LABELS,
)


class Suite(models.Model):
    class Kind(models.TextChoices):
        TASK = "task", "Task suite"
        SCENARIO = "scenario", "Scenario suite"
        IMPORTED = "imported", "Imported traces"

    class World(models.TextChoices):
        """Which sandbox plays the tools; blank for imported traces (nothing to replay)."""

        OFFICE = "office", "Office-19 world"
        CLINIC = "clinic", "Healthcare clinic"

    name = models.SlugField(max_length=120, unique=True)
    kind = models.CharField(max_length=16, choices=Kind.choices, default=Kind.TASK)
    world = models.CharField(max_length=32, blank=True)  # a Suite.World value, or blank
    system_prompt = models.TextField(blank=True)
    tools = models.JSONField(default=list, blank=True)
    environment = models.JSONField(default=dict, blank=True)
    source = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name

    @property
    def has_patients(self) -> bool:
        """Multi-turn scenarios with a patient on the other side (the clinic world)."""
        return self.world == self.World.CLINIC


class Task(models.Model):
    suite = models.ForeignKey(Suite, on_delete=models.CASCADE, related_name="tasks")
    task_id = models.CharField(max_length=120)
    category = models.CharField(max_length=60, blank=True)
    difficulty = models.CharField(max_length=30, blank=True)
    prompt = models.TextField(blank=True)
    expected_tools = models.JSONField(default=list, blank=True)
    criteria = models.JSONField(default=dict, blank=True)
    # Scenario cases: the sampled attributes (for breakdowns) and the whole frozen case.
    attributes = models.JSONField(default=dict, blank=True)
    case = models.JSONField(null=True, blank=True)

    class Meta:
        ordering = ["suite", "task_id"]
        constraints = [
            models.UniqueConstraint(fields=["suite", "task_id"], name="unique_task_per_suite")
        ]

    def __str__(self) -> str:
        return self.task_id

    def as_data(self) -> dict:
        """The task as the simulated agent and the loop see it (never a case's hidden parts)."""
        if self.case is not None:
            return {
                "id": self.task_id,
                "category": self.category,
                "subtask": self.attributes.get("subtask", ""),
                "world": Suite.World.CLINIC,
            }
        return {
            "id": self.task_id,
            "category": self.category,
            "difficulty": self.difficulty,
            "task": self.prompt,
            "expected_tools": self.expected_tools,
        }


class ModelConfigQuerySet(models.QuerySet):
    def enabled(self):
        return self.filter(enabled=True)


class ModelConfig(models.Model):
    # The provider list has one source, providers.factory; these choices are built from it.
    Provider = models.TextChoices(
        "Provider", [(kind.name, (kind.value, label)) for kind, label in PROVIDER_LABELS.items()]
    )

    name = models.CharField(max_length=120, unique=True)
    provider = models.CharField(max_length=32, choices=Provider.choices)
    model_id = models.CharField(max_length=200)
    base_url = models.URLField(blank=True)
    # The name of an environment variable, never the key itself.
    api_key_env = models.CharField(max_length=120, blank=True)
    price_in = models.DecimalField(
        max_digits=12, decimal_places=4, default=Decimal(0), help_text="USD per 1M input tokens"
    )
    price_out = models.DecimalField(
        max_digits=12, decimal_places=4, default=Decimal(0), help_text="USD per 1M output tokens"
    )
    max_concurrency = models.PositiveIntegerField(default=8)
    # Every call asks for at most this many output tokens (a runaway answer costs no more).
    max_output_tokens = models.PositiveIntegerField(
        default=DEFAULT_MAX_OUTPUT_TOKENS,
        validators=[MinValueValidator(1), MaxValueValidator(MAX_OUTPUT_TOKENS_CEILING)],
        verbose_name="Max output tokens per call",
        help_text="Sent with every call (max_tokens / max_completion_tokens); simulated "
        "models ignore it.",
    )
    enabled = models.BooleanField(default=True)
    created_at = models.DateTimeField(auto_now_add=True)

    objects = ModelConfigQuerySet.as_manager()

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name

    @property
    def is_simulated(self) -> bool:
        return self.provider == self.Provider.SIMULATED

    @property
    def key_env_name(self) -> str:
        return self.api_key_env or DEFAULT_KEY_ENV.get(self.provider, "")

    @property
    def key_is_set(self) -> bool:
        return bool(self.key_env_name and os.environ.get(self.key_env_name))

    def cost_of(self, tokens_in: int, tokens_out: int) -> Decimal:
        return (self.price_in * tokens_in + self.price_out * tokens_out) / Decimal(1_000_000)

    @property
    def counts_calls(self) -> bool:
        """A real provider with no price: its calls cost $0 here whatever they cost, so a
        dollar limit cannot bound them; a launch on it is bounded by a call limit instead."""
        return not self.is_simulated and not (self.price_in or self.price_out)

    @property
    def concurrency_key(self) -> str:
        """Calls to one provider endpoint share one limit, whichever model they name."""
        return f"{self.provider}:{self.base_url or 'default'}"


class Run(models.Model):
    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        FINISHED = "finished", "Finished"
        FAILED = "failed", "Failed"
        CANCELLED = "cancelled", "Cancelled"
        STOPPED = "stopped", "Stopped at spend limit"

    ACTIVE = (Status.QUEUED, Status.RUNNING)

    class Source(models.TextChoices):
        LAUNCHED = "launched", "Launched"
        IMPORTED = "imported", "Imported"

    suite = models.ForeignKey(Suite, on_delete=models.PROTECT, related_name="runs")
    source = models.CharField(max_length=16, choices=Source.choices, default=Source.LAUNCHED)
    label = models.CharField(max_length=200, blank=True)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.QUEUED)
    repetitions = models.PositiveIntegerField(default=1)
    temperatures = models.JSONField(default=list)
    max_iterations = models.PositiveIntegerField(default=10)
    max_turns = models.PositiveIntegerField(default=1)
    spend_limit = models.DecimalField(max_digits=12, decimal_places=4, null=True, blank=True)
    # At most this many model calls (a run on an unpriced real model, `runs.budget`); `calls`
    # counts them, each before it is made, only while there is a limit.
    call_limit = models.PositiveIntegerField(null=True, blank=True)
    calls = models.PositiveIntegerField(default=0)
    # Scenario runs: who plays the patient (None = the offline simulated patient).
    patient_model = models.ForeignKey(
        "ModelConfig", null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    spent = models.DecimalField(max_digits=14, decimal_places=6, default=Decimal(0))
    stop_reason = models.TextField(blank=True)
    # Imported runs: the SHA-256 of the file's bytes, so the same file is not imported twice.
    source_sha256 = models.CharField(max_length=64, blank=True, db_index=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"Run {self.pk} ({self.suite.name})"

    @property
    def is_active(self) -> bool:
        return self.status in self.ACTIVE

    @property
    def can_resume(self) -> bool:
        """Only launched runs have jobs to queue again; imported traces are history."""
        return self.source == self.Source.LAUNCHED and self.status in (
            self.Status.CANCELLED,
            self.Status.STOPPED,
        )


class Job(models.Model):
    """What every background job has (`runs.jobs`): a trace, a judge job, a case set's
    generation. An idempotency key, a claim (status, the worker process holding it, one
    attempt per claim) and its outcome."""

    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        DONE = "done", "Done"
        ERROR = "error", "Error"
        CANCELLED = "cancelled", "Cancelled"

    ENDED = (Status.DONE, Status.ERROR, Status.CANCELLED)

    # What the job does (batch, subject, versions): delivering or launching it twice is harmless.
    key = models.CharField(max_length=400, unique=True)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.QUEUED)
    # Each claim counts an attempt; a job whose workers keep dying ends after
    # JOB_MAX_ATTEMPTS of them.
    attempts = models.PositiveIntegerField(default=0)
    # The worker process holding the claim while running (a WorkerHeartbeat id); blank when
    # not running or run inline. A claim whose worker stops beating is requeued.
    worker = models.CharField(max_length=255, blank=True)
    error = models.TextField(blank=True)
    cost = models.DecimalField(max_digits=14, decimal_places=6, default=Decimal(0))
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        abstract = True


class Trace(Job):
    """One conversation of a run: a job whose key is (run, task, model, temperature,
    repetition), and what happened in it."""

    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="traces")
    task = models.ForeignKey(Task, on_delete=models.PROTECT, related_name="traces")
    model = models.ForeignKey(
        ModelConfig, null=True, blank=True, on_delete=models.PROTECT, related_name="traces"
    )
    model_name = models.CharField(max_length=200)
    temperature = models.FloatField(null=True, blank=True)
    repetition = models.PositiveIntegerField(default=0)

    messages = models.JSONField(default=list, blank=True)
    tool_calls = models.JSONField(default=list, blank=True)
    final_response = models.TextField(blank=True)
    end_reason = models.CharField(max_length=40, blank=True)
    side_effects = models.JSONField(default=list, blank=True)
    final_state = models.JSONField(default=dict, blank=True)
    correctness = models.JSONField(null=True, blank=True)
    correct = models.BooleanField(null=True, blank=True)
    # The LLM patient's answers it was asked again for or that were refused (an assistant's
    # voice, a copy of the agent, nothing): turn, attempt, raw text, thinking and why. For
    # researchers studying patient models; never shown to clinicians.
    patient_rejected_attempts = models.JSONField(default=list, blank=True)
    # What a researcher should know happened behind the conversation, e.g. a provider call
    # retried after a timeout ({"kind": "timeout_retry", "model", "attempt", "detail"}).
    warnings = models.JSONField(default=list, blank=True)

    tokens_in = models.PositiveIntegerField(default=0)
    tokens_out = models.PositiveIntegerField(default=0)
    latency_ms = models.FloatField(default=0)

    class Meta:
        ordering = ["task__task_id", "model_name", "temperature", "repetition"]
        indexes = [
            models.Index(fields=["run", "status"]),
            # The recovery sweep: running claims held by workers that stopped beating.
            models.Index(fields=["status", "worker"], name="trace_claims"),
        ]

    def __str__(self) -> str:
        return self.key


class WorkerHeartbeat(models.Model):
    """Written by each worker process every few seconds, so the CLI and pages can tell none is
    running and live workers can requeue the claims of one that stopped (`runs.workers`)."""

    # The worker process's id: Celery node name, pid and a per-start nonce (never reused).
    hostname = models.CharField(max_length=255, unique=True)
    seen_at = models.DateTimeField()
    # When a live worker found this one silent and requeued its work (cleared if it beats).
    reaped_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return self.hostname


class CellMetrics(models.Model):
    """Consistency and correctness of one cell (task × model × temperature) of a run."""

    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="cell_metrics")
    task = models.ForeignKey(Task, on_delete=models.CASCADE, related_name="+")
    model_name = models.CharField(max_length=200)
    temperature = models.FloatField(null=True, blank=True)
    values = models.JSONField(default=dict)
    computed_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["task__task_id", "model_name", "temperature"]
        constraints = [
            models.UniqueConstraint(
                fields=["run", "task", "model_name", "temperature"],
                name="unique_cell_per_run",
            )
        ]

    def __str__(self) -> str:
        return f"{self.task_id}/{self.model_name}/T={self.temperature}"


class ReferenceTrace(models.Model):
    """The reference tool sequence of one task × model × temperature, chosen from a run's
    repetitions (`analysis.reference_traces`); later traces of that cell are compared with it.
    Cells are keyed by task id, as `results.cells` groups them; setting a new reference for a
    cell replaces the old one."""

    task_key = models.CharField(max_length=120)  # the task's task_id
    model_name = models.CharField(max_length=200)
    temperature = models.FloatField(null=True, blank=True)
    sequence = models.JSONField(default=list)  # tool names, in order
    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="chosen_references")
    # How it was chosen: the rule, the repetitions it came from, its mean TSS to them, ties.
    chosen = models.JSONField(default=dict)
    set_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )
    set_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["task_key", "model_name", "temperature"]
        constraints = [
            models.UniqueConstraint(
                fields=["task_key", "model_name", "temperature"], name="one_reference_per_cell"
            )
        ]

    def __str__(self) -> str:
        return f"{self.task_key}/{self.model_name}/T={self.temperature}"


class CaseSetJob(Job):
    """A case set being generated in the background (an LLM writer can take minutes): a job
    standing alone, whose key is what it generates (name, count, seed, writer), so asking for
    the same set twice makes one job."""

    name = models.SlugField(max_length=120)
    count = models.PositiveIntegerField()
    seed = models.BigIntegerField()
    writer = models.CharField(max_length=200, default="template")
    suite = models.ForeignKey(Suite, null=True, blank=True, on_delete=models.SET_NULL)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.name} ({self.status})"

    def save(self, *args, **kwargs):
        self.key = self.key or self.key_for(self.name, self.count, self.seed, self.writer)
        super().save(*args, **kwargs)

    @staticmethod
    def key_for(name: str, count: int, seed: int, writer: str) -> str:
        return f"case-set:{name}:{count}:{seed}:{writer}"


class ImportJob(Job):
    """A transcript file uploaded on the import page, read in the background (a file can hold
    50,000 conversations): first checked (the import computed and rolled back, for the
    preview), then, once a researcher confirms, imported. Its key is the file's SHA-256 and
    the runs already made from it, so uploading or confirming the same file twice makes one
    job and one run, and "import it again" a second one."""

    class Stage(models.TextChoices):
        CHECK = "check", "Checking the file"
        IMPORT = "import", "Importing"

    class Phase(models.TextChoices):
        WAITING = "", "Waiting for a worker"
        READING = "reading", "Reading conversations"
        WRITING = "writing", "Writing the run"

    sha256 = models.CharField(max_length=64, db_index=True)
    file_name = models.CharField(max_length=200)
    size = models.PositiveBigIntegerField(default=0)
    again = models.BooleanField(default=False)
    stage = models.CharField(max_length=16, choices=Stage.choices, default=Stage.CHECK)
    # Progress of the stage under way: conversations read of the file's total (0: not known yet).
    phase = models.CharField(max_length=16, choices=Phase.choices, blank=True)
    read = models.PositiveIntegerField(default=0)
    total = models.PositiveIntegerField(default=0)
    # What the check found (`ImportSummary` as plain data), shown for confirmation.
    preview = models.JSONField(null=True, blank=True)
    run = models.ForeignKey(Run, null=True, blank=True, on_delete=models.SET_NULL)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.file_name} ({self.stage}, {self.status})"

    @staticmethod
    def key_for(sha256: str, runs_before: int) -> str:
        return f"import:{sha256}:after-{runs_before}-runs"
