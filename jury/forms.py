"""Forms for judges, panels and launching a scoring; the commands use them too, so a rule
(a panel needs a judge, an imported panel never scores) holds on every path."""

from __future__ import annotations

from decimal import Decimal

from django import forms

from jury.models import Judge, Panel
from jury.pure import subsets
from jury.pure.prompts import JUDGE_PROMPT_VERSION
from jury.rubrics import rubric_choices, split_choice
from jury.verdicts import IMPORTED_VERSION
from patientagentbench.models import ModelConfig
from patientagentbench.views.forms import RowChoices
from ratings.rubric import RubricError

MAX_REPEAT = 10


class JudgeForm(forms.ModelForm):
    class Meta:
        model = Judge
        fields = ["name", "model", "prompt_version", "temperature", "call_mode", "max_concurrency"]
        help_texts = {
            "model": "Any model config; simulated ones judge offline and are labelled so.",
            "prompt_version": (
                "Recorded with every verdict. Change it when the judge's prompt changes: "
                "verdicts of the old version stay, and the consistency page compares the two."
            ),
            "temperature": "0 for the most repeatable verdicts.",
            "max_concurrency": (
                "At most this many of this judge's calls at once, inside the model's own "
                "limit; empty for the model's limit alone."
            ),
            "call_mode": (
                "One call per dimension reads each dimension on its own; one call for all "
                "sends the conversation once (a slow local model needs this: about six times "
                "fewer prompt tokens). Verdicts record which way they were asked."
            ),
        }

    def __init__(self, *args, may_use_paid_models: bool = False, **kwargs):
        super().__init__(*args, **kwargs)
        models = ModelConfig.objects.enabled()
        if not may_use_paid_models:
            # Judges on real providers spend money: admins choose them (jury.spending).
            models = models.filter(provider=ModelConfig.Provider.SIMULATED)
            self.fields[
                "model"
            ].help_text = "Simulated models only: an admin sets up judges on paid models."
        self.fields["model"].queryset = models
        # Left out (older scripts, the command without --call-mode): the judge keeps its mode.
        self.fields["call_mode"].required = False
        if not self.instance.pk:
            self.initial.setdefault("prompt_version", JUDGE_PROMPT_VERSION)
            self.initial.setdefault("temperature", 0.0)

    def clean_call_mode(self) -> str:
        return self.cleaned_data.get("call_mode") or self.instance.call_mode

    def clean(self):
        data = super().clean()
        instance = self.instance
        if (
            instance.pk
            and data.get("call_mode")
            and data["call_mode"] != instance.call_mode
            and data.get("prompt_version") == instance.prompt_version
            and instance.verdicts.filter(prompt_version=instance.prompt_version).exists()
        ):
            self.add_error(
                "call_mode",
                "This judge has verdicts under this prompt version: change the prompt version "
                "too, so verdicts asked one way are never mixed with verdicts asked the other.",
            )
        return data

    def clean_temperature(self) -> float:
        value = self.cleaned_data["temperature"]
        if not 0 <= value <= 2:
            raise forms.ValidationError("Between 0 and 2.")
        return value


def paid_model_warning(model: ModelConfig) -> str:
    """What a judge on this model means for a scoring's limit (empty for a simulated one)."""
    if model.is_simulated:
        return ""
    if model.counts_calls:
        return (
            f"{model.name} has no price: a scoring with this judge is bounded by a call limit "
            "(the limit counts calls; run_jury --call-limit N), and only an admin may launch it."
        )
    return (
        f"{model.name} is a paid model: a scoring with this judge is bounded by a spend limit "
        "in USD (run_jury --spend-limit)."
    )


class PanelForm(forms.ModelForm):
    judges = RowChoices(
        queryset=Judge.objects.exclude(prompt_version=IMPORTED_VERSION).select_related("model"),
        widget=forms.CheckboxSelectMultiple,
        help_text="Each judge asks as its call mode says: one call per dimension, or one for all.",
    )
    rubric = forms.ChoiceField(
        choices=(),
        help_text="What the judges score: the panel can only be compared with studies of this "
        "rubric version. Import your own on the Rubrics page.",
    )

    class Meta:
        model = Panel
        fields = ["name", "judges", "aggregation"]
        help_texts = {
            "aggregation": (
                "How the judges' scores become the panel's verdict: mean or median (passes at "
                "the rubric's pass mark or above), or a majority of judges passing."
            )
        }

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["rubric"].choices = rubric_choices()
        if self.instance.pk:
            self.initial["rubric"] = f"{self.instance.rubric_name}@{self.instance.rubric_version}"
        self.fields["judges"].label_from_instance = judge_label

    def clean_rubric(self) -> tuple[str, str]:
        choice = self.cleaned_data["rubric"]
        try:
            chosen = split_choice(choice)
        except RubricError as error:
            raise forms.ValidationError(str(error)) from None
        before = (self.instance.rubric_name, self.instance.rubric_version)
        if self.instance.pk and chosen != before and self.instance.verdicts.exists():
            raise forms.ValidationError(
                f"this panel has verdicts on {before[0]} v{before[1]}; a panel's rubric never "
                "changes once it has scored: create another panel"
            )
        return chosen

    def save(self, commit: bool = True) -> Panel:
        self.instance.rubric_name, self.instance.rubric_version = self.cleaned_data["rubric"]
        return super().save(commit)


