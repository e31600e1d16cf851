from itertools import chain
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from annotation.export import clinician_rating_rows
from jury.export import FORMATS, score_rows, write_scores
from jury.models import Panel


class Command(BaseCommand):
    help = (
        "Write every jury score as one row per rating: conversation, rater_kind (jury: a "
        "panel's verdict; judge: one judge's answer), rater, dimension, score (empty unless "
        "scored), status (ok, not_applicable, unparseable, error), rubric_version, repetition; "
        "and clinician: a clinician's current submitted score, by pseudonymous code. It lives "
        "in the review app, which may read the jury's verdicts (the jury never reads reviews)."
    )

    def add_arguments(self, parser):
        parser.add_argument("--format", choices=FORMATS, default="csv")
        parser.add_argument("--out", type=Path, required=True, help="File to write")
        parser.add_argument("--panel", default="", help="Only this panel (default: all)")
        parser.add_argument("--run", type=int, default=None, help="Only this run's conversations")
        parser.add_argument("--no-clinicians", action="store_true", help="Jury and judge rows only")

    def handle(self, *args, **options):
        panels = Panel.objects.all()
        if options["panel"]:
            panels = panels.filter(name=options["panel"])
            if not panels.exists():
                raise CommandError(f"Unknown panel {options['panel']!r}.")
        out: Path = options["out"]
        if not out.parent.is_dir():
            raise CommandError(f"No such folder: {out.parent}")
        rows = score_rows(panels, options["run"])
        if not options["no_clinicians"] and not options["panel"]:
            rows = chain(rows, clinician_rating_rows(options["run"]))
        count = write_scores(out, options["format"], rows)
        self.stdout.write(f"Wrote {count} ratings to {out} ({options['format']}).")
