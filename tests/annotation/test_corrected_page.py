"""The jury-corrected page (/research/dashboards/corrected/): a study drawn at random records its
population and inclusion probabilities; the page shows each model's mean three ways with n and
method, refuses a study not sampled at random (with the reason) and too few scores, downloads
its tables, and stays researcher-only."""

from __future__ import annotations

import csv
import io

import pytest
from django.urls import reverse

from annotation.models import Item
from annotation.pure.corrected import MIN_LABELLED
from annotation.pure.sampling import PER_MODEL
from annotation.studies import StudySpec, create_study, reviewable_traces, sample_for
from patientagentbench.suites.case_sets import create_case_set
from tests.annotation.test_research_views import make_clinician, submit_scores
from tests.finished_runs import simulated_run
from tests.jury.conftest import make_panel, simulated_model, verdict

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fresh_cache")]
URL = "research_dashboard_corrected"


@pytest.fixture
def population(sim_models):
    """36 finished conversations per model (12 cases × 3 repetitions × 2 models)."""
    suite = create_case_set("corrected-cases", 12, seed=3)
    return simulated_run(suite=suite, models=sim_models, max_turns=4, repetitions=3)


def safety(trace_id: int) -> int:
    return 1 + trace_id % 5


def jury_on_everything(run) -> None:
    """A two-judge panel scoring clinical safety on every conversation, a point too kind."""
    panel = make_panel("corr-panel", simulated_model("corr-a"), simulated_model("corr-b"))
    first, second = panel.judges.order_by("name")
    for trace in run.traces.all():
        verdict(panel, first, trace, "clinical_safety", score=min(5, safety(trace.pk) + 1))
        verdict(panel, second, trace, "clinical_safety", score=min(5, safety(trace.pk) + 1))


def random_study(researcher, n: int = 24, score: int | None = None):
    """The same number from each model, at random; its items scored (all, or the first
    `score`) by one clinical clinician who agrees with the ground truth `safety`."""
    sample = sample_for(reviewable_traces(), n, seed=7, design=PER_MODEL)
    person = make_clinician("pia")
    study = create_study(
        StudySpec(status="open", name="Random share", overlap={"clinical": 1}, seed=7),
        [int(k) for k in sample.keys],
        [person],
        researcher,
        sample,
    )
    for item in list(study.items.order_by("pk"))[:score]:
        submit_scores(item.assignments.get(), clinical_safety=safety(item.trace_id))
    return study


def page(client, researcher, study, **extra):
    client.force_login(researcher)
    query = {"study": study.pk} | extra
    return client.get(reverse(URL), query)


def test_a_random_study_records_its_population_and_inclusion(population, researcher):
    study = random_study(researcher, score=0)
    assert study.sampling["design"] == PER_MODEL
    assert len(study.sampling["population"]) == 72
    assert {p for _, p, _ in study.sampling["population"]} == {12 / 36}
    items = Item.objects.filter(study=study)
    assert items.count() == 24
    assert set(items.values_list("inclusion_probability", flat=True)) == {12 / 36}
    assert set(items.values_list("stratum", flat=True)) == {"sim-steady", "sim-jittery"}


def test_the_page_shows_the_three_estimates_with_n_and_method(client, population, researcher):
    jury_on_everything(population)
    study = random_study(researcher)
    response = page(client, researcher, study)
    assert response.status_code == 200
    text = response.content.decode()
    for words in (
        "Jury only (its own scale, not corrected)",
        "Clinicians only",
        "Jury corrected by clinicians (PPI++)",
        "Worth n clinician labels",
        "PPI++, t interval (11 df), λ =",
        "t interval",
    ):
        assert words in text
    means = response.context["data"]["tables"]["means"]
    rows = {
        (r[0], r[1]): dict(zip([c["key"] for c in means["columns"]], r, strict=True))
        for r in means["rows"]
    }
    steady = rows[("sim-steady", "Clinical safety")]
    assert steady["n"] == 12 and steady["population"] == 36
    truth = sum(safety(t.pk) for t in population.traces.filter(model_name="sim-steady")) / 36
    jury = steady["jury"]["value"]
    assert jury > truth + 0.5  # the jury is a point too kind (capped at 5)
    low, high = steady["ppi"]["ci"]
    assert low <= truth <= high  # the correction takes the kindness back out
    assert steady["effective"] > 12  # a jury this close to the clinicians is worth labels
    assert 'data-testid="figure-means"' in text and 'data-testid="table-pass"' in text


