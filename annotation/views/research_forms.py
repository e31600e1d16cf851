"""The researcher's forms: which conversations (the sampler's filters), who scores them, and
how (overlap, references, thresholds), plus people and decisions.

Conversations are held out both ways: a study never samples a conversation used in a
calibration round (clinicians have seen its reference), and a round never samples one from a
study (its reference would leak into the study's scores). A round's sampler also leaves out
the conversations its chosen clinicians were already calibrated on (items of an earlier
round of theirs): a case they were taught on measures memory, not calibration.
"""

from __future__ import annotations

from dataclasses import dataclass

from django import forms
from django.contrib import messages
from django.db.models import Count, Q

from annotation import adjudication
from annotation.models import Assignment, Clinician, Item, Study
from annotation.people import researcher_label
from annotation.pure.calibration import Thresholds
from annotation.pure.sampling import EXTREMES_FIRST, PER_MODEL, UNIFORM, Sample
from annotation.qualification import design_blockers
from annotation.studies import (
    BREAKDOWN,
    StudySpec,
    create_study,
    pool,
    reviewable,
    sample_for,
    task_breakdown,
)
from jury.rubrics import rubric_choices, split_choice
from patientagentbench.cases.attribute_labels import value_label
from patientagentbench.models import Run, Task
from patientagentbench.views.forms import SEED_MAX, RowChoices
from ratings.rating import NOT_APPLICABLE_CHOICE as NOT_APPLICABLE
from ratings.rating import NOT_APPLICABLE_LABEL
from ratings.rubric import MAX_SCALE_POINTS, Rubric, RubricError, Scale
from ratings.rubric import cached_rubric as load_rubric

FILTERED_ATTRIBUTES = ("category", "subtask", "severity")
CHOICES = forms.CheckboxSelectMultiple(attrs={"class": "choices"})


def score_choices(scale: Scale) -> list[tuple[str, str]]:
    """The points of the rubric's scale, then N/A."""
    return [(str(s), str(s)) for s in scale.points] + [(NOT_APPLICABLE, NOT_APPLICABLE_LABEL)]


def calibrated_on(clinicians):
    """Trace ids that were items of a calibration round of any of these clinicians."""
    return (
        Item.objects.filter(
            study__kind=Study.Kind.CALIBRATION, assignments__clinician__in=clinicians
        )
        .values_list("trace_id", flat=True)
        .distinct()
    )


def _runs_with_conversations():
    return (
        Run.objects.select_related("suite")
        .annotate(n_conversations=Count("traces", filter=reviewable("traces__")))
        .filter(n_conversations__gt=0)
        .order_by("-pk")
    )


class RunChoice(RowChoices):
    def label_from_instance(self, run):
        label = f" · {run.label}" if run.label else ""
        imported = " · imported" if run.source == Run.Source.IMPORTED else ""
        return (
            f"Run {run.pk}{imported} · {run.suite.name}{label} · "
            f"{run.n_conversations} conversations"
        )


class ClinicianChoice(RowChoices):
    """Name, code, track and current open load, so a researcher knows who is who."""

    def label_from_instance(self, clinician):
        return researcher_label(clinician)


def active_clinicians():
    return (
        Clinician.objects.filter(user__is_active=True)
        .select_related("user")
        .annotate(n_open=Count("assignments", filter=Q(assignments__status=Assignment.Status.OPEN)))
        .order_by("code")
    )


