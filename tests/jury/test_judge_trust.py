"""Issue 21: a judge earns trust as a clinician does. A scripted judge that is perfectly
consistent but reads the outcome checks backwards (`sim-judge-inverted`) must be flagged on the
judge page, fail a calibration round, and not be offered the envelope verdict."""

import csv
import io
import re

import pytest
from django.urls import reverse

from annotation.pure import agreement
from annotation.pure.envelope import OVERRIDDEN, OVERRIDDEN_INVERTS, WITHHELD, WITHHELD_INVERTS
from jury import verdicts
from jury.qualification import standing
from jury.scoring import execute_inline, launch_jury
from patientagentbench.models import Trace
from patientagentbench.suites.case_sets import create_case_set
from ratings.rubric import cached_rubric
from tests.annotation.test_dashboards import scored  # noqa: F401  (a fixture)
from tests.annotation.test_research_views import conversations  # noqa: F401  (a fixture)
from tests.finished_runs import simulated_run
from tests.jury.conftest import make_panel, simulated_model
from tests.readable import raw_identifiers

pytestmark = pytest.mark.django_db
SCORED = [d.key for d in cached_rubric().scored]


@pytest.fixture
def checked_run(sim_models):
    """Eight cases × two agents: sixteen conversations, half passing their outcome checks. At
    AUC 1 six per group decide validity; eight leave room for the simulated judge's occasional
    N/A or unparseable answer on every dimension but triage (often not applicable)."""
    cases = create_case_set("trust-cases", 8, 4)
    run = simulated_run(suite=cases, models=sim_models, repetitions=1, max_turns=8)
    for i, trace in enumerate(run.traces.order_by("pk")):
        Trace.objects.filter(pk=trace.pk).update(correct=i % 2 == 0)
    return run


def scored_by(panel, run, repeat=2):
    jury_run = launch_jury(panel=panel, run=run, repeat=repeat, enqueue=False)
    execute_inline(jury_run)
    return jury_run


@pytest.fixture
def inverted_panel(db):
    return make_panel("inverted", simulated_model("sim-judge-inverted"))


def test_the_judge_page_warns_that_a_consistent_judge_inverts(
    client, researcher, checked_run, inverted_panel
):
    scored_by(inverted_panel, checked_run)
    client.force_login(researcher)
    body = client.get(reverse("jury_consistency", args=[inverted_panel.pk])).content.decode()
    assert 'data-testid="validity-warning"' in body
    assert "Consistency is not correctness" in body
    assert "Consistent (test–retest exact 100%) but inverted" in body
    # Triage is often not applicable, so it may have too few conversations to tell.
    assert re.search(r"separates on 0 of 6 dimensions, inverts on [56];", body)


def test_an_honest_judge_is_warned_only_where_there_is_too_little_evidence(
    client, researcher, checked_run
):
    panel = make_panel("honest", simulated_model("sim-judge-a"))
    scored_by(panel, checked_run)
    client.force_login(researcher)
    body = client.get(reverse("jury_consistency", args=[panel.pk])).content.decode()
    assert 'data-testid="validity"' in body and "separates" in body
    assert "Inverted" not in body and "but inverted" not in body
    # Triage is often not applicable: too few conversations there to tell, and it says so.
    warned = re.findall(r"<li><b>honest-judge-0</b>, ([^:]+):", body)
    assert warned == ["Triage quality"] * len(warned)


def calibration_round(run, name="Round 1", min_exact=0.5, min_adjacent=0.8):
    """Every conversation of the run as a reference item whose reference agrees with its
    outcome checks: 4 where they passed, 2 where they failed, on every scored dimension."""
    return calibration_round_of(
        run.traces.values_list("pk", flat=True),
        name,
        min_exact=min_exact,
        min_adjacent=min_adjacent,
    )


def calibrated(panel, round_):
    from annotation import judge_calibration

    for jury_run in judge_calibration.launch(panel, round_):
        execute_inline(jury_run)
    return judge_calibration.record(panel, round_)


def test_a_consistent_but_inverted_judge_fails_its_calibration_round(checked_run, inverted_panel):
    round_ = calibration_round(checked_run)
    records = calibrated(inverted_panel, round_)
    judge = inverted_panel.judges.get()
    mine = [r for r in records if r.judge == judge]
    assert {r.track for r in mine} == {"clinical", "operations"}
    assert not any(r.passed for r in records)
    safety = next(r for r in mine if r.track == "clinical").results["clinical_safety"]
    assert safety["passed"] is False and safety["exact"] == 0.0 and safety["n"] == 16
    assert "exact agreement 0.00 is below 0.50" in safety["reason"]
    assert standing(inverted_panel).text.startswith("Not qualified: Panel inverted")


