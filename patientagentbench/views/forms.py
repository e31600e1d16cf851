from decimal import Decimal
from urllib.parse import urlencode

from django import forms
from django.core.validators import MinValueValidator
from django.db.models import Q
from django.db.models.fields.json import KT
from django.urls import reverse

from patientagentbench.models import ModelConfig, Run, Suite, Task
from patientagentbench.providers.redaction import is_env_var_name, looks_like_a_key
from patientagentbench.runs.estimates import call_limit_refusal
from patientagentbench.runs.limits import LaunchTooLarge, check_launch_size
from patientagentbench.simulated.agent import PROFILES


class ModelConfigForm(forms.ModelForm):
    class Meta:
        model = ModelConfig
        fields = [
            "name",
            "provider",
            "model_id",
            "base_url",
            "api_key_env",
            "price_in",
            "price_out",
            "max_concurrency",
            "max_output_tokens",
            "enabled",
        ]
        help_texts = {
            "api_key_env": "Name of the environment variable holding the key (never the key).",
            "model_id": "Provider model id, or a simulated profile such as sim-steady.",
        }

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # Left out, the cap stays as it is (the default, for a new model).
        self.fields["max_output_tokens"].required = False
        for name in ("price_in", "price_out"):  # a negative price would undercut spend limits
            self.fields[name].validators.append(MinValueValidator(0))
            self.fields[name].widget.attrs["min"] = 0

    def clean_max_output_tokens(self):
        value = self.cleaned_data.get("max_output_tokens")
        return self.instance.max_output_tokens if value is None else value

    def clean(self):
        data = super().clean()
        if data.get("provider") == ModelConfig.Provider.OPENAI_COMPATIBLE and not data.get(
            "base_url"
        ):
            self.add_error("base_url", "An OpenAI-compatible model needs a base URL.")
        key_env = (data.get("api_key_env") or "").strip()
        if key_env and (looks_like_a_key(key_env) or not is_env_var_name(key_env)):
            # Never echo the value back: it may be the key itself.
            self.add_error(
                "api_key_env",
                "Give the name of the environment variable that holds the key (such as "
                "TOGETHER_API_KEY), not the key itself.",
            )
        if data.get("provider") == ModelConfig.Provider.SIMULATED:
            from patientagentbench.simulated.agent import PROFILES

            if data.get("model_id") not in PROFILES:
                self.add_error("model_id", f"Known simulated profiles: {', '.join(PROFILES)}.")
        return data


def parse_temperatures(text: str) -> list[float]:
    try:
        values = [float(part) for part in text.replace(" ", "").split(",") if part]
    except ValueError as exc:
        raise forms.ValidationError("Temperatures are numbers separated by commas.") from exc
    if not values or any(not 0 <= v <= 2 for v in values):
        raise forms.ValidationError("Give at least one temperature between 0 and 2.")
    return sorted(set(values))


TASK_LABEL_CHARS = 110


def task_label(task_id: str, description: str) -> str:
    """A task as a chooser shows it: its id and what it asks, cut to one line."""
    text = " ".join(str(description or "").split())
    if len(text) > TASK_LABEL_CHARS:
        text = text[: TASK_LABEL_CHARS - 1].rstrip() + "…"
    return f"{task_id} — {text}" if text else task_id


class SuiteSelect(forms.Select):
    """Each suite option says whether it plays patients, so the page can show the fields
    that apply only to case sets."""

    def create_option(self, name, value, label, selected, index, subindex=None, attrs=None):
        option = super().create_option(name, value, label, selected, index, subindex, attrs)
        instance = getattr(value, "instance", None)
        if instance is not None:
            option["attrs"]["data-patients"] = "true" if instance.has_patients else "false"
        return option


def launchable_suites():
    return Suite.objects.exclude(kind=Suite.Kind.IMPORTED)


# The form starts on the seed paper's suite when installed, not on whichever suite sorts first.
DEFAULT_SUITE = "office-19"


def default_suite() -> Suite | None:
    suites = launchable_suites()
    return suites.filter(name=DEFAULT_SUITE).first() or suites.first()


