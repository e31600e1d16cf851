"""The agreement dashboards: ratings loaded from current submissions and a panel's verdicts,
the stamp that makes a quiet poll one query, recomputation when a score arrives, each page's
numbers (checked against the agreement module), the CSV and HTML downloads, the planner and a
study's zip. Who may reach them is in test_research_views.py's permission matrix."""

from __future__ import annotations

import csv
import io
import itertools
import json
import re
import zipfile

import pytest
from django.core.cache import cache
from django.urls import reverse

from annotation import adjudication, dashboards
from annotation.dashboards import Filters, PlanRequest
from annotation.pure import agreement, quality_stats
from annotation.reviewing import revise
from annotation.studies import StudySpec, create_study
from patientagentbench.models import CellMetrics
from patientagentbench.roles import RESEARCHER
from tests.annotation.test_research_views import (
    conversations,  # noqa: F401  (a fixture)
    make_clinician,
    submit_scores,
    trace_ids,
    twelve_conversations,
)
from tests.factories import person, rows_for_scope, simulated_models
from tests.jury.conftest import make_panel, qualify, simulated_model, verdict
from tests.readable import visible_text

pytestmark = pytest.mark.django_db
_nonces = itertools.count()
CLINICAL = ("clinical_safety", "triage_quality", "clinical_helpfulness")


def scored_pilot(run, researcher) -> dict:
    """Six conversations of `run`, each scored by the same three clinical clinicians (half of them
    hidden reference items with a reference), and a two-judge panel's verdicts on them."""
    people = [make_clinician(name) for name in ("ana", "ben", "cy")]
    study = create_study(
        StudySpec(
            status="open", name="Dash pilot", overlap={"clinical": 3}, reference_share=0.5, seed=4
        ),
        trace_ids(run, 6),
        people,
        researcher,
    )
    for item in study.items.filter(is_reference=True):
        reference = {key: {"score": 3, "why": "the reference"} for key in CLINICAL}
        adjudication.set_reference(item, reference, researcher)
    for i, item in enumerate(study.items.order_by("pk")):
        for j, rater in enumerate(people):
            safety = 1 + (i + j) % 5
            extra = {"clinical_helpfulness": None} if (i, j) == (0, 0) else {}
            submit_scores(
                item.assignments.get(clinician=rater),
                default=3 + (i % 2),
                clinical_safety=safety,
                conversation_realism=1 + i % 5,
                **extra,
            )
    panel = make_panel("dash-panel", simulated_model("dash-a"), simulated_model("dash-b"))
    first, second = panel.judges.order_by("name")
    traces = list(study.items.order_by("pk").values_list("trace", flat=True))
    for n, trace_id in enumerate(traces):
        trace = run.traces.get(pk=trace_id)
        if n == 5:  # neither judge could answer: unparseable, never a number
            verdict(panel, first, trace, "clinical_safety", "unparseable")
            verdict(panel, second, trace, "clinical_safety", "unparseable")
        else:
            verdict(panel, first, trace, "clinical_safety", score=2)  # mean 2.5 → 3
            verdict(panel, second, trace, "clinical_safety", score=3)
        verdict(panel, first, trace, "triage_quality", "not_applicable")
        verdict(panel, second, trace, "triage_quality", score=4)
    qualify(panel)  # a calibrated panel: the pages offer its envelope verdicts
    return {
        "study": study,
        "people": people,
        "panel": panel,
        "traces": traces,
        "run": run,
    }


@pytest.fixture
def scored(conversations, researcher):  # noqa: F811
    """The pilot for one test, for the tests of other files that add their own rows beside it
    (tests/jury/test_judge_trust.py, tests/config/test_hardening_csp.py)."""
    return scored_pilot(conversations, researcher)


@pytest.fixture(scope="class")
def pilot(django_db_setup, django_db_blocker):
    """The pilot built once for TestPilot: building it (eighteen submissions, a panel's
    verdicts) took 0.45 s a test, for tests that read it or add a row inside their rollback."""
    with rows_for_scope(django_db_blocker):
        run = twelve_conversations(simulated_models())
        yield scored_pilot(run, person("pilot-researcher", RESEARCHER))


def ratings_by(ratings, kind):
    return [r for r in ratings if r.kind == kind]


# --- loading -----------------------------------------------------------------------------------