def test_an_honest_judge_passes_and_the_record_is_never_rewritten(checked_run):
    panel = make_panel("honest", simulated_model("sim-judge-a"))
    # The references are coarse (4 or 2 throughout, where a real reference is graded), so
    # the round asks only that most scores lie within one of them.
    round_ = calibration_round(checked_run, min_exact=0.0, min_adjacent=0.5)
    first = calibrated(panel, round_)
    assert standing(panel).fully_qualified, [(r.rater, r.track, r.results) for r in first]
    again = calibrated(panel, round_)
    assert [(r.pk, r.at, r.results) for r in again] == [(r.pk, r.at, r.results) for r in first]


def test_editing_a_prompt_takes_the_judge_out_of_qualification(checked_run):
    panel = make_panel("honest", simulated_model("sim-judge-a"))
    calibrated(panel, calibration_round(checked_run, min_exact=0.0, min_adjacent=0.5))
    assert standing(panel).fully_qualified
    judge = panel.judges.get()
    judge.prompt_version = "2"
    judge.save()
    assert not standing(panel).fully_qualified
    assert not standing(panel, judge).fully_qualified


# --- the envelope verdict is offered only for a qualified panel ----------------------------------


@pytest.fixture
def inverted_on_the_dashboard(scored, inverted_panel):  # noqa: F811
    """The dashboards' clinician-scored conversations, scored by the inverted judge too, which
    then takes (and fails) a calibration round on them."""
    run = scored["study"].items.first().trace.run
    execute_inline(
        launch_jury(panel=inverted_panel, run=run, enqueue=False, trace_ids=scored["traces"])
    )
    round_ = calibration_round_of(scored["traces"])
    assert not any(r.passed for r in calibrated(inverted_panel, round_))
    return inverted_panel


def calibration_round_of(trace_ids, name="Round on the dashboard", backwards=False, **thresholds):
    """References of 4 where the outcome checks passed and 2 where they failed (`backwards`:
    the other way round, references written as wrongly as the inverted judge reads)."""
    from annotation.models import Item, Study

    round_ = Study.objects.create(kind=Study.Kind.CALIBRATION, name=name, **thresholds)
    for trace in Trace.objects.filter(pk__in=list(trace_ids)).order_by("pk"):
        score = 4 if bool(trace.correct) != backwards else 2
        Item.objects.create(
            study=round_,
            trace=trace,
            is_reference=True,
            reference={d: {"score": score, "why": ""} for d in SCORED},
        )
    return round_


def test_the_envelope_verdict_is_withheld_for_an_unqualified_panel(
    client, researcher, inverted_on_the_dashboard
):
    client.force_login(researcher)
    query = {"panel": inverted_on_the_dashboard.pk}
    body = client.get(reverse("research_dashboard_jury"), query).content.decode()
    assert 'data-testid="not-qualified"' in body and "Envelope verdicts withheld" in body
    assert "withheld: not qualified" in body
    # Neither the headline nor a verdict cell offers a verdict.
    assert "not enough evidence on" not in body and 'title="not enough evidence"' not in body
    csv_text = client.get(
        reverse("research_dashboard_table", args=["jury", "envelope"]), query
    ).content.decode()
    rows = list(csv.DictReader(io.StringIO(csv_text)))
    assert rows and {r["verdict"] for r in rows} == {WITHHELD}


def test_the_researcher_may_override_and_the_page_says_so(
    client, researcher, inverted_on_the_dashboard
):
    client.force_login(researcher)
    query = {"panel": inverted_on_the_dashboard.pk, "unqualified": "show"}
    body = client.get(reverse("research_dashboard_jury"), query).content.decode()
    assert 'data-testid="qualification-override"' in body
    assert "Override: envelope verdicts shown for an unqualified jury" in body
    assert "· override" in body and "withheld: not qualified" not in body
    csv_text = client.get(
        reverse("research_dashboard_table", args=["jury", "envelope"]), query
    ).content.decode()
    (safety,) = [
        r for r in csv.DictReader(io.StringIO(csv_text)) if r["dimension"] == "Clinical safety"
    ]
    assert safety["verdict"] == f"{agreement.NOT_ENOUGH} ({OVERRIDDEN})"


