"""What the jury's page, command and reading tests share: a small scored scenario run, panels
of simulated judges, and hand-written verdict rows where a test needs exact numbers."""

import pytest

from jury.models import Judge, Panel, Verdict
from patientagentbench.models import ModelConfig
from patientagentbench.suites.case_sets import create_case_set
from tests.factories import rubric  # noqa: F401  (a fixture)
from tests.finished_runs import simulated_run


@pytest.fixture
def two_model_run(sim_models):
    return scenario_run(sim_models)


def scenario_run(sim_models):
    """Three cases × two simulated agents: six finished conversations."""
    cases = create_case_set("jury-read-cases", 3, 4)
    return simulated_run(suite=cases, models=sim_models, repetitions=1, max_turns=8)


def simulated_model(name: str) -> ModelConfig:
    return ModelConfig.objects.get_or_create(
        name=name, defaults={"provider": "simulated", "model_id": name}
    )[0]


def make_panel(name: str, *judge_models: ModelConfig, aggregation: str = "mean") -> Panel:
    panel = Panel.objects.create(name=name, aggregation=aggregation)
    for i, model in enumerate(judge_models):
        panel.judges.add(Judge.objects.create(name=f"{name}-judge-{i}", model=model))
    return panel


@pytest.fixture
def sim_panel(db):
    return two_judge_panel()


def two_judge_panel():
    return make_panel("sim-panel", simulated_model("sim-judge-a"), simulated_model("sim-judge-b"))


def verdict(panel, judge, trace, dimension, status="ok", score=None, repetition=0, **extra):
    """One stored judge answer, versions defaulting to the panel's and judge's current ones."""
    return Verdict.objects.create(
        panel=panel,
        judge=judge,
        trace=trace,
        dimension=dimension,
        status=status,
        score=score if status == "ok" else None,
        repetition=repetition,
        rubric_version=extra.pop("rubric_version", panel.rubric_version),
        prompt_version=extra.pop("prompt_version", judge.prompt_version),
        **extra,
    )


def qualify(panel, passed: bool = True, tracks=("clinical", "operations")):
    """A calibration record for the panel verdict on each track, as if a round had been taken
    (annotation.judge_calibration writes the real ones): pages then offer its verdicts."""
    from annotation.models import Study  # tests may reach both apps
    from jury.models import JudgeQualification
    from jury.qualification import panel_signature

    round_ = Study.objects.create(kind=Study.Kind.CALIBRATION, name=f"{panel.name} round")
    return [
        JudgeQualification.objects.create(
            panel=panel,
            round=round_,
            rubric_name=panel.rubric_name,
            rubric_version=panel.rubric_version,
            track=track,
            prompt_version=panel_signature(panel),
            passed=passed,
        )
        for track in tracks
    ]
