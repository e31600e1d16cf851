from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from jury.rubrics import import_rubric
from ratings.rubric import RubricError


class Command(BaseCommand):
    help = (
        "Import your own rubric from its JSON file (docs/rubric.md, 'Your own rubric'): checked "
        "field by field, stored once per name and version, never edited. Studies, calibration "
        "rounds and panels then name it with --rubric NAME@VERSION."
    )

    def add_arguments(self, parser):
        parser.add_argument("file", type=Path, help="The rubric's JSON file")

    def handle(self, *args, **options):
        path = options["file"]
        if not path.is_file():
            raise CommandError(f"No such file: {path}")
        try:
            imported = import_rubric(path.read_bytes())
        except RubricError as error:
            raise CommandError(str(error).replace("the rubric file", path.name, 1)) from error
        rubric = imported.rubric
        what = "Imported" if imported.created else "Already stored, same wording:"
        self.stdout.write(
            f"{what} {rubric.name} v{rubric.version}: {len(rubric.scored)} scored and "
            f"{len(rubric.realism)} realism dimensions on {rubric.scale.span}, pass mark "
            f"{rubric.scale.pass_mark}. Use it with --rubric {rubric.name}@{rubric.version}."
        )
