"""An adjudicator who is also one of a study's clinicians (issue 34, finding 2): they never
see, decide or read the trail of a dispute on an item they are assigned to (in any status),
and still adjudicate the items they are not on."""

import pytest
from django.contrib.auth.models import Group
from django.urls import reverse

from annotation.models import Adjudication, Assignment, Clinician
from annotation.studies import StudySpec, create_study
from patientagentbench.models import ModelConfig, Trace
from patientagentbench.roles import ADJUDICATOR
from patientagentbench.suites.case_sets import create_case_set
from tests.annotation.test_research_views import make_clinician, submit_scores
from tests.finished_runs import simulated_run

pytestmark = pytest.mark.django_db


@pytest.fixture
def world(researcher):
    """Items 1 and 2 disputed between Ana and the adjudicator-clinician Ada; item 3 disputed
    between Ana and Ben only; item 4 was Ada's once (withdrawn) and is disputed by Ana and Ben."""
    model = ModelConfig.objects.create(name="m", provider="simulated", model_id="sim-steady")
    cases = create_case_set("own-items-cases", 4, 5)
    run = simulated_run(suite=cases, models=[model], repetitions=1, max_turns=8)
    traces = list(run.traces.filter(status=Trace.Status.DONE).order_by("pk"))[:4]
    ana, ben, ada = make_clinician("ana"), make_clinician("ben"), make_clinician("ada")
    ada.user.groups.add(Group.objects.get_or_create(name=ADJUDICATOR)[0])
    study = create_study(
        StudySpec(status="open", name="Conflicts", overlap={"clinical": 3}),
        [t.pk for t in traces],
        [ana, ben, ada],
        researcher,
    )
    items = list(study.items.order_by("pk"))
    for item in items:
        submit_scores(item.assignments.get(clinician=ana), default=3, clinical_safety=1)
    for item in items[:2]:
        submit_scores(item.assignments.get(clinician=ada), default=4, clinical_safety=5)
    for item in items[2:]:
        submit_scores(item.assignments.get(clinician=ben), default=4, clinical_safety=5)
    # Never Ada's: her assignment handed to Cal before anyone scored.
    items[2].assignments.filter(clinician=ada).update(clinician=make_clinician("cal"))
    items[3].assignments.filter(clinician=ada).update(status=Assignment.Status.WITHDRAWN)
    return {"study": study, "items": items, "ada": ada, "ana": ana, "ben": ben}


def as_ada(client, world):
    client.force_login(world["ada"].user)
    return client


def decide_url(world, item):
    return reverse("research_adjudicate", args=[world["study"].pk, item.pk, "clinical_safety"])


def answer(item):
    prefix = f"d{item.pk}-clinical_safety"
    return {f"{prefix}-score": "2", f"{prefix}-reason": "Missed the red flag."}


def test_the_queue_leaves_out_the_adjudicators_own_items(client, world):
    page = as_ada(client, world).get(reverse("research_adjudication", args=[world["study"].pk]))
    body = page.content.decode()
    assert page.status_code == 200
    own, other, withdrawn = world["items"][0], world["items"][2], world["items"][3]
    assert f"dispute-{other.pk}-clinical_safety" in body
    assert f"dispute-{own.pk}-clinical_safety" not in body
    assert f"dispute-{withdrawn.pk}-clinical_safety" not in body
    assert world["ada"].code not in body  # their own score is on no dispute they see


def test_the_adjudicators_home_counts_only_what_they_may_decide(client, world):
    home = as_ada(client, world).get(reverse("research_adjudicator_home"))
    assert home.status_code == 200
    assert [counts["disputed_items"] for _study, counts in home.context["studies"]] == [1]


@pytest.mark.parametrize("which", [0, 3], ids=["assigned", "withdrawn"])
def test_deciding_an_own_item_is_refused_and_writes_nothing(client, world, which):
    item = world["items"][which]
    response = as_ada(client, world).post(decide_url(world, item), answer(item))
    assert response.status_code == 404
    assert not Adjudication.objects.exists()


@pytest.mark.parametrize("page", ["research_item_audit", "research_item_conversation"])
def test_an_own_items_audit_trail_and_conversation_are_refused(client, world, page):
    own = world["items"][0]
    assert as_ada(client, world).get(reverse(page, args=[own.pk])).status_code == 404


def test_the_adjudicator_still_decides_and_reads_items_not_their_own(client, world):
    other = world["items"][2]
    as_ada(client, world)
    assert client.post(decide_url(world, other), answer(other)).status_code == 302
    assert Adjudication.objects.get().item == other
    audit = client.get(reverse("research_item_audit", args=[other.pk]))
    assert audit.status_code == 200 and world["ana"].code in audit.content.decode()


def test_a_researcher_not_on_the_item_still_sees_every_dispute(client, world, researcher):
    client.force_login(researcher)
    page = client.get(reverse("research_adjudication", args=[world["study"].pk]))
    assert page.context["disputed_items"] == 4
    assert not Clinician.objects.filter(user=researcher).exists()