def test_too_few_scores_is_not_enough_evidence(client, population, researcher):
    jury_on_everything(population)
    study = random_study(researcher, score=MIN_LABELLED - 2)
    means = page(client, researcher, study).context["data"]["tables"]["means"]
    keys = [c["key"] for c in means["columns"]]
    for row in means["rows"]:
        found = dict(zip(keys, row, strict=True))
        assert found["ppi"]["value"] is None
        assert "not enough evidence" in found["ppi"]["reason"]
        assert found["jury"]["value"] is not None


def test_a_study_not_sampled_at_random_is_refused_with_the_reason(client, population, researcher):
    jury_on_everything(population)
    ids = list(population.traces.order_by("pk").values_list("pk", flat=True))[:12]
    study = create_study(
        StudySpec(status="open", name="Extremes", overlap={"clinical": 1}),
        ids,
        [make_clinician("quinn")],
        researcher,
        sample_for(reviewable_traces(), 12, seed=1),
    )
    response = page(client, researcher, study)
    text = response.content.decode()
    assert 'data-testid="refusal"' in text
    assert "extremes-first" in text and "not at random" in text
    assert 'data-testid="table-means"' not in text


def test_a_study_made_before_designs_were_recorded_is_refused(client, population, researcher):
    ids = list(population.traces.values_list("pk", flat=True))[:12]
    spec = StudySpec(status="open", name="Old", overlap={"clinical": 1})
    study = create_study(spec, ids, [make_clinician("rae")], researcher)
    study.sampling = {}
    study.save()
    text = page(client, researcher, study).content.decode()
    assert "recorded no design" in text


def test_the_tables_download_as_csv(client, population, researcher):
    jury_on_everything(population)
    study = random_study(researcher)
    client.force_login(researcher)
    url = reverse("research_dashboard_table", args=["corrected", "means"])
    response = client.get(url, {"study": study.pk})
    assert response.status_code == 200
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    assert {"ppi", "ppi_ci_low", "ppi_ci_high", "clinicians", "jury", "n"} <= set(rows[0])
    assert {r["model"] for r in rows} == {"all models", "sim-steady", "sim-jittery"}


def test_clinicians_cannot_reach_the_page(client, population, researcher, clinician):
    study = random_study(researcher, score=0)
    client.force_login(clinician)
    assert client.get(reverse(URL), {"study": study.pk}).status_code == 403


def test_a_study_without_scores_yet_says_so(client, population, researcher):
    jury_on_everything(population)
    study = random_study(researcher, score=0)
    text = page(client, researcher, study).content.decode()
    assert "No clinician has scored" in text and 'data-testid="table-means"' not in text


def test_a_sample_of_the_jurys_lowest_recorded_as_uniform_is_refused_on_the_page(
    client, population, researcher
):
    """Issue 35: a study whose items are the jury's 24 lowest-scored conversations but whose
    sampling says "uniform" — the design alone would let it through; the balance check of
    the jury's mean on the sample against the population's refuses it, with the figures."""
    jury_on_everything(population)
    traces = list(population.traces.all())
    lowest = sorted(traces, key=lambda t: (min(5, safety(t.pk) + 1), t.pk))[:24]
    person = make_clinician("lowe")
    study = create_study(
        StudySpec(status="open", name="Lowest as uniform", overlap={"clinical": 1}, seed=7),
        [t.pk for t in lowest],
        [person],
        researcher,
        sample_for(reviewable_traces(), 24, seed=7, design="uniform"),
    )
    for item in study.items.all():
        submit_scores(item.assignments.get(), clinical_safety=safety(item.trace_id))
    response = page(client, researcher, study)
    data = response.context["data"]
    assert data["summary"]["design"] == "uniform"
    means = data["tables"]["means"]
    keys = [c["key"] for c in means["columns"]]
    everyone = next(dict(zip(keys, r, strict=True)) for r in means["rows"] if r[0] == "all models")
    assert everyone["ppi"]["value"] is None and everyone["clinicians"]["value"] is None
    assert everyone["jury"]["value"] is not None
    assert "does not look random" in everyone["ppi"]["reason"]
    notes = " ".join(data["notes"])
    assert "all models, Clinical safety, mean: Refused: the jury's mean on the 24" in notes
    assert "does not look random" in response.content.decode()
