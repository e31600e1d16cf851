from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from patientagentbench.interchange.export import export_traces
from patientagentbench.interchange.inspect_log import InspectFormatError, write_inspect_logs
from patientagentbench.models import Run, Trace


class Command(BaseCommand):
    help = (
        "Export ended traces as the project's JSONL (round-trips with import_traces), or with "
        "--format inspect as Inspect AI logs (one .eval per model, for `inspect view`; needs "
        "the inspect extra)."
    )

    def add_arguments(self, parser):
        parser.add_argument("--run", type=int, default=None, help="Only this run")
        parser.add_argument(
            "--out", type=Path, required=True, help="Output .jsonl file, or a folder for inspect"
        )
        parser.add_argument("--format", choices=["jsonl", "inspect"], default="jsonl")

    def handle(self, *args, **options):
        run_id = options["run"]
        if run_id is not None and not Run.objects.filter(pk=run_id).exists():
            raise CommandError(f"No run {run_id}.")
        if options["format"] == "jsonl":
            count = export_traces(options["out"], run_id)
            self.stdout.write(f"Exported {count} traces to {options['out']}")
            return
        if run_id is None:
            raise CommandError("--format inspect exports one run: give --run ID.")
        run = Run.objects.select_related("suite").get(pk=run_id)
        traces = run.traces.filter(status__in=Trace.ENDED).select_related("task", "run")
        try:
            paths = write_inspect_logs(traces.order_by("pk"), options["out"], run.suite.name)
        except InspectFormatError as exc:
            raise CommandError(str(exc)) from None
        for path in paths:
            self.stdout.write(f"Wrote {path}")