def judge_label(judge: Judge) -> str:
    simulated = " [simulated]" if judge.model.is_simulated else ""
    one_call = ", one call for all dimensions" if judge.one_call else ""
    return (
        f"{judge.name} — {judge.model.name}{simulated}, prompt v{judge.prompt_version}, "
        f"T={judge.temperature:g}{one_call}"
    )


ALL, SAMPLE, CHOSEN = "all", "sample", "ids"


class LaunchForm(forms.Form):
    """Launch a scoring of a run: which panel, how often, within what spend, and which of the
    run's finished conversations (`trace_ids` and `subset` once valid; None means all)."""

    panel = forms.ModelChoiceField(queryset=Panel.objects.filter(imported=False))
    conversations = forms.ChoiceField(
        required=False,  # left out: all of them
        initial=ALL,
        label="Conversations",
        help_text="Score all of them, a seeded random sample, chosen ids, or a study's items.",
    )
    sample_size = forms.IntegerField(
        required=False, min_value=1, max_value=subsets.MAX_SAMPLE, label="Sample size (N)"
    )
    seed = forms.IntegerField(
        required=False, min_value=0, initial=0, help_text="The same seed draws the same sample."
    )
    trace_ids = forms.CharField(
        required=False,
        label="Conversation ids",
        help_text="Trace ids, separated by commas or spaces.",
        max_length=20_000,
    )
    repeat = forms.IntegerField(
        min_value=1,
        max_value=MAX_REPEAT,
        initial=1,
        label="Repeat (K)",
        help_text="Score each conversation K times per judge; K ≥ 2 measures judge consistency.",
    )
    spend_limit = forms.DecimalField(
        required=False,
        min_value=Decimal(0),
        max_digits=12,  # as the column
        decimal_places=4,
        label="Spend limit (USD)",
        help_text=(
            "Scoring stops when reached. Required for a panel on paid models (for a "
            "researcher, at most the limit the admin approved; empty means that limit)."
        ),
    )
    call_limit = forms.IntegerField(
        required=False,
        min_value=1,
        max_value=2**31 - 1,  # the column
        label="Call limit",
        help_text=(
            "Scoring stops after this many judge calls. Required for a panel with a judge on a "
            "model without prices (no price: the limit counts calls; admins only)."
        ),
    )

    def __init__(self, *args, run, finished: list[int], **kwargs):
        super().__init__(*args, **kwargs)
        self.run, self.finished = run, finished
        n = len(finished)
        choices = [
            (ALL, f"All {n} finished conversation{'s' if n != 1 else ''}"),
            (SAMPLE, "A random sample of N"),
            (CHOSEN, "Chosen conversation ids"),
        ]
        for named in subsets.conversation_sets():
            choices += [(f"{named.kind}:{key}", label) for key, label in named.options(run.pk)]
        self.fields["conversations"].choices = choices
        self.trace_ids: list[int] | None = None
        self.subset = ""

    def clean(self):
        data = super().clean()
        choice = data.get("conversations")
        if choice == SAMPLE:
            n = data.get("sample_size")
            if not n:
                self.add_error("sample_size", "Say how many conversations to sample.")
                return data
            seed = data.get("seed") or 0
            self.trace_ids = subsets.sample(self.finished, n, seed)
            self.subset = subsets.sample_description(len(self.trace_ids), seed, len(self.finished))
        elif choice == CHOSEN:
            try:
                ids = subsets.parse_ids(data.get("trace_ids") or "")
            except ValueError as exc:
                self.add_error("trace_ids", str(exc))
                return data
            if not ids:
                self.add_error("trace_ids", "Give at least one conversation id.")
                return data
            self.trace_ids, self.subset = ids, subsets.ids_description(sorted(set(ids)))
        elif choice and choice != ALL:
            kind, _, key = choice.partition(":")
            named = subsets.conversation_set(kind)
            ids = named.traces(self.run.pk, key) if named else None
            if not ids:
                self.add_error("conversations", "That set holds no conversation of this run.")
                return data
            label = dict(self.fields["conversations"].choices)[choice]
            self.trace_ids, self.subset = ids, f"{label} ({len(ids)} conversations)"
        return data


class ResumeForm(forms.Form):
    spend_limit = forms.DecimalField(
        required=False,
        min_value=Decimal(0),
        max_digits=12,  # as the column
        decimal_places=4,
        label="New spend limit (USD)",
    )
    call_limit = forms.IntegerField(
        required=False, min_value=1, max_value=2**31 - 1, label="New call limit"
    )


class ApprovalForm(forms.Form):
    spend_limit = forms.DecimalField(
        required=False,
        min_value=Decimal("0.01"),
        max_digits=12,  # as the column
        decimal_places=4,
        label="Researchers may launch it up to (USD per scoring)",
        help_text="Empty withdraws the approval: only admins may launch it.",
    )
