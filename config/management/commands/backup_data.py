from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from config.backups import BackupError, back_up


class Command(BaseCommand):
    help = (
        "Back up every study, score, verdict, run, trace, case set and account into a new "
        "directory: data.jsonl.gz plus manifest.json (row counts and checksums). Works on "
        "SQLite and PostgreSQL; restore with restore_data."
    )

    def add_arguments(self, parser):
        parser.add_argument("directory", type=Path, help="A new (or empty) directory")

    def handle(self, *args, **options):
        try:
            counts = back_up(options["directory"])
        except BackupError as exc:
            raise CommandError(str(exc)) from exc
        rows = sum(entry["count"] for entry in counts.values())
        self.stdout.write(
            f"Backed up {rows} rows of {len(counts)} tables to {options['directory']}"
        )
