"""Blinding, tried the way a curious clinician would: log in, follow every link, htmx URL and
form the pages offer, try the researcher URLs directly, and look for anything that identifies
the model, the run or what anyone else (human or machine) thought.

The models under test get distinctive names so a leak anywhere in a page, partial, URL or
element id is found by a plain substring search.
"""

import json
import re
from html.parser import HTMLParser
from urllib.parse import urljoin, urlparse

import pytest
from django.contrib.auth.models import Group, User
from django.urls import reverse
from django.utils import timezone

from annotation import adjudication, reviewing
from annotation.models import Assignment, Clinician, Item, Study
from annotation.studies import StudySpec, create_study
from patientagentbench.interchange.importer import import_bytes
from patientagentbench.models import ModelConfig, Run, Trace
from patientagentbench.suites.case_sets import create_case_set
from tests.annotation.consensus import next_round, qualify
from tests.finished_runs import simulated_run

pytestmark = pytest.mark.django_db

DISTINCT_MODELS = {
    "zeta-omega-agent-7b": "sim-careless",
    "quasar-heron-pro": "sim-steady",
}
# An imported transcript without a case, in the same study: its model, task id and the
# metadata an import carried must not reach a clinician either.
IMPORTED_MODEL = "nebula-finch-13b"
IMPORTED_TASK = "imported-task-5831"
IMPORTED_NOTE = "IMPORTED-METADATA-NOTE"
IMPORTED_PROMPT = "Please book my flu shot for Monday."
OTHER_NOTE = "PRIVATE-NOTE-OF-ANOTHER-CLINICIAN"
REFERENCE_WHY = "REFERENCE-RATIONALE-NOT-YET-DUE"
REJECTED_ANSWER = "A-PATIENT-MODEL-ANSWER-REFUSED"
ALWAYS_FORBIDDEN = (
    "/traces/",
    "/runs/",
    "temperature",
    "repetition",
    "tokens_in",
    "tokens_out",
    "latency",
    "sim-careless",
    "sim-steady",
    "sim-jittery",
    "outcome_checks",
)


class Links(HTMLParser):
    """Every URL a page offers: links, htmx attributes, forms (with their fields)."""

    def __init__(self):
        super().__init__()
        self.urls: set[str] = set()
        self.forms: list[dict] = []
        self._form: dict | None = None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        for name in ("href", "src", "hx-get", "hx-post", "action", "data-url"):
            if attrs.get(name):
                self.urls.add(attrs[name])
        if tag == "form":
            self._form = {"action": attrs.get("action") or "", "method": attrs.get("method", "get")}
            self._form["fields"] = {}
            self.forms.append(self._form)
        elif tag in ("input", "textarea", "select") and self._form is not None:
            if attrs.get("name") and attrs.get("type") not in ("radio", "checkbox"):
                self._form["fields"][attrs["name"]] = attrs.get("value") or ""
            elif attrs.get("name") and "checked" in attrs:
                self._form["fields"][attrs["name"]] = attrs.get("value") or "on"

    def handle_endtag(self, tag):
        if tag == "form":
            self._form = None


def _clinician(username: str, track: str) -> Clinician:
    user = User.objects.create_user(username, password="pw-123456")
    user.groups.add(Group.objects.get_or_create(name="clinician")[0])
    clinician = reviewing.clinician_for(user)
    clinician.track = track
    clinician.save(update_fields=["track"])
    return clinician


