"""Adopting an earlier round's consensus, as the researcher and then a clinician see it
(issue 33, finding 1): the references page says whom the consensus rests on before adopting,
the messages say what it left out, and the clinician's feedback names nobody."""

import pytest
from playwright.sync_api import expect

from annotation.models import Study
from annotation.studies import StudySpec, create_study
from tests.annotation.consensus import next_round, qualify
from tests.annotation.test_research_views import submit_scores
from tests.annotation.test_review_views import make_clinician
from tests.browser.conftest import log_in, screenshot
from tests.browser.test_research import conversations  # noqa: F401  (a fixture)

pytestmark = pytest.mark.browser

REFERENCES = [2, 4, 5, 1]


def _scored_round(traces, researcher, scorers):
    source = create_study(
        StudySpec(
            status="open", name="Round A", kind=Study.Kind.CALIBRATION, overlap={"clinical": 3}
        ),
        traces,
        scorers,
        researcher,
    )
    for item, score in zip(source.items.order_by("pk"), REFERENCES, strict=True):
        for clinician in scorers:
            submit_scores(item.assignments.get(clinician=clinician), default=score)
    return source


def test_a_consensus_is_adopted_with_its_basis_shown_and_reaches_clinicians_unnamed(
    page,
    live_server,
    researcher,
    conversations,  # noqa: F811
):
    scorers = [make_clinician("ana"), make_clinician("ben"), make_clinician("cy")]
    traces = list(conversations.traces.order_by("pk").values_list("pk", flat=True)[:4])
    source = _scored_round(traces, researcher, scorers)
    for clinician in scorers[:2]:
        qualify(clinician, source)
    newcomers = [make_clinician("new-1"), make_clinician("new-2")]
    target = next_round(traces, newcomers, researcher, name="Round B", overlap={"clinical": 2})
    log_in(page, live_server, researcher.username)
    page.goto(f"{live_server.url}/research/studies/{target.pk}/references/")
    basis = page.get_by_test_id("consensus-basis")
    expect(basis).to_contain_text(f"2 qualified clinicians; not qualified: {scorers[2].code}")
    screenshot(page, "consensus-basis")
    page.click("text=Adopt consensus")
    expect(page.locator(".messages")).to_contain_text("4 of 4 items took the consensus")
    expect(page.locator(".messages")).to_contain_text(
        f"Not counted, as not qualified: {scorers[2].code}"
    )
    screenshot(page, "consensus-adopted")

    Study.objects.filter(pk=target.pk).update(status=Study.Status.OPEN)
    me = newcomers[0]
    first = target.items.order_by("pk").first()
    assignment = first.assignments.get(clinician=me)
    submit_scores(assignment, default=3)
    page.context.clear_cookies()
    log_in(page, live_server, me.user.username)
    page.goto(f"{live_server.url}/review/{assignment.code}/feedback/")
    expect(page.locator("table.feedback")).to_contain_text(
        "The consensus of 2 clinicians in an earlier round"
    )
    screenshot(page, "consensus-feedback")
    text = page.locator("body").inner_text()
    for clinician in scorers:
        assert clinician.code not in text
