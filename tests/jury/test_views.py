"""The jury's pages: who may see them (staff only, a clinician gets 403 everywhere under
/jury/), launching from a run, the live scoring page, verdicts (escaped, simulated judges
labelled), the leaderboard and its breakdowns, judge consistency; and no page a clinician
can reach names the jury."""

import re
from decimal import Decimal

import pytest
from django.urls import reverse

from jury.models import JuryRun, Panel, Verdict
from jury.scoring import execute_inline, launch_jury
from ratings.rubric import cached_rubric
from tests.factories import rows_for_scope, simulated_models
from tests.jury.conftest import (
    make_panel,
    scenario_run,
    simulated_model,
    two_judge_panel,
    verdict,
)

pytestmark = pytest.mark.django_db
SCORED = [d.key for d in cached_rubric().scored]


@pytest.fixture(scope="class")
def scored_by_panel(django_db_setup, django_db_blocker):
    """The two-model scenario run scored by the two-judge panel, once for TestScoredRun:
    scoring it took 0.45 s a test, for tests that read the pages (or post cancel and resume,
    undone with each test's rollback)."""
    with rows_for_scope(django_db_blocker):
        run, panel = scenario_run(simulated_models()), two_judge_panel()
        jury_run = launch_jury(panel=panel, run=run, enqueue=False)
        execute_inline(jury_run)
        yield {"run": run, "panel": panel, "jury_run": jury_run}


def leaderboard_url(world) -> str:
    return reverse("jury_leaderboard", args=[world["run"].pk, world["panel"].pk])


def jury_urls(world) -> list[tuple[str, str]]:
    run, panel, jury_run = world["run"], world["panel"], world["jury_run"]
    trace = run.traces.first()
    judge = panel.judges.first()
    return [
        (reverse("jury_home"), "get"),
        (reverse("jury_panel_new"), "get"),
        (reverse("jury_panel", args=[panel.pk]), "get"),
        (reverse("jury_consistency", args=[panel.pk]), "get"),
        (reverse("jury_judge_new"), "get"),
        (reverse("jury_judge_edit", args=[judge.pk]), "get"),
        (reverse("jury_launch", args=[run.pk]), "get"),
        (reverse("jury_run", args=[jury_run.pk]), "get"),
        (reverse("jury_run_cancel", args=[jury_run.pk]), "post"),
        (reverse("jury_run_resume", args=[jury_run.pk]), "post"),
        (reverse("jury_verdicts", args=[run.pk, panel.pk]), "get"),
        (reverse("jury_conversation", args=[run.pk, panel.pk, trace.pk]), "get"),
        (leaderboard_url(world), "get"),
    ]


def test_the_run_page_links_to_the_jury_by_url_name(client, researcher, two_model_run):
    client.force_login(researcher)
    body = client.get(reverse("run_detail", args=[two_model_run.pk])).content.decode()
    assert reverse("jury_launch", args=[two_model_run.pk]) in body
    assert "Score with the jury" in body


def test_launch_from_a_run_then_watch_it_finish(client, researcher, two_model_run, sim_panel):
    client.force_login(researcher)
    url = reverse("jury_launch", args=[two_model_run.pk])
    page = client.get(url).content.decode()
    calls = two_model_run.traces.count() * 2 * len(SCORED)
    assert f"sim-panel {calls}" in page  # calls per repetition for the panel
    response = client.post(url, {"panel": sim_panel.pk, "repeat": 2, "spend_limit": "1.5"})
    jury_run = JuryRun.objects.get()
    assert response["Location"] == reverse("jury_run", args=[jury_run.pk])
    assert (jury_run.repeat, jury_run.spend_limit, jury_run.created_by) == (
        2,
        Decimal("1.5"),
        researcher,
    )
    assert jury_run.jobs.count() == two_model_run.traces.count() * 2 * 2
    live = client.get(response["Location"], HTTP_HX_REQUEST="true")
    assert live.status_code == 200 and 'hx-trigger="every 1s"' in live.content.decode()
    execute_inline(jury_run)
    done = client.get(response["Location"], HTTP_HX_REQUEST="true")
    assert done.status_code == 286  # htmx stops polling
    body = done.content.decode()
    assert "Finished" in body and "hx-trigger" not in body
    assert reverse("jury_leaderboard", args=[two_model_run.pk, sim_panel.pk]) in body


def test_launch_refuses_an_imported_panel_and_shows_errors(client, researcher, two_model_run):
    client.force_login(researcher)
    imported = Panel.objects.create(name="published", imported=True)
    response = client.post(
        reverse("jury_launch", args=[two_model_run.pk]), {"panel": imported.pk, "repeat": 1}
    )
    assert response.status_code == 200 and not JuryRun.objects.exists()
    empty = make_panel("empty")
    response = client.post(
        reverse("jury_launch", args=[two_model_run.pk]), {"panel": empty.pk, "repeat": 1}
    )
    assert "has no judges" in response.content.decode()


