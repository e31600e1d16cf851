"""The jury's commands: run_jury (exit codes as run_benchmark), add_judge / add_panel,
import_evaluations, export_scores; and the jury's demo seeder."""

import csv
import json
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from jury.demo import JUDGES, PANEL, seed_jury_demo
from jury.models import Judge, JuryRun, Panel, Verdict
from patientagentbench.demo import DEMO_SCENARIO_LABEL
from patientagentbench.models import ModelConfig, Run
from ratings.rubric import cached_rubric
from tests.fakes.llm_server import FakeLLMServer, error_reply, text_reply
from tests.jury.conftest import make_panel
from tests.patientagentbench.analysis.paths import GOLDEN

pytestmark = pytest.mark.django_db
SAMPLE = GOLDEN / "patientagentbench-sample"
SCORED = len(cached_rubric().scored)


def run_command(*args) -> tuple[int, str, str]:
    out, err = StringIO(), StringIO()
    try:
        call_command(*args, stdout=out, stderr=err)
    except SystemExit as exit_:
        return int(exit_.code), out.getvalue(), err.getvalue()
    return 0, out.getvalue(), err.getvalue()


def test_run_jury_inline_scores_every_conversation(two_model_run, sim_panel):
    code, out, _ = run_command(
        "run_jury", "--run", str(two_model_run.pk), "--panel", "sim-panel", "--inline"
    )
    assert code == 0, out
    jury_run = JuryRun.objects.get()
    assert out.splitlines()[0] == str(jury_run.pk)
    assert f"Scoring {jury_run.pk} finished" in out
    assert Verdict.objects.count() == two_model_run.traces.count() * 2 * SCORED


def test_run_jury_wait_without_a_worker_exits_2(two_model_run, sim_panel, monkeypatch):
    monkeypatch.setattr("patientagentbench.runs.jobs.NO_WORKER_GRACE_S", 0)
    code, _, err = run_command(
        "run_jury", "--run", str(two_model_run.pk), "--panel", "sim-panel", "--wait"
    )
    assert code == 2 and "No Celery worker" in err
    assert JuryRun.objects.get().status == JuryRun.Status.QUEUED


def test_provider_errors_are_kept_as_verdicts_and_the_scoring_finishes(two_model_run, settings):
    settings.PROVIDER_BASE_DELAY_S = 0.01
    settings.PROVIDER_MAX_ATTEMPTS = 1
    with FakeLLMServer(policy=lambda route, body: error_reply(500)) as server:
        model = ModelConfig.objects.create(
            name="down", provider="openai_compatible", model_id="x", base_url=server.openai_base_url
        )
        make_panel("down-panel", model)
        code, out, _ = run_command(
            "run_jury",
            "--run",
            str(two_model_run.pk),
            "--panel",
            "down-panel",
            "--call-limit",
            "1000",
            "--inline",
        )
    assert code == 0, out
    assert set(Verdict.objects.values_list("status", flat=True)) == {"error"}


def test_run_jury_exits_1_when_stopped_at_the_spend_limit(two_model_run, settings):
    with FakeLLMServer() as server:
        model = ModelConfig.objects.create(
            name="pricey",
            provider="openai_compatible",
            model_id="x",
            base_url=server.openai_base_url,
            price_in=1000,
            price_out=1000,
        )
        make_panel("pricey-panel", model)
        code, out, _ = run_command(
            "run_jury",
            "--run",
            str(two_model_run.pk),
            "--panel",
            "pricey-panel",
            "--spend-limit",
            "0.5",
            "--inline",
        )
    jury_run = JuryRun.objects.get()
    assert code == 1 and f"Scoring {jury_run.pk} stopped" in out
    assert jury_run.status == JuryRun.Status.STOPPED and jury_run.spent >= jury_run.spend_limit
    assert Verdict.objects.count() < two_model_run.traces.count() * SCORED


def test_run_jury_refuses_what_it_cannot_score(two_model_run, sim_panel):
    with pytest.raises(CommandError, match="Unknown panel 'nope'.*sim-panel"):
        call_command("run_jury", "--run", str(two_model_run.pk), "--panel", "nope")
    with pytest.raises(CommandError, match="No run 999"):
        call_command("run_jury", "--run", "999", "--panel", "sim-panel")
    with pytest.raises(CommandError, match="No imported run named 'x.json'"):
        call_command("run_jury", "--imported", "x.json", "--panel", "sim-panel")
    with pytest.raises(CommandError, match="--repeat"):
        call_command(
            "run_jury", "--run", str(two_model_run.pk), "--panel", "sim-panel", "--repeat", "0"
        )