def test_a_qualified_panel_is_offered_its_verdict(client, researcher, scored):  # noqa: F811
    client.force_login(researcher)
    body = client.get(
        reverse("research_dashboard_jury"), {"panel": scored["panel"].pk}
    ).content.decode()
    assert 'data-testid="not-qualified"' not in body and "withheld" not in body
    assert "not enough evidence on Clinical safety" in body


def test_a_researcher_scores_a_round_with_a_panel_and_records_it(
    client, researcher, checked_run, inverted_panel, settings
):
    round_ = calibration_round(checked_run)
    client.force_login(researcher)
    page = reverse("research_round_judges", args=[round_.pk])
    assert "Score with this panel" in client.get(page).content.decode()
    client.post(reverse("research_round_judges_score", args=[round_.pk, inverted_panel.pk]))
    for jury_run in inverted_panel.jury_runs.all():
        execute_inline(jury_run)
    client.post(reverse("research_round_judges_record", args=[round_.pk, inverted_panel.pk]))
    body = client.get(page).content.decode()
    assert "not passed" in body and "exact agreement 0.00 is below 0.50" in body
    # Each dimension in the rubric's words, and what its two shares and its count mean.
    assert "the same score" in body and "within one point" in body and " item" in body
    board = client.get(
        reverse("jury_leaderboard", args=[checked_run.pk, inverted_panel.pk])
    ).content.decode()
    assert 'data-testid="not-qualified"' in board and "has not passed a calibration round" in board
    for by in ["", *verdicts.run_leaderboard(inverted_panel, checked_run).attributes]:
        board = client.get(
            reverse("jury_leaderboard", args=[checked_run.pk, inverted_panel.pk]), {"by": by}
        ).content.decode()
        assert raw_identifiers(board) == [], by
    assert raw_identifiers(body) == []


def test_the_score_export_says_which_jury_numbers_are_unqualified(
    checked_run, inverted_panel, tmp_path
):
    from django.core.management import call_command

    scored_by(inverted_panel, checked_run, repeat=1)
    out = tmp_path / "scores.csv"
    call_command("export_scores", "--out", str(out), "--no-clinicians", stdout=io.StringIO())
    rows = list(csv.DictReader(out.open()))
    assert rows and {r["qualified"] for r in rows} == {"no"}
    honest = make_panel("honest", simulated_model("sim-judge-a"))
    scored_by(honest, checked_run, repeat=1)
    calibrated(honest, calibration_round(checked_run, min_exact=0.0, min_adjacent=0.5))
    rows = list(csv.DictReader(out.open()))
    call_command("export_scores", "--out", str(out), "--no-clinicians", stdout=io.StringIO())
    rows = [r for r in csv.DictReader(out.open()) if r["rater"].startswith("honest")]
    assert rows and {r["qualified"] for r in rows} == {"yes"}


# --- issue 40: validity stands beside calibration wherever a jury's standing appears ----------


def qualified_but_inverting(panel, run):
    """The inverted judge scores the run and passes a round whose references read it backwards
    too: calibration alone would call it qualified."""
    scored_by(panel, run, repeat=1)
    round_ = calibration_round_of(
        run.traces.values_list("pk", flat=True),
        "A round read backwards",
        backwards=True,
        min_exact=0.0,
        min_adjacent=0.5,
    )
    calibrated(panel, round_)
    assert standing(panel).fully_qualified
    return panel


def test_a_qualified_panel_that_inverts_says_so_on_every_page_of_its_standing(
    client, researcher, checked_run, inverted_panel
):
    panel = qualified_but_inverting(inverted_panel, checked_run)
    client.force_login(researcher)
    pages = {
        "panel": reverse("jury_panel", args=[panel.pk]),
        "leaderboard": reverse("jury_leaderboard", args=[checked_run.pk, panel.pk]),
        "verdicts": reverse("jury_verdicts", args=[checked_run.pk, panel.pk]),
        "consistency": reverse("jury_consistency", args=[panel.pk]),
    }
    for name, url in pages.items():
        body = client.get(url).content.decode()
        assert 'data-testid="qualified"' in body, name
        assert 'data-verdict="inverts"' in body and "⚠ Validity: inverts." in body, name
        assert "Qualified by its calibration round, but panel inverted scores" in body, name
        # The figures: AUC, interval, method, n per group.
        assert re.search(r"AUC 0\.\d\d, 95% interval 0\.\d\d–0\.\d\d by Newcombe", body)
        assert "8 passed, 8 failed" in body, name  # full groups where it marks nothing N/A
    board = client.get(pages["leaderboard"]).content.decode()
    # Every dimension column the inverted judge reads backwards carries the flag.
    assert board.count('data-testid="dimension-validity"') >= 5
    assert "⚠ inverts" in board