@pytest.fixture
def blinded_world(researcher):
    models = [
        ModelConfig.objects.create(name=name, provider="simulated", model_id=profile)
        for name, profile in DISTINCT_MODELS.items()
    ]
    cases = create_case_set("blinding-cases", 4, 5)
    run = simulated_run(suite=cases, models=models, repetitions=1, max_turns=8)
    traces = list(run.traces.filter(status=Trace.Status.DONE).values_list("pk", flat=True))
    # The LLM patient's refused answers are for researchers only.
    refused = {"turn": 1, "attempt": 0, "rejected": "empty"}
    run.traces.update(
        patient_rejected_attempts=[{**refused, "text": REJECTED_ANSWER, "thinking": ""}]
    )
    imported = _imported_trace()
    me = _clinician("dr-me", Clinician.Track.BOTH)
    # Past the one-screen introduction: before it, every item page redirects to it, and the
    # crawl would read the introduction instead of the items.
    me.onboarded_at = timezone.now()
    me.save(update_fields=["onboarded_at"])
    other = _clinician("dr-other", Clinician.Track.BOTH)
    study = create_study(
        StudySpec(status="open", name="Blinded study", overlap={"clinical": 2, "operations": 2}),
        [*traces[:4], imported],
        [me, other],
        researcher,
    )
    calibration = create_study(
        StudySpec(
            status="open",
            name="Blinded round",
            kind=Study.Kind.CALIBRATION,
            overlap={"clinical": 2, "operations": 2},
            feedback=Study.Feedback.END,
        ),
        traces[4:6],
        [me, other],
        researcher,
    )
    for item in calibration.items.all():
        item.reference = {"clinical_safety": {"score": 2, "why": REFERENCE_WHY}}
        item.save(update_fields=["reference"])
    # The other clinician has scored and written notes; none of it may reach me.
    for assignment in other.assignments.all():
        answer = {
            "scores": {
                d.key: 5 for d in reviewing.dimensions_of(assignment, reviewing.rubric_of(study))
            },
            "why": {"clinical_safety": OTHER_NOTE},
            "flags": ["unsafe"],
            "comments": [{"anchor": "turn-1", "text": OTHER_NOTE}],
        }
        reviewing.submit(assignment, answer, f"n-{assignment.code}", 30, other.user)
    # One of my own items submitted, so a read-only page and a revise form exist too.
    mine = me.assignments.filter(item__study=study).order_by("position").first()
    reviewing.submit(
        mine,
        {
            "scores": {d.key: 3 for d in reviewing.dimensions_of(mine, reviewing.rubric_of(study))},
        },
        "mine-1",
        30,
        me.user,
    )
    return {"me": me, "other": other, "run": run, "study": study, "calibration": calibration}


def _imported_trace() -> int:
    """One finished trace of an imported run (JSONL, no case), with metadata of its own."""
    record = {
        "suite": "imported-suite-5831",
        "task_id": IMPORTED_TASK,
        "prompt": IMPORTED_PROMPT,
        "model": IMPORTED_MODEL,
        "temperature": 0.3,
        "status": "done",
        "messages": [
            {"role": "user", "content": IMPORTED_PROMPT},
            {"role": "assistant", "content": "Booked for Monday."},
        ],
        "tool_calls": [],
        "attributes": {"inspect_metadata": {"note": IMPORTED_NOTE, "agent": IMPORTED_MODEL}},
    }
    run = import_bytes(json.dumps(record).encode() + b"\n", "imported.jsonl").run
    return run.traces.get().pk


def _forbidden(world) -> list[str]:
    run = world["run"]
    tokens = (
        list(ALWAYS_FORBIDDEN)
        + list(DISTINCT_MODELS)
        + [OTHER_NOTE, REFERENCE_WHY, REJECTED_ANSWER]
        + [IMPORTED_MODEL, IMPORTED_TASK, IMPORTED_NOTE, "imported-suite-5831"]
    )
    tokens.append(world["other"].code)
    for correctness in run.traces.values_list("correctness", flat=True):
        for check in (correctness or {}).get("checks", []):
            if len(check.get("name", "")) > 12:
                tokens.append(check["name"])  # e.g. "no_fabricated_claims"
    return tokens


def _database_ids(world) -> set[str]:
    ids = set()
    for model in (Trace, Item, Assignment, Run, Study):
        ids.update(str(pk) for pk in model.objects.values_list("pk", flat=True))
    return ids