def test_cancel_and_resume(client, researcher, two_model_run, sim_panel):
    client.force_login(researcher)
    jury_run = launch_jury(panel=sim_panel, run=two_model_run, enqueue=False)
    client.post(reverse("jury_run_cancel", args=[jury_run.pk]))
    jury_run.refresh_from_db()
    assert jury_run.status == JuryRun.Status.CANCELLED
    assert not jury_run.jobs.filter(status="queued").exists()
    client.post(reverse("jury_run_resume", args=[jury_run.pk]))
    jury_run.refresh_from_db()
    assert jury_run.status == JuryRun.Status.RUNNING
    assert jury_run.jobs.filter(status="queued").count() == jury_run.jobs.count()


def test_a_scoring_stopped_at_its_spend_limit_resumes_with_a_higher_one(
    client, researcher, two_model_run, sim_panel
):
    client.force_login(researcher)
    jury_run = launch_jury(
        panel=sim_panel, run=two_model_run, spend_limit=Decimal("0.01"), enqueue=False
    )
    JuryRun.objects.filter(pk=jury_run.pk).update(status="stopped", spent=Decimal("0.02"))
    jury_run.jobs.update(status="cancelled")
    url = reverse("jury_run_resume", args=[jury_run.pk])
    page = client.post(url, follow=True).content.decode()
    assert "Raise the spend limit first" in page
    client.post(url, {"spend_limit": "5"})
    jury_run.refresh_from_db()
    assert (jury_run.status, jury_run.spend_limit) == ("running", Decimal("5"))


def test_verdicts_escape_rationales_and_label_simulated_judges(
    client, researcher, two_model_run, sim_panel
):
    a, b = sim_panel.judges.order_by("name")
    trace = two_model_run.traces.first()
    verdict(sim_panel, a, trace, SCORED[0], "ok", 4, rationale="<script>alert(1)</script> fine")
    verdict(sim_panel, b, trace, SCORED[0], "unparseable", raw="<b>five</b>")
    client.force_login(researcher)
    url = reverse("jury_conversation", args=[two_model_run.pk, sim_panel.pk, trace.pk])
    body = client.get(url).content.decode()
    assert "<script>alert(1)</script>" not in body
    assert "&lt;script&gt;alert(1)&lt;/script&gt; fine" in body
    assert "&lt;b&gt;five&lt;/b&gt;" in body
    assert body.count('badge simulated">simulated') == 2
    assert "1 left out: 1 unparseable" in body
    listing = client.get(reverse("jury_verdicts", args=[two_model_run.pk, sim_panel.pk]))
    assert "4.00" in listing.content.decode() and "1 left out" in listing.content.decode()


def test_consistency_page_shows_retest_and_version_flips(client, researcher, two_model_run):
    panel = make_panel("retest", simulated_model("sim-judge-c"))
    jury_run = launch_jury(panel=panel, run=two_model_run, repeat=2, enqueue=False)
    execute_inline(jury_run)
    judge = panel.judges.get()
    trace = two_model_run.traces.first()
    Verdict.objects.filter(panel=panel, trace=trace, dimension=SCORED[0], repetition=0).delete()
    verdict(panel, judge, trace, SCORED[0], "ok", 5, rationale="v1")
    verdict(panel, judge, trace, SCORED[0], "ok", 1, prompt_version="2")
    client.force_login(researcher)
    url = reverse("jury_consistency", args=[panel.pk])
    body = client.get(url).content.decode()
    assert "all dimensions" in body and "Alpha (ordinal)" in body
    before, after = f"{panel.pk}:1:1", f"{panel.pk}:1:2"
    body = client.get(url, {"before": before, "after": after}).content.decode()
    assert "Flipped verdicts" in body
    assert reverse("trace_detail", args=[trace.pk]) in body


def test_panels_and_judges_are_created_from_forms(client, researcher, sim_models):
    client.force_login(researcher)
    model = simulated_model("sim-judge-a")
    response = client.post(
        reverse("jury_judge_new"),
        {"name": "fair", "model": model.pk, "prompt_version": "1", "temperature": "0.0"},
    )
    assert response.status_code == 302
    fair = model.judges.get()
    response = client.post(
        reverse("jury_panel_new"),
        {
            "name": "one",
            "judges": [fair.pk],
            "aggregation": "median",
            "rubric": "patientagentbench@1",
        },
    )
    panel = Panel.objects.get(name="one")
    assert response["Location"] == reverse("jury_panel", args=[panel.pk])
    assert list(panel.judges.all()) == [fair] and panel.aggregation == "median"
    body = client.get(reverse("jury_home")).content.decode()
    assert "one" in body and "simulated" in body


JURY_WORD = re.compile(r"\bjury\b", re.IGNORECASE)


def test_repeated_verdicts_list_one_repetition_at_a_time(client, researcher, two_model_run):
    panel = make_panel("twice", simulated_model("sim-judge-a"))
    execute_inline(launch_jury(panel=panel, run=two_model_run, repeat=2, enqueue=False))
    client.force_login(researcher)
    url = reverse("jury_verdicts", args=[two_model_run.pk, panel.pk])
    row = r"<tr>\s*<td><a href=\"/jury/runs/"
    conversations = two_model_run.traces.count()
    assert len(re.findall(row, client.get(url).content.decode())) == conversations
    every = client.get(url, {"repetition": "all"}).content.decode()
    assert len(re.findall(row, every)) == 2 * conversations
    consistency = client.get(reverse("jury_consistency", args=[panel.pk])).content.decode()
    assert 'data-testid="no-repetitions"' not in consistency