def test_run_jury_scores_imported_conversations(sim_panel):
    call_command("import_traces", str(SAMPLE / "conversations.json"), stdout=StringIO())
    code, out, _ = run_command(
        "run_jury", "--imported", "conversations.json", "--panel", "sim-panel", "--inline"
    )
    assert code == 0, out
    assert Verdict.objects.filter(panel=sim_panel).count() == 2 * 2 * SCORED


def test_add_judge_and_add_panel(sim_models):
    ModelConfig.objects.create(name="sim-judge-b", provider="simulated", model_id="sim-judge-b")
    out = StringIO()
    call_command("add_judge", "harsh", "--model", "sim-judge-b", "--temperature", "0.5", stdout=out)
    assert "Added judge harsh" in out.getvalue()
    call_command("add_panel", "solo", "--judges", "harsh", "--aggregation", "median", stdout=out)
    panel = Panel.objects.get(name="solo")
    assert [j.name for j in panel.judges.all()] == ["harsh"] and panel.aggregation == "median"
    with pytest.raises(CommandError, match="Unknown judge"):
        call_command("add_panel", "p2", "--judges", "harsh,ghost")
    with pytest.raises(CommandError, match="Unknown model"):
        call_command("add_judge", "x", "--model", "ghost")
    with pytest.raises(CommandError, match="temperature"):
        call_command("add_judge", "x", "--model", "sim-judge-b", "--temperature", "9")


def test_import_evaluations_with_its_conversations(db):
    out = StringIO()
    call_command(
        "import_evaluations",
        str(SAMPLE / "evaluations.json"),
        "--conversations",
        str(SAMPLE / "conversations.json"),
        "--panel",
        "published-jury",
        stdout=out,
    )
    assert "Imported 24 new verdicts (24 in the file, from 2 judges) as panel published-jury" in (
        out.getvalue()
    )
    assert Panel.objects.get(name="published-jury").imported
    assert Judge.objects.filter(name__startswith="published-jury/").count() == 2


def import_sample(evaluations, out=None):
    call_command(
        "import_evaluations",
        str(evaluations),
        "--conversations",
        str(SAMPLE / "conversations.json"),
        "--panel",
        "published-jury",
        stdout=out or StringIO(),
    )


def test_a_repeat_of_the_same_evaluations_says_it_added_nothing(db):
    import_sample(SAMPLE / "evaluations.json")
    out = StringIO()
    import_sample(SAMPLE / "evaluations.json", out)
    assert "Added nothing: all 24 verdicts were already there" in out.getvalue()
    assert Verdict.objects.count() == 24


def hostile(tmp_path, change) -> Path:
    data = json.loads((SAMPLE / "evaluations.json").read_text())
    change(data)
    path = tmp_path / "evaluations.json"
    path.write_text(json.dumps(data) if not isinstance(data, str) else data)
    return path


def test_json_nested_past_any_record_is_one_line_and_nothing_is_written(tmp_path):
    path = tmp_path / "evaluations.json"
    path.write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(CommandError) as raised:
        import_sample(path)
    assert "nests deeper than" in str(raised.value) and "\n" not in str(raised.value)
    assert not Run.objects.exists() and not Verdict.objects.exists()


def test_a_nul_in_an_explanation_is_named_and_nothing_is_written(tmp_path):
    def poison(data):
        data[1]["evaluation_0"]["rubric_results"]["clinical_safety"]["explanation"] = "ok\x00"

    with pytest.raises(
        CommandError,
        match=r"record 1, field 'evaluation_0\.rubric_results\."
        r"clinical_safety\.explanation' contains a NUL.*Nothing was imported",
    ):
        import_sample(hostile(tmp_path, poison))
    assert not Run.objects.exists() and not Verdict.objects.exists()


def test_import_evaluations_names_the_record_and_field_and_imports_nothing(tmp_path):
    data = json.loads((SAMPLE / "evaluations.json").read_text())
    del data[0]["evaluation_0"]["rubric_results"]
    bad = tmp_path / "evaluations.json"
    bad.write_text(json.dumps(data))
    with pytest.raises(CommandError, match=r"record 0 .*evaluation_0\.rubric_results.*Nothing"):
        call_command(
            "import_evaluations", str(bad), "--conversations", str(SAMPLE / "conversations.json")
        )
    assert not Run.objects.exists() and not Verdict.objects.exists()