def test_query_strings_are_read_leniently():
    filters = Filters.from_query({"study": "x", "margin": "7", "attribute": "nonsense"})
    assert (filters.study, filters.margin, filters.attribute) == (None, 1.0, "")
    again = Filters(study=3, margin=0.05, breakdown="model")
    assert Filters.from_query(dict(p.split("=") for p in again.query().split("&"))) == again
    plan = PlanRequest.from_query({"pilot": "2", "items": "30, 1, 60;60", "target": "-1"})
    assert (plan.pilot, plan.items, plan.target) == (2, (30, 60), 0.2)


# --- the stamp and the cache ---------------------------------------------------------------------


# --- the pages ------------------------------------------------------------------------------------


def shown(value: float) -> str:
    return f"{value:.2f}"


def test_correlation_matches_scipy_with_equal_weights_and_says_why_when_it_cannot():
    from scipy import stats

    xs = [0.1, 0.4, 0.35, 0.8, 0.9, 0.7, 0.2, 0.55, 0.6, 0.3, 0.45, 0.75]
    ys = [1, 2, 3, 4, 4, 5, 1, 3, 2, 2, 3, 5]
    points = [(x, y, 1, f"task-{i % 6}") for i, (x, y) in enumerate(zip(xs, ys, strict=True))]
    found = dashboards.correlation(points)
    assert found["pearson"]["value"] == pytest.approx(stats.pearsonr(xs, ys).statistic)
    assert found["spearman"]["value"] == pytest.approx(stats.spearmanr(xs, ys).statistic)
    low, high = found["pearson"]["ci"]
    assert low <= found["pearson"]["value"] <= high
    assert found["pearson"]["reason"] == "12 cells in 6 tasks, 12 scored conversations"  # hover
    assert "task-cluster bootstrap" in found["pearson"]["method"]
    three = dashboards.correlation(points[:3])
    assert three["pearson"]["reason"] == "not enough evidence (3 cells, 3 tasks; 10 needed)"
    assert three["pearson_p"] is None
    flat = dashboards.correlation([(0.5, y, 1, f"task-{i % 6}") for i, y in enumerate(ys)])
    assert flat["pearson"]["value"] is None and "not enough evidence" in flat["pearson"]["reason"]


def _rows(data: dict) -> list[dict]:
    keys = [column["key"] for column in data["columns"]]
    return [dict(zip(keys, row, strict=True)) for row in data["rows"]]


def test_quality_correlations_by_task_weighted_holm_adjusted_with_n_and_method(
    client,
    researcher,
    conversations,  # noqa: F811
):
    """12 cells (6 tasks × 2 models), each scored: numbers for all models, "not enough
    evidence" for each model alone (6 cells), divergence's dropped cells counted, Holm applied."""
    ana = make_clinician("ana")
    study = create_study(
        StudySpec(status="open", name="Quality", overlap={"clinical": 1}),
        trace_ids(conversations),
        [ana],
        researcher,
    )
    for i, item in enumerate(study.items.order_by("trace_id")):
        submit_scores(item.assignments.get(), clinical_safety=1 + (i * 7) % 5)
    for i, cell in enumerate(CellMetrics.objects.filter(run=conversations).order_by("pk")):
        chosen = {"tss": i / 11, "ac": (i * 5 % 12) / 11, "output_exact_match": (i % 3) / 2}
        chosen["divergence_point"] = None if i < 3 else 1.0 + i % 4
        cell.values = cell.values | chosen
        cell.save()
    data = dashboards.page_data("quality", Filters())
    assert data["summary"]["divergence_left_out"] == 3 and data["summary"]["with_tss"] == 12
    rows = _rows(data["tables"]["correlations"])
    overall = {r["metric"]: r for r in rows if r["scope"] == "all models"}
    tss = overall["TSS"]
    assert (tss["n"], tss["tasks"], tss["conversations"]) == (12, 6, 12)
    assert tss["pearson"]["value"] is not None and "task-cluster bootstrap" in tss["interval"]
    assert (
        tss["pearson"]["method"]
        == tss["spearman"]["method"]
        == quality_stats.method_text(dashboards.LIVE_RESAMPLES)
    )
    divergence = overall["Divergence point"]
    assert divergence["n"] == 9 and divergence["left_out"] == "3 where no two runs diverge"
    for row in rows:
        if row["scope"] != "all models":
            shortfall = "not enough evidence (6 cells, 6 tasks; 10 needed)"
            if row["metric"] == "Divergence point":  # 3 of the 12 cells have none
                shortfall = f"not enough evidence ({row['n']} cells, {row['n']} tasks; 10 needed)"
            assert row["pearson"]["reason"] == shortfall
            assert row["pearson_p"] is None and row["pearson_p_holm"] is None
    raw = [(r[f"{k}_p"], r[f"{k}_p_holm"]) for r in rows for k in ("pearson", "spearman")]
    tested = [(p, a) for p, a in raw if p is not None]
    # TSS, AC and output agreement × Pearson and Spearman, all models; divergence has 9 cells.
    assert len(tested) == 6
    shortfall = f"not enough evidence (9 cells, {divergence['tasks']} tasks; 10 needed)"
    assert divergence["pearson"]["reason"] == shortfall
    assert all(p <= a <= 1 for p, a in tested)
    assert any(a > p for p, a in tested)  # adjusted, not copied
    display = data["tables"]["correlations"]["display"]
    titles = [cell["title"] for row in display for cell in row["cells"]]
    assert any("12 cells in 6 tasks, 12 scored conversations" in t for t in titles)
    client.force_login(researcher)
    body = client.get(reverse("research_dashboard_quality")).content.decode()
    assert "Holm" in body and "task-cluster bootstrap" in body
    assert "Divergence point: 3 of 12 cells" in body
    assert "not enough evidence (6 cells, 6 tasks; 10 needed)" in body


