from django.core.management.base import BaseCommand

from annotation.management import building
from annotation.studies import StudyError
from annotation.views.research_forms import StudyForm


class Command(BaseCommand):
    help = (
        "Create a study from the command line, as the New study page does (the same form, "
        "the same checks): the sampler's conversations, the clinicians, clinicians per item "
        "and track, hidden reference items. It stays a draft unless --open is given and its "
        "checklist holds."
    )

    def add_arguments(self, parser):
        building.add_common_arguments(parser)
        building.add_sample_arguments(parser, required=True)
        parser.add_argument("--overlap-clinical", type=int, default=2, help="Clinical per item")
        parser.add_argument(
            "--overlap-operations", type=int, default=2, help="Operations clinicians per item"
        )
        parser.add_argument(
            "--reference-percent",
            type=int,
            default=0,
            help="A seeded share of the items doubling as hidden reference items (0-100)",
        )
        parser.add_argument(
            "--require-calibration",
            action="store_true",
            help="Clinicians start only after passing a calibration round",
        )
        parser.add_argument(
            "--adjudication-threshold",
            type=int,
            default=2,
            help="Scores this far apart on a dimension send the item to adjudication",
        )
        parser.add_argument(
            "--no-blind-adjudication",
            action="store_true",
            help="Let researchers who adjudicate see model and run (blind by default)",
        )
        parser.add_argument("--instructions", default="", help="Shown to the clinicians")

    def handle(self, *args, **options):
        by = building.actor(options["by"])
        form = building.valid(StudyForm(self.form_data(options)))
        try:
            study = form.create(by)
        except StudyError as exc:
            raise building.refusal(exc) from exc
        building.report(self, study, options["open"], by)

    @staticmethod
    def form_data(options: dict) -> dict:
        data = building.sample_data(options)
        data.update(
            {
                "name": options["name"],
                "clinicians": building.clinician_ids(options["clinicians"]),
                "overlap_clinical": options["overlap_clinical"],
                "overlap_operations": options["overlap_operations"],
                "reference_percent": options["reference_percent"],
                "adjudication_threshold": options["adjudication_threshold"],
                "instructions": options["instructions"],
            }
        )
        # A checkbox is sent only when ticked: leave the box's name out to untick it.
        if options["require_calibration"]:
            data["require_calibration"] = "on"
        if not options["no_blind_adjudication"]:
            data["blind_adjudication"] = "on"
        return data
