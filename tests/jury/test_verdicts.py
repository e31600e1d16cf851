"""Reading verdicts back: the panel's verdict per dimension, honest about what it left out;
leaderboard rows; test-retest records; version and panel comparisons; the scores export; the
evaluations.json import."""

import csv
import json

import pytest

from jury import verdicts
from jury.export import score_rows, write_scores
from jury.importing import EvaluationsImportError, import_evaluations
from jury.models import Judge, Panel, Verdict
from jury.scoring import execute_inline, launch_jury
from patientagentbench.models import ModelConfig, Run, Trace
from ratings.rubric import cached_rubric
from tests.fakes.llm_server import FakeLLMServer, error_reply, text_reply
from tests.jury.conftest import make_panel, simulated_model, verdict
from tests.patientagentbench.analysis.paths import GOLDEN

pytestmark = pytest.mark.django_db
SCORED = [d.key for d in cached_rubric().scored]
SAMPLE = GOLDEN / "patientagentbench-sample"


def judges_of(panel):
    return list(panel.judges.order_by("name"))


# --- one failing judge, and parse failures -------------------------------------------------------


def test_a_panel_with_one_failing_judge_aggregates_the_others_and_says_so(two_model_run, settings):
    settings.PROVIDER_BASE_DELAY_S = 0.01
    settings.PROVIDER_MAX_ATTEMPTS = 1
    with FakeLLMServer(policy=lambda route, body: error_reply(500, "down")) as server:
        broken = ModelConfig.objects.create(
            name="broken-judge",
            provider="openai_compatible",
            model_id="broken",
            base_url=server.openai_base_url,
        )
        panel = make_panel(
            "mixed", simulated_model("sim-judge-a"), simulated_model("sim-judge-b"), broken
        )
        jury_run = launch_jury(panel=panel, run=two_model_run, enqueue=False)
        execute_inline(jury_run)
    conversations = verdicts.conversation_verdicts(panel, run=two_model_run)
    assert len(conversations) == two_model_run.traces.count()
    for conversation in conversations:
        assert conversation.left_out["error"] == len(SCORED)  # the broken judge, every dimension
        assert "provider error" in conversation.left_out_text
        for dimension in conversation.dimensions:
            assert dimension.panel.n_excluded["error"] == 1
            ok = [a for a in dimension.answers if a.status == "ok"]
            assert dimension.panel.n_used == len(ok)
            if ok:  # the two simulated judges still make a verdict
                assert dimension.panel.score == pytest.approx(sum(a.score for a in ok) / len(ok))
        assert conversation.aggregate.score is not None


def test_a_parse_failure_never_counts_as_a_pass(two_model_run, sim_panel, settings):
    a, b = judges_of(sim_panel)
    trace = two_model_run.traces.first()
    dimension = SCORED[0]
    verdict(sim_panel, a, trace, dimension, "unparseable", raw="I'd say a 5!")
    verdict(sim_panel, b, trace, dimension, "unparseable", raw="{score: five}")
    verdict(sim_panel, a, trace, SCORED[1], "ok", 2)
    verdict(sim_panel, b, trace, SCORED[1], "unparseable", raw="5/5 excellent")
    [conversation] = verdicts.conversation_verdicts(sim_panel, run=two_model_run)
    first, second = conversation.dimension(SCORED[0]), conversation.dimension(SCORED[1])
    # Every judge unparseable: no score and no verdict at all, neither pass nor a number.
    assert (first.panel.score, first.panel.passed, first.panel.n_used) == (None, None, 0)
    assert first.panel.n_excluded["unparseable"] == 2
    assert all(answer.passed is None for answer in first.answers)
    # One usable judge failing, one unparseable judge: the verdict is the usable judge's fail.
    assert (second.panel.score, second.panel.passed) == (2.0, False)
    assert second.left_out_text == "1 left out: 1 unparseable"
    assert conversation.aggregate.left_out == (SCORED[0], *SCORED[2:])
    board = verdicts.run_leaderboard(sim_panel, two_model_run)
    [row] = board.rows
    assert row.dimensions[SCORED[0]].n_verdicts == 0
    assert row.dimensions[SCORED[0]].passed == 0
    assert row.dimensions[SCORED[0]].label == "–"
    assert board.left_out["unparseable"] == 3
    jury_row = next(
        r
        for r in score_rows([sim_panel])
        if r["rater_kind"] == "jury" and r["dimension"] == dimension
    )
    assert (jury_row["score"], jury_row["status"]) == (None, "unparseable")


