"""A calibration round's pages for researchers: who each clinician is, closing with a
confirmation, the results on the round's own page, counts in words, refusals as errors."""

import re

import pytest
from django.urls import reverse

from annotation.models import Qualification, Study
from patientagentbench.roles import ADJUDICATOR
from tests.annotation.test_lifecycle import make_round, score
from tests.annotation.test_review_views import make_clinician
from tests.annotation.test_review_views import traces as traces  # noqa: F401 (fixture)
from tests.conftest import _person

pytestmark = pytest.mark.django_db


def named(username: str, name: str):
    clinician = make_clinician(username)
    clinician.user.first_name = name
    clinician.user.save()
    return clinician


@pytest.fixture
def scored(traces, researcher):
    """An open round: Ana matches the reference, Ben mirrors it."""
    ana, ben = named("dr-ana", "Ana Silva"), named("dr-ben", "Ben Okafor")
    round_ = make_round(traces, [ana, ben], researcher, status=Study.Status.OPEN)
    Study.objects.filter(pk=round_.pk).update(min_alpha=-1)  # each on their own agreement
    score(ana, round_)
    score(ben, round_, flip=True)
    return round_, ana, ben


def page(client, name: str, pk: int) -> str:
    response = client.get(reverse(name, args=[pk]))
    assert response.status_code == 200
    return response.content.decode()


def test_round_page_and_report_name_each_clinician_beside_their_code(client, researcher, scored):
    round_, ana, ben = scored
    client.force_login(researcher)
    for body in (page(client, "research_study", round_.pk), page(client, "research_round_report", round_.pk)):  # fmt: skip
        for clinician, name in ((ana, "Ana Silva"), (ben, "Ben Okafor")):
            assert re.search(rf"{name}\s*\(<code[^>]*>{clinician.code}</code>\)", body), name


def test_an_adjudicator_sees_codes_only_on_the_round_page(client, scored):
    round_, ana, _ben = scored
    client.force_login(_person("adj", ADJUDICATOR))
    body = page(client, "research_study", round_.pk)
    assert ana.code in body and "Ana Silva" not in body


def test_close_asks_for_confirmation_before_recording_results(client, researcher, traces):
    ana = named("dr-ana", "Ana Silva")
    round_ = make_round(traces, [ana], researcher, status=Study.Status.OPEN)
    score(ana, round_)
    client.force_login(researcher)
    url = reverse("research_study_status", args=[round_.pk])
    asked = client.post(url)
    round_.refresh_from_db()
    assert asked.status_code == 200 and round_.status == Study.Status.OPEN
    body = asked.content.decode()
    assert "records the result of 1 clinician" in body and 'name="confirm"' in body
    assert not Qualification.objects.exists()
    closed = client.post(url, {"confirm": "yes"}, follow=True)
    round_.refresh_from_db()
    assert round_.status == Study.Status.CLOSED
    assert "results recorded for 1 clinician." in closed.content.decode()


def test_a_closed_rounds_page_shows_its_results(client, researcher, scored):
    round_, ana, ben = scored
    client.force_login(researcher)
    before = page(client, "research_study", round_.pk)
    assert 'data-testid="round-results"' not in before
    client.post(reverse("research_study_status", args=[round_.pk]), {"confirm": "yes"})
    body = page(client, "research_study", round_.pk)
    results = body[body.index('data-testid="round-results"') :]
    assert "1 of 2 clinicians passed" in results
    row_of = {c.code: results[results.index(c.code) :].split("</tr>")[0] for c in (ana, ben)}
    assert "passed" in row_of[ana.code] and "not yet" in row_of[ben.code]


def test_a_refusal_shows_as_an_error_not_a_success(client, researcher, traces):
    ana = make_clinician("dr-ana")
    round_ = make_round(traces, [ana], researcher)
    round_.items.update(reference={})
    client.force_login(researcher)
    refused = client.post(reverse("research_study_status", args=[round_.pk]), follow=True)
    body = refused.content.decode()
    assert re.search(r'<li class="[^"]*\berror\b[^"]*">It cannot open yet', body), body
    opened_ok = re.search(r'<li class="[^"]*\bsuccess\b[^"]*">[^<]*It cannot open', body)
    assert opened_ok is None
