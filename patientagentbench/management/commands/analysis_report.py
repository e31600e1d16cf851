import json
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from patientagentbench.analysis import figures as figure_tools
from patientagentbench.csv_safe import frame_to_csv
from patientagentbench.models import Run
from patientagentbench.results.scoring import DEFAULT_MALFORMED, MALFORMED_MODES
from patientagentbench.results.study import study_for


class Command(BaseCommand):
    help = (
        "Write the paper's analysis for a run (or every trace): tables as CSV, statistics as "
        "JSON, figures as standalone HTML (PNG from each figure's camera button)."
    )

    def add_arguments(self, parser):
        parser.add_argument("--run", type=int, default=None)
        parser.add_argument("--out", type=Path, required=True, help="Output directory")
        parser.add_argument(
            "--malformed",
            choices=sorted(MALFORMED_MODES),
            default=DEFAULT_MALFORMED,
            help="; ".join(f"{mode}: {meaning}" for mode, meaning in MALFORMED_MODES.items())
            + f" (default {DEFAULT_MALFORMED}, the paper's)",
        )

    def handle(self, *args, **options):
        run = None
        if options["run"] is not None:
            run = Run.objects.select_related("suite").filter(pk=options["run"]).first()
            if run is None:
                raise CommandError(f"No run {options['run']}.")
        study = study_for(run, options["malformed"])
        if not study.cells:
            raise CommandError("No finished traces to analyse.")
        out: Path = options["out"]
        (out / "tables").mkdir(parents=True, exist_ok=True)
        (out / "figures").mkdir(exist_ok=True)
        for name, frame in study.tables.items():
            frame_to_csv(frame, out / "tables" / f"{name}.csv")
        (out / "statistics.json").write_text(json.dumps(study.statistics, indent=1))
        for name, fig in study.figures.items():
            html = figure_tools.figure_document(fig, filename=name)
            (out / "figures" / f"{name}.html").write_text(html)
        dropped = study.statistics.get("dropped_cells", [])
        self.stdout.write(
            f"Wrote {len(study.tables)} tables, {len(study.figures)} figures and "
            f"statistics.json for {len(study.cells)} cells ({len(dropped)} left out: fewer "
            f"than two valid runs) to {out}"
        )
