"""Demo jury data, so the jury's pages have something to show from the first start: a panel
`sim-jury` of three simulated judges (`sim-judge-a`, a fair one; `-b`, harsher; `-c`,
noisier) and its verdicts on the demo's scenario run, each conversation read twice by each
judge so that judge consistency has something to show.

The judges are simulated (offline, seeded) and every page labels them so. Scoring runs in
this process, through the same jobs a worker would run. Idempotent: a second call finds the
finished scoring and does nothing.
"""

from __future__ import annotations

from jury.models import Judge, JuryRun, Panel
from jury.scoring import execute_inline, launch_jury
from patientagentbench.demo import DEMO_SCENARIO_LABEL
from patientagentbench.models import ModelConfig, Run

PANEL = "sim-jury"
JUDGES = ("sim-judge-a", "sim-judge-b", "sim-judge-c")
REPEAT = 2  # two readings per judge, so the judge-consistency page has something to show


def demo_panel() -> Panel:
    panel, _ = Panel.objects.get_or_create(name=PANEL, defaults={"aggregation": "mean"})
    for name in JUDGES:
        model, _ = ModelConfig.objects.get_or_create(
            name=name,
            defaults={"provider": ModelConfig.Provider.SIMULATED, "model_id": name},
        )
        judge, _ = Judge.objects.get_or_create(name=name, defaults={"model": model})
        panel.judges.add(judge)
    return panel


def seed_jury_demo() -> str:
    run = Run.objects.filter(label=DEMO_SCENARIO_LABEL).order_by("pk").first()
    if run is None:
        return "No demo scenario run; run seed_demo first."
    panel = demo_panel()
    if JuryRun.objects.filter(panel=panel, run=run, status=JuryRun.Status.FINISHED).exists():
        return f"Demo jury {PANEL} already scored run {run.pk}."
    jury_run = launch_jury(panel=panel, run=run, repeat=REPEAT, enqueue=False)
    execute_inline(jury_run)
    jury_run.refresh_from_db()
    return (
        f"Demo jury {PANEL}: {jury_run.jobs.count()} judge jobs on run {run.pk}, "
        f"{jury_run.get_status_display().lower()}."
    )
