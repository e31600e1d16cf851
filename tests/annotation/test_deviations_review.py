"""The run page's "send deviating conversations to review": a draft study, built by
`create_study` like any other, of the run's conversations that left their reference."""

import pytest
from django.urls import reverse

from annotation.models import Study
from annotation.studies import names_shown_to_clinicians
from annotation.views.research_forms import DEVIATING_FROM_REFERENCE
from patientagentbench.models import Trace
from patientagentbench.results.references import deviating_trace_ids, set_references
from patientagentbench.suites.case_sets import create_case_set
from tests.annotation.test_research_views import make_clinician
from tests.finished_runs import simulated_run

pytestmark = pytest.mark.django_db


@pytest.fixture
def deviating_run(sim_models):
    """A scenario run checked against references from an earlier run, two of its
    conversations made to call a tool no reference calls."""
    suite = create_case_set("deviation-cases", 4, seed=3)
    set_references(simulated_run(suite=suite, models=sim_models, repetitions=2, max_turns=6))
    later = simulated_run(suite=suite, models=sim_models, max_turns=6)
    for trace in later.traces.order_by("pk")[:2]:
        trace.tool_calls = [{"name": "unheard_of_tool", "arguments": {}}]
        trace.save(update_fields=["tool_calls"])
    return later


def test_deviating_conversations_become_a_blinded_draft_study(client, researcher, deviating_run):
    forced = list(deviating_run.traces.order_by("pk").values_list("pk", flat=True)[:2])
    deviating = deviating_trace_ids(deviating_run)
    assert set(forced) <= set(deviating)
    reviewer = make_clinician("dora")
    client.force_login(researcher)
    url = reverse("research_deviations_review", args=[deviating_run.pk])
    run_page = client.get(reverse("run_detail", args=[deviating_run.pk])).content.decode()
    assert f'href="{url}">Send deviating conversations to review<' in run_page
    page = client.get(url).content.decode()
    assert f'data-testid="sendable-count">{len(deviating)}<' in page

    response = client.post(
        url,
        {
            "name": "Conversation review",
            "overlap_clinical": 1,
            "overlap_operations": 0,
            "clinicians": [reviewer.pk],
            "seed": 1,
        },
    )
    study = Study.objects.get()
    assert response["Location"] == reverse("research_study", args=[study.pk])
    assert sorted(study.items.values_list("trace_id", flat=True)) == sorted(deviating)
    assert study.status == Study.Status.DRAFT and study.blind_adjudication
    assert study.sampling == {"design": DEVIATING_FROM_REFERENCE}
    assert reviewer.assignments.count() == len(deviating)
    assert names_shown_to_clinicians(study) == []


def test_a_task_suite_run_has_nothing_to_send(client, researcher, office_suite, sim_models):
    run = simulated_run(suite=office_suite, models=sim_models, repetitions=2)
    set_references(run)
    assert Trace.objects.filter(pk__in=deviating_trace_ids(run)).exists()
    client.force_login(researcher)
    page = client.get(reverse("research_deviations_review", args=[run.pk])).content.decode()
    assert 'data-testid="sendable-count">0<' in page and "Nothing to send" in page


@pytest.mark.parametrize("persona", ["clinician", "outsider"])
def test_only_staff_may_send_conversations(client, request, persona, deviating_run):
    client.force_login(request.getfixturevalue(persona))
    url = reverse("research_deviations_review", args=[deviating_run.pk])
    assert client.get(url).status_code == 403
    assert client.post(url, {"name": "x"}).status_code == 403
    assert not Study.objects.exists()
