import json
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from patientagentbench.analysis import figures as figure_tools
from patientagentbench.models import Run
from patientagentbench.results.study import study_for


class Command(BaseCommand):
    help = (
        "Write the paper's analysis for a run (or every trace): tables as CSV, statistics as "
        "JSON, figures as standalone HTML (PNG from each figure's camera button)."
    )

    def add_arguments(self, parser):
        parser.add_argument("--run", type=int, default=None)
        parser.add_argument("--out", type=Path, required=True, help="Output directory")

    def handle(self, *args, **options):
        run = None
        if options["run"] is not None:
            run = Run.objects.select_related("suite").filter(pk=options["run"]).first()
            if run is None:
                raise CommandError(f"No run {options['run']}.")
        study = study_for(run)
        if not study.cells:
            raise CommandError("No finished traces to analyse.")
        out: Path = options["out"]
        (out / "tables").mkdir(parents=True, exist_ok=True)
        (out / "figures").mkdir(exist_ok=True)
        for name, frame in study.tables.items():
            frame.to_csv(out / "tables" / f"{name}.csv", index=False)
        (out / "statistics.json").write_text(json.dumps(study.statistics, indent=1))
        for name, fig in study.figures.items():
            html = figure_tools.figure_document(fig, filename=name)
            (out / "figures" / f"{name}.html").write_text(html)
        self.stdout.write(
            f"Wrote {len(study.tables)} tables, {len(study.figures)} figures and "
            f"statistics.json for {len(study.cells)} cells to {out}"
        )
