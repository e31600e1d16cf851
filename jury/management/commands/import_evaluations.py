from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from jury.importing import EvaluationsImportError, import_evaluations


class Command(BaseCommand):
    help = (
        "Import PatientAgentBench's evaluations.json (per-judge scores and explanations) as the "
        "verdicts of an imported panel, beside its conversations.json, which is imported first "
        "unless an earlier import holds every case. Atomic: on any error nothing is written "
        "and the error names the record and field. Importing the same files again changes "
        "nothing."
    )

    def add_arguments(self, parser):
        parser.add_argument("evaluations", type=Path, help="evaluations.json")
        parser.add_argument(
            "--conversations", type=Path, required=True, help="The matching conversations.json"
        )
        parser.add_argument(
            "--panel", default="", help="Name of the imported panel (default: from the file)"
        )

    def handle(self, *args, **options):
        evaluations, conversations = options["evaluations"], options["conversations"]
        for path in (evaluations, conversations):
            if not path.is_file():
                raise CommandError(f"No such file: {path}")
        try:
            done = import_evaluations(evaluations, conversations, options["panel"])
        except EvaluationsImportError as exc:
            raise CommandError(f"{exc}. Nothing was imported.") from exc
        where = "imported into" if done.conversations_imported else "already in"
        if done.added or done.changed:
            what = f"Imported {done.added} new verdicts" + (
                f" and updated {done.changed}" if done.changed else ""
            )
        else:
            what = f"Added nothing: all {done.verdicts} verdicts were already there"
        self.stdout.write(
            f"{what} ({done.verdicts} in the file, from {done.judges} judges) as panel "
            f"{done.panel.name}; the conversations are {where} run {done.run.pk}."
        )
