import sys
from decimal import Decimal, InvalidOperation

from django.core.management.base import BaseCommand, CommandError

from jury import spending
from jury.forms import MAX_REPEAT
from jury.models import JuryRun, Panel
from jury.pure import subsets
from jury.scoring import JUDGE_JOBS, JuryError, execute_inline, launch_jury, progress
from patientagentbench.models import Run, Trace
from patientagentbench.runs import jobs
from patientagentbench.runs.workers import progress_bar


class Command(BaseCommand):
    help = (
        "Score a run's conversations (or imported ones) with a jury panel, as background "
        "judge jobs, and print the scoring's id. With --wait (or --inline): a progress bar, then "
        "exit 0 only when every judge job finished without an error, 1 when any failed or was "
        "cancelled (or the scoring stopped at the spend limit), 2 when no worker is running."
    )

    def add_arguments(self, parser):
        target = parser.add_mutually_exclusive_group(required=True)
        target.add_argument("--run", type=int, help="Run id")
        target.add_argument(
            "--imported",
            help="An imported run, by its file name (e.g. conversations.json) or suite name",
        )
        parser.add_argument("--panel", required=True, help="Panel name (see add_panel)")
        subset = parser.add_mutually_exclusive_group()
        subset.add_argument(
            "--sample",
            type=int,
            metavar="N",
            help="Score a seeded random sample of N conversations",
        )
        subset.add_argument("--traces", metavar="IDS", help="Score these trace ids: 3,5,9")
        subset.add_argument(
            "--study", type=int, metavar="ID", help="Score the run's conversations in this study"
        )
        parser.add_argument("--seed", type=int, default=0, help="Seed of --sample (default 0)")
        parser.add_argument("--repeat", type=int, default=1, help="Repetitions per judge (K)")
        parser.add_argument("--spend-limit", default="", help="USD; stop scoring when reached")
        parser.add_argument(
            "--call-limit",
            type=int,
            default=None,
            help="Stop after this many judge calls; required for a panel with a judge on a "
            "model without prices (no price: the limit counts calls)",
        )
        parser.add_argument(
            "--wait", action="store_true", help="Show progress and return when scoring ends"
        )
        parser.add_argument(
            "--inline",
            action="store_true",
            help="Score in this process instead of on workers (no worker needed)",
        )

    def handle(self, *args, **options):
        if not 1 <= options["repeat"] <= MAX_REPEAT:  # the web form's limit
            raise CommandError(f"--repeat must be between 1 and {MAX_REPEAT}.")
        run = self._run(options["run"], options["imported"])
        panel = Panel.objects.filter(name=options["panel"]).first()
        if panel is None:
            names = ", ".join(Panel.objects.values_list("name", flat=True))
            raise CommandError(f"Unknown panel {options['panel']!r}. Panels: {names or 'none'}.")
        try:
            limit = Decimal(options["spend_limit"]) if options["spend_limit"] else None
        except InvalidOperation as exc:
            raise CommandError("--spend-limit must be a number of USD.") from exc
        call_limit = options["call_limit"]
        if call_limit is not None and call_limit < 1:
            raise CommandError("--call-limit must be a whole number of calls, 1 or more.")
        if spending.unpriced_models(panel):  # the operator is an admin: the call-limit rule
            refusal = spending.launch_refusal(
                is_admin=True, panel=panel, spend_limit=limit, call_limit=call_limit
            )
            if refusal:
                raise CommandError(refusal.replace("Set a call limit", "Give --call-limit N"))
        trace_ids, subset = self._subset(run, options)
        try:
            jury_run = launch_jury(
                panel=panel,
                run=run,
                repeat=options["repeat"],
                spend_limit=limit,
                call_limit=call_limit,
                enqueue=not options["inline"],
                trace_ids=trace_ids,
                subset=subset,
            )
        except JuryError as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(str(jury_run.pk))
        self.stderr.write(f"Panel {panel.name}: {spending.which_limit(panel)}.")
        if jury_run.unsent:
            self.stderr.write(jobs.broker_away(JUDGE_JOBS, jury_run))
        if options["inline"]:
            execute_inline(jury_run)
            self._report(jury_run)
        elif options["wait"]:
            self._wait(jury_run)

    def _subset(self, run: Run, options) -> tuple[list[int] | None, str]:
        finished = list(run.traces.filter(status=Trace.Status.DONE).values_list("pk", flat=True))
        if options["sample"] is not None:
            n, seed = options["sample"], options["seed"]
            if not 1 <= n <= subsets.MAX_SAMPLE:
                raise CommandError(f"--sample must be between 1 and {subsets.MAX_SAMPLE}.")
            ids = subsets.sample(finished, n, seed)
            return ids, subsets.sample_description(len(ids), seed, len(finished))
        if options["traces"] is not None:
            try:
                ids = subsets.parse_ids(options["traces"])
            except ValueError as exc:
                raise CommandError(f"--traces: {exc}.") from exc
            if not ids:
                raise CommandError("--traces: give at least one trace id.")
            return ids, subsets.ids_description(sorted(set(ids)))
        if options["study"] is not None:
            studies = subsets.conversation_set("study")
            ids = studies.traces(run.pk, str(options["study"])) if studies else None
            if not ids:
                raise CommandError(
                    f"Study {options['study']} holds no conversation of run {run.pk}."
                )
            return ids, f"the items of study {options['study']} ({len(ids)} conversations)"
        return None, ""

    def _run(self, run_id: int | None, imported: str | None) -> Run:
        if run_id is not None:
            run = Run.objects.filter(pk=run_id).first()
            if run is None:
                raise CommandError(f"No run {run_id}.")
            return run
        runs = Run.objects.filter(source=Run.Source.IMPORTED)
        run = (runs.filter(label=imported) | runs.filter(suite__name=imported)).order_by("-pk")
        if not run:
            labels = ", ".join(sorted({r.label for r in runs})) or "none"
            raise CommandError(f"No imported run named {imported!r}. Imported: {labels}.")
        return run.first()

    def _wait(self, jury_run: JuryRun) -> None:
        jobs.wait_for(
            JUDGE_JOBS, jury_run, self.stdout, self.stderr, lambda c: self._draw(c, jury_run)
        )
        self.stdout.write("")
        self._report(jury_run)

    def _report(self, jury_run: JuryRun) -> None:
        jury_run.refresh_from_db()
        counts = progress(jury_run.pk)
        calls = (
            f", {jury_run.calls} of {jury_run.call_limit} calls"
            if jury_run.call_limit is not None
            else ""
        )
        self.stdout.write(
            f"Scoring {jury_run.pk} {jury_run.status}: {counts['done']} judge jobs done, "
            f"{counts['error']} failed, {counts['cancelled']} cancelled; spent "
            f"${jury_run.spent:.4f}{calls}."
        )
        if code := jobs.exit_code(jury_run, counts):
            sys.exit(code)

    def _draw(self, counts: dict, jury_run: JuryRun) -> None:
        bar = progress_bar(counts["percent"])
        self.stdout.write(
            f"\r{bar} {counts['ended']}/{counts['total']} judge jobs, "
            f"${jury_run.spent:.4f} ({jury_run.status})",
            ending="",
        )
        self.stdout.flush()
