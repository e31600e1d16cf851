from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from patientagentbench.interchange.export import export_traces
from patientagentbench.models import Run


class Command(BaseCommand):
    help = "Export ended traces as the project's JSONL (round-trips with import_traces)."

    def add_arguments(self, parser):
        parser.add_argument("--run", type=int, default=None, help="Only this run")
        parser.add_argument("--out", type=Path, required=True, help="Output .jsonl file")

    def handle(self, *args, **options):
        if options["run"] is not None and not Run.objects.filter(pk=options["run"]).exists():
            raise CommandError(f"No run {options['run']}.")
        count = export_traces(options["out"], options["run"])
        self.stdout.write(f"Exported {count} traces to {options['out']}")
