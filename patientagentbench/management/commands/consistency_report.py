import io
import json

from django.core.management.base import BaseCommand, CommandError

from patientagentbench import csv_safe
from patientagentbench.analysis.metrics import CELL_METRICS
from patientagentbench.models import Run
from patientagentbench.results.cells import compute_cells, run_traces
from patientagentbench.results.scoring import DEFAULT_MALFORMED, MALFORMED_MODES

COLUMNS = [
    "model",
    "task_id",
    "temperature",
    "n_runs",
    "n_valid",
    "n_error",
    *CELL_METRICS,
    "excluded_reason",
]


class Command(BaseCommand):
    help = (
        "Consistency and correctness per cell (model × task × temperature). Without --run, "
        "every imported and generated trace, one cell per (model, task_id, temperature). "
        "correct_rate follows the suite's pass rule (office-19: the paper's, every tool check "
        "and at least half the argument checks); correct_rate_all_checks is the strict rule. "
        "A cell with fewer than two valid runs has no metrics and says why (excluded_reason)."
    )

    def add_arguments(self, parser):
        parser.add_argument("--run", type=int, default=None)
        parser.add_argument("--format", choices=["table", "csv", "json"], default="table")
        parser.add_argument(
            "--malformed",
            choices=sorted(MALFORMED_MODES),
            default=DEFAULT_MALFORMED,
            help="; ".join(f"{mode}: {meaning}" for mode, meaning in MALFORMED_MODES.items())
            + f" (default {DEFAULT_MALFORMED}, the paper's)",
        )

    def handle(self, *args, **options):
        run_id = options["run"]
        if run_id is not None and not Run.objects.filter(pk=run_id).exists():
            raise CommandError(f"No run {run_id}.")
        rows = [
            {
                "model": row["model"],
                "task_id": row["task"].task_id,
                "temperature": row["temperature"],
                **row["values"],
            }
            for row in compute_cells(run_traces(run_id), options["malformed"])
        ]
        rows.sort(key=lambda r: (r["model"], r["task_id"], r["temperature"] or 0))
        getattr(self, f"_{options['format']}")(rows)

    def _json(self, rows):
        self.stdout.write(json.dumps([{k: r.get(k) for k in COLUMNS} for r in rows], indent=1))

    def _csv(self, rows):
        buffer = io.StringIO()
        writer = csv_safe.SafeDictWriter(
            buffer, fieldnames=COLUMNS, extrasaction="ignore", lineterminator="\n"
        )
        writer.writeheader()
        for row in rows:
            writer.writerow({**row, "pass_hat_k": json.dumps(row.get("pass_hat_k"))})
        self.stdout.write(buffer.getvalue(), ending="")

    def _table(self, rows):
        shown = [
            "model",
            "task_id",
            "temperature",
            "n_valid",
            "n_error",
            "tss",
            "ac",
            "unique_sequences",
            "divergence_point",
            "output_exact_match",
            "correct_rate",
            "correct_rate_all_checks",
        ]
        cells = [[_fmt(r.get(c)) for c in shown] for r in rows]
        widths = [
            max(len(h), *(len(c[i]) for c in cells)) if cells else len(h)
            for i, h in enumerate(shown)
        ]
        line = "  ".join(h.ljust(w) for h, w in zip(shown, widths, strict=True))
        self.stdout.write(line)
        self.stdout.write("-" * len(line))
        for c in cells:
            self.stdout.write("  ".join(v.ljust(w) for v, w in zip(c, widths, strict=True)))
        self.stdout.write(f"{len(rows)} cells")
        for row in rows:
            if row.get("excluded_reason"):
                self.stdout.write(
                    f"left out: {row['model']} {row['task_id']}: {row['excluded_reason']}"
                )


def _fmt(value) -> str:
    if value is None:
        return "—"
    if isinstance(value, float):
        return f"{value:.3f}"
    return str(value)
