from django.core.management.base import BaseCommand, CommandError

from patientagentbench.analysis.reference_traces import REFERENCE_RULE
from patientagentbench.models import Run
from patientagentbench.results.references import monitor, set_references


class Command(BaseCommand):
    help = (
        "Make a finished run's repetitions the reference tool sequence of each of its cells "
        f"(task x model x temperature; {REFERENCE_RULE}), replacing earlier references of "
        "those cells. With --check, only print how a run compares with the references."
    )

    def add_arguments(self, parser):
        parser.add_argument("--run", type=int, required=True, help="Run id")
        parser.add_argument(
            "--check", action="store_true", help="Compare the run with the references; set none"
        )

    def handle(self, *args, **options):
        run_id = options["run"]
        try:
            run = Run.objects.get(pk=run_id)
        except Run.DoesNotExist as exc:
            raise CommandError(f"No run {run_id}.") from exc
        if options["check"]:
            self._report(run)
            return
        if run.is_active:
            raise CommandError(f"Run {run_id} is {run.status}; set a reference once it finishes.")
        outcome = set_references(run)
        self.stdout.write(f"Run {run_id} is the reference of {outcome['set']} cells.")
        for task_id, model, temperature, n in outcome["skipped"]:
            self.stdout.write(f"  skipped {task_id} / {model} / T={temperature}: {n} finished")

    def _report(self, run: Run) -> None:
        found = monitor(run)
        self.stdout.write(
            f"Run {run.pk}: {found['checked']} traces checked against {found['references']} "
            f"references, {found['n_deviating']} left them "
            f"({found['n_first_two_differ']} in the first two calls)."
            + (" In-sample: this run set references." if found["in_sample"] else "")
        )
        for label, risk in found["risk_rows"]:
            self.stdout.write(f"{label}: {_risk_text(risk)} (paper: {found['paper_risk']})")
        share = found["early_share"]
        said = share["reason"] or (
            f"{share['share']:.0%} [{share['low']:.0%}, {share['high']:.0%}], "
            f"{share['early']}/{share['n']}, {share['method']}"
        )
        self.stdout.write(
            f"Share of departures at steps 1-2: {said} (paper: {found['paper_early_share']:.0%})"
        )


def _risk_text(risk: dict) -> str:
    if risk["reason"]:
        return risk["reason"]
    return (
        f"{risk['ratio']:.2f} [{risk['low']:.2f}, {risk['high']:.2f}], "
        f"{risk['failed_deviating']}/{risk['n_deviating']} vs "
        f"{risk['failed_matching']}/{risk['n_matching']} failed, {risk['method']}"
    )
