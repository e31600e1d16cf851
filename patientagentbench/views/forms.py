from decimal import Decimal

from django import forms

from patientagentbench.models import ModelConfig, Suite, Task


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
            "enabled",
        ]
        help_texts = {
            "api_key_env": "Name of the environment variable holding the key (never the key).",
            "model_id": "Provider model id, or a simulated profile such as sim-steady.",
        }

    def clean(self):
        data = super().clean()
        if data.get("provider") == ModelConfig.Provider.OPENAI_COMPATIBLE and not data.get(
            "base_url"
        ):
            self.add_error("base_url", "An OpenAI-compatible model needs a base URL.")
        key_env = data.get("api_key_env", "")
        if key_env and not key_env.replace("_", "").isalnum():
            self.add_error("api_key_env", "Give the name of an environment variable, not a key.")
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


class LaunchForm(forms.Form):
    suite = forms.ModelChoiceField(queryset=Suite.objects.exclude(kind=Suite.Kind.IMPORTED))
    models = forms.ModelMultipleChoiceField(
        queryset=ModelConfig.objects.enabled(), widget=forms.CheckboxSelectMultiple
    )
    tasks = forms.ModelMultipleChoiceField(
        queryset=Task.objects.exclude(suite__kind=Suite.Kind.IMPORTED).select_related("suite"),
        required=False,
        help_text="Leave empty for every task of the suite.",
        widget=forms.SelectMultiple(attrs={"size": 8}),
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
        min_value=Decimal(0), required=False, decimal_places=2, help_text="USD; empty for none"
    )

    def clean_temperatures(self):
        return parse_temperatures(self.cleaned_data["temperatures"])

    def clean(self):
        data = super().clean()
        suite, tasks = data.get("suite"), data.get("tasks")
        if suite and tasks and any(task.suite_id != suite.pk for task in tasks):
            self.add_error("tasks", "Pick tasks from the chosen suite.")
        return data

    def chosen_tasks(self) -> list[Task]:
        tasks = self.cleaned_data.get("tasks")
        return list(tasks) if tasks else list(self.cleaned_data["suite"].tasks.all())


class CaseSetForm(forms.Form):
    name = forms.SlugField(max_length=120, help_text="A new name; case sets never change.")
    count = forms.IntegerField(min_value=1, max_value=2000, initial=60)
    seed = forms.IntegerField(min_value=0, initial=1)
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
