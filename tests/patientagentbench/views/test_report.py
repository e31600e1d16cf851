"""The analysis report page, its downloads and the analysis_report CLI."""

import json
from io import StringIO

import pytest
from django.core.management import call_command
from django.urls import reverse

from patientagentbench.runs.launch import execute_inline, launch_run
from tests.finished_runs import simulated_run

pytestmark = pytest.mark.django_db


@pytest.fixture
def finished_run(office_suite, sim_models):
    return simulated_run(suite=office_suite, models=sim_models, repetitions=3)


def test_report_page_shows_tables_figures_tests_and_published_values(
    client, researcher, finished_run
):
    client.force_login(researcher)
    body = client.get(reverse("run_report", args=[finished_run.pk])).content.decode()
    assert body.count('class="plotly-graph-div"') == 7
    assert "Published values (the seed paper" in body and "gpt-4.1-mini" in body
    assert "Headline figures" in body and "Mean tool-sequence similarity (TSS) over cells" in body
    assert "mixed model" in body
    # Rows read as sentences: no identifiers, no flattened keys, counts as whole numbers.
    for raw in ("first_divergence_in_steps_1_2_pct", "median_split.", "(see JSON)", "n_valid"):
        assert raw not in body
    assert "the paper&#x27;s measure" in body and "This project:" in body
    assert "Correctness under the strict rule" in body
    assert "/static/vendor/plotly/plotly-cartesian.min.js" in body and "cdn" not in body.lower()
    # Each headline carries its n and interval beside it, not only further down.
    headline = headline_table(body)
    assert "n = 38, 95% CI [" in headline and "(BCa bootstrap over cells)" in headline
    assert "(noncentral t)" in headline and "lies inside" in headline or "lies outside" in headline
    assert (
        "not enough evidence"
        not in headline.split("paired Cohen&#x27;s d (paired t)")[1].split("</tr>")[0]
    )


def headline_table(body: str) -> str:
    return body.split("<h2>Headline figures</h2>")[1].split("<h2>")[0]


def test_a_six_cell_report_says_not_enough_evidence_beside_the_papers_values(
    client, researcher, office_suite, sim_models
):
    run = launch_run(
        suite=office_suite,
        models=sim_models,
        repetitions=3,
        tasks=list(office_suite.tasks.all()[:3]),
        enqueue=False,
    )
    execute_inline(run)
    client.force_login(researcher)
    stats = client.get(reverse("report_statistics_json", args=[run.pk])).json()
    assert stats["n_cells"] == 6  # 3 tasks x 2 models
    headline = headline_table(client.get(reverse("run_report", args=[run.pk])).content.decode())
    d_z_row = headline.split("paired Cohen&#x27;s d (paired t)")[1].split("</tr>")[0]
    assert "<i>not enough evidence</i>" in d_z_row and "(n = 6; 10 needed)" in d_z_row
    assert "0.75" in d_z_row and "not enough evidence here" in d_z_row  # the paper's, alone
    d_z = stats["paper"]["tss_vs_ac_paired"]["cohens_d_z"]  # computed, but not a headline
    assert f"{d_z:.3f}" not in d_z_row
    assert "Minimum: the paper&#x27;s paired Cohen&#x27;s d of 0.75 needs 10 pairs" in d_z_row
    below = [row for row in headline.split("<tr") if "<i>not enough evidence</i>" in row]
    assert len(below) > 1  # the correlations and F tests need 10 cells too
    for row in below:
        for words in ("lies inside", "lies outside", "matches", "reproduces", "consistent with"):
            assert words not in row.lower()


def test_report_downloads(client, researcher, finished_run):
    client.force_login(researcher)
    csv = client.get(reverse("report_table_csv", args=[finished_run.pk, "model"]))
    assert csv["Content-Type"] == "text/csv"
    lines = csv.content.decode().splitlines()
    assert lines[0].startswith("model") and len(lines) == 3
    html = client.get(reverse("report_figure_html", args=[finished_run.pk, "model_comparison"]))
    assert b"<html" in html.content and b"plotly" in html.content
    stats = client.get(reverse("report_statistics_json", args=[finished_run.pk])).json()
    assert stats["n_cells"] == 38 and stats["models"] == ["sim-jittery", "sim-steady"]
    assert (
        client.get(reverse("report_table_csv", args=[finished_run.pk, "nope"])).status_code == 404
    )


