"""`manage.py export_study STUDY_ID --out scores.csv`: the same CSV as the study page's Export
link, for scripts and for studies too large to download through a browser."""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from annotation.export import write_csv
from annotation.models import Study


class Command(BaseCommand):
    help = (
        "Export a study's or calibration round's clinician scores as CSV: one row per item × "
        "rater × dimension, raters by pseudonymous code, current submissions only unless "
        "--all-versions."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "study_id", type=int, help="The study's id (as in /research/studies/ID/)"
        )
        parser.add_argument("--out", type=Path, default=None, help="Output .csv (default: stdout)")
        parser.add_argument(
            "--all-versions",
            action="store_true",
            help="Include superseded versions of revised scores (the version column tells them apart)",
        )

    def handle(self, *args, **options):
        study = Study.objects.filter(pk=options["study_id"]).first()
        if study is None:
            raise CommandError(f"No study {options['study_id']}.")
        if options["out"] is None:
            write_csv(study, self.stdout, options["all_versions"])
            return
        with options["out"].open("w", newline="", encoding="utf-8") as out:
            count = write_csv(study, out, options["all_versions"])
        self.stdout.write(f"Exported {count} rows of study {study.pk} to {options['out']}")
