from decimal import Decimal, InvalidOperation

from django.core.management.base import BaseCommand, CommandError

from patientagentbench.models import ModelConfig
from patientagentbench.providers.factory import DEFAULT_MAX_OUTPUT_TOKENS
from patientagentbench.views.forms import ModelConfigForm


class Command(BaseCommand):
    help = (
        "Add or update a model config. Keys are never stored: give the name of the environment "
        "variable that holds the key with --api-key-env."
    )

    def add_arguments(self, parser):
        parser.add_argument("name", help="Unique display name, e.g. gpt-4.1-mini")
        parser.add_argument(
            "--provider", required=True, choices=[c for c, _ in ModelConfig.Provider.choices]
        )
        parser.add_argument("--model", required=True, help="Provider model id or simulated profile")
        parser.add_argument("--base-url", default="", help="For openai_compatible servers")
        parser.add_argument("--api-key-env", default="", help="Env var holding the API key")
        parser.add_argument("--price-in", default="0", help="USD per 1M input tokens")
        parser.add_argument("--price-out", default="0", help="USD per 1M output tokens")
        parser.add_argument("--max-concurrency", type=int, default=8)
        parser.add_argument(
            "--max-output-tokens",
            type=int,
            default=None,
            help=f"Cap on each call's answer (default {DEFAULT_MAX_OUTPUT_TOKENS}, or the "
            "model's current value when updating)",
        )

    def handle(self, *args, **options):
        try:
            prices = Decimal(options["price_in"]), Decimal(options["price_out"])
        except InvalidOperation as exc:
            raise CommandError("--price-in and --price-out must be numbers.") from exc
        instance = ModelConfig.objects.filter(name=options["name"]).first()
        max_output_tokens = options["max_output_tokens"] or (
            instance.max_output_tokens if instance else DEFAULT_MAX_OUTPUT_TOKENS
        )
        form = ModelConfigForm(
            {
                "name": options["name"],
                "provider": options["provider"],
                "model_id": options["model"],
                "base_url": options["base_url"],
                "api_key_env": options["api_key_env"],
                "price_in": prices[0],
                "price_out": prices[1],
                "max_concurrency": options["max_concurrency"],
                "max_output_tokens": max_output_tokens,
                "enabled": True,
            },
            instance=instance,
        )
        if not form.is_valid():
            errors = "; ".join(f"{field}: {' '.join(msgs)}" for field, msgs in form.errors.items())
            raise CommandError(errors)
        model = form.save()
        verb = "Updated" if instance else "Added"
        self.stdout.write(f"{verb} model {model.name} ({model.provider}, {model.model_id})")
