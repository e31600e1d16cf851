import argparse
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError, DjangoHelpFormatter

from patientagentbench.interchange.importer import ImportFormatError, import_traces
from patientagentbench.interchange.schema import one_line


class Command(BaseCommand):
    help = (
        "Import traces as a new finished run. Atomic: on any error nothing is written and\n"
        "the error names the record and field. Reads three formats, told apart by the file:\n"
        "  release JSON    the seed paper's release: a JSON array of cells with their traces\n"
        "  conversations   PatientAgentBench's conversations.json (LangChain message dumps)\n"
        "  JSONL           this project's own export (export_traces), one trace per line\n"
        "Jury scores (evaluations.json) go through import_evaluations. docs/formats.md\n"
        "describes every format. Every value is checked against the columns it goes to; a\n"
        "file already imported (same bytes) is refused unless --again is given. An Inspect\n"
        ".eval log (a zip) is refused unread past PAB_IMPORT_MAX_UNPACKED_MB in all or\n"
        "PAB_IMPORT_MAX_MEMBER_MB in one member, as on the web."
    )

    def create_parser(self, prog_name, subcommand, **kwargs):
        # Keep the one line per format above instead of reflowing it into a paragraph.
        kwargs.setdefault("formatter_class", _KeepLines)
        return super().create_parser(prog_name, subcommand, **kwargs)

    def add_arguments(self, parser):
        parser.add_argument(
            "file", type=Path, help="A .json or .jsonl file in one of the formats above"
        )
        parser.add_argument(
            "--again",
            action="store_true",
            help="Import the file even if the same bytes are already a run",
        )

    def handle(self, *args, **options):
        path: Path = options["file"]
        if not path.is_file():
            raise CommandError(f"No such file: {path}")
        try:
            summary = import_traces(path, again=options["again"])
        except ImportFormatError as exc:
            # One line, whatever the file's name or the record quoted holds.
            raise CommandError(one_line(f"{path.name}: {exc}. Nothing was imported.")) from exc
        self.stdout.write(
            f"Imported {summary.traces} traces ({summary.errors} errored) in {summary.cells} "
            f"cells into run {summary.run.pk}, suite {summary.suite.name}"
            + (f" ({summary.new_tasks} new tasks)" if summary.new_tasks else "")
        )


class _KeepLines(DjangoHelpFormatter, argparse.RawDescriptionHelpFormatter):
    pass
