from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from jury.export import FORMATS, score_rows, write_scores
from jury.models import Panel


class Command(BaseCommand):
    help = (
        "Write every jury score as one row per rating: conversation, rater_kind (jury: a "
        "panel's verdict; judge: one judge's answer), rater, dimension, score (empty unless "
        "scored), status (ok, not_applicable, unparseable, error), rubric_version, repetition. "
        "Clinicians' scores are exported by the review app (export_study), since the jury "
        "never reads them."
    )

    def add_arguments(self, parser):
        parser.add_argument("--format", choices=FORMATS, default="csv")
        parser.add_argument("--out", type=Path, required=True, help="File to write")
        parser.add_argument("--panel", default="", help="Only this panel (default: all)")
        parser.add_argument("--run", type=int, default=None, help="Only this run's conversations")

    def handle(self, *args, **options):
        panels = Panel.objects.all()
        if options["panel"]:
            panels = panels.filter(name=options["panel"])
            if not panels.exists():
                raise CommandError(f"Unknown panel {options['panel']!r}.")
        out: Path = options["out"]
        if not out.parent.is_dir():
            raise CommandError(f"No such folder: {out.parent}")
        count = write_scores(out, options["format"], score_rows(panels, options["run"]))
        self.stdout.write(f"Wrote {count} ratings to {out} ({options['format']}).")
