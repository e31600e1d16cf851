import json

from django.core.management.base import BaseCommand, CommandError

from patientagentbench.models import Suite
from patientagentbench.suites.playing import check_case_set


class Command(BaseCommand):
    help = (
        "Check a case set: counts by category, subtask and personality, every case well formed, "
        "and how many cases sim-steady completes (outcome checks passing). Exits 1 on a "
        "malformed case."
    )

    def add_arguments(self, parser):
        parser.add_argument("name")
        parser.add_argument("--format", choices=["text", "json"], default="text")
        parser.add_argument("--agent", default="sim-steady", help="Simulated agent profile")

    def handle(self, *args, **options):
        suite = Suite.objects.filter(name=options["name"], kind=Suite.Kind.SCENARIO).first()
        if suite is None:
            raise CommandError(f"No case set {options['name']!r}.")
        report = check_case_set(suite, options["agent"])
        if options["format"] == "json":
            self.stdout.write(json.dumps(report, indent=1))
        else:
            for key, value in report.items():
                self.stdout.write(f"{key}: {value}")
        if report.get("malformed"):
            raise CommandError(f"{len(report['malformed'])} malformed case(s).")
