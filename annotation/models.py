"""Clinicians, studies and calibration rounds, their items and assignments, drafts, submitted
scores (revisions kept beside the original), adjudications and an append-only audit trail.

Rows stay thin; what happens to them lives in `annotation/services.py`. Nothing here is ever
deleted by the app: a revision is a new Submission, a reassignment closes one Assignment and
opens another, and every change writes an AuditEvent.
"""

import secrets

from django.conf import settings
from django.db import models

TRACKS = ("clinical", "operations")


def opaque_code() -> str:
    """Random, not derived from any id: a URL says nothing about the item behind it."""
    return secrets.token_urlsafe(9)


def clinician_code() -> str:
    return "C-" + secrets.token_hex(3).upper()


class Clinician(models.Model):
    class Track(models.TextChoices):
        CLINICAL = "clinical", "Clinical (safety, triage, helpfulness)"
        OPERATIONS = "operations", "Operations (workflow, task completion, conversation)"
        BOTH = "both", "Both tracks"

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="clinician"
    )
    # Pseudonymous: what exports, adjudicators and other researchers see instead of a name.
    code = models.CharField(max_length=16, unique=True, default=clinician_code)
    track = models.CharField(max_length=16, choices=Track.choices, default=Track.CLINICAL)
    specialty = models.CharField(max_length=120, blank=True)
    years_in_practice = models.PositiveSmallIntegerField(null=True, blank=True)
    # When they saw the one-screen introduction shown before their first item.
    onboarded_at = models.DateTimeField(null=True, blank=True)
    invited_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["code"]

    def __str__(self) -> str:
        return self.code

    @property
    def tracks(self) -> frozenset[str]:
        return frozenset(TRACKS) if self.track == self.Track.BOTH else frozenset({self.track})


class Study(models.Model):
    """A set of conversations to score: an independent study, or a calibration round."""

    class Kind(models.TextChoices):
        STUDY = "study", "Study"
        CALIBRATION = "calibration", "Calibration round"

    class Feedback(models.TextChoices):
        IMMEDIATE = "immediate", "After each item"
        END = "end", "At the end of the round"

    class Status(models.TextChoices):
        DRAFT = "draft", "Draft"
        OPEN = "open", "Open"
        CLOSED = "closed", "Closed"

    class OnFail(models.TextChoices):
        RETAKE = "retake", "Take the next round, with new items"
        WAIT = "wait", "Wait for the researcher"

    kind = models.CharField(max_length=16, choices=Kind.choices, default=Kind.STUDY)
    name = models.CharField(max_length=200)
    code = models.CharField(max_length=16, unique=True, default=opaque_code)
    # Draft until its checklist holds (annotation.lifecycle); clinicians never see a draft.
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.DRAFT)
    rubric_name = models.CharField(max_length=60, default="patientagentbench")
    rubric_version = models.CharField(max_length=20, default="1")
    seed = models.BigIntegerField(default=0)
    overlap = models.JSONField(default=dict)  # track -> distinct clinicians per item
    reference_share = models.FloatField(default=0.0)  # hidden reference items, for drift
    require_calibration = models.BooleanField(default=False)
    feedback = models.CharField(max_length=16, choices=Feedback.choices, default=Feedback.END)
    on_fail = models.CharField(max_length=16, choices=OnFail.choices, default=OnFail.RETAKE)
    min_exact = models.FloatField(default=0.5)
    min_adjacent = models.FloatField(default=0.8)
    min_alpha = models.FloatField(default=0.4)
    adjudication_threshold = models.PositiveSmallIntegerField(default=2)
    # Whoever adjudicates (a researcher too) sees no model, run or trace on the queue or any
    # page it links to (annotation.blind). False for studies made before it existed: their
    # researchers had seen the models per item already, so blinding them now protects nothing.
    blind_adjudication = models.BooleanField(default=False)
    instructions = models.TextField(blank=True)
    # How the items were chosen: {"design": ...}, and for a random design the population it
    # drew from, [[trace id, inclusion probability, stratum], ...] (annotation.studies).
    sampling = models.JSONField(default=dict, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name_plural = "studies"

    def __str__(self) -> str:
        return self.name

    @property
    def is_calibration(self) -> bool:
        return self.kind == self.Kind.CALIBRATION


class Item(models.Model):
    """One conversation in one study. The trace is reachable only from researcher code."""

    study = models.ForeignKey(Study, on_delete=models.PROTECT, related_name="items")
    trace = models.ForeignKey(
        "patientagentbench.Trace", on_delete=models.PROTECT, related_name="review_items"
    )
    # Calibration items and hidden reference items carry reference scores and rationale.
    is_reference = models.BooleanField(default=False)
    reference = models.JSONField(null=True, blank=True)  # dim -> {"score": n|None, "why": str}
    stratum = models.CharField(max_length=80, blank=True)  # the sampler's, for researchers
    # Its probability of being sampled, under a random design (None: not a random sample).
    inclusion_probability = models.FloatField(null=True, blank=True)

    class Meta:
        ordering = ["study", "id"]
        constraints = [
            models.UniqueConstraint(fields=["study", "trace"], name="one_item_per_trace_per_study")
        ]

    def __str__(self) -> str:
        return f"item {self.pk} of {self.study}"


class AssignmentQuerySet(models.QuerySet):
    def live(self):
        """Assignments that count: a withdrawn one (reassigned, clinician gone) does not."""
        return self.exclude(status=Assignment.Status.WITHDRAWN)


class Assignment(models.Model):
    """A clinician's work on one item. Its code is the only handle a clinician ever sees."""

    class Status(models.TextChoices):
        OPEN = "open", "Open"
        SUBMITTED = "submitted", "Submitted"
        WITHDRAWN = "withdrawn", "Reassigned to someone else"

    item = models.ForeignKey(Item, on_delete=models.PROTECT, related_name="assignments")
    clinician = models.ForeignKey(Clinician, on_delete=models.PROTECT, related_name="assignments")
    code = models.CharField(max_length=16, unique=True, default=opaque_code)
    tracks = models.JSONField(default=list)  # the scored tracks this clinician covers here
    position = models.PositiveIntegerField(default=0)  # seeded order per clinician
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.OPEN)
    draft = models.JSONField(default=dict, blank=True)
    draft_saved_at = models.DateTimeField(null=True, blank=True)
    # field -> the page's version of the value in `draft` (see annotation/pure/drafts.py)
    draft_versions = models.JSONField(default=dict, blank=True)
    seconds_on_item = models.PositiveIntegerField(default=0)
    opened_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    objects = AssignmentQuerySet.as_manager()

    class Meta:
        ordering = ["clinician", "position"]
        constraints = [
            models.UniqueConstraint(
                fields=["item", "clinician"],
                condition=~models.Q(status="withdrawn"),
                name="one_live_assignment_per_item_and_clinician",
            )
        ]
        indexes = [models.Index(fields=["clinician", "status"])]

    def __str__(self) -> str:
        return self.code


