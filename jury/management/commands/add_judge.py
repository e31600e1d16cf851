from django.core.management.base import BaseCommand, CommandError

from jury.forms import JudgeForm, paid_model_warning
from jury.models import Judge
from jury.pure.prompts import JUDGE_PROMPT_VERSION
from patientagentbench.models import ModelConfig


class Command(BaseCommand):
    help = (
        "Add or update a judge: a model config (see add_model) plus a prompt version and a "
        "temperature. Every verdict records the judge's prompt version."
    )

    def add_arguments(self, parser):
        parser.add_argument("name", help="Unique judge name, e.g. gpt-judge")
        parser.add_argument("--model", required=True, help="Model config name")
        parser.add_argument("--prompt-version", default=JUDGE_PROMPT_VERSION)
        parser.add_argument("--temperature", type=float, default=0.0)
        parser.add_argument(
            "--call-mode",
            choices=[choice.value for choice in Judge.CallMode],
            default=None,
            help="per_dimension (default for a new judge) or one_call: every dimension in one "
            "call, for slow local models",
        )
        parser.add_argument(
            "--max-concurrency",
            type=int,
            default=None,
            help="at most this many of the judge's calls at once, inside the model's own limit",
        )

    def handle(self, *args, **options):
        model = ModelConfig.objects.filter(name=options["model"]).first()
        if model is None:
            raise CommandError(
                f"Unknown model {options['model']!r}. Add one with `manage.py add_model`."
            )
        instance = Judge.objects.filter(name=options["name"]).first()
        form = JudgeForm(
            {
                "name": options["name"],
                "model": model.pk,
                "prompt_version": options["prompt_version"],
                "temperature": options["temperature"],
                "call_mode": options["call_mode"] or "",
                "max_concurrency": options["max_concurrency"]
                if options["max_concurrency"] is not None
                else (instance.max_concurrency if instance else None),
            },
            instance=instance,
            # The operator's tool (shell access): any model config, paid ones included.
            may_use_paid_models=True,
        )
        if not form.is_valid():
            errors = "; ".join(f"{field}: {' '.join(msgs)}" for field, msgs in form.errors.items())
            raise CommandError(errors)
        judge = form.save()
        verb = "Updated" if instance else "Added"
        self.stdout.write(
            f"{verb} judge {judge.name} ({model.name}, prompt v{judge.prompt_version}, "
            f"T={judge.temperature:g}, {judge.get_call_mode_display().lower()})"
        )
        if warning := paid_model_warning(model):
            self.stdout.write(warning)
