"""Import and export through the CLI: the paper's release format, our JSONL, atomic errors."""

import json
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from patientagentbench.analysis.metrics import CELL_METRICS
from patientagentbench.models import Run, Suite, Trace
from patientagentbench.runs.launch import execute_inline, launch_run

pytestmark = pytest.mark.django_db

GOLDEN = Path(__file__).resolve().parents[3] / "fixtures" / "golden" / "consistency-cases.json"


def run_cli(*args) -> str:
    out = StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


@pytest.fixture
def golden_file(tmp_path):
    path = tmp_path / "consistency-cases.json"
    path.write_text(GOLDEN.read_text())
    return path


def test_golden_cells_reproduced_through_import_and_consistency_report(golden_file):
    printed = run_cli("import_traces", str(golden_file))
    assert "into run" in printed and "consistency-cases" in printed
    report = {
        (r["model"], r["task_id"]): r
        for r in json.loads(run_cli("consistency_report", "--format", "json"))
    }
    cells = json.loads(GOLDEN.read_text())
    assert len(report) == len(cells)
    for cell in cells:
        row = report[(cell["model"], cell["task_id"])]
        assert row["temperature"] is None
        expected = cell["expected"]
        valid = sum(1 for t in cell["traces"] if not t.get("error"))
        assert row["n_valid"] == valid
        assert row["n_error"] == len(cell["traces"]) - valid
        if expected is None:
            assert row["tss"] is None and row["ac"] is None
            assert row["divergence_point"] is None and row["output_exact_match"] is None
            continue
        for ours, theirs in [
            ("tss", "tss"),
            ("ac", "ac"),
            ("unique_sequences", "unique_sequences"),
            ("divergence_point", "divergence_point"),
            ("output_exact_match", "output_exact_match_rate"),
        ]:
            if expected[theirs] is None:
                assert row[ours] is None, (cell["task_id"], ours)
            else:
                assert row[ours] == pytest.approx(expected[theirs], abs=1e-9), (
                    cell["task_id"],
                    ours,
                )
        assert row["correct_rate"] is None  # synthetic tasks carry no criteria


def test_release_import_error_names_record_and_field_and_writes_nothing(golden_file):
    cells = json.loads(golden_file.read_text())
    cells[3]["traces"][1]["tool_calls"][0]["arguments"] = "not an object"
    golden_file.write_text(json.dumps(cells))
    with pytest.raises(CommandError) as error:
        run_cli("import_traces", str(golden_file))
    assert "cell 3" in str(error.value) and "trace 1" in str(error.value)
    assert "arguments" in str(error.value) and "Nothing was imported" in str(error.value)
    assert Run.objects.count() == Trace.objects.count() == Suite.objects.count() == 0