def test_export_scores_csv_and_parquet(two_model_run, sim_panel, tmp_path):
    run_command("run_jury", "--run", str(two_model_run.pk), "--panel", "sim-panel", "--inline")
    out = StringIO()
    call_command("export_scores", "--format", "csv", "--out", str(tmp_path / "s.csv"), stdout=out)
    rows = list(csv.DictReader((tmp_path / "s.csv").open()))
    conversations = two_model_run.traces.count()
    assert len(rows) == conversations * SCORED * (1 + 2)  # panel verdict + two judges
    assert {r["rater_kind"] for r in rows} == {"jury", "judge"}
    for row in rows:
        assert (row["score"] == "") == (row["status"] != "ok")
    call_command(
        "export_scores", "--format", "parquet", "--out", str(tmp_path / "s.parquet"), stdout=out
    )
    import pyarrow.parquet as pq

    assert pq.read_table(tmp_path / "s.parquet").num_rows == len(rows)
    with pytest.raises(CommandError, match="Unknown panel"):
        call_command("export_scores", "--out", str(tmp_path / "x.csv"), "--panel", "nope")


def test_seed_jury_demo_scores_the_demo_run_once(two_model_run):
    Run.objects.filter(pk=two_model_run.pk).update(label=DEMO_SCENARIO_LABEL)
    seed_jury_demo()
    panel = Panel.objects.get(name=PANEL)
    assert sorted(j.name for j in panel.judges.all()) == list(JUDGES)
    assert all(j.model.is_simulated for j in panel.judges.all())
    count = Verdict.objects.filter(panel=panel).count()
    assert count == two_model_run.traces.count() * 3 * SCORED * 2  # two repetitions
    assert "already scored" in seed_jury_demo()
    assert Verdict.objects.filter(panel=panel).count() == count
    assert JuryRun.objects.count() == 1


def every_dimension_answered(route, body):
    """A one-call judge's answer: a usable verdict on every scored dimension."""
    part = {"rationale": "Fine.", "not_applicable": False, "score": 4}
    return text_reply(json.dumps({d.key: part for d in cached_rubric().scored}))


def test_an_operator_scores_with_a_judge_on_a_local_openai_compatible_model(two_model_run):
    """Issue 40 #1: add_judge refused every model that is not simulated ("model: Select a
    valid choice."). The whole operator path, against the local fake server: the model has no
    price, so the commands say the limit counts calls, and the scoring stops at its call limit."""
    with FakeLLMServer(policy=every_dimension_answered) as server:
        call_command(
            "add_model",
            "qwen-local",
            "--provider",
            "openai_compatible",
            "--model",
            "qwen",
            "--base-url",
            server.openai_base_url,
            stdout=StringIO(),
        )
        code, out, _ = run_command(
            "add_judge", "qwen-judge", "--model", "qwen-local", "--call-mode", "one_call"
        )
        assert code == 0 and "Added judge qwen-judge" in out
        assert "qwen-local has no price" in out and "call limit" in out
        call_command("add_panel", "qwen-panel", "--judges", "qwen-judge", stdout=StringIO())
        with pytest.raises(CommandError, match="no price, so the limit counts calls"):
            call_command("run_jury", "--run", str(two_model_run.pk), "--panel", "qwen-panel")
        code, out, err = run_command(
            "run_jury",
            "--run",
            str(two_model_run.pk),
            "--panel",
            "qwen-panel",
            "--call-limit",
            "4",
            "--inline",
        )
        answered = len(server.bodies("openai"))
    jury_run = JuryRun.objects.get()
    assert "the limit counts calls" in err
    assert code == 1 and f"Scoring {jury_run.pk} stopped" in out and "4 of 4 calls" in out
    assert jury_run.status == JuryRun.Status.STOPPED and jury_run.calls == 4 == answered
    assert Verdict.objects.filter(status="ok").exists()  # the calls it made were scored
    assert jury_run.spent == 0  # what a dollar limit would have counted


def test_a_local_model_within_its_call_limit_scores_every_conversation(two_model_run):
    with FakeLLMServer(policy=every_dimension_answered) as server:
        model = ModelConfig.objects.create(
            name="local",
            provider="openai_compatible",
            model_id="x",
            base_url=server.openai_base_url,
        )
        judge = Judge.objects.create(name="local-judge", model=model, call_mode="one_call")
        Panel.objects.create(name="local-panel").judges.add(judge)
        code, out, _ = run_command(
            "run_jury",
            "--run",
            str(two_model_run.pk),
            "--panel",
            "local-panel",
            "--call-limit",
            "1000",
            "--inline",
        )
    assert code == 0, out
    conversations = two_model_run.traces.count()
    assert JuryRun.objects.get().calls == conversations  # one call each, counted
    assert Verdict.objects.filter(status="ok").count() == conversations * SCORED
