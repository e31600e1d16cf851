"""Blinded adjudication (issue 20, Must 6), tried the way a curious adjudicator would: log in,
follow every link, htmx URL and form the adjudication pages offer (the study page and the audit
trail included), and look for anything naming the model, the run or the trace.

The model gets a name found nowhere else ("zephyr-quokka-99b"), so a leak anywhere in a page,
partial or URL is found by a plain substring search. The same pages, opened by a researcher on a
study marked "blind adjudication", are blinded too.
"""

import re
from urllib.parse import urlparse

import pytest
from django.contrib.auth.models import Group, User
from django.urls import resolve, reverse

from annotation.models import Adjudication, AuditEvent, Study
from annotation.studies import StudySpec, create_study
from patientagentbench.models import ModelConfig, Trace
from patientagentbench.suites.case_sets import create_case_set
from tests.annotation.test_blinding import crawl
from tests.annotation.test_research_views import make_clinician, research_urls, submit_scores
from tests.conftest import PASSWORD
from tests.finished_runs import simulated_run

pytestmark = pytest.mark.django_db

MODEL = "zephyr-quokka-99b"
PROFILE = "sim-careless"  # the simulated agent behind it; its name is forbidden too
STUDY_NAME = "Winter audit"  # a researcher's study name is shown; this one names nothing
# The URL names an adjudicator may open; everything else answers 403.
ADJUDICATOR_PAGES = {
    "home",
    "research_home",
    "research_adjudicator_home",
    "research_adjudication",
    "research_adjudicate",
    "research_item_conversation",
    "research_study",
    "research_item_audit",
}
RESEARCHER_MENU = ("/runs/", "/jury/", "Export CSV")
FORBIDDEN = (
    MODEL,
    PROFILE,
    "/traces/",
    "/runs/",
    "/jury/",
    "Trace ",
    "temperature",
    "repetition",
    "tokens_in",
    "latency",
    "outcome_checks",
    "Export CSV",
)


def make_adjudicator(username: str = "ada") -> User:
    user = User.objects.create_user(username, password=PASSWORD)
    user.groups.add(Group.objects.get_or_create(name="adjudicator")[0])
    return user


@pytest.fixture
def disputed_world(researcher):
    return build_disputed_world(researcher)


def build_disputed_world(researcher) -> dict:
    """A study of four conversations by zephyr-quokka-99b; two clinicians 3 apart on clinical
    safety in items 1 and 2, one of them decided already."""
    model = ModelConfig.objects.create(name=MODEL, provider="simulated", model_id=PROFILE)
    cases = create_case_set("adjudicator-cases", 4, 11)
    run = simulated_run(suite=cases, models=[model], repetitions=1, max_turns=8)
    traces = list(run.traces.filter(status=Trace.Status.DONE).order_by("pk"))
    a, b = make_clinician("ana"), make_clinician("ben")
    study = create_study(
        StudySpec(status="open", name=STUDY_NAME, overlap={"clinical": 2}),
        [t.pk for t in traces[:4]],
        [a, b],
        researcher,
    )
    items = list(study.items.order_by("pk"))
    for item in items[:2]:
        submit_scores(item.assignments.get(clinician=a), default=3, clinical_safety=1)
        submit_scores(item.assignments.get(clinician=b), default=4, clinical_safety=4)
    Adjudication.objects.create(
        item=items[1],
        dimension="clinical_safety",
        score=2,
        reason="Missed the red flag.",
        decided_by=researcher,
    )
    return {"study": study, "items": items, "run": run, "traces": traces}


def forbidden_tokens(world) -> list[str]:
    tokens = list(FORBIDDEN)
    tokens += [f"run {world['run'].pk}", world["run"].label or MODEL]
    tokens += [trace.task.task_id for trace in world["traces"]]  # the case ids, e.g. c0003
    for correctness in world["run"].traces.values_list("correctness", flat=True):
        for check in (correctness or {}).get("checks", []):
            if len(check.get("name", "")) > 12:
                tokens.append(check["name"])  # e.g. "no_fabricated_claims"
    return tokens


def assert_blind(pages: dict[str, str], world) -> None:
    tokens = forbidden_tokens(world)
    for where, body in pages.items():
        for token in tokens:
            assert token not in body, f"{token!r} leaked in {where}"


