from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from patientagentbench.interchange.importer import ImportFormatError, import_traces


class Command(BaseCommand):
    help = (
        "Import traces from the seed paper's release format (a JSON array of cells) or the "
        "project's JSONL. Atomic: on any error nothing is written and the error names the "
        "record and field."
    )

    def add_arguments(self, parser):
        parser.add_argument("file", type=Path)

    def handle(self, *args, **options):
        path: Path = options["file"]
        if not path.is_file():
            raise CommandError(f"No such file: {path}")
        try:
            summary = import_traces(path)
        except ImportFormatError as exc:
            raise CommandError(f"{path.name}: {exc}. Nothing was imported.") from exc
        self.stdout.write(
            f"Imported {summary.traces} traces ({summary.errors} errored) in {summary.cells} "
            f"cells into run {summary.run.pk}, suite {summary.suite.name}"
            + (f" ({summary.new_tasks} new tasks)" if summary.new_tasks else "")
        )