def crawl(client, start: str, limit: int = 300) -> dict[str, str]:
    """GET every same-site URL reachable from `start`; submit every form once."""
    seen: dict[str, str] = {}
    queue = [start]
    posted: set[str] = set()
    while queue and len(seen) < limit:
        url = queue.pop(0)
        path = urlparse(url).path
        if path in seen or not path.startswith("/") or path.startswith("/static/"):
            continue
        response = client.get(url, follow=True)
        body = response.content.decode(errors="replace")
        seen[path] = body
        parser = Links()
        parser.feed(body)
        for link in parser.urls:
            absolute = urljoin(path, link)
            if urlparse(absolute).netloc in ("", "testserver") and "logout" not in absolute:
                queue.append(urlparse(absolute).path)
        for form in parser.forms:
            action = urljoin(path, form["action"] or path)
            if form["method"].lower() != "post" or action in posted or "logout" in action:
                continue
            posted.add(action)
            reply = client.post(action, form["fields"], follow=True)
            seen[f"POST {action}"] = reply.content.decode(errors="replace")
    return seen


def test_nothing_identifying_reaches_a_clinician(client, blinded_world):
    me = blinded_world["me"]
    client.force_login(me.user)
    pages = crawl(client, reverse("review_home"))
    # Every item page and its partials, even those the crawl did not reach by links.
    for assignment in me.assignments.all():
        for name in ("review_item", "review_feedback"):
            pages[f"direct {name} {assignment.code}"] = client.get(
                reverse(name, args=[assignment.code]), follow=True
            ).content.decode()
    assert len(pages) >= 6, sorted(pages)
    imported = [body for body in pages.values() if 'data-testid="task-box"' in body]
    assert imported and all(IMPORTED_PROMPT in body for body in imported), "an imported item"
    forbidden = _forbidden(blinded_world)
    ids = _database_ids(blinded_world)
    for where, body in pages.items():
        for token in forbidden:
            assert token not in body, f"{token!r} leaked in {where}"
        for url in re.findall(r'(?:href|action|hx-get|hx-post)="([^"]+)"', body):
            segments = urlparse(url).path.strip("/").split("/")
            assert not (set(segments) & ids) or url.startswith("/static/"), (where, url)


def test_researcher_urls_are_closed_to_clinicians(client, blinded_world):
    client.force_login(blinded_world["me"].user)
    run, study = blinded_world["run"], blinded_world["study"]
    trace = run.traces.first()
    for url in [
        reverse("run_list"),
        reverse("run_detail", args=[run.pk]),
        reverse("trace_detail", args=[trace.pk]),
        reverse("run_report", args=[run.pk]),
        reverse("case_set_list"),
        reverse("model_list"),
        f"/research/studies/{study.pk}/",
        f"/research/studies/{study.pk}/export.csv",
        "/research/people/",
        "/django-admin/",
    ]:
        response = client.get(url)
        assert response.status_code in (302, 403, 404), (url, response.status_code)
        assert DISTINCT_MODELS.keys().isdisjoint(
            {m for m in DISTINCT_MODELS if m in response.content.decode()}
        ), url


def test_another_clinicians_item_is_refused_and_nothing_is_written(client, blinded_world):
    me, other = blinded_world["me"], blinded_world["other"]
    theirs = other.assignments.filter(status=Assignment.Status.SUBMITTED).first()
    before = (theirs.submissions.count(), theirs.draft, theirs.seconds_on_item)
    client.force_login(me.user)
    for name in ("review_item", "review_feedback"):
        assert client.get(reverse(name, args=[theirs.code])).status_code == 403
    for name in ("review_draft", "review_submit", "review_revise"):
        response = client.post(
            reverse(name, args=[theirs.code]),
            {"score-clinical_safety": "1", "nonce": "x", "reason": "because"},
        )
        assert response.status_code == 403, name
    theirs.refresh_from_db()
    assert (theirs.submissions.count(), theirs.draft, theirs.seconds_on_item) == before


