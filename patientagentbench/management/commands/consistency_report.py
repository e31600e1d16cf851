import csv
import io
import json

from django.core.management.base import BaseCommand, CommandError

from patientagentbench.models import Run
from patientagentbench.results.cells import compute_cells, run_traces

COLUMNS = [
    "model",
    "task_id",
    "temperature",
    "n_valid",
    "n_error",
    "tss",
    "ac",
    "ac_aligned",
    "unique_sequences",
    "divergence_point",
    "output_exact_match",
    "correct_rate",
    "pass_hat_k",
    "malformed_rate",
    "calls_mean",
    "calls_sd",
    "calls_cv",
]


class Command(BaseCommand):
    help = (
        "Consistency and correctness per cell (model × task × temperature). Without --run, "
        "every imported and generated trace, one cell per (model, task_id, temperature)."
    )

    def add_arguments(self, parser):
        parser.add_argument("--run", type=int, default=None)
        parser.add_argument("--format", choices=["table", "csv", "json"], default="table")

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
            for row in compute_cells(run_traces(run_id))
        ]
        rows.sort(key=lambda r: (r["model"], r["task_id"], r["temperature"] or 0))
        getattr(self, f"_{options['format']}")(rows)

    def _json(self, rows):
        self.stdout.write(json.dumps([{k: r.get(k) for k in COLUMNS} for r in rows], indent=1))

    def _csv(self, rows):
        buffer = io.StringIO()
        writer = csv.DictWriter(
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


def _fmt(value) -> str:
    if value is None:
        return "—"
    if isinstance(value, float):
        return f"{value:.3f}"
    return str(value)