def test_a_clinician_scoring_a_conversation_in_two_studies_counts_once(
    researcher,
    conversations,  # noqa: F811
):
    ana = make_clinician("ana")
    trace = trace_ids(conversations, 1)
    for name, safety in (("First", 2), ("Second", 5)):
        study = create_study(
            StudySpec(status="open", name=name, overlap={"clinical": 1}), trace, [ana], researcher
        )
        submit_scores(study.items.get().assignments.get(), clinical_safety=safety)
    (cell,) = _rows(dashboards.page_data("quality", Filters())["tables"]["cells"])
    assert cell["clinical_safety"] == 5  # the latest submission, not the mean of 2 and 5
    assert cell["clinical_safety_conversations"] == 1 and cell["conversations"] == 1


@pytest.mark.usefixtures("fresh_cache")
class TestPilot:
    """The pilot's pages and numbers, on one pilot built for the class (`pilot`); tests that
    add a clinician or a score do it inside their own rollback. Each test starts with an empty
    cache, as each did when it built its own pilot (new rows, a new stamp)."""

    def test_ratings_are_current_clinician_scores_and_the_panel_verdict(self, pilot):
        ds = dashboards.load(Filters())
        ratings = ds.ratings()
        clinicians = ratings_by(ratings, agreement.CLINICIAN)
        assert len(clinicians) == 6 * 3 * 5  # conversations × clinicians × (3 clinical + 2 realism)
        assert {r.item for r in clinicians} == {str(t) for t in pilot["traces"]}
        assert {r.rater for r in clinicians} == {p.code for p in pilot["people"]}
        (na,) = [r for r in clinicians if r.score is None]
        assert (na.status, na.dimension) == (agreement.NOT_APPLICABLE, "clinical_helpfulness")

        jury = {(int(r.item), r.dimension): r for r in ratings_by(ratings, agreement.JURY)}
        first, last = pilot["traces"][0], pilot["traces"][5]
        # (2 + 3) / 2: the figures get the mean itself (shown rounded half up, 3)
        assert jury[(first, "clinical_safety")].score == 2.5
        assert ds.jury.scores[(first, "clinical_safety")] == (3, "ok", 2.5)
        assert jury[(last, "clinical_safety")].score is None
        assert jury[(last, "clinical_safety")].status == "unparseable"
        assert jury[(first, "triage_quality")].score == 4  # the judge who said N/A is left out
        assert ds.jury.label == "panel dash-panel"

    def test_a_revised_score_counts_once_at_its_new_value(self, pilot):
        study, ana = pilot["study"], pilot["people"][0]
        assignment = ana.assignments.filter(item__study=study).order_by("item").first()
        answer = {"scores": {k: 5 for k in assignment.submissions.get().scores}, "why": {}}
        revise(assignment, answer, "misread the transcript", "rev-1", 10, ana.user)
        ratings = dashboards.load(Filters()).ratings(jury=False)
        mine = [
            r for r in ratings if r.rater == ana.code and r.item == str(assignment.item.trace_id)
        ]
        assert len(mine) == 5 and {r.score for r in mine} == {5}

    def test_filters_narrow_the_ratings(self, pilot):
        run = pilot["run"]
        models = dashboards.load(Filters(model="sim-steady"))
        steady = set(run.traces.filter(model_name="sim-steady").values_list("pk", flat=True))
        assert models.conversations and set(models.conversations) <= steady
        assert dashboards.load(Filters(study=pilot["study"].pk)).conversations.keys() == set(
            pilot["traces"]
        )
        assert not dashboards.load(Filters(run=run.pk + 1000)).scores

        some = next(iter(dashboards.load(Filters()).conversations.values()))
        key, value = "category", some.attributes["category"]
        narrowed = dashboards.load(Filters(attribute=f"{key}={value}"))
        assert narrowed.conversations and all(
            value in c.values_of(key) for c in narrowed.conversations.values()
        )

    def test_one_judge_alone_can_be_the_jury(self, pilot):
        first = pilot["panel"].judges.order_by("name").first()
        ds = dashboards.load(Filters(panel=pilot["panel"].pk, judge=first.pk))
        assert ds.jury.label == f"{first.name} alone (panel dash-panel)"
        assert ds.jury.scores[(pilot["traces"][0], "clinical_safety")][0] == 2
        assert ds.jury.scores[(pilot["traces"][0], "triage_quality")][:2] == (
            None,
            "not_applicable",
        )

    def test_the_summary_counts_left_out_jury_scores_in_words(self, pilot):
        from annotation.dashboards.common import page_summary

        first = pilot["panel"].judges.order_by("name").first()  # the one who said N/A
        alone = dashboards.load(Filters(panel=pilot["panel"].pk, judge=first.pk))
        left_out = page_summary(alone)["jury_left_out"]
        assert "not applicable" in left_out and not any("_" in status for status in left_out)

    def test_a_warm_poll_costs_one_query(self, pilot, django_assert_num_queries):
        dashboards.page_data("jury", Filters())
        with django_assert_num_queries(1):
            dashboards.page_data("jury", Filters())

    def test_a_quiet_htmx_poll_is_204_after_one_query_of_its_own(
        self, client, researcher, pilot, django_assert_max_num_queries
    ):
        client.force_login(researcher)
        url = reverse("research_dashboard_jury")
        page = client.get(url)
        assert "HX-Request" in page["Vary"]
        poll = f"{url}?stamp={dashboards.stamp()}"
        # Session, user and roles are the login's; the stamp is the dashboard's only query.
        with django_assert_max_num_queries(4):
            quiet = client.get(poll, headers={"HX-Request": "true"})
        assert quiet.status_code == 204 and quiet.content == b""

    def test_a_new_submission_changes_the_stamp_and_the_numbers(self, client, researcher, pilot):
        before = dashboards.page_data("jury", Filters())
        stamp = dashboards.stamp()
        study = pilot["study"]
        extra = make_clinician("dee")
        item = study.items.order_by("pk").first()
        assignment = item.assignments.create(clinician=extra, tracks=["clinical"], position=9)
        submit_scores(assignment, default=2)
        assert dashboards.stamp() != stamp
        after = dashboards.page_data("jury", Filters())
        summary = before["summary"], after["summary"]
        assert summary[1]["clinician_scores"] == summary[0]["clinician_scores"] + 5
        assert summary[1]["clinicians"] == 4

        client.force_login(researcher)
        url = reverse("research_dashboard_jury")
        poll = client.get(f"{url}?stamp={stamp}", headers={"HX-Request": "true"})
        assert poll.status_code == 200
        body = poll.content.decode()
        assert body.lstrip().startswith('<div id="live"') and "<html" not in body
        assert f"stamp={dashboards.stamp()}" in body
        assert f">{after['summary']['clinician_scores']}</b>" in body

    def test_while_one_request_recomputes_other_polls_get_the_previous_numbers(self, pilot):
        shown = dashboards.page_data("jury", Filters())
        extra = make_clinician("dee")
        item = pilot["study"].items.order_by("pk").first()
        submit_scores(item.assignments.create(clinician=extra, tracks=["clinical"], position=9))
        base = f"dashboards:v{dashboards.DATA_VERSION}:jury:{Filters().digest()}"
        cache.add(f"{base}:computing", "another request", 60)
        try:
            meanwhile = dashboards.page_data("jury", Filters())
        finally:
            cache.delete(f"{base}:computing")
        assert meanwhile["stamp"] == shown["stamp"] != dashboards.stamp()
        fresh = dashboards.page_data("jury", Filters())
        assert fresh["stamp"] == dashboards.stamp()
        assert fresh["summary"]["clinicians"] == 4

    def test_a_reference_edit_moves_the_stamp(self, pilot, researcher):
        stamp = dashboards.stamp()
        item = pilot["study"].items.filter(is_reference=True).first()
        reference = {key: {"score": 4, "why": "rethought"} for key in CLINICAL}
        adjudication.set_reference(item, reference, researcher)
        assert dashboards.stamp() != stamp

    def test_jury_page_shows_the_module_s_numbers(self, client, researcher, pilot):
        client.force_login(researcher)
        response = client.get(reverse("research_dashboard_jury") + "?margin=0.15&breakdown=model")
        assert response.status_code == 200
        body = response.content.decode()
        ds = dashboards.load(Filters(margin=0.15))
        expected = agreement.agreement(
            ds.ratings(), margin=0.15, n_resamples=dashboards.LIVE_RESAMPLES
        )["clinical_safety"]
        envelope = expected.envelope
        assert envelope.n_items == 5  # the unparseable conversation has no jury score
        figures = (
            envelope.jury_adjacent,
            envelope.clinician_adjacent,
            envelope.adjacent_difference,
            envelope.jury_kappa,
            envelope.kappa_difference,
        )
        for estimate in figures:
            assert shown(estimate.value) in body
            if estimate.ci:
                assert f"[{shown(estimate.low)}, {shown(estimate.high)}]" in body
        assert "Verdict (margin ±0.15)" in body
        # Five items are not evidence: the page opens by saying so, dimension by dimension.
        assert envelope.verdict == agreement.NOT_ENOUGH
        assert "Jury inside the clinicians&#x27; envelope on 0 of " in body
        assert "not enough evidence on Clinical safety" in body and "(5 items; 30 needed)" in body
        assert (
            "inside the human envelope"
            not in body.split('data-testid="envelope-headline"')[1][:300]
        )
        assert shown(expected.modes["every_pair"].weighted_kappa.value) in body
        assert "CIs from 500 resamples" in body
        assert "Jury vs clinicians by model" in body and "sim-steady" in body
        assert 'data-testid="figure-scatter"' in body and 'data-testid="figure-confusion"' in body
        assert body.count("data-plotly-figure=") == 3  # scatter, confusion matrices, the breakdown
        assert "vendor/plotly/plotly-cartesian.min.js" in body
        assert 'hx-trigger="every 5s"' in body

    def test_every_table_downloads_as_csv_and_every_figure_as_html(self, client, researcher, pilot):
        client.force_login(researcher)
        for page in dashboards.LIVE_PAGES:
            filters = Filters(breakdown="model") if page == "jury" else Filters()
            query = f"?{filters.query()}" if filters.query() else ""
            data = dashboards.page_data(page, filters)
            for name, table in data["tables"].items():
                response = client.get(
                    reverse("research_dashboard_table", args=[page, name]) + query
                )
                assert response.status_code == 200, (page, name)
                assert response["Content-Disposition"].endswith(f'{page}-{name}.csv"')
                rows = list(csv.reader(io.StringIO(response.content.decode())))
                assert len(rows) == len(table["rows"]) + 1, (page, name)
            for name in data["figures"]:
                response = client.get(
                    reverse("research_dashboard_figure", args=[page, name]) + query
                )
                assert response.status_code == 200, (page, name)
                document = response.content.decode()
                assert "<html>" in document[:200] and "Plotly.newPlot" in document
                assert '"toImageButtonOptions"' in document  # the camera button saves a PNG
        missing = client.get(reverse("research_dashboard_table", args=["jury", "nothing"]))
        assert missing.status_code == 404

    def test_the_envelope_csv_has_the_interval_columns(self, client, researcher, pilot):
        client.force_login(researcher)
        response = client.get(reverse("research_dashboard_table", args=["jury", "envelope"]))
        rows = list(csv.DictReader(io.StringIO(response.content.decode())))
        assert {"jury_adjacent", "jury_adjacent_ci_low", "jury_adjacent_ci_high", "verdict"} <= set(
            rows[0]
        )
        safety = next(r for r in rows if r["dimension"] == "Clinical safety")
        assert safety["items"] == "5"
        assert safety["verdict"] == agreement.NOT_ENOUGH and safety["why"] == "5 items; 30 needed"
        assert {"jury_kappa", "kappa_difference_ci_low", "kappa_difference_ci_high"} <= set(safety)

    def test_raters_page_alpha_matrix_drift_and_realism(self, client, researcher, pilot):
        client.force_login(researcher)
        response = client.get(reverse("research_dashboard_raters") + "?realism_by=category")
        assert response.status_code == 200
        body = response.content.decode()
        data = dashboards.page_data("raters", Filters(realism_by="category"))
        result = agreement.agreement(
            dashboards.load(Filters()).ratings(), n_resamples=dashboards.LIVE_RESAMPLES
        )["clinical_safety"]
        assert shown(result.alpha.ordinal.value) in body
        assert shown(result.alpha_with_jury.ordinal.value) in body
        assert "Dash pilot" in body

        matrix = data["tables"]["matrix"]["rows"]
        assert len(matrix) == 3 * 5  # three pairs of clinicians × five dimensions
        drift = data["tables"]["drift"]["rows"]
        assert len(drift) == 3  # every clinician pilot the three hidden reference items
        hidden = pilot["study"].items.filter(is_reference=True)
        first = pilot["study"].items.order_by("pk").first()
        skipped = int(first in hidden)  # ana's not-applicable helpfulness is not a comparison
        assert sum(row[1] for row in drift) == 3 * 3 * len(hidden) - skipped
        cases = data["tables"]["least_realistic"]["rows"]
        distinct = {c.case for c in dashboards.load(Filters()).conversations.values()}
        assert len(cases) == len(distinct) and cases[0][2] <= cases[-1][2]  # least realistic first
        for rater in pilot["people"]:
            assert rater.code in body
        assert "ana@example.org" not in body  # clinicians appear by code only

    def test_quality_page_cells_outcomes_and_jury_by_model(self, client, researcher, pilot):
        run = pilot["run"]
        client.force_login(researcher)
        response = client.get(reverse("research_dashboard_quality"))
        assert response.status_code == 200
        data = dashboards.page_data("quality", Filters())
        assert len(data["tables"]["cells"]["rows"]) == 6
        graded = run.traces.filter(pk__in=pilot["traces"], correct__isnull=False).count()
        outcomes = data["tables"]["outcomes"]
        # Only the clinical track pilot: task completion has no row, clinical safety has three.
        assert [row[:2] for row in outcomes["rows"]] == [
            ["Clinical safety", "all models"],
            ["Clinical safety", "sim-jittery"],
            ["Clinical safety", "sim-steady"],
        ]
        assert outcomes["rows"][0][2] == graded
        assert "by_model" in data["tables"]
        assert "Automatic outcome checks vs clinicians" in response.content.decode()

    def test_planner_recommends_from_a_pilot(self, client, researcher, pilot):
        client.force_login(researcher)
        study = pilot["study"]
        form = client.get(reverse("research_dashboard_planner"))
        assert "Dash pilot (study, open)" in form.content.decode()
        query = f"?pilot={study.pk}&items=6,8&clinicians=3,5&overlaps=2,3"
        url = reverse("research_dashboard_planner") + query
        response = client.get(url, headers={"HX-Request": "true"})
        assert response.status_code == 200
        body = response.content.decode()
        assert 'id="result"' in body and "<html" not in body
        request = PlanRequest(pilot=study.pk, items=(6, 8), clinicians=(3, 5), overlaps=(2, 3))
        plan = dashboards.plan_data(request)
        designs = plan["tables"]["designs"]["rows"]
        # Fewest clinician scores first, then fewest clinicians: items × clinicians × per item.
        assert [tuple(row[:3]) for row in designs] == [
            (6, 3, 2), (6, 5, 2), (8, 3, 2), (8, 5, 2), (6, 3, 3), (6, 5, 3), (8, 3, 3), (8, 5, 3)
        ]  # fmt: skip
        # What the plan assumes, and how many clinicians each verdict needs, are said.
        assert 'data-testid="plan-assumptions"' in body and "Satterthwaite" in body
        assert 'data-testid="plan-advice"' in body and "clinicians" in plan["advice"][0]["text"]
        # No design of fewer items than an interval needs (the pages would show none).
        assert PlanRequest.from_query({"items": "4, 8"}).items == (8,)
        assert 'data-testid="recommended"' in body
        assert plan["quantile"] == 0.8 and "80%" in body

    def test_the_planner_warns_on_a_small_pilot_and_says_why_a_width_is_missing(
        self, client, researcher, pilot
    ):
        client.force_login(researcher)
        study = pilot["study"]
        url = reverse("research_dashboard_planner")
        query = f"?pilot={study.pk}&items=6,8&clinicians=4&overlaps=2,4&quantile=90"
        body = client.get(url + query).content.decode()
        assert '<option value="0.9" selected>' in body
        assert 'data-testid="pilot-warning"' in body and "only 6 items" in body
        assert "no pilot item has 4 clinicians" in body
        plan = dashboards.plan_data(
            PlanRequest.from_query(
                {
                    "pilot": study.pk,
                    "items": "6, 8",
                    "clinicians": "4",
                    "overlaps": "2, 4",
                    "quantile": "0.9",
                }
            )
        )
        assert plan["quantile"] == 0.9 and plan["warning"]
        for name in ("designs", "plan"):
            data = plan["tables"][name]
            keys = [c["key"] for c in data["columns"]]
            why = keys.index("missing" if name == "designs" else "note")
            for raw, shown in zip(data["rows"], data["display"], strict=True):
                cells = list(zip(data["columns"], shown["cells"], strict=True))
                dashes = [(col["kind"], c) for col, c in cells if c["text"] == "—"]
                # Every dash says why: a width in its cell, and each in the row's reason column.
                assert all(c["title"] for kind, c in dashes if kind == "est"), (name, raw)
                assert not dashes or raw[why], (name, raw)
        # Clinicians who always agree give alpha 1 in every resample: no 0.00 line is drawn,
        # and a chart with nothing to draw is not shown empty.
        assert "0 by construction" in body
        assert plan["figures"] == {} and 'data-testid="no-chart"' in body
        # Each reason is said once, numbered; the rows refer to it.
        assert plan["reasons"]
        shown = visible_text(body)
        for reason in plan["reasons"]:
            assert shown.count(reason["text"]) == 1, reason["text"]
        assert any(row[-1].startswith("reason") for row in plan["tables"]["designs"]["rows"])
        csv_response = client.get(
            reverse("research_dashboard_table", args=["planner", "designs"])
            + f"?pilot={study.pk}&items=4,8&overlaps=2,3"
        )
        assert csv_response.status_code == 200
        assert (
            client.get(reverse("research_dashboard_table", args=["planner", "designs"])).status_code
            == 404
        )

    def test_the_planner_at_its_form_bounds_refuses_with_a_clear_message(
        self, client, researcher, pilot
    ):
        client.force_login(researcher)
        query = f"?pilot={pilot['study'].pk}&items=4993..5000&clinicians=43..50&overlaps=13..20"
        query = query.replace("4993..5000", ",".join(map(str, range(4993, 5001))))
        query = query.replace("43..50", ",".join(map(str, range(43, 51))))
        query = query.replace("13..20", ",".join(map(str, range(13, 21))))
        response = client.get(reverse("research_dashboard_planner") + query)
        assert response.status_code == 200
        body = response.content.decode()
        assert 'data-testid="plan-refused"' in body and "too big for one request" in body
        assert 'data-testid="recommended"' not in body

    def test_a_study_downloads_as_one_zip(self, client, researcher, pilot):
        client.force_login(researcher)
        study = pilot["study"]
        response = client.get(reverse("research_study_bundle", args=[study.pk]))
        assert response.status_code == 200 and response["Content-Type"] == "application/zip"
        bundle = zipfile.ZipFile(io.BytesIO(response.content))
        names = set(bundle.namelist())
        expected = {
            "README.txt",
            "scores.csv",
            "agreement.json",
            "tables/jury-envelope.csv",
            "tables/jury-breakdown.csv",
            "tables/raters-alpha.csv",
            "tables/quality-outcomes.csv",
            "figures/jury-scatter.html",
            "figures/raters-drift.html",
            "figures/plotly.min.js",
        }
        assert expected <= names
        readme = bundle.read("README.txt").decode()
        for name in names - {"README.txt", "figures/plotly.min.js"}:
            assert name.split("/")[-1] in readme, name
        scores = list(csv.DictReader(io.StringIO(bundle.read("scores.csv").decode())))
        assert len(scores) == 6 * 3 * 5
        figure = bundle.read("figures/jury-scatter.html").decode()
        assert 'src="plotly.min.js"' in figure
        assert "Dash pilot" in readme

    def test_the_dashboards_link_is_on_the_studies_page(self, client, researcher, pilot):
        client.force_login(researcher)
        body = client.get(reverse("research_studies")).content.decode()
        assert reverse("research_dashboards") in body

    def test_the_alpha_table_leads_with_values_and_sums_up_what_cannot_be_computed(
        self,
        client,
        researcher,
        pilot,
    ):
        run = pilot["run"]
        solo = make_clinician("dee")
        study = create_study(
            StudySpec(status="open", name="Solo round", overlap={"clinical": 1}, seed=5),
            trace_ids(run, 6)[:2],
            [solo],
            researcher,
        )
        for item in study.items.all():
            submit_scores(item.assignments.get(clinician=solo), default=3)
        client.force_login(researcher)
        body = client.get(reverse("research_dashboard_raters")).content.decode()
        data = dashboards.page_data("raters", Filters())
        alpha = data["tables"]["alpha"]
        ordinal = [c["key"] for c in alpha["columns"]].index("alpha_ordinal")
        assert alpha["rows"] and all(row[ordinal]["value"] is not None for row in alpha["rows"])
        hidden = data["tables"]["alpha_not_computable"]["rows"]
        assert hidden and {row[0] for row in hidden} == {"Solo round"}
        line = alpha["not_computable"]
        assert line.startswith(f"{len(hidden)} not computable (")
        assert "fewer than 2 raters gave scores" in line and line in body
        assert 'data-testid="alpha-not-computable"' in body

    def test_filters_and_the_realism_chart_read_as_words(self, client, researcher, pilot):
        """Found 7: raw `age = 27` / `traits.health_literacy = high` options and snake_case axis
        labels. Options are grouped per attribute, ages in bands, values and axes in words."""
        client.force_login(researcher)
        url = reverse("research_dashboard_raters") + "?realism_by=subtask"
        body = client.get(url).content.decode()
        assert '<optgroup label="Subtask">' in body and '<optgroup label="Age">' in body
        assert ">Health literacy: " in body
        labels = re.findall(r'<option value="[^"]*=[^"]*"[^>]*>([^<]*)</option>', body)
        assert labels and not [t for t in labels if "_" in t or "=" in t or "traits." in t]
        assert not [t for t in labels if re.fullmatch(r"Age: \d+", t)]  # bands, never one year
        assert "Realism by case subtask" in body

        data = dashboards.page_data("raters", Filters(realism_by="subtask"))
        traces = json.loads(data["figures"]["realism"]["json"])["data"]
        axis = {y for trace in traces for y in trace["y"]}
        subtasks = {
            c.attributes["subtask"] for c in dashboards.load(Filters()).conversations.values()
        }
        assert any("_" in s for s in subtasks)  # the raw values do hold snake_case
        assert axis and not [y for y in axis if "_" in y]
        assert {row[0] for row in data["tables"]["realism"]["rows"]} == axis

    def test_a_banded_age_filter_narrows_the_conversations(self, pilot):
        everyone = dashboards.load(Filters()).conversations.values()
        band = next(iter(everyone)).attributes["age"]
        assert band in {"under-18", "18-29", "30-44", "45-64", "65+"}
        narrowed = dashboards.load(Filters(attribute=f"age={band}")).conversations.values()
        assert narrowed and all(c.attributes["age"] == band for c in narrowed)

    def test_breakdown_groups_and_heading_read_as_words(self, pilot):
        data = dashboards.page_data("jury", Filters(breakdown="attr:subtask"))
        table = data["tables"]["breakdown"]
        assert table["columns"][0]["label"] == "Subtask"
        assert table["rows"] and not [row for row in table["rows"] if "_" in row[0]]