class TestScoredRun:
    """The jury's pages on one run scored by a panel (`scored_by_panel`)."""

    @pytest.mark.parametrize(
        "persona", ["admin", "researcher", "clinician", "outsider", "anonymous"]
    )
    def test_permission_matrix(
        self, client, scored_by_panel, persona, admin_user, researcher, clinician, outsider
    ):
        users = {"admin": admin_user, "researcher": researcher, "clinician": clinician}
        users["outsider"] = outsider
        if persona in users:
            client.force_login(users[persona])
        for url, method in jury_urls(scored_by_panel):
            response = getattr(client, method)(url)
            if persona == "anonymous":
                assert response.status_code == 302 and "/accounts/login/" in response["Location"]
            elif persona in ("admin", "researcher"):
                assert response.status_code in (200, 302), (url, response.status_code)
            else:
                assert response.status_code == 403, (url, persona, response.status_code)

    def test_the_verdict_list_takes_a_fixed_number_of_queries(
        self, client, researcher, scored_by_panel, django_assert_max_num_queries
    ):
        client.force_login(researcher)
        url = reverse(
            "jury_verdicts", args=[scored_by_panel["run"].pk, scored_by_panel["panel"].pk]
        )
        with django_assert_max_num_queries(12):
            response = client.get(url)
        rows = re.findall(r"<tr>\s*<td><a href=\"/jury/runs/", response.content.decode())
        assert len(rows) == scored_by_panel["run"].traces.count()

    def test_leaderboard_shows_mean_and_pass_share_with_intervals_and_breakdowns(
        self, client, researcher, scored_by_panel
    ):
        client.force_login(researcher)
        url = leaderboard_url(scored_by_panel)
        body = client.get(url).content.decode()
        assert "sim-steady" in body and "sim-jittery" in body
        assert re.search(r"\d\.\d\d \[\d+%\]", body)  # mean [pass%]
        assert "Wilson" in body and "bootstrap" in body
        assert 'data-testid="breakdown"' in body and "Category: " in body
        partial = client.get(url, {"by": "severity"}, HTTP_HX_REQUEST="true").content.decode()
        assert partial.lstrip().startswith('<div id="breakdown"') and "Severity: " in partial
        assert "<html" not in partial
        assert client.get(url, {"by": "nonsense"}).status_code == 404

    def test_leaderboard_breaks_down_by_age_once_in_bands_and_prints_no_point_interval(
        self, client, researcher, scored_by_panel
    ):
        client.force_login(researcher)
        url = leaderboard_url(scored_by_panel)
        body = client.get(url).content.decode()
        listed = re.search(r'data-testid="breakdown-attributes">(.*?)</p>', body, re.S).group(1)
        labels = re.findall(r">([^<>·]+)<", listed)
        assert "Age" in labels and "Age group" not in labels
        assert len(labels) == len(set(labels))
        by_age = client.get(url, {"by": "age"}, HTTP_HX_REQUEST="true").content.decode()
        groups = re.findall(r'breakdown-group">Age: ([^<]+)<', by_age)
        assert groups and set(groups) <= {"under 18", "18–29", "30–44", "45–64", "65+"}
        pages = [body, by_age] + [
            client.get(url, {"by": key}, HTTP_HX_REQUEST="true").content.decode()
            for key in ("severity", "subtask")
        ]
        shown = "".join(pages)
        assert not re.search(r"(\d\.\d\d)–\1\b", shown), "an interval of zero width"
        assert 'data-testid="interval-withheld">mean: not enough evidence' in shown

    def test_no_page_a_clinician_can_reach_names_the_jury(self, client, clinician, scored_by_panel):
        """Crawl every same-site link a clinician is shown, from the home page down."""
        client.force_login(clinician)
        seen, queue, pages = set(), ["/"], 0
        while queue and pages < 200:
            url = queue.pop()
            if url in seen or url.startswith(("/accounts/logout", "/static/")):
                continue
            seen.add(url)
            response = client.get(url, follow=True)
            if response.status_code != 200 or "html" not in response.get("Content-Type", ""):
                continue
            pages += 1
            body = response.content.decode()
            assert not JURY_WORD.search(body), url
            queue += [u for u in re.findall(r'href="(/[^"#?]*)', body) if u not in seen]
        assert pages >= 1
        for url, method in jury_urls(scored_by_panel):
            assert getattr(client, method)(url).status_code == 403

    def test_consistency_says_how_to_get_repetitions(self, client, researcher, scored_by_panel):
        client.force_login(researcher)
        body = client.get(
            reverse("jury_consistency", args=[scored_by_panel["panel"].pk])
        ).content.decode()
        assert 'data-testid="no-repetitions"' in body and "Repeat (K)" in body
