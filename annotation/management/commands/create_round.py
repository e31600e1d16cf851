from django import forms
from django.core.management.base import BaseCommand, CommandError

from annotation.management import building
from annotation.models import Study
from annotation.studies import StudyError
from annotation.views.research_forms import RoundForm


class Command(BaseCommand):
    help = (
        "Create a calibration round from the command line, as the New round page does (the "
        "same form, the same checks): conversations from the sampler (--n), by trace id "
        "(--traces) or copied from an earlier round with its consensus as reference "
        "(--copy-round); every clinician scores every item. It stays a draft unless --open "
        "is given and its checklist holds (references complete)."
    )

    def add_arguments(self, parser):
        building.add_common_arguments(parser)
        building.add_sample_arguments(parser, required=False)
        parser.add_argument(
            "--traces", default="", help="Comma-separated trace ids of finished conversations"
        )
        parser.add_argument(
            "--copy-round", type=int, default=None, help="Id of an earlier round to copy"
        )
        parser.add_argument(
            "--feedback",
            choices=Study.Feedback.values,
            default=Study.Feedback.IMMEDIATE,
            help="immediate (after each item) or end (at the round's end)",
        )
        parser.add_argument(
            "--on-fail",
            choices=Study.OnFail.values,
            default=Study.OnFail.RETAKE,
            help="What a clinician who misses the targets is told to do",
        )
        parser.add_argument("--min-exact", type=float, default=0.5)
        parser.add_argument("--min-adjacent", type=float, default=0.8)
        parser.add_argument("--min-alpha", type=float, default=0.4)

    def handle(self, *args, **options):
        by = building.actor(options["by"])
        form = building.valid(RoundForm(self.form_data(options)))
        try:
            created = form.create(by)
        except (StudyError, forms.ValidationError) as exc:
            raise building.refusal(exc) from exc
        adopted = created.adoption.adopted if created.adoption else 0
        notes = [note for _level, note in created.notes]
        building.report(self, created.study, options["open"], by, adopted, notes)

    @staticmethod
    def form_data(options: dict) -> dict:
        data = building.sample_data(options)
        data.update(
            {
                "name": options["name"],
                "source": source_of(options),
                "trace_ids": options["traces"],
                "source_round": options["copy_round"] or "",
                "clinicians": building.clinician_ids(options["clinicians"]),
                "feedback": options["feedback"],
                "on_fail": options["on_fail"],
                "min_exact": options["min_exact"],
                "min_adjacent": options["min_adjacent"],
                "min_alpha": options["min_alpha"],
            }
        )
        return data


def source_of(options: dict) -> str:
    """The form's source, from which of --n, --traces and --copy-round is given (one only)."""
    given = [
        source
        for source, present in (
            ("sample", options["n"] is not None),
            ("explicit", bool(options["traces"])),
            ("round", options["copy_round"] is not None),
        )
        if present
    ]
    if len(given) != 1:
        raise CommandError("Give exactly one of --n (sample), --traces or --copy-round.")
    return given[0]
