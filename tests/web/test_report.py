"""The analysis report page, its downloads and the analysis_report CLI."""

import json
from io import StringIO

import pytest
from django.core.management import call_command
from django.urls import reverse

from patientagentbench.runs.launch import execute_inline, launch_run

pytestmark = pytest.mark.django_db


@pytest.fixture
def finished_run(office_suite, sim_models):
    run = launch_run(suite=office_suite, models=sim_models, repetitions=3, enqueue=False)
    execute_inline(run)
    return run


def test_report_page_shows_tables_figures_tests_and_published_values(
    client, researcher, finished_run
):
    client.force_login(researcher)
    body = client.get(reverse("run_report", args=[finished_run.pk])).content.decode()
    assert body.count('class="plotly-graph-div"') == 7
    assert "Published values (the seed paper" in body and "gpt-4.1-mini" in body
    assert "Headline figures" in body and "mean_tss" in body
    assert "Linear mixed model" in body
    assert "/static/vendor/plotly/plotly.min.js" in body and "cdn" not in body.lower()


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