def test_an_honest_qualified_panel_separates_beside_qualified(client, researcher, checked_run):
    panel = make_panel("honest", simulated_model("sim-judge-a"))
    scored_by(panel, checked_run, repeat=1)
    calibrated(panel, calibration_round(checked_run, min_exact=0.0, min_adjacent=0.5))
    client.force_login(researcher)
    body = client.get(reverse("jury_panel", args=[panel.pk])).content.decode()
    assert 'data-testid="qualified"' in body
    assert 'data-verdict="inverts"' not in body
    # Which dimensions decide varies with the simulated judge's noise and N/A answers (functions
    # of ids); most separate, and none inverts.
    assert len(re.findall(r": <b>separates</b>", body)) >= 4
    assert ": <b>inverts</b>" not in body


def test_a_panel_with_no_checked_conversation_says_its_validity_is_unknown(
    client, researcher, inverted_panel
):
    client.force_login(researcher)
    body = client.get(reverse("jury_panel", args=[inverted_panel.pk])).content.decode()
    assert 'data-verdict="not enough evidence"' in body
    assert "has scored no conversation with automatic outcome checks" in body


@pytest.fixture
def qualified_but_inverting_on_the_dashboard(scored, inverted_panel):  # noqa: F811
    """The dashboards' run, half its conversations passing their outcome checks, scored by
    the inverted judge, which passes a round whose references read them backwards too."""
    run = scored["study"].items.first().trace.run
    for i, pk in enumerate(run.traces.order_by("pk").values_list("pk", flat=True)):
        Trace.objects.filter(pk=pk).update(correct=i % 2 == 0)
    execute_inline(launch_jury(panel=inverted_panel, run=run, enqueue=False))
    round_ = calibration_round_of(scored["traces"], backwards=True, min_exact=0.0, min_adjacent=0.5)
    calibrated(inverted_panel, round_)
    jury = standing(inverted_panel)
    assert jury.fully_qualified and jury.inverts, jury.validity
    return inverted_panel


def envelope_csv(client, query):
    url = reverse("research_dashboard_table", args=["jury", "envelope"])
    return list(csv.DictReader(io.StringIO(client.get(url, query).content.decode())))


def test_envelope_verdicts_are_withheld_where_a_qualified_jury_inverts(
    client, researcher, qualified_but_inverting_on_the_dashboard
):
    panel = qualified_but_inverting_on_the_dashboard
    client.force_login(researcher)
    query = {"panel": panel.pk}
    body = client.get(reverse("research_dashboard_jury"), query).content.decode()
    assert 'data-testid="not-qualified"' in body and "Envelope verdicts withheld on" in body
    assert "the jury&#x27;s scores invert there" in body
    assert 'data-verdict="inverts"' in body and "⚠ Validity: inverts." in body
    assert "withheld: inverts" in body and "withheld: not qualified" not in body
    rows = envelope_csv(client, query)
    assert rows and WITHHELD_INVERTS in {r["verdict"] for r in rows}
    assert WITHHELD not in {r["verdict"] for r in rows}


def test_the_researcher_may_show_an_inverting_jurys_verdicts_and_the_page_says_so(
    client, researcher, qualified_but_inverting_on_the_dashboard
):
    panel = qualified_but_inverting_on_the_dashboard
    client.force_login(researcher)
    query = {"panel": panel.pk, "unqualified": "show"}
    body = client.get(reverse("research_dashboard_jury"), query).content.decode()
    assert 'data-testid="qualification-override"' in body and "· override" in body
    assert "withheld: inverts" not in body
    verdicts = {r["verdict"] for r in envelope_csv(client, query)}
    assert any(v.endswith(f"({OVERRIDDEN_INVERTS})") for v in verdicts)
    assert not any(OVERRIDDEN + ")" in v for v in verdicts)