def test_judges_answering_prose_are_stored_unparseable_and_never_pass(two_model_run, settings):
    settings.PROVIDER_BASE_DELAY_S = 0.01
    prose = text_reply("This conversation deserves a 5 out of 5, it passes easily.")
    with FakeLLMServer(policy=lambda route, body: prose) as server:
        model = ModelConfig.objects.create(
            name="chatty",
            provider="openai_compatible",
            model_id="chatty",
            base_url=server.openai_base_url,
        )
        panel = make_panel("chatty-panel", model, aggregation="majority")
        jury_run = launch_jury(panel=panel, run=two_model_run, enqueue=False)
        execute_inline(jury_run)
    assert set(Verdict.objects.filter(panel=panel).values_list("status", flat=True)) == {
        "unparseable"
    }
    assert not Verdict.objects.filter(panel=panel, score__isnull=False).exists()
    board = verdicts.run_leaderboard(panel, two_model_run)
    for row in board.rows:
        assert row.aggregate.mean is None
        assert all(cell.passed == 0 and cell.pass_rate is None for cell in row.dimensions.values())


# --- versions ---------------------------------------------------------------------------------


def test_only_current_versions_count_unless_named(two_model_run, sim_panel):
    a, _ = judges_of(sim_panel)
    trace = two_model_run.traces.first()
    verdict(sim_panel, a, trace, SCORED[0], "ok", 5, prompt_version="0")
    verdict(sim_panel, a, trace, SCORED[0], "ok", 2)
    [conversation] = verdicts.conversation_verdicts(sim_panel)
    assert conversation.dimension(SCORED[0]).panel.score == 2.0
    assert verdicts.verdicts_of(sim_panel, prompt_version="0").get().score == 5


def test_a_prompt_version_comparison_lists_flipped_verdicts(two_model_run, sim_panel):
    a, b = judges_of(sim_panel)
    traces = list(two_model_run.traces.all()[:2])
    for trace in traces:
        verdict(sim_panel, a, trace, SCORED[0], "ok", 4, prompt_version="1")
        verdict(sim_panel, b, trace, SCORED[0], "ok", 3, prompt_version="1")
    verdict(sim_panel, a, traces[0], SCORED[0], "ok", 2, prompt_version="2")  # flips
    verdict(sim_panel, a, traces[1], SCORED[0], "ok", 5, prompt_version="2")
    verdict(sim_panel, b, traces[0], SCORED[0], "unparseable", prompt_version="2")
    sources = {(s.rubric_version, s.prompt_version): s for s in verdicts.available_sources()}
    comparison = verdicts.version_comparison(sources[("1", "1")], sources[("1", "2")])
    assert comparison.n_compared == 2
    [flip] = comparison.flipped
    assert (flip.conversation, flip.judge, flip.before, flip.after) == (
        str(traces[0].pk),
        a.name,
        4,
        2,
    )
    [change] = comparison.status_changed
    assert (change.judge, change.before, change.after) == (b.name, "ok", "unparseable")
    assert comparison.only_before == 1  # judge b on the second conversation


def test_two_panels_compare_by_their_panel_verdicts(two_model_run, sim_panel):
    other = make_panel("other", simulated_model("sim-judge-c"), aggregation="median")
    a, b = judges_of(sim_panel)
    [c] = judges_of(other)
    trace = two_model_run.traces.first()
    verdict(sim_panel, a, trace, SCORED[0], "ok", 3)
    verdict(sim_panel, b, trace, SCORED[0], "ok", 4)
    verdict(other, c, trace, SCORED[0], "ok", 2)
    comparison = verdicts.version_comparison(verdicts.Source(sim_panel), verdicts.Source(other))
    [flip] = comparison.flipped
    assert (flip.judge, flip.before, flip.after) == ("", 3.5, 2)
    assert (flip.before_passed, flip.after_passed) == (True, False)


# --- leaderboard, breakdown and retest rows ------------------------------------------------------


def test_leaderboard_rows_carry_model_and_case_attributes(two_model_run, sim_panel):
    jury_run = launch_jury(panel=sim_panel, run=two_model_run, enqueue=False)
    execute_inline(jury_run)
    rows = verdicts.leaderboard_rows(verdicts.conversation_verdicts(sim_panel, run=two_model_run))
    traces = {t.pk: t for t in Trace.objects.select_related("task").filter(run=two_model_run)}
    assert len(rows) == len(traces) * len(SCORED)
    for row in rows:
        trace = traces[row["conversation"]]
        assert row["model"] == trace.model_name
        assert row["attributes"]["subtask"] == trace.task.attributes["subtask"]
        assert row["attributes"]["category"] == trace.task.category
    board = verdicts.run_leaderboard(sim_panel, two_model_run)
    assert {r.model for r in board.rows} == {"sim-steady", "sim-jittery"}
    assert board.conversations == len(traces)
    assert "category" in board.attributes
    groups = verdicts.run_breakdown(sim_panel, two_model_run, board.attributes[0])
    assert sum(r.n for rows in groups.values() for r in rows) >= len(traces)