def ids_in(values) -> list[int]:
    """The values that can be row ids; the rest (text, "²", 30 digits) are dropped, so a
    hand-edited query never reaches the database as an error."""
    texts = (str(value).strip() for value in values)
    return [int(text) for text in texts if text.isdecimal() and len(text) <= 18]


def suite_from(value) -> Suite | None:
    """The launchable suite a form value names, or None for anything else (never an error:
    the preview and the task list read half-typed forms)."""
    ids = ids_in([value or ""])
    return launchable_suites().filter(pk=ids[0]).first() if ids else None


# Seeds are stored in 64-bit integer columns.
SEED_MAX = 2**63 - 1


class RowChoices(forms.ModelMultipleChoiceField):
    """Rows picked by id, refusing ids no row can have: Django sends an `__in` lookup's values
    to the database unchecked, and SQLite raises OverflowError (a 500) past 64 bits."""

    def _check_values(self, value):
        for pk in value if isinstance(value, list | tuple) else ():
            digits = str(pk).strip().lstrip("-")
            if digits.isdecimal() and len(digits) > 18:
                raise forms.ValidationError(
                    self.error_messages["invalid_pk_value"],
                    code="invalid_pk_value",
                    params={"pk": digits[:18] + "…"},
                )
        return super()._check_values(value)


def benchmarkable_models():
    """Enabled models an agent can run on: a simulated config that is no agent profile (the
    jury demo's sim-judge-a/b/c) is a judge, not something to benchmark."""
    not_an_agent = Q(provider=ModelConfig.Provider.SIMULATED) & ~Q(model_id__in=PROFILES)
    return ModelConfig.objects.enabled().exclude(not_an_agent)


