from django.core.management.base import BaseCommand, CommandError

from jury.forms import PanelForm
from jury.models import Judge, Panel
from jury.rubrics import choice_of
from ratings.rubric import RubricError


class Command(BaseCommand):
    help = "Add or update a jury panel: a set of judges (see add_judge) and an aggregation."

    def add_arguments(self, parser):
        parser.add_argument("name", help="Unique panel name, e.g. gpt-jury")
        parser.add_argument("--judges", required=True, help="Comma-separated judge names")
        parser.add_argument(
            "--aggregation", default="mean", choices=[c for c, _ in Panel.Aggregation.choices]
        )
        parser.add_argument(
            "--rubric",
            default="patientagentbench",
            metavar="NAME[@VERSION]",
            help="The rubric the judges score (default: the built-in patientagentbench; the "
            "newest version unless one is named)",
        )
        parser.add_argument(
            "--rubric-version", default="", help="The rubric's version (same as NAME@VERSION)"
        )

    def handle(self, *args, **options):
        names = [n.strip() for n in options["judges"].split(",") if n.strip()]
        found = {j.name: j for j in Judge.objects.filter(name__in=names)}
        missing = [n for n in names if n not in found]
        if missing:
            raise CommandError(
                f"Unknown judge(s): {', '.join(missing)}. Add one with `manage.py add_judge`."
            )
        instance = Panel.objects.filter(name=options["name"]).first()
        if instance is not None and instance.imported:
            raise CommandError(f"Panel {instance.name} holds imported verdicts; name another.")
        form = PanelForm(
            {
                "name": options["name"],
                "judges": [found[n].pk for n in names],
                "aggregation": options["aggregation"],
                "rubric": _choice(options["rubric"], options["rubric_version"]),
            },
            instance=instance,
        )
        if not form.is_valid():
            errors = "; ".join(f"{field}: {' '.join(msgs)}" for field, msgs in form.errors.items())
            raise CommandError(errors)
        panel = form.save()
        verb = "Updated" if instance else "Added"
        self.stdout.write(
            f"{verb} panel {panel.name}: {', '.join(names)} ({panel.aggregation}, "
            f"rubric {panel.rubric_name} v{panel.rubric_version})"
        )


def _choice(text: str, version: str) -> str:
    text = f"{text.partition('@')[0]}@{version}" if version else text
    try:
        return choice_of(text)
    except RubricError as error:
        raise CommandError(f"--rubric {text}: {error}") from error