def test_report_of_an_unfinished_run_says_so(client, researcher, office_suite, sim_models):
    run = launch_run(suite=office_suite, models=sim_models, enqueue=False)
    client.force_login(researcher)
    assert b"No finished traces yet" in client.get(reverse("run_report", args=[run.pk])).content


def test_report_is_for_staff_only(client, clinician, finished_run):
    client.force_login(clinician)
    assert client.get(reverse("run_report", args=[finished_run.pk])).status_code == 403
    assert client.get(reverse("report_statistics_json", args=[finished_run.pk])).status_code == 403


def test_analysis_report_cli_writes_tables_statistics_and_figures(tmp_path, finished_run):
    out = StringIO()
    call_command(
        "analysis_report", "--run", str(finished_run.pk), "--out", str(tmp_path), stdout=out
    )
    assert "38 cells" in out.getvalue()
    stats = json.loads((tmp_path / "statistics.json").read_text())
    assert stats["tss_vs_ac"]["n"] == 38 or "cohens_d" in stats["tss_vs_ac"]
    assert (tmp_path / "tables" / "model.csv").read_text().count("\n") == 3
    assert len(list((tmp_path / "figures").glob("*.html"))) == 7


def test_report_of_a_scenario_run_shows_only_what_applies(client, researcher, sim_models):
    from patientagentbench.suites.case_sets import create_case_set

    suite = create_case_set("report-cases", 4, seed=5)
    run = launch_run(suite=suite, models=sim_models, repetitions=2, max_turns=8, enqueue=False)
    execute_inline(run)
    client.force_login(researcher)
    body = client.get(reverse("run_report", args=[run.pk])).content.decode()
    assert "Headline figures" in body
    assert "Published (paper)" not in body  # the paper published nothing for this suite
    assert "Ambiguous vs structured" not in body and "AC of ambiguous tasks" not in body
    assert "<b>Temperature</b>" not in body  # one temperature: no comparison section
    assert "Not computed: " in body or "Mean argument consistency" in body


def test_report_lists_left_out_cells_and_switches_the_malformed_setting(
    client, researcher, office_suite, sim_models
):
    from patientagentbench.models import Trace

    run = launch_run(
        suite=office_suite,
        models=sim_models[:1],
        repetitions=2,
        tasks=list(office_suite.tasks.all()[:3]),
        enqueue=False,
    )
    execute_inline(run)
    broken = run.traces.order_by("pk").first()
    calls = broken.tool_calls
    calls[0] = {**calls[0], "arguments": None, "malformed": True}
    Trace.objects.filter(pk=broken.pk).update(tool_calls=calls)
    client.force_login(researcher)
    url = reverse("run_report", args=[run.pk])
    strict = client.get(url).content.decode()
    assert "Cells left out (1)" in strict and "insufficient valid traces (1 of 2 valid)" in strict
    assert "Malformed tool calls: <b>error</b>" in strict
    kept = client.get(url + "?malformed=keep").content.decode()
    assert "Cells left out" not in kept and "Malformed tool calls: <b>keep</b>" in kept
    stats = client.get(reverse("report_statistics_json", args=[run.pk]) + "?malformed=keep")
    assert stats.json()["settings"]["malformed"] == "keep"
    assert client.get(url + "?malformed=bogus").status_code == 200


def test_tables_show_counts_as_whole_numbers():
    from patientagentbench.results.study import table_view

    view = table_view({"columns": ["model", "n_valid", "tss_mean"], "rows": [["m", 57.0, 0.5]]})
    assert view == {"columns": ["model", "n valid", "tss mean"], "rows": [["m", "57", "0.500"]]}


def test_a_test_that_cannot_be_computed_says_why_in_words():
    from patientagentbench.results import findings

    stats = {
        "models": ["a", "b"],
        "anova": {"tss": {"error": "needs two groups of model, has 1"}, "ac": None},
        "tss_vs_ac": {"error": "needs two complete pairs, has 1"},
    }
    sections = {s["title"]: s["rows"] for s in findings.report_sections(stats, has_published=False)}
    details = [row["detail"] for row in sections["Differences between models"]]
    assert "Not computed: needs two groups of model, has 1." in details
    assert "Not computed for this study." in details
    assert sections["Consistency"][0]["detail"] == "Not computed: needs two complete pairs, has 1."