class SampleForm(forms.Form):
    """What the sampler draws from; also the preview's input."""

    kind = Study.Kind.STUDY

    runs = RunChoice(
        queryset=Run.objects.none(),
        required=False,
        widget=CHOICES,
        help_text="Runs with conversations to review: patient scenarios, and imported "
        "transcripts. None ticked: every such run.",
    )
    n_items = forms.IntegerField(label="Number of conversations", min_value=1, max_value=5000)
    design = forms.ChoiceField(
        label="How to choose them",
        required=False,
        initial=EXTREMES_FIRST,
        choices=[
            (EXTREMES_FIRST, "Stratified, extremes first (best for checking the jury)"),
            (UNIFORM, "Uniform random share (each conversation equally likely)"),
            (PER_MODEL, "Random, the same number from each model"),
        ],
        help_text="Only a random sample supports jury-corrected model means; its inclusion "
        "probabilities are recorded.",
    )
    seed = forms.IntegerField(
        initial=1,
        min_value=-SEED_MAX,
        max_value=SEED_MAX,
        help_text="The same seed and filters give the same sample.",
    )
    models = forms.MultipleChoiceField(
        required=False, widget=CHOICES, help_text="None ticked: every model."
    )
    category = forms.MultipleChoiceField(
        required=False, widget=CHOICES, help_text="None ticked: every category."
    )
    subtask = forms.MultipleChoiceField(
        required=False, widget=CHOICES, help_text="None ticked: every subtask."
    )
    severity = forms.MultipleChoiceField(
        required=False, widget=CHOICES, help_text="None ticked: every severity."
    )
    outcome = forms.ChoiceField(
        required=False,
        label="Automatic outcome",
        choices=[("", "Any"), ("passed", "Passed the checks"), ("failed", "Failed the checks")],
    )
    rubric = forms.ChoiceField(
        required=False,
        help_text="What the clinicians score, and which jury panels it can be compared with "
        "(a panel of the same rubric version). Import your own on the Rubrics page.",
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["rubric"].choices = rubric_choices()
        self.fields["rubric"].initial = f"patientagentbench@{load_rubric().version}"
        self.fields["runs"].queryset = _runs_with_conversations()
        traces = pool(self.kind)
        models = set(traces.values_list("model_name", flat=True).order_by().distinct())
        self.fields["models"].choices = [(m, m) for m in sorted(models)]
        values = _attribute_values(traces)
        for name in FILTERED_ATTRIBUTES:
            self.fields[name].choices = [(v, value_label(name, v)) for v in values[name]]

    def sample(self) -> Sample:
        data = self.cleaned_data
        run_ids = [run.pk for run in data["runs"]] or None
        attributes = {name: data[name] for name in FILTERED_ATTRIBUTES if data.get(name)}
        return sample_for(
            self.sample_pool(run_ids),
            data["n_items"],
            data["seed"],
            models=data["models"] or None,
            attributes=attributes or None,
            outcome=data["outcome"] or None,
            design=data.get("design") or EXTREMES_FIRST,
            rubric=self.chosen_rubric(),
        )

    def clean_rubric(self) -> tuple[str, str]:
        try:
            return split_choice(self.cleaned_data.get("rubric") or self.fields["rubric"].initial)
        except RubricError as error:
            raise forms.ValidationError(str(error)) from None

    def chosen_rubric(self) -> Rubric:
        name, version = self.cleaned_data.get("rubric") or ("patientagentbench", "")
        return load_rubric(name, version or None)

    def rubric_spec(self) -> dict[str, str]:
        rubric = self.chosen_rubric()
        return {"rubric_name": rubric.name, "rubric_version": rubric.version}

    def sample_pool(self, run_ids=None):
        return pool(self.kind, run_ids)


def _attribute_values(traces) -> dict[str, list[str]]:
    tasks = Task.objects.filter(pk__in=traces.values("task_id"))
    values: dict[str, set[str]] = {name: set() for name in BREAKDOWN}
    for attributes, category in tasks.values_list("attributes", "category"):
        for name, value in task_breakdown(attributes, category).items():
            values[name].add(value)
    return {name: sorted(found) for name, found in values.items()}


class StudyForm(SampleForm):
    name = forms.CharField(max_length=200)
    overlap_clinical = forms.IntegerField(
        label="Clinical clinicians per item", min_value=0, max_value=20, initial=2
    )
    overlap_operations = forms.IntegerField(
        label="Operations clinicians per item", min_value=0, max_value=20, initial=2
    )
    reference_percent = forms.IntegerField(
        label="Hidden reference items (%)",
        min_value=0,
        max_value=100,
        initial=0,
        help_text="A seeded share of the items doubles as reference items, to watch for drift.",
    )
    clinicians = ClinicianChoice(queryset=Clinician.objects.none(), widget=CHOICES)
    require_calibration = forms.BooleanField(
        required=False, help_text="Clinicians start only after passing a calibration round."
    )
    adjudication_threshold = forms.IntegerField(
        min_value=1,
        max_value=MAX_SCALE_POINTS - 1,
        initial=2,
        help_text="Scores this far apart on one dimension send the item to adjudication.",
    )
    # On for a new study: blinding holds only if it is there before anyone has adjudicated.
    blind_adjudication = forms.BooleanField(
        required=False,
        initial=True,
        label="Blind adjudication",
        help_text="Whoever adjudicates, researchers too, sees no model, run or trace on the "
        "queue, the study page or an item's audit trail.",
    )
    instructions = forms.CharField(required=False, widget=forms.Textarea(attrs={"rows": 3}))

    field_order = [
        "name",
        "runs",
        "n_items",
        "design",
        "seed",
        "models",
        *FILTERED_ATTRIBUTES,
        "outcome",
    ]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["clinicians"].queryset = active_clinicians()

    def clean(self):
        data = super().clean()
        threshold = data.get("adjudication_threshold")
        if threshold and data.get("rubric"):
            scale = self.chosen_rubric().scale
            if threshold > scale.high - scale.low:
                self.add_error(
                    "adjudication_threshold",
                    f"On a scale of {scale.span} scores are at most {scale.high - scale.low} "
                    "apart.",
                )
        if not (data.get("overlap_clinical") or data.get("overlap_operations")):
            raise forms.ValidationError(
                "Set at least one track's clinicians per item to 1 or more."
            )
        return data

    def overlap(self) -> dict[str, int]:
        # The preview asks for it on a form with errors too: an invalid field counts as 0.
        return {
            "clinical": self.cleaned_data.get("overlap_clinical") or 0,
            "operations": self.cleaned_data.get("overlap_operations") or 0,
        }

    def spec(self) -> StudySpec:
        data = self.cleaned_data
        return StudySpec(
            name=data["name"],
            seed=data["seed"],
            overlap=self.overlap(),
            reference_share=data["reference_percent"] / 100,
            require_calibration=data["require_calibration"],
            adjudication_threshold=data["adjudication_threshold"],
            blind_adjudication=data["blind_adjudication"],
            instructions=data["instructions"],
            **self.rubric_spec(),
        )

    def create(self, actor) -> Study:
        """The draft study this valid form describes; the page and `create_study` (the
        command) both build it here. Raises StudyError when its clinicians cannot cover it."""
        sample = self.sample()
        trace_ids = [int(key) for key in sample.keys]
        clinicians = list(self.cleaned_data["clinicians"])
        return create_study(self.spec(), trace_ids, clinicians, actor, sample)


class RoundForm(SampleForm):
    """A calibration round: every chosen clinician scores every item."""

    kind = Study.Kind.CALIBRATION

    SOURCES = [
        ("sample", "The sampler (filters below)"),
        ("explicit", "These conversations (trace ids)"),
        ("round", "The conversations of an earlier round, with its consensus as reference"),
    ]

    name = forms.CharField(max_length=200)
    source = forms.ChoiceField(
        choices=SOURCES, initial="sample", widget=forms.RadioSelect(attrs={"class": "inline"})
    )
    trace_ids = forms.CharField(
        required=False,
        label="Trace ids",
        help_text="Comma- or space-separated ids of finished conversations: patient "
        "scenarios, or any trace of an imported run.",
    )
    source_round = forms.ModelChoiceField(
        queryset=Study.objects.none(),
        required=False,
        label="Earlier round",
        help_text="Its conversations, with the consensus of its qualified clinicians as "
        "reference scores; the next page says whom it rests on and what it left out.",
    )
    clinicians = ClinicianChoice(queryset=Clinician.objects.none(), widget=CHOICES)
    feedback = forms.ChoiceField(choices=Study.Feedback.choices, initial=Study.Feedback.IMMEDIATE)
    on_fail = forms.ChoiceField(
        label="A clinician who misses the targets",
        choices=Study.OnFail.choices,
        initial=Study.OnFail.RETAKE,
        required=False,  # a form posted without it (older pages, scripts) keeps the default
        help_text="Shown to them on the round's result page.",
    )
    min_exact = forms.FloatField(
        label="Minimum exact agreement", min_value=0, max_value=1, initial=0.5
    )
    min_adjacent = forms.FloatField(
        label="Minimum adjacent agreement (±1)", min_value=0, max_value=1, initial=0.8
    )
    min_alpha = forms.FloatField(
        label="Minimum Krippendorff's alpha (ordinal)", min_value=-1, max_value=1, initial=0.4
    )

    field_order = ["name", "source", "trace_ids", "source_round", "runs", "n_items", "seed"]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["clinicians"].queryset = active_clinicians()
        self.fields["source_round"].queryset = Study.objects.filter(
            kind=Study.Kind.CALIBRATION, items__assignments__submissions__isnull=False
        ).distinct()
        self.fields["n_items"].required = False

    def clean_trace_ids(self) -> list[int]:
        raw = self.cleaned_data["trace_ids"].replace(",", " ").split()
        # isdecimal, not isdigit ("²" is a digit int() refuses); 19 digits and more are no id.
        if not all(part.isdecimal() and len(part) <= 18 for part in raw):
            raise forms.ValidationError(
                "Trace ids are whole numbers, separated by commas or spaces."
            )
        return sorted({int(part) for part in raw})

    # Each source's own fields; the form shows and checks only the chosen source's (a field
    # of another source, hidden on the page, may hold anything and is not read).
    SOURCE_FIELDS = {
        "sample": ("runs", "n_items", "design", *FILTERED_ATTRIBUTES, "models", "outcome"),
        "explicit": ("trace_ids",),
        "round": ("source_round",),
    }

    def clean(self):
        data = super().clean()
        source = data.get("source")
        for other, names in self.SOURCE_FIELDS.items():
            if other != source and source in self.SOURCE_FIELDS:
                for name in names:
                    self._errors.pop(name, None)
                    data.pop(name, None)
        if source == "sample" and not data.get("n_items"):
            self.add_error("n_items", "How many conversations should the sampler draw?")
        if source == "explicit" and not data.get("trace_ids"):
            self.add_error("trace_ids", "List the conversations' trace ids.")
        if source == "round" and not data.get("source_round"):
            self.add_error("source_round", "Choose the round or study to copy.")
        if not self.errors:
            self._refuse_a_round_nobody_can_pass(data)
        return data

    def _refuse_a_round_nobody_can_pass(self, data) -> None:
        """Before anything is created: a design whose clinicians could not pass even by
        scoring as the reference (one clinician, one item: alpha has nothing to compare)."""
        if data.get("min_alpha") is None or not data.get("clinicians"):
            return
        thresholds = Thresholds(data["min_exact"], data["min_adjacent"], data["min_alpha"])
        items = self._planned_items(data)
        blockers = design_blockers(data["clinicians"], load_rubric(), items, thresholds)
        if blockers:
            # One message: the errors' list is laid out in columns, which splits a sentence.
            self.add_error(
                None,
                "This round could not qualify everyone it serves; change the clinicians or "
                "the number of conversations. " + " ".join(blockers),
            )

    @staticmethod
    def _planned_items(data) -> int:
        if data["source"] == "explicit":
            return len(data["trace_ids"])
        if data["source"] == "round":
            return data["source_round"].items.count()
        return data["n_items"]

    def chosen_traces(self) -> list[int]:
        """The conversations of the round, by the chosen source."""
        data = self.cleaned_data
        if data["source"] == "explicit":
            found = set(
                pool(self.kind).filter(pk__in=data["trace_ids"]).values_list("pk", flat=True)
            )
            missing = [pk for pk in data["trace_ids"] if pk not in found]
            if missing:
                raise forms.ValidationError(
                    "Not finished conversations a clinician can review (patient scenarios, "
                    "imported transcripts), or already used in a study: "
                    + ", ".join(map(str, missing))
                )
            return data["trace_ids"]
        if data["source"] == "round":
            return list(data["source_round"].items.values_list("trace_id", flat=True))
        return [int(key) for key in self.sample().keys]

    def sample_pool(self, run_ids=None):
        """The pool less what the chosen clinicians were already calibrated on."""
        seen = calibrated_on(self.cleaned_data.get("clinicians") or [])
        return super().sample_pool(run_ids).exclude(pk__in=seen)

    def left_out(self, run_ids=None) -> int:
        """How many conversations of the pool the sampler leaves out as already taught."""
        return super().sample_pool(run_ids).count() - self.sample_pool(run_ids).count()

    def repeats(self, trace_ids: list[int]) -> dict[str, int]:
        """Clinician code → how many of these conversations they were already calibrated on
        (trace ids and earlier rounds are used as given, so the researcher is told)."""
        found = {}
        for clinician in self.cleaned_data.get("clinicians") or []:
            seen = set(calibrated_on([clinician])) & set(trace_ids)
            if seen:
                found[clinician.code] = len(seen)
        return found

    def overlap(self) -> dict[str, int]:
        """Every clinician on every item, in each of their tracks."""
        chosen = self.cleaned_data["clinicians"]
        return {
            track: sum(track in c.tracks for c in chosen) for track in ("clinical", "operations")
        }

    def spec(self) -> StudySpec:
        data = self.cleaned_data
        return StudySpec(
            name=data["name"],
            kind=Study.Kind.CALIBRATION,
            seed=data["seed"],
            overlap=self.overlap(),
            feedback=data["feedback"],
            on_fail=data["on_fail"] or Study.OnFail.RETAKE,
            min_exact=data["min_exact"],
            min_adjacent=data["min_adjacent"],
            min_alpha=data["min_alpha"],
            **self.rubric_spec(),
        )

    def create(self, actor) -> CreatedRound:
        """The draft round this valid form describes, with what the researcher must be told
        of it; the page and `create_round` (the command) both build it here. Raises
        StudyError or ValidationError (conversations not in the pool)."""
        data = self.cleaned_data
        traces = self.chosen_traces()
        # Counted before the round exists: its own items would count as already taught.
        repeats = self.repeats(traces) if data["source"] != "sample" else {}
        left_out = self.left_out(self.run_ids()) if data["source"] == "sample" else 0
        study = create_study(self.spec(), traces, list(data["clinicians"]), actor)
        adoption = None
        if data["source"] == "round":
            adoption = adjudication.adopt_consensus(study, data["source_round"], actor)
        notes = [(messages.WARNING, w) for w in adoption_warnings(adoption)] if adoption else []
        if left_out:
            notes.append(
                (
                    messages.INFO,
                    f"The sampler left out {left_out} conversation{'s' if left_out != 1 else ''} "
                    "the chosen clinicians were already calibrated on in an earlier round.",
                )
            )
        notes += [
            (
                messages.WARNING,
                f"{code} was already calibrated on {n} of these {len(traces)} conversations in "
                "an earlier round and has seen their reference: a repeat tests memory.",
            )
            for code, n in repeats.items()
        ]
        return CreatedRound(study, adoption, notes)

    def run_ids(self) -> list[int] | None:
        return [run.pk for run in self.cleaned_data.get("runs") or []] or None


@dataclass(frozen=True)
class CreatedRound:
    study: Study
    adoption: adjudication.Adoption | None
    notes: list[tuple[int, str]]  # (message level, text) for the researcher


def adoption_warnings(adoption: adjudication.Adoption) -> list[str]:
    """What a researcher must know about an adopted consensus: items left without one and
    why, consensus resting on one clinician, and clinicians counted though not qualified."""
    warnings = [
        f"{n} item{'s' if n != 1 else ''} got no consensus: {why}."
        for why, n in sorted(adoption.missing.items())
    ]
    if adoption.single:
        warnings.append(
            f"{adoption.single} item{'s' if adoption.single != 1 else ''} took a consensus that "
            "rests on a single clinician on some dimension: check those references."
        )
    if adoption.counted_unqualified:
        warnings.append(
            "The consensus counts clinicians who are not qualified for this rubric version: "
            + ", ".join(adoption.counted_unqualified)
            + "."
        )
    elif adoption.basis.unqualified:
        warnings.append(f"Not counted, as not qualified: {', '.join(adoption.basis.unqualified)}.")
    return warnings


class InviteForm(forms.Form):
    email = forms.EmailField()
    name = forms.CharField(max_length=150)
    track = forms.ChoiceField(choices=Clinician.Track.choices)
    specialty = forms.CharField(max_length=120, required=False)
    years = forms.IntegerField(label="Years in practice", min_value=0, max_value=70, required=False)


class ProfileForm(forms.Form):
    name = forms.CharField(max_length=150)
    track = forms.ChoiceField(
        choices=Clinician.Track.choices, help_text="Applies to new work; open items keep theirs."
    )
    specialty = forms.CharField(max_length=120, required=False)
    years = forms.IntegerField(label="Years in practice", min_value=0, max_value=70, required=False)


class DecisionForm(forms.Form):
    score = forms.ChoiceField(choices=(), widget=forms.RadioSelect(attrs={"class": "scores"}))
    reason = forms.CharField(widget=forms.Textarea(attrs={"rows": 2}), max_length=4000)

    def __init__(self, *args, scale: Scale, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["score"].choices = score_choices(scale)

    def decided_score(self) -> int | None:
        raw = self.cleaned_data["score"]
        return None if raw == NOT_APPLICABLE else int(raw)


class ReferenceForm(forms.Form):
    """One score (a point of the rubric's scale or N/A, blank = no reference yet) and
    rationale per scored dimension."""

    def __init__(self, *args, dimensions=(), scale: Scale, **kwargs):
        super().__init__(*args, **kwargs)
        self.dimensions = tuple(dimensions)
        for dimension in self.dimensions:
            self.fields[f"score-{dimension.key}"] = forms.ChoiceField(
                label=dimension.label,
                required=False,
                choices=[("", "—")] + score_choices(scale),
                widget=forms.RadioSelect(attrs={"class": "scores"}),
            )
            self.fields[f"why-{dimension.key}"] = forms.CharField(
                label="Rationale",
                required=False,
                max_length=4000,
                widget=forms.Textarea(attrs={"rows": 2}),
            )

    @staticmethod
    def initial_from(reference: dict | None) -> dict:
        initial = {}
        for key, entry in (reference or {}).items():
            score = entry.get("score")
            initial[f"score-{key}"] = NOT_APPLICABLE if score is None else str(score)
            initial[f"why-{key}"] = entry.get("why", "")
        return initial

    def clean(self):
        data = super().clean()
        for dimension in self.dimensions:
            if data.get(f"why-{dimension.key}") and not data.get(f"score-{dimension.key}"):
                self.add_error(f"score-{dimension.key}", "A rationale needs a score (or N/A).")
        return data

    def reference(self) -> dict[str, dict]:
        data, reference = self.cleaned_data, {}
        for dimension in self.dimensions:
            raw = data.get(f"score-{dimension.key}")
            if raw:
                reference[dimension.key] = {
                    "score": None if raw == NOT_APPLICABLE else int(raw),
                    "why": data.get(f"why-{dimension.key}", "").strip(),
                }
        return reference

    def rows(self):
        """(dimension, score field, why field) for the template."""
        return [(d, self[f"score-{d.key}"], self[f"why-{d.key}"]) for d in self.dimensions]


class DeviationReviewForm(forms.Form):
    """A draft study of a run's conversations that left their reference tool sequence."""

    name = forms.CharField(
        max_length=200,
        initial="Conversation review",
        help_text="Clinicians see the name: say nothing of models, runs or why these "
        "conversations were chosen.",
    )
    overlap_clinical = StudyForm.base_fields["overlap_clinical"]
    overlap_operations = StudyForm.base_fields["overlap_operations"]
    clinicians = ClinicianChoice(queryset=Clinician.objects.none(), widget=CHOICES)
    seed = forms.IntegerField(min_value=0, max_value=SEED_MAX, initial=1)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["clinicians"].queryset = active_clinicians()

    def clean(self):
        data = super().clean()
        if not (data.get("overlap_clinical") or data.get("overlap_operations")):
            raise forms.ValidationError(
                "Set at least one track's clinicians per item to 1 or more."
            )
        return data

    def create(self, trace_ids: list[int], actor) -> Study:
        data = self.cleaned_data
        spec = StudySpec(
            name=data["name"],
            seed=data["seed"],
            overlap={
                "clinical": data["overlap_clinical"] or 0,
                "operations": data["overlap_operations"] or 0,
            },
            blind_adjudication=True,
        )
        return create_study(
            spec, trace_ids, list(data["clinicians"]), actor, source=DEVIATING_FROM_REFERENCE
        )


# `Study.sampling["design"]` of a study of deviating conversations: chosen, not sampled, so
# no estimate treats it as a random sample.
DEVIATING_FROM_REFERENCE = "deviating from reference"
