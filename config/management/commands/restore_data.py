from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from config.backups import BackupError, restore


class Command(BaseCommand):
    help = (
        "Restore a backup_data directory into an empty, migrated database in one "
        "transaction; every table's row count and checksum must match the backup's "
        "manifest or nothing is restored."
    )

    def add_arguments(self, parser):
        parser.add_argument("directory", type=Path, help="A directory written by backup_data")

    def handle(self, *args, **options):
        try:
            counts = restore(options["directory"])
        except BackupError as exc:
            raise CommandError(str(exc)) from exc
        rows = sum(entry["count"] for entry in counts.values())
        self.stdout.write(
            f"Restored {rows} rows of {len(counts)} tables; counts and checksums match."
        )