def adjudication_pages(client, world) -> dict[str, str]:
    """Every page the queue reaches, opened directly: queue, study page, each item's
    conversation and audit trail, and a decision (with htmx and without)."""
    study, items = world["study"], world["items"]
    pages = {
        "queue": client.get(reverse("research_adjudication", args=[study.pk])),
        "study": client.get(reverse("research_study", args=[study.pk])),
    }
    for item in items:
        pages[f"conversation {item.pk}"] = client.get(
            reverse("research_item_conversation", args=[item.pk])
        )
        pages[f"audit {item.pk}"] = client.get(reverse("research_item_audit", args=[item.pk]))
    decide = reverse("research_adjudicate", args=[study.pk, items[0].pk, "clinical_safety"])
    prefix = f"d{items[0].pk}-clinical_safety"
    answer = {f"{prefix}-score": "2", f"{prefix}-reason": "The reply missed chest pain."}
    pages["decide (htmx)"] = client.post(decide, answer, HTTP_HX_REQUEST="true")
    pages["decide"] = client.post(decide, answer, follow=True)
    for where, response in pages.items():
        assert response.status_code == 200, (where, response.status_code)
    return {where: response.content.decode() for where, response in pages.items()}


# --- an adjudicator ---------------------------------------------------------------------------


def test_a_blind_adjudicators_crawl_finds_no_model_run_or_trace(client, disputed_world):
    """Everything reachable from the adjudicator's landing page, links and forms alike."""
    client.force_login(make_adjudicator())
    pages = crawl(client, reverse("home"))
    reached = {resolve(urlparse(p.removeprefix("POST ")).path).url_name for p in pages}
    # The crawl got everywhere the queue leads: study page, conversation, audit trail, a decision.
    assert {
        "research_adjudicator_home",
        "research_adjudication",
        "research_adjudicate",
        "research_study",
        "research_item_conversation",
        "research_item_audit",
    } <= reached, reached
    assert reached <= ADJUDICATOR_PAGES | {"logout"}, reached - ADJUDICATOR_PAGES
    assert_blind(pages, disputed_world)
    for where, body in pages.items():
        for url in re.findall(r'(?:href|action|hx-get|hx-post)="([^"]+)"', body):
            path = urlparse(url).path
            if not path or path.startswith("/static/") or "logout" in path:
                continue  # an anchor on the same page, a stylesheet, logging out
            assert resolve(path).url_name in ADJUDICATOR_PAGES, (where, url)


def test_every_adjudication_page_is_blind_for_an_adjudicator(client, disputed_world):
    client.force_login(make_adjudicator())
    pages = adjudication_pages(client, disputed_world)
    assert_blind(pages, disputed_world)
    # What they need is there: the conversation, both clinicians' reasons, the decision.
    item = disputed_world["items"][0]
    assert 'class="turn' in pages[f"conversation {item.pk}"]
    assert "clinical_safety" in pages["queue"] and "Missed the red flag." in pages["queue"]
    assert "The reply missed chest pain." in pages["decide"]


def test_an_adjudicators_decision_is_stored_under_their_name_and_audited(client, disputed_world):
    adjudicator = make_adjudicator()
    client.force_login(adjudicator)
    study, item = disputed_world["study"], disputed_world["items"][0]
    prefix = f"d{item.pk}-clinical_safety"
    response = client.post(
        reverse("research_adjudicate", args=[study.pk, item.pk, "clinical_safety"]),
        {f"{prefix}-score": "na", f"{prefix}-reason": "No reply was given."},
    )
    assert response.status_code == 302
    decision = Adjudication.objects.get(item=item, decided_by=adjudicator)
    assert decision.score is None and decision.reason == "No reply was given."
    assert AuditEvent.objects.filter(action="adjudicated", item=item, actor=adjudicator).exists()
    audit = client.get(reverse("research_item_audit", args=[item.pk])).content.decode()
    assert "No reply was given." in audit and adjudicator.username in audit