class SubmissionQuerySet(models.QuerySet):
    def current(self):
        """The scores that count: each live assignment's newest version."""
        return self.filter(is_current=True).exclude(assignment__status=Assignment.Status.WITHDRAWN)


class Submission(models.Model):
    """Submitted scores. Version 1 is the original; a revision is a new version with a reason;
    only the newest is current. Never updated after creation, apart from `is_current`."""

    assignment = models.ForeignKey(Assignment, on_delete=models.PROTECT, related_name="submissions")
    version = models.PositiveSmallIntegerField(default=1)
    is_current = models.BooleanField(default=True)
    # dim -> 1..5, or None for "not applicable"; realism dims included.
    scores = models.JSONField(default=dict)
    justifications = models.JSONField(default=dict, blank=True)
    comments = models.JSONField(default=list, blank=True)  # [{"anchor": "t3", "text": ...}]
    flags = models.JSONField(default=list, blank=True)  # "unsafe", "broken"
    reason = models.TextField(blank=True)  # why a revision was made
    seconds_on_item = models.PositiveIntegerField(default=0)
    # The page's nonce: a double click or a retried request stores one submission.
    nonce = models.CharField(max_length=40)
    submitted_at = models.DateTimeField(auto_now_add=True)

    objects = SubmissionQuerySet.as_manager()

    class Meta:
        ordering = ["assignment", "version"]
        constraints = [
            models.UniqueConstraint(fields=["assignment", "version"], name="one_row_per_version"),
            models.UniqueConstraint(fields=["assignment", "nonce"], name="one_row_per_nonce"),
        ]

    def __str__(self) -> str:
        return f"{self.assignment.code} v{self.version}"


class Adjudication(models.Model):
    """A researcher's decision on a disputed dimension; the newest per (item, dimension) is
    the item's consensus."""

    item = models.ForeignKey(Item, on_delete=models.PROTECT, related_name="adjudications")
    dimension = models.CharField(max_length=60)
    score = models.PositiveSmallIntegerField(null=True, blank=True)  # None: not applicable
    reason = models.TextField()
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    decided_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["item", "dimension", "-decided_at"]

    def __str__(self) -> str:
        return f"{self.dimension} = {self.score} (item {self.item_id})"


class Qualification(models.Model):
    """A clinician's result in one calibration round, written once when the round closes and
    never changed: a later submission by someone else cannot flip it. A researcher may re-open
    it (the reason kept), which takes it out of use without rewriting the result."""

    clinician = models.ForeignKey(
        Clinician, on_delete=models.PROTECT, related_name="qualifications"
    )
    round = models.ForeignKey(Study, on_delete=models.PROTECT, related_name="qualifications")
    rubric_name = models.CharField(max_length=60)
    rubric_version = models.CharField(max_length=20)
    track = models.CharField(max_length=16)
    # dimension -> {"passed": bool, "exact": x, "adjacent": x, "alpha": x, "reason": str}
    results = models.JSONField(default=dict)
    passed = models.BooleanField()
    at = models.DateTimeField(auto_now_add=True)
    reopened_at = models.DateTimeField(null=True, blank=True)
    reopened_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    reopened_reason = models.TextField(blank=True)

    class Meta:
        ordering = ["clinician", "at"]
        constraints = [
            models.UniqueConstraint(fields=["clinician", "round"], name="one_result_per_round")
        ]

    def __str__(self) -> str:
        return f"{self.clinician} in {self.round}: {'passed' if self.passed else 'not yet'}"


class AuditEvent(models.Model):
    """Append-only: who did what to which study, item or assignment, and when."""

    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    action = models.CharField(max_length=40, db_index=True)
    study = models.ForeignKey(Study, null=True, blank=True, on_delete=models.PROTECT)
    item = models.ForeignKey(Item, null=True, blank=True, on_delete=models.PROTECT)
    assignment = models.ForeignKey(Assignment, null=True, blank=True, on_delete=models.PROTECT)
    detail = models.JSONField(default=dict, blank=True)
    at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        ordering = ["at", "id"]

    def __str__(self) -> str:
        return f"{self.at:%Y-%m-%d %H:%M:%S} {self.action}"
