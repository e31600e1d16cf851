import sys
from decimal import Decimal

from django.core.management.base import BaseCommand, CommandError

from patientagentbench.models import ModelConfig, Run, Suite
from patientagentbench.runs import jobs, limits
from patientagentbench.runs.estimates import call_limit_refusal, unpriced
from patientagentbench.runs.execution import TRACES
from patientagentbench.runs.launch import launch_run
from patientagentbench.runs.workers import progress_bar, progress_words
from patientagentbench.views.forms import parse_temperatures


class Command(BaseCommand):
    help = (
        "Launch a benchmark run as background jobs and print its id. With --wait: a progress "
        "bar, then exit 0 only when every trace finished without an error, 1 when any errored "
        "or was cancelled (or the run failed or stopped at the spend limit), 2 when no worker "
        "is running."
    )

    def add_arguments(self, parser):
        target = parser.add_mutually_exclusive_group(required=True)
        target.add_argument("--suite", help="Task suite name, e.g. office-19")
        target.add_argument("--case-set", help="Case set name (multi-turn patient scenarios)")
        parser.add_argument(
            "--patient", default="", help="Model playing the patient (default: offline patient)"
        )
        parser.add_argument("--max-turns", type=int, default=10, help="Patient turns (cases)")
        parser.add_argument("--models", required=True, help="Comma-separated model names")
        parser.add_argument("--runs", type=int, default=5, help="Repetitions per cell (N)")
        parser.add_argument("--temperatures", default="1.0", help="Comma-separated, e.g. 0,1.0")
        parser.add_argument(
            "--tasks", default="", help="Comma-separated task or case ids (default all)"
        )
        parser.add_argument("--max-iterations", type=int, default=10)
        parser.add_argument("--spend-limit", default="", help="USD; stop the run when reached")
        parser.add_argument(
            "--call-limit",
            type=int,
            default=None,
            help="Stop the run after this many model calls; required when a model has no "
            "price (no price: the limit counts calls)",
        )
        parser.add_argument(
            "--wait", action="store_true", help="Show progress and return when the run ends"
        )

    def handle(self, *args, **options):
        suite = self._suite(options["suite"], options["case_set"])
        scenario = suite.kind == Suite.Kind.SCENARIO
        patient = self._models(options["patient"])[0] if options["patient"] else None
        if patient and not scenario:
            raise CommandError("--patient applies to case sets only.")
        models = self._models(options["models"])
        tasks = self._tasks(suite, options["tasks"])
        try:
            temperatures = parse_temperatures(options["temperatures"])
            spend_limit = Decimal(options["spend_limit"]) if options["spend_limit"] else None
        except Exception as exc:
            raise CommandError(f"Bad option: {exc}") from exc
        max_turns = options["max_turns"] if scenario else 1
        call_limit = options["call_limit"]
        if call_limit is not None and call_limit < 1:
            raise CommandError("--call-limit must be a whole number of calls, 1 or more.")
        if refusal := call_limit_refusal([*models, patient], call_limit):
            raise CommandError(refusal.replace("Set a call limit", "Give --call-limit N"))
        try:  # the web form's limits, before a single row is written
            limits.check_launch_size(
                tasks=len(tasks) if tasks is not None else suite.tasks.count(),
                models=len(models),
                temperatures=len(temperatures),
                repetitions=options["runs"],
                max_iterations=options["max_iterations"],
                max_turns=max_turns,
            )
        except limits.LaunchTooLarge as exc:
            raise CommandError(_as_options(str(exc))) from exc
        run = launch_run(
            suite=suite,
            models=models,
            tasks=tasks,
            repetitions=options["runs"],
            temperatures=temperatures,
            max_iterations=options["max_iterations"],
            max_turns=max_turns,
            spend_limit=spend_limit,
            call_limit=call_limit,
            patient_model=patient,
        )
        self.stdout.write(str(run.pk))
        if names := unpriced([*models, patient]):
            self.stderr.write(
                f"No price for {', '.join(names)}: the limit counts calls ({call_limit})."
            )
        if run.unsent:
            self.stderr.write(jobs.broker_away(TRACES, run))
        if options["wait"]:
            self._wait(run)

    def _suite(self, suite_name: str | None, case_set: str | None) -> Suite:
        kind = Suite.Kind.SCENARIO if case_set else Suite.Kind.TASK
        name = case_set or suite_name
        suite = Suite.objects.filter(name=name, kind=kind).first()
        if suite is None:
            names = ", ".join(Suite.objects.filter(kind=kind).values_list("name", flat=True))
            what = "case set" if case_set else "suite"
            raise CommandError(f"Unknown {what} {name!r}. Installed: {names or 'none'}.")
        return suite

    def _models(self, text: str) -> list[ModelConfig]:
        names = [n.strip() for n in text.split(",") if n.strip()]
        found = {m.name: m for m in ModelConfig.objects.filter(name__in=names)}
        missing = [n for n in names if n not in found]
        if missing:
            raise CommandError(
                f"Unknown model(s): {', '.join(missing)}. Add one with `manage.py add_model`."
            )
        disabled = [n for n in names if not found[n].enabled]
        if disabled:
            raise CommandError(f"Disabled model(s): {', '.join(disabled)}.")
        return [found[n] for n in names]

    def _tasks(self, suite: Suite, text: str):
        if not text:
            return None
        ids = [t.strip() for t in text.split(",") if t.strip()]
        tasks = {t.task_id: t for t in suite.tasks.filter(task_id__in=ids)}
        missing = [t for t in ids if t not in tasks]
        if missing:
            raise CommandError(f"Unknown task(s) in {suite.name}: {', '.join(missing)}.")
        return [tasks[t] for t in ids]

    def _wait(self, run: Run) -> None:
        counts = jobs.wait_for(
            TRACES, run, self.stdout, self.stderr, lambda c: self._draw(c, run.status)
        )
        self.stdout.write("")
        self.stdout.write(
            f"Run {run.pk} {run.status}: {counts['done']} done, {counts['error']} errors, "
            f"{counts['cancelled']} cancelled. {run.stop_reason}".rstrip()
        )
        if code := jobs.exit_code(run, counts):
            sys.exit(code)

    def _draw(self, counts: dict, status: str) -> None:
        line = f"\r{progress_bar(counts)} {progress_words(counts)} ({status})"
        self.stdout.write(line, ending="")
        self.stdout.flush()


def _as_options(message: str) -> str:
    """A limit's message in the command line's words."""
    for words, option in (
        ("runs must", "--runs must"),
        ("max iterations must", "--max-iterations must"),
        ("max turns must", "--max-turns must"),
    ):
        if message.startswith(words):
            return option + message[len(words) :]
    return message