def test_an_adjudicator_lands_on_their_studies_and_nothing_else_opens(client, disputed_world):
    study, item = disputed_world["study"], disputed_world["items"][0]
    run, trace = disputed_world["run"], disputed_world["traces"][0]
    clinician = item.assignments.first().clinician
    client.force_login(make_adjudicator())
    assert client.get("/")["Location"] == reverse("research_adjudicator_home")
    assert client.get(reverse("research_home"))["Location"] == reverse("research_adjudicator_home")
    home = client.get(reverse("research_adjudicator_home")).content.decode()
    assert STUDY_NAME in home and reverse("research_adjudication", args=[study.pk]) in home
    closed = [
        (name, url, method)
        for name, url, method in research_urls(study, item, clinician)
        if name not in ADJUDICATOR_PAGES
    ]
    closed += [
        ("run_list", reverse("run_list"), "get"),
        ("run_detail", reverse("run_detail", args=[run.pk]), "get"),
        ("trace_detail", reverse("trace_detail", args=[trace.pk]), "get"),
        ("run_report", reverse("run_report", args=[run.pk]), "get"),
        ("case_set_list", reverse("case_set_list"), "get"),
        ("model_list", reverse("model_list"), "get"),
        ("jury_home", reverse("jury_home"), "get"),
        ("review_home", reverse("review_home"), "get"),
    ]
    assert {"research_studies", "research_study_export", "research_people"} <= {
        name for name, _u, _m in closed
    }
    for name, url, method in closed:
        response = getattr(client, method)(url)
        assert response.status_code == 403, (name, response.status_code)


def test_the_blind_audit_trail_shows_only_named_detail(client, disputed_world):
    """An event whose detail names the model (a future event might) stays off a blind page:
    the trail keeps only the detail keys it was told to."""
    item = disputed_world["items"][0]
    AuditEvent.objects.create(
        action="submitted", item=item, study=item.study, detail={"model": MODEL, "version": 9}
    )
    client.force_login(make_adjudicator())
    body = client.get(reverse("research_item_audit", args=[item.pk])).content.decode()
    assert MODEL not in body and "(version 9)" in body  # the named key stays, as words


# --- a researcher -----------------------------------------------------------------------------


def test_a_researcher_on_a_blind_study_sees_the_same_blinded_pages(
    client, researcher, disputed_world
):
    study = disputed_world["study"]
    Study.objects.filter(pk=study.pk).update(blind_adjudication=True)
    client.force_login(researcher)
    pages = adjudication_pages(client, disputed_world)
    # A researcher's menu links the runs and jury lists on every page; no run of theirs, though.
    tokens = [t for t in forbidden_tokens(disputed_world) if t not in RESEARCHER_MENU]
    tokens.append(f"/runs/{disputed_world['run'].pk}/")
    for where, body in pages.items():
        for token in tokens:
            assert token not in body, f"{token!r} leaked in {where}"
    # A researcher keeps the study's controls, which an adjudicator does not get.
    assert "Export CSV" in pages["study"] and "blind" in pages["study"]


def test_a_researcher_on_a_study_that_is_not_blind_still_sees_model_and_run(
    client, researcher, disputed_world
):
    study, item = disputed_world["study"], disputed_world["items"][0]
    client.force_login(researcher)
    page = client.get(reverse("research_study", args=[study.pk])).content.decode()
    assert MODEL in page
    audit = client.get(reverse("research_item_audit", args=[item.pk])).content.decode()
    assert MODEL in audit and f"/traces/{item.trace_id}/" in audit
    # The queue itself is blinded for everyone, as it always was.
    queue = client.get(reverse("research_adjudication", args=[study.pk])).content.decode()
    assert MODEL not in queue


def test_a_new_study_is_blind_unless_the_researcher_unticks_it(client, researcher):
    client.force_login(researcher)
    form = client.get(reverse("research_study_new")).content.decode()
    assert re.search(r'<input[^>]*name="blind_adjudication"[^>]*checked', form), form
    assert Study._meta.get_field("blind_adjudication").default is False  # existing rows


def test_a_study_created_with_the_box_ticked_is_blind(client, researcher, disputed_world):
    clinicians = {a.clinician for a in disputed_world["items"][0].assignments.all()}
    client.force_login(researcher)
    fields = {
        "runs": [disputed_world["run"].pk],
        "n_items": 2,
        "seed": 3,
        "overlap_clinical": 2,
        "overlap_operations": 0,
        "reference_percent": 0,
        "clinicians": [c.pk for c in clinicians],
        "adjudication_threshold": 2,
    }
    client.post(
        reverse("research_study_new"), {**fields, "name": "Blind", "blind_adjudication": "on"}
    )
    client.post(reverse("research_study_new"), {**fields, "name": "Open", "seed": 4})
    assert Study.objects.get(name="Blind").blind_adjudication
    assert not Study.objects.get(name="Open").blind_adjudication
