from django.core.management.base import BaseCommand, CommandError

from patientagentbench.runs.limits import LaunchTooLarge, check_case_count
from patientagentbench.suites.case_sets import (
    CaseSetError,
    case_set_summary,
    create_case_set,
    writer_provider,
)


class Command(BaseCommand):
    help = (
        "Generate a frozen case set of patient scenarios from a weighted, seeded distribution. "
        "--writer template (offline, seeded) or the name of a configured model."
    )

    def add_arguments(self, parser):
        parser.add_argument("--count", type=int, required=True)
        parser.add_argument("--seed", type=int, required=True)
        parser.add_argument("--writer", default="template", help="template or a model name")
        parser.add_argument("--name", required=True, help="New case set name (never reused)")

    def handle(self, *args, **options):
        try:  # the web form's limit
            check_case_count(options["count"])
        except LaunchTooLarge as exc:
            raise CommandError(f"--count: {exc}") from exc
        try:
            provider = writer_provider(options["writer"])
            suite = create_case_set(
                options["name"], options["count"], options["seed"], options["writer"], provider
            )
        except CaseSetError as exc:
            raise CommandError(str(exc)) from exc
        summary = case_set_summary(suite)
        self.stdout.write(
            f"Case set {suite.name}: {summary['cases']} cases, {summary['subtasks']} subtasks, "
            f"categories {summary['by_category']}"
        )