def report_body(client, researcher, run) -> str:
    client.force_login(researcher)
    return client.get(reverse("run_report", args=[run.pk])).content.decode()


def test_one_repetition_per_cell_says_divergence_needs_two_not_that_none_diverged(
    client, researcher, office_suite, sim_models
):
    run = simulated_run(suite=office_suite, models=sim_models[:1], repetitions=1)
    body = report_body(client, researcher, run)
    assert "No pair of runs diverged" not in body
    assert "Only one repetition per cell: divergence needs at least two." in body


def test_two_repetitions_that_never_diverge_still_say_so():
    from patientagentbench.results import findings

    stats = {"n_cells": 3, "divergence": {"n_pairs": 0}, "paper": {"divergence": {}}}
    sections = {s["title"]: s["rows"] for s in findings.report_sections(stats, has_published=False)}
    (row,) = sections["Where runs first diverge"]
    assert row["detail"] == "No pair of runs diverged in any cell."
    stats = {"n_cells": 0, "dropped_cells": [{"n_runs": 2, "n_valid": 1}]}
    sections = {s["title"]: s["rows"] for s in findings.report_sections(stats, has_published=False)}
    (row,) = sections["Where runs first diverge"]
    assert row["detail"] == "No cell has two valid runs: divergence needs at least two."


def results_section(body: str) -> str:
    return body.split("<h2>Results</h2>")[1].split("<h2>Figures</h2>")[0]


def test_intervals_on_too_few_cells_are_withheld_on_the_page_and_in_the_cli(
    client, researcher, office_suite, sim_models, tmp_path
):
    run = launch_run(
        suite=office_suite,
        models=sim_models[:1],
        repetitions=2,
        tasks=list(office_suite.tasks.all()[:3]),
        enqueue=False,
    )
    execute_inline(run)
    body = report_body(client, researcher, run)
    results = results_section(body)
    # Three cells: a bootstrap or t interval on them would claim far more than it covers.
    assert "not enough evidence for an interval (n = 3; 5 needed)" in results
    assert "(bootstrap)" not in results and "(t)" not in results
    tables = body.split("<h2>Tables</h2>")[1]
    assert "not enough evidence" in tables
    call_command("analysis_report", "--run", str(run.pk), "--out", str(tmp_path), stdout=StringIO())
    header, *rows = (tmp_path / "tables" / "model.csv").read_text().splitlines()
    low = header.split(",").index("tss_ci_low")
    assert [row.split(",")[low] for row in rows] == [""]


def test_a_zero_width_interval_is_withheld_whatever_the_n():
    from patientagentbench.results import findings

    agree = {"estimate": 1.0, "ci_low": 1.0, "ci_high": 1.0, "n": 8}
    stats = {
        "overall": {"tss": {"bootstrap": agree}},
        "tss_vs_ac": {
            "n": 8,
            "difference": {"mean": 0.0, "ci_low": 0.0, "ci_high": 0.0},
            "t": None,
            "reason": "every pair differs by the same amount",
        },
    }
    sections = {s["title"]: s["rows"] for s in findings.report_sections(stats, has_published=False)}
    mean, difference = sections["Consistency"]
    for row in (mean, difference):
        assert row["ci"] == "not enough evidence for an interval: all 8 values are the same"
        assert "95% CI" not in row["ci"]


def test_the_report_of_a_case_set_run_reads_in_words(client, researcher, sim_models):
    from patientagentbench.suites.case_sets import create_case_set
    from tests.readable import raw_identifiers

    suite = create_case_set("readable-cases", 4, seed=5)
    run = launch_run(suite=suite, models=sim_models, repetitions=2, max_turns=8, enqueue=False)
    execute_inline(run)
    body = report_body(client, researcher, run)
    assert "Per care preference" in body  # a table per case attribute, named in words
    assert raw_identifiers(body) == []