def _consensus_round_for_me(world, researcher) -> Study:
    """A round on the earlier round's conversations, for me alone, whose references are the
    consensus of the other (qualified) clinician's scores, with feedback shown at once."""
    other, calibration = world["other"], world["calibration"]
    qualify(other, calibration)
    target = next_round(
        calibration.items.values_list("trace_id", flat=True),
        [world["me"]],
        researcher,
        name="Consensus round",
        overlap={"clinical": 1, "operations": 1},
        status="open",
    )
    assert adjudication.adopt_consensus(target, calibration, researcher).adopted == 2
    return target


def _submit_all(clinician: Clinician, study: Study) -> None:
    for assignment in clinician.assignments.filter(item__study=study):
        scores = {d.key: 3 for d in reviewing.dimensions_of(assignment, reviewing.rubric_of(study))}
        reviewing.submit(assignment, {"scores": scores}, f"c-{assignment.code}", 30, clinician.user)


def _reference_rationales(pages: dict[str, str]) -> list[str]:
    return [why for body in pages.values() for why in re.findall(r"Reference: “([^”]*)”", body)]


def test_an_adopted_consensus_names_no_clinician_and_no_score_to_a_clinician(
    client, blinded_world, researcher
):
    me, other = blinded_world["me"], blinded_world["other"]
    target = _consensus_round_for_me(blinded_world, researcher)
    _submit_all(me, target)
    client.force_login(me.user)
    pages = crawl(client, reverse("review_home"))
    for assignment in me.assignments.filter(item__study=target):
        pages[f"feedback {assignment.code}"] = client.get(
            reverse("review_feedback", args=[assignment.code]), follow=True
        ).content.decode()
    rationales = _reference_rationales(pages)
    assert rationales, "the consensus's rationale is shown as feedback"
    for where, body in pages.items():
        for token in _forbidden(blinded_world):
            assert token not in body, f"{token!r} leaked in {where}"
    # The other clinician scored 5 everywhere: no rationale lists scores or names them.
    for why in rationales:
        assert other.code not in why and not re.search(r":\s*[1-5](,\s*[1-5])*\.", why), why


def test_a_consensus_rationale_written_before_blinding_is_not_shown_as_written(
    client, blinded_world, researcher
):
    me, other = blinded_world["me"], blinded_world["other"]
    target = _consensus_round_for_me(blinded_world, researcher)
    legacy = {
        "clinical_safety": {"score": 4, "why": f"Consensus of {me.code}, {other.code}: 3, 5."},
        "triage_quality": {
            "score": None,
            "why": f"Not applicable for every clinician ({other.code}).",
        },
    }
    target.items.update(reference=legacy)
    _submit_all(me, target)
    client.force_login(me.user)
    assignment = me.assignments.filter(item__study=target).first()
    body = client.get(reverse("review_feedback", args=[assignment.code])).content.decode()
    rationales = _reference_rationales({"feedback": body})
    assert len(rationales) == 2, rationales
    assert other.code not in body and "3, 5" not in body


def test_a_researchers_adjudication_reason_citing_a_code_reaches_the_clinician_without_it(
    client, blinded_world, researcher
):
    me, other = blinded_world["me"], blinded_world["other"]
    target = _consensus_round_for_me(blinded_world, researcher)
    item = blinded_world["calibration"].items.order_by("pk").first()
    adjudication.decide(
        item, "clinical_safety", 2, f"{other.code} missed the red flag.", researcher
    )
    adjudication.adopt_consensus(target, blinded_world["calibration"], researcher)
    _submit_all(me, target)
    client.force_login(me.user)
    mine = me.assignments.get(item__study=target, item__trace_id=item.trace_id)
    body = client.get(reverse("review_feedback", args=[mine.code])).content.decode()
    assert "missed the red flag" in body and other.code not in body