class LaunchForm(forms.Form):
    suite = forms.ModelChoiceField(
        queryset=launchable_suites(), empty_label=None, widget=SuiteSelect
    )
    models = RowChoices(queryset=benchmarkable_models(), widget=forms.CheckboxSelectMultiple)
    tasks = RowChoices(
        queryset=Task.objects.exclude(suite__kind=Suite.Kind.IMPORTED).select_related("suite"),
        required=False,
        label="Tasks or cases",
        help_text="Leave empty for all of them; Ctrl- or Cmd-click picks several.",
        widget=forms.SelectMultiple(attrs={"size": 10, "class": "wide"}),
    )
    repetitions = forms.IntegerField(min_value=1, max_value=100, initial=5, label="Runs (N)")
    temperatures = forms.CharField(initial="1.0", help_text="Comma-separated, e.g. 0, 1.0")
    max_iterations = forms.IntegerField(min_value=1, max_value=50, initial=10)
    max_turns = forms.IntegerField(
        min_value=1,
        max_value=50,
        initial=10,
        required=False,
        help_text="Patient turns; case sets only",
    )
    patient_model = forms.ModelChoiceField(
        queryset=ModelConfig.objects.enabled().exclude(provider=ModelConfig.Provider.SIMULATED),
        required=False,
        empty_label="Offline simulated patient",
        help_text="Who plays the patient in case sets",
    )
    spend_limit = forms.DecimalField(
        min_value=Decimal(0),
        required=False,
        max_digits=10,  # the column holds 8 digits before the point
        decimal_places=2,
        help_text="USD; empty for none",
    )
    call_limit = forms.IntegerField(
        min_value=1,
        max_value=2**31 - 1,  # the column
        required=False,
        help_text="Model calls; the run stops after this many. Required when a model has no "
        "price (no price: the limit counts calls).",
    )

    CASE_SET_ONLY = ("max_turns", "patient_model")

    def __init__(self, *args, suite: Suite | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        chosen = suite_from(self.data.get("suite")) if self.is_bound else suite
        self.chosen_suite = chosen or default_suite()
        if self.chosen_suite is not None:
            self.initial.setdefault("suite", self.chosen_suite.pk)
        # Picking another suite asks for that suite's list (the launch view's #tasks).
        self.fields["suite"].widget.attrs.update(
            {
                "hx-get": reverse("run_launch"),
                "hx-target": "#tasks-field",
                "hx-swap": "outerHTML",
                "hx-sync": "this:replace",
            }
        )
        # Validation accepts any launchable task (so a task of another suite gets the clear
        # message below); the list offers only the chosen suite's.
        self.fields["tasks"].widget.choices = self.task_choices()

    def task_choices(self) -> list:
        if self.chosen_suite is None:
            return []
        # A case is described by its goal (its title), a task by its request; the case's
        # JSON is not loaded whole, a case set can hold thousands.
        tasks = self.chosen_suite.tasks.annotate(goal=KT("case__goal__summary")).values_list(
            "pk", "task_id", "category", "prompt", "goal"
        )
        groups: dict[str, list] = {}
        for pk, task_id, category, prompt, goal in tasks:
            group = (category or "other").replace("_", " ").capitalize()
            groups.setdefault(group, []).append((pk, task_label(task_id, goal or prompt)))
        if len(groups) == 1:
            return next(iter(groups.values()))
        return sorted(groups.items())

    def clean_temperatures(self):
        return parse_temperatures(self.cleaned_data["temperatures"])

    def clean(self):
        data = super().clean()
        suite, tasks = data.get("suite"), data.get("tasks")
        if suite and tasks and any(task.suite_id != suite.pk for task in tasks):
            self.add_error("tasks", "Pick tasks from the chosen suite.")
        if suite and data.get("models") and data.get("repetitions") and not self.errors:
            try:
                check_launch_size(
                    tasks=len(tasks) if tasks else suite.tasks.count(),
                    models=len(data["models"]),
                    temperatures=len(data.get("temperatures") or [1.0]),
                    repetitions=data["repetitions"],
                    max_iterations=data.get("max_iterations") or 1,
                    max_turns=data.get("max_turns") or 1,
                )
            except LaunchTooLarge as exc:
                self.add_error(None, str(exc))
        patient = data.get("patient_model") if suite and suite.has_patients else None
        refusal = call_limit_refusal([*(data.get("models") or []), patient], data.get("call_limit"))
        if refusal:
            self.add_error("call_limit", refusal)
        return data

    def chosen_tasks(self) -> list[Task]:
        tasks = self.cleaned_data.get("tasks")
        return list(tasks) if tasks else list(self.cleaned_data["suite"].tasks.all())


class CaseSetForm(forms.Form):
    name = forms.SlugField(max_length=120, help_text="A new name; case sets never change.")
    count = forms.IntegerField(min_value=1, max_value=2000, initial=60)
    seed = forms.IntegerField(min_value=0, max_value=SEED_MAX, initial=1)
    writer = forms.ChoiceField(help_text="The offline template writer or a configured model")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        models = ModelConfig.objects.enabled().exclude(provider=ModelConfig.Provider.SIMULATED)
        self.fields["writer"].choices = [("template", "Template (offline, seeded)")] + [
            (m.name, m.name) for m in models
        ]

    def clean_name(self):
        name = self.cleaned_data["name"]
        if Suite.objects.filter(name=name).exists():
            raise forms.ValidationError("That name is taken; case sets are frozen, pick another.")
        return name


class RunFilter(forms.Form):
    """The runs list's filters, from GET. A value that names nothing is ignored, not an error:
    these are links people share and edit by hand."""

    suite = forms.ModelChoiceField(
        queryset=Suite.objects.all(), required=False, empty_label="All suites"
    )
    status = forms.ChoiceField(required=False)

    def __init__(self, data=None):
        if data and "suite" in data and not ids_in([data["suite"]]):
            data = data.copy()
            del data["suite"]
        super().__init__(data or None)
        self.fields["status"].choices = [("", "Any status"), *Run.Status.choices]

    def values(self) -> dict:
        if not self.is_bound:
            return {}
        self.is_valid()
        return {k: v for k, v in self.cleaned_data.items() if v not in (None, "")}

    def apply(self, runs):
        values = self.values()
        if "suite" in values:
            runs = runs.filter(suite=values["suite"])
        if "status" in values:
            runs = runs.filter(status=values["status"])
        return runs

    def query(self) -> str:
        """The filters as a query string, for page links that keep them."""
        values = self.values()
        if "suite" in values:
            values["suite"] = values["suite"].pk
        return urlencode(values)