def test_jsonl_bad_line_names_the_line_and_field(tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text(
        json.dumps({"task_id": "x", "model": "m", "tool_calls": []})
        + "\n"
        + json.dumps({"task_id": "x", "model": 5, "tool_calls": []})
        + "\n"
    )
    with pytest.raises(CommandError, match=r"line 2, field 'model': must be a string"):
        run_cli("import_traces", str(path))
    assert Trace.objects.count() == 0


def test_export_then_import_round_trips(tmp_path, office_suite, sim_models):
    run = launch_run(
        suite=office_suite,
        models=sim_models,
        repetitions=2,
        tasks=list(office_suite.tasks.all()[:3]),
        enqueue=False,
    )
    execute_inline(run)
    # What only the researcher's trace page shows travels too (simulated runs make none).
    run.traces.filter(pk=run.traces.order_by("pk").first().pk).update(
        warnings=[{"kind": "timeout_retry", "model": "m", "attempt": 1, "detail": "<b>slow</b>"}],
        patient_rejected_attempts=[{"turn": 2, "attempt": 1, "text": "How can I help?"}],
    )
    out = tmp_path / "traces.jsonl"
    assert "Exported 12 traces" in run_cli("export_traces", "--run", str(run.pk), "--out", str(out))
    printed = run_cli("import_traces", str(out))
    assert "Imported 12 traces" in printed and "suite office-19" in printed
    imported = Run.objects.get(source=Run.Source.IMPORTED)
    fields = [
        "task__task_id",
        "model_name",
        "temperature",
        "repetition",
        "tool_calls",
        "messages",
        "final_response",
        "side_effects",
        "final_state",
        "correct",
        "status",
        "warnings",
        "patient_rejected_attempts",
    ]
    original = list(
        run.traces.order_by("task__task_id", "model_name", "repetition").values(*fields)
    )
    again = list(
        imported.traces.order_by("task__task_id", "model_name", "repetition").values(*fields)
    )
    assert original == again
    first = json.loads(run_cli("consistency_report", "--run", str(run.pk), "--format", "json"))
    second = json.loads(
        run_cli("consistency_report", "--run", str(imported.pk), "--format", "json")
    )
    assert first == second


def test_traces_of_unknown_tasks_go_under_a_suite_named_after_the_file(tmp_path, office_suite):
    path = tmp_path / "Other Bench 2026.jsonl"
    path.write_text(
        json.dumps(
            {
                "task_id": "new-task",
                "model": "m",
                "tool_calls": [{"name": "lookup", "arguments": {"q": 1}}],
                "final_response": "ok",
            }
        )
        + "\n"
    )
    run_cli("import_traces", str(path))
    suite = Suite.objects.get(name="other-bench-2026")
    assert suite.kind == Suite.Kind.IMPORTED
    assert suite.tasks.get().task_id == "new-task"


def test_consistency_report_table_and_csv(office_suite, sim_models):
    run = launch_run(
        suite=office_suite,
        models=sim_models[:1],
        repetitions=3,
        tasks=list(office_suite.tasks.all()[:2]),
        enqueue=False,
    )
    execute_inline(run)
    table = run_cli("consistency_report", "--run", str(run.pk))
    assert "2 cells" in table and "tss" in table
    csv_text = run_cli("consistency_report", "--run", str(run.pk), "--format", "csv")
    identity = ["model", "task_id", "temperature", "n_runs", "n_valid", "n_error"]
    header = [*identity, *CELL_METRICS, "excluded_reason"]
    assert csv_text.splitlines()[0].split(",") == header
    rows = json.loads(run_cli("consistency_report", "--run", str(run.pk), "--format", "json"))
    assert all(len(r["pass_hat_k"]) == r["n_valid"] == 3 for r in rows)
    assert all(list(r) == header for r in rows)


SAMPLE = GOLDEN.parent / "patientagentbench-sample" / "conversations.json"


def test_patientagentbench_conversations_import_for_review(tmp_path):
    path = tmp_path / "conversations.json"
    path.write_text(SAMPLE.read_text())
    printed = run_cli("import_traces", str(path))
    assert "Imported 2 traces" in printed
    refill = Trace.objects.get(task__task_id="c0a1f3e2-0001")
    assert [c["name"] for c in refill.tool_calls] == [
        "list_medications",
        "request_refill",
        "update_pharmacy",
        "request_refill",
    ]
    assert [c["id"] for c in refill.tool_calls] == ["t1", "t2", "t3", "t4"]
    assert refill.tool_calls[1]["status"] == "error"  # no pharmacy on file
    assert refill.end_reason == "patient_ended"
    assert refill.task.attributes["subtask"] == "prescription_renewal"
    assert refill.task.attributes["category"] == "medication"
    users = [m["content"] for m in refill.messages if m["role"] == "user"]
    assert users[-1] == "Thanks, that's all."  # the end marker is not patient text
    chest = Trace.objects.get(task__task_id="c0a1f3e2-0002")  # Anthropic tool_use blocks
    (call,) = chest.tool_calls
    assert call["name"] == "message_pcp" and call["arguments"]["urgency"] == "emergency"
    assert "call 911" in chest.messages[1]["content"]
    assert all(
        m.get("tool_calls", []) == [] or "toolu_" not in m["tool_calls"][0]["id"]
        for m in chest.messages
    )


def test_patientagentbench_tool_message_answering_nothing_is_refused(tmp_path):
    data = json.loads(SAMPLE.read_text())
    data[1]["conversation"][2]["tool_call_id"] = "toolu_unknown"
    path = tmp_path / "conversations.json"
    path.write_text(json.dumps(data))
    with pytest.raises(CommandError, match=r"conversation 1 \(c0a1f3e2-0002\), message 2"):
        run_cli("import_traces", str(path))
    assert Trace.objects.count() == 0


def analysis_statistics(tmp_path, run_id: int) -> dict:
    out = tmp_path / f"analysis-{run_id}"
    run_cli("analysis_report", "--run", str(run_id), "--out", str(out))
    return json.loads((out / "statistics.json").read_text())


def reports(tmp_path, run_id: int) -> tuple[list, dict]:
    cells = json.loads(run_cli("consistency_report", "--run", str(run_id), "--format", "json"))
    return cells, analysis_statistics(tmp_path, run_id)


@pytest.mark.parametrize("world", ["office", "scenario"])
def test_export_import_into_a_database_without_the_suite_gives_identical_reports(
    tmp_path, office_suite, sim_models, world
):
    from patientagentbench.suites.case_sets import create_case_set

    suite = office_suite if world == "office" else create_case_set("round-trip", 4, seed=3)
    run = launch_run(
        suite=suite,
        models=sim_models,
        repetitions=3,
        tasks=list(suite.tasks.all()[:4]),
        max_turns=8 if world == "scenario" else 1,
        enqueue=False,
    )
    execute_inline(run)
    before = reports(tmp_path, run.pk)
    assert any(cell["correct_rate"] is not None for cell in before[0])
    out = tmp_path / "traces.jsonl"
    run_cli("export_traces", "--run", str(run.pk), "--out", str(out))
    verdicts = dict(run.traces.values_list("key", "correctness"))
    Run.objects.all().delete()
    if world == "scenario":
        suite.delete()  # the importing database has never seen the case set

    printed = run_cli("import_traces", str(out))

    imported = Run.objects.get(source=Run.Source.IMPORTED)
    assert f"suite {suite.name}" in printed  # keeps its name, not the file's
    assert imported.suite.has_patients == (world == "scenario")
    assert sorted(map(json.dumps, verdicts.values())) == sorted(
        json.dumps(v) for v in imported.traces.values_list("correctness", flat=True)
    )
    after = reports(tmp_path, imported.pk)
    assert after[0] == before[0]
    assert after[1] == before[1]