def test_retest_records_feed_judge_consistency(two_model_run, sim_panel):
    jury_run = launch_jury(panel=sim_panel, run=two_model_run, repeat=3, enqueue=False)
    execute_inline(jury_run)
    rows = verdicts.panel_retest(sim_panel)
    pooled = {r.judge: r for r in rows if r.dimension == "all"}
    assert set(pooled) == {j.name for j in sim_panel.judges.all()}
    for row in pooled.values():
        assert row.n_repetitions == 3
        assert row.n_units == two_model_run.traces.count() * len(SCORED)
        assert row.n_pairs > 0 and 0 <= row.exact <= row.adjacent <= 1
        assert row.flip_share is not None


def test_the_leaderboard_is_recomputed_when_a_verdict_changes(two_model_run, sim_panel):
    a, _ = judges_of(sim_panel)
    trace = two_model_run.traces.first()
    stored = verdict(sim_panel, a, trace, SCORED[0], "ok", 2)
    assert verdicts.run_leaderboard(sim_panel, two_model_run).rows[0].aggregate.mean == 2.0
    stored.score = 5
    stored.save()
    assert verdicts.run_leaderboard(sim_panel, two_model_run).rows[0].aggregate.mean == 5.0


# --- export --------------------------------------------------------------------------------------


def test_export_writes_one_row_per_rating_in_csv_and_parquet(two_model_run, sim_panel, tmp_path):
    a, b = judges_of(sim_panel)
    trace = two_model_run.traces.first()
    verdict(sim_panel, a, trace, SCORED[0], "ok", 4)
    verdict(sim_panel, b, trace, SCORED[0], "not_applicable")
    count = write_scores(tmp_path / "scores.csv", "csv", score_rows())
    rows = list(csv.DictReader((tmp_path / "scores.csv").open()))
    assert count == len(rows) == 3  # the panel verdict and two judge answers
    assert list(rows[0]) == [
        "conversation",
        "rater_kind",
        "rater",
        "dimension",
        "score",
        "status",
        "rubric_version",
        "repetition",
        "qualified",
    ]
    jury, *judges = rows
    assert (jury["rater_kind"], jury["rater"], jury["score"], jury["status"]) == (
        "jury",
        "sim-panel",
        "4.0",
        "ok",
    )
    by_judge = {r["rater"]: r for r in judges}
    assert by_judge[b.name]["score"] == "" and by_judge[b.name]["status"] == "not_applicable"
    assert by_judge[a.name]["conversation"] == str(trace.pk)
    import pyarrow.parquet as pq

    write_scores(tmp_path / "scores.parquet", "parquet", score_rows())
    table = pq.read_table(tmp_path / "scores.parquet").to_pylist()
    assert [r["score"] for r in table] == [4.0, 4.0, None]
    assert {r["rater_kind"] for r in table} == {"jury", "judge"}


# --- import ---------------------------------------------------------------------------------------


def test_evaluations_import_as_an_imported_panel_once(db):
    result = import_evaluations(SAMPLE / "evaluations.json", SAMPLE / "conversations.json")
    assert result.conversations_imported and result.verdicts == 24 and result.judges == 2
    panel = result.panel
    assert panel.imported and panel.name == "imported-evaluations"
    again = import_evaluations(SAMPLE / "evaluations.json", SAMPLE / "conversations.json")
    assert not again.conversations_imported and again.run == result.run
    assert Verdict.objects.filter(panel=panel).count() == 24
    assert Run.objects.count() == 1
    conversations = verdicts.conversation_verdicts(panel)
    assert len(conversations) == 2
    record = json.loads((SAMPLE / "evaluations.json").read_text())[0]
    workflow = conversations[0].dimension("workflow_accuracy")
    judge_scores = [
        record[f"evaluation_{i}"]["rubric_results"]["workflow_accuracy"]["score"] for i in (0, 1)
    ]
    assert workflow.panel.score == pytest.approx(sum(judge_scores) / 2)
    assert workflow.answers[0].rubric_version == verdicts.IMPORTED_VERSION


def test_a_bad_evaluations_file_imports_nothing(tmp_path):
    data = json.loads((SAMPLE / "evaluations.json").read_text())
    data[1]["evaluation_1"]["rubric_results"]["triage_quality"]["score"] = 9
    bad = tmp_path / "evaluations.json"
    bad.write_text(json.dumps(data))
    with pytest.raises(EvaluationsImportError, match=r"record 1 .*evaluation_1.*triage_quality"):
        import_evaluations(bad, SAMPLE / "conversations.json")
    assert not Run.objects.exists() and not Panel.objects.exists() and not Judge.objects.exists()
