"""The clinician's review pages over HTTP: what they show, drafts, idempotent submission,
revisions, calibration feedback, who may reach what, and what must never appear."""

import html
import json
import re

import pytest
from django.contrib.auth.models import Group, User
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from annotation.models import Assignment, AuditEvent, Clinician, Study, Submission
from annotation.studies import StudySpec, create_study
from patientagentbench.models import Trace
from patientagentbench.roles import CLINICIAN
from patientagentbench.suites.case_sets import create_case_set
from tests.conftest import PASSWORD
from tests.finished_runs import simulated_run

pytestmark = pytest.mark.django_db

CLINICAL = ("clinical_safety", "triage_quality", "clinical_helpfulness")
REALISM = ("conversation_realism", "patient_profile_realism")
REFERENCE_WHY = "Offered a restart without asking the prescriber."


def make_clinician(
    username: str, track: str = Clinician.Track.CLINICAL, *, onboarded: bool = True
) -> Clinician:
    """A clinician who has seen the introduction, unless `onboarded=False`."""
    user = User.objects.create_user(username=username, password=PASSWORD)
    user.groups.add(Group.objects.get_or_create(name=CLINICIAN)[0])
    return Clinician.objects.create(
        user=user, track=track, onboarded_at=timezone.now() if onboarded else None
    )


def complete(**changes) -> dict:
    form = {f"score-{key}": "4" for key in CLINICAL + REALISM}
    form.update(changes)
    return form


@pytest.fixture
def traces(sim_models):
    cases = create_case_set("review-cases", 4, 11)
    run = simulated_run(suite=cases, models=sim_models[:1], max_turns=6)
    return list(run.traces.filter(status=Trace.Status.DONE).order_by("pk"))


@pytest.fixture
def me():
    return make_clinician("dr-me")


@pytest.fixture
def other():
    return make_clinician("dr-other")


@pytest.fixture
def study(traces, me, other, researcher):
    return create_study(
        StudySpec(status="open", name="Winter pilot", overlap={"clinical": 2}),
        [t.pk for t in traces[:3]],
        [me, other],
        researcher,
    )


def mine(clinician: Clinician, study: Study) -> list[Assignment]:
    return list(clinician.assignments.filter(item__study=study).order_by("position"))


@pytest.fixture
def item(study, me):
    return mine(me, study)[0]


@pytest.fixture
def logged_in(client, me):
    client.force_login(me.user)
    return client


def url(name: str, code: str) -> str:
    return reverse(name, args=[code])


def checked(body: str, key: str) -> str | None:
    """The value of the checked radio of `score-<key>` in a rendered page."""
    match = re.search(rf'name="score-{key}" value="(\w+)" checked', body)
    return match.group(1) if match else None


# --- the page ------------------------------------------------------------------------------


def test_review_page_shows_chart_story_conversation_and_the_tracks_dimensions(logged_in, item):
    response = logged_in.get(url("review_item", item.code))
    body = response.content.decode()
    assert response.status_code == 200
    trace = item.item.trace
    case = trace.task.case
    assert case["profile"]["name"] in body
    assert case["goal"]["summary"] in body
    assert 'class="thread"' in body and 'id="turn-1"' in body
    for key in CLINICAL + REALISM:
        assert f'name="score-{key}"' in body
    assert 'name="score-workflow_accuracy"' not in body  # operations track: not mine
    # N/A where the rubric allows it: triage by judgement; safety only if the agent never
    # replied (it did); realism never.
    assert 'name="score-triage_quality" value="na"' in body
    assert 'name="score-clinical_safety" value="na"' not in body
    assert 'name="score-conversation_realism" value="na"' not in body
    assert "item 1 of 3" in body and "Winter pilot" in body
    assert 'name="nonce"' in body
    assert f'hx-post="{url("review_draft", item.code)}"' in body


def test_home_lists_progress_and_one_primary_continue(logged_in, study, me):
    body = logged_in.get(reverse("review_home")).content.decode()
    first = mine(me, study)[0]
    assert "Winter pilot" in body and "0 of 3 scored" in body
    assert "min left at your pace" in body
    assert body.count("data-continue") == 1
    assert url("review_item", first.code) in body


def test_next_goes_to_the_next_open_item_then_home(logged_in, study, me):
    items = mine(me, study)
    assert logged_in.get(reverse("review_next"))["Location"] == url("review_item", items[0].code)
    by_study = logged_in.get(reverse("review_next") + f"?study={study.code}")
    assert by_study["Location"] == url("review_item", items[0].code)
    Assignment.objects.filter(pk__in=[a.pk for a in items]).update(status="submitted")
    assert logged_in.get(reverse("review_next"))["Location"] == reverse("review_home")
    assert logged_in.get(reverse("review_next") + "?study=nope").status_code == 404


# --- drafts ----------------------------------------------------------------------------------


def test_draft_saves_and_a_reload_restores_it(logged_in, item):
    response = logged_in.post(
        url("review_draft", item.code),
        {
            "score-clinical_safety": "2",
            "score-triage_quality": "na",
            "why-clinical_safety": "Booked before the patient agreed.",
            "flag": ["unsafe", "not-a-flag"],
            "comment-anchor": ["turn-1", "nowhere"],
            "comment-text": ["Opening is fine.", "dropped"],
            "active": "12",
        },
        headers={"HX-Request": "true"},
    )
    assert response.status_code == 200
    assert 'id="save-state"' in response.content.decode()
    assert "saved" in response.content.decode()
    item.refresh_from_db()
    assert item.draft["scores"] == {"clinical_safety": 2, "triage_quality": "na"}
    assert item.draft["comments"] == [{"anchor": "turn-1", "text": "Opening is fine."}]
    assert item.draft["flags"] == ["unsafe"]
    assert item.seconds_on_item == 12

    body = logged_in.get(url("review_item", item.code)).content.decode()
    assert checked(body, "clinical_safety") == "2"
    assert checked(body, "triage_quality") == "na"
    assert checked(body, "clinical_helpfulness") is None
    assert "Booked before the patient agreed." in body
    assert "Opening is fine." in body and "turn 1 · Patient" in body
    assert 'name="flag" value="unsafe" checked' in body


def test_a_bad_draft_value_is_refused_with_its_reason(logged_in, item):
    response = logged_in.post(url("review_draft", item.code), {"score-conversation_realism": "na"})
    assert response.status_code == 400
    assert "not saved" in response.content.decode()
    item.refresh_from_db()
    assert item.draft == {}


def test_time_on_item_is_capped_per_save(logged_in, item):
    logged_in.post(
        url("review_draft", item.code), {"score-clinical_safety": "3", "active": "99999"}
    )
    item.refresh_from_db()
    assert item.seconds_on_item == 300


# --- submitting --------------------------------------------------------------------------------


def test_submit_twice_with_one_nonce_stores_once_and_moves_on(logged_in, study, me):
    first, second = mine(me, study)[:2]
    form = complete(nonce="page-nonce-1", active="40")
    one = logged_in.post(url("review_submit", first.code), form)
    two = logged_in.post(url("review_submit", first.code), form)
    assert one.status_code == two.status_code == 302
    assert one["Location"] == two["Location"] == url("review_item", second.code)
    assert Submission.objects.filter(assignment=first).count() == 1
    first.refresh_from_db()
    assert first.status == Assignment.Status.SUBMITTED
    assert first.seconds_on_item == 40


def test_submit_incomplete_explains_and_keeps_everything(logged_in, item):
    form = {
        "score-clinical_safety": "5",
        "why-clinical_safety": "Careful with the allergy.",
        "nonce": "n-incomplete",
    }
    response = logged_in.post(url("review_submit", item.code), form)
    body = response.content.decode()
    assert response.status_code == 400
    assert "Score every dimension" in body and "Triage quality" in body
    assert body.count('class="dim missing') == 4
    assert checked(body, "clinical_safety") == "5"
    assert "Careful with the allergy." in body
    assert 'value="n-incomplete"' in body  # the corrected form still stores once
    assert not Submission.objects.filter(assignment=item).exists()
    item.refresh_from_db()
    assert item.draft["scores"] == {"clinical_safety": 5}


def test_a_submitted_item_is_read_only_and_takes_no_drafts(logged_in, item):
    logged_in.post(url("review_submit", item.code), complete(nonce="n1"))
    body = logged_in.get(url("review_item", item.code)).content.decode()
    assert "<fieldset disabled>" in body and "Revise" in body
    assert "hx-post" not in body
    assert checked(body, "clinical_safety") == "4"
    draft = logged_in.post(url("review_draft", item.code), {"score-clinical_safety": "1"})
    assert draft.status_code == 409
    assert Submission.objects.get(assignment=item).scores["clinical_safety"] == 4


def test_revise_needs_a_reason_and_keeps_both_versions(logged_in, item):
    logged_in.post(url("review_submit", item.code), complete(nonce="n1"))
    page = logged_in.get(url("review_item", item.code) + "?revise=1").content.decode()
    assert 'name="reason"' in page and url("review_revise", item.code) in page

    refused = logged_in.post(
        url("review_revise", item.code), complete(**{"score-clinical_safety": "2"}, nonce="r1")
    )
    assert refused.status_code == 400
    assert "Say why" in refused.content.decode()
    assert checked(refused.content.decode(), "clinical_safety") == "2"  # nothing lost
    assert Submission.objects.filter(assignment=item).count() == 1

    form = complete(**{"score-clinical_safety": "2"}, nonce="r2", reason="Missed the allergy.")
    assert logged_in.post(url("review_revise", item.code), form).status_code == 302
    assert logged_in.post(url("review_revise", item.code), form).status_code == 302  # retry
    v1, v2 = Submission.objects.filter(assignment=item).order_by("version")
    assert (v1.version, v1.is_current, v1.scores["clinical_safety"]) == (1, False, 4)
    assert (v2.version, v2.is_current, v2.scores["clinical_safety"]) == (2, True, 2)
    assert v2.reason == "Missed the allergy."
    body = logged_in.get(url("review_item", item.code)).content.decode()
    assert checked(body, "clinical_safety") == "2" and "version 2" in body


# --- who may reach what ----------------------------------------------------------------------


def test_another_clinicians_item_is_refused_and_nothing_is_written(logged_in, study, other):
    theirs = mine(other, study)[0]
    events = AuditEvent.objects.count()
    for name in ("review_item", "review_feedback"):
        assert logged_in.get(url(name, theirs.code)).status_code == 403
    for name in ("review_draft", "review_submit", "review_revise"):
        response = logged_in.post(url(name, theirs.code), complete(nonce="x", reason="r"))
        assert response.status_code == 403, name
    theirs.refresh_from_db()
    assert theirs.draft == {} and theirs.status == Assignment.Status.OPEN
    assert theirs.seconds_on_item == 0
    assert not Submission.objects.filter(assignment=theirs).exists()
    assert AuditEvent.objects.count() == events


def test_unknown_codes_are_not_found(logged_in, study):
    assert logged_in.get(url("review_item", "no-such-code")).status_code == 404
    assert logged_in.post(url("review_draft", "no-such-code"), {}).status_code == 404
    assert logged_in.get(reverse("review_round", args=["no-such-code"])).status_code == 404


@pytest.mark.parametrize("persona", ["researcher", "admin_user", "outsider", "anonymous"])
def test_only_clinicians_reach_review(client, request, item, persona):
    if persona != "anonymous":
        client.force_login(request.getfixturevalue(persona))
    gets = [reverse("review_home"), reverse("review_next"), url("review_item", item.code)]
    gets += [
        url("review_feedback", item.code),
        reverse("review_round", args=[item.item.study.code]),
    ]
    posts = [url(n, item.code) for n in ("review_draft", "review_submit", "review_revise")]
    for path, method in [(p, "get") for p in gets] + [(p, "post") for p in posts]:
        response = getattr(client, method)(path, complete(nonce="x"))
        if persona == "anonymous":
            assert response.status_code == 302 and "/accounts/login/" in response["Location"]
        else:
            assert response.status_code == 403, (path, persona)
    assert not Submission.objects.exists()


def test_a_clinician_group_member_without_a_profile_gets_an_empty_home(client, clinician):
    client.force_login(clinician)
    response = client.get(reverse("review_home"))
    assert (
        response.status_code == 200
        and "Nothing is assigned to you yet" in response.content.decode()
    )


def test_a_locked_study_says_why_and_takes_no_work(logged_in, traces, me, researcher):
    locked = create_study(
        StudySpec(
            status="open",
            name="Needs calibration",
            overlap={"clinical": 1},
            require_calibration=True,
        ),
        [traces[3].pk],
        [me],
        researcher,
    )
    assignment = mine(me, locked)[0]
    home = logged_in.get(reverse("review_home")).content.decode()
    assert "Locked until you pass a calibration round." in home
    assert url("review_item", assignment.code) not in home
    assert logged_in.get(url("review_item", assignment.code))["Location"] == reverse("review_home")
    draft = logged_in.post(url("review_draft", assignment.code), {"score-clinical_safety": "3"})
    assert draft.status_code == 403
    assignment.refresh_from_db()
    assert assignment.draft == {}


# --- calibration -----------------------------------------------------------------------------


def calibration_round(traces, me, researcher, feedback, n=2):
    round_ = create_study(
        StudySpec(
            status="open",
            name="Round 2",
            kind=Study.Kind.CALIBRATION,
            overlap={"clinical": 1},
            feedback=feedback,
            min_exact=0.5,
            min_adjacent=0.8,
        ),
        [t.pk for t in traces[:n]],
        [me],
        researcher,
    )
    for item in round_.items.all():
        item.reference = {
            "clinical_safety": {"score": 2, "why": REFERENCE_WHY},
            "triage_quality": {"score": 4, "why": "Asked the right questions."},
            "clinical_helpfulness": {"score": None, "why": "Nothing clinical was asked."},
        }
        item.save(update_fields=["reference"])
    return round_


def test_immediate_feedback_after_each_item_and_a_round_summary(logged_in, traces, me, researcher):
    round_ = calibration_round(traces, me, researcher, Study.Feedback.IMMEDIATE)
    first, second = mine(me, round_)
    submitted = logged_in.post(url("review_submit", first.code), complete(nonce="c1"))
    assert submitted["Location"] == url("review_feedback", first.code)
    body = logged_in.get(submitted["Location"]).content.decode()
    assert REFERENCE_WHY in body and "off by 2" in body  # 4 against 2
    assert "exact" in body  # triage 4 against 4
    assert url("review_item", second.code) in body  # next item

    # Having seen the reference, the score stays: no Revise, and the server refuses it.
    page = logged_in.get(url("review_item", first.code)).content.decode()
    assert "?revise=1" not in page
    revised = logged_in.post(
        url("review_revise", first.code), complete(nonce="c1r", reason="I now agree")
    )
    assert revised.status_code == 400
    assert Submission.objects.filter(assignment=first).count() == 1

    form = complete(nonce="c2", **{"score-clinical_safety": "2", "score-triage_quality": "3"})
    logged_in.post(url("review_submit", second.code), form)
    summary = logged_in.get(reverse("review_round", args=[round_.code])).content.decode()
    safety = re.search(r"Clinical safety</td>(.*?)</tr>", summary, re.S).group(1)
    assert re.findall(r"(\d+)%", safety) == ["50", "50"]  # exact once; 4 vs 2 is not adjacent
    triage = re.search(r"Triage quality</td>(.*?)</tr>", summary, re.S).group(1)
    assert re.findall(r"(\d+)%", triage) == ["50", "100"]
    assert "nothing to compare" in summary  # helpfulness: the reference says not applicable
    assert "not yet" in summary  # safety within one 50% < 80%
    # Found 9: two items decide nothing firmly, and the summary says so.
    caveat = re.search(r'data-testid="rough-check">(.*?)</p>', summary, re.S).group(1)
    assert caveat.startswith("Based on 2 items; few items make this a rough check")


def test_a_round_with_enough_items_reads_without_the_rough_check_caveat(
    logged_in, traces, me, researcher, sim_models
):
    cases = create_case_set("review-cases-more", 5, 12)
    more = list(simulated_run(suite=cases, models=sim_models[:1], max_turns=6).traces.all())
    round_ = calibration_round(more, me, researcher, Study.Feedback.END, n=5)
    for n, assignment in enumerate(mine(me, round_)):
        logged_in.post(url("review_submit", assignment.code), complete(nonce=f"f{n}"))
    summary = logged_in.get(reverse("review_round", args=[round_.code])).content.decode()
    assert "You met the targets on" in summary and "rough check" not in summary


def test_feedback_at_the_end_waits_for_the_last_item(logged_in, traces, me, researcher):
    round_ = calibration_round(traces, me, researcher, Study.Feedback.END)
    first, second = mine(me, round_)
    after_first = logged_in.post(url("review_submit", first.code), complete(nonce="e1"))
    assert after_first["Location"] == url("review_item", second.code)
    waiting = logged_in.get(url("review_feedback", first.code)).content.decode()
    assert REFERENCE_WHY not in waiting and "when you have scored all" in waiting
    assert (
        "still to score"
        in logged_in.get(reverse("review_round", args=[round_.code])).content.decode()
    )
    after_last = logged_in.post(url("review_submit", second.code), complete(nonce="e2"))
    assert after_last["Location"] == reverse("review_round", args=[round_.code])
    assert REFERENCE_WHY in logged_in.get(url("review_feedback", first.code)).content.decode()
    home = logged_in.get(reverse("review_home")).content.decode()
    assert reverse("review_round", args=[round_.code]) in home


def test_a_round_of_someone_else_is_refused(client, traces, me, other, researcher):
    round_ = calibration_round(traces, me, researcher, Study.Feedback.END)
    client.force_login(other.user)
    assert client.get(reverse("review_round", args=[round_.code])).status_code == 403


# --- performance, escaping and blinding ------------------------------------------------------


def conversation(turns: int) -> list[dict]:
    messages = [{"role": "system", "content": "You are the patient assistant."}]
    for n in range(1, turns + 1):
        messages.append({"role": "user", "content": f"Patient message {n}"})
        call = {"id": f"c{n}", "name": "list_appointments", "arguments": {"page": n}}
        messages.append({"role": "assistant", "content": "", "tool_calls": [call]})
        messages.append({"role": "tool", "tool_call_id": f"c{n}", "content": "{}", "status": "ok"})
        messages.append({"role": "assistant", "content": f"Agent reply {n}"})
    return messages


def test_query_count_does_not_grow_with_the_conversation(logged_in, study, me):
    short, long = mine(me, study)[:2]
    Trace.objects.filter(pk=short.item.trace_id).update(messages=conversation(2))
    Trace.objects.filter(pk=long.item.trace_id).update(messages=conversation(60))
    counts = {}
    for name, assignment in (("short", short), ("long", long)):
        logged_in.get(url("review_item", assignment.code))  # warm the session and caches
        with CaptureQueriesContext(connection) as queries:
            response = logged_in.get(url("review_item", assignment.code))
        assert response.status_code == 200
        counts[name] = len(queries)
    assert 'id="turn-120"' in response.content.decode()
    assert counts["short"] == counts["long"], counts


def test_model_and_tool_output_is_escaped(logged_in, item):
    messages = [
        {"role": "user", "content": "Hi <b>there</b>"},
        {
            "role": "assistant",
            "content": "<script>alert('agent')</script>",
            "tool_calls": [{"id": "x1", "name": "get_profile<img src=x onerror=alert(1)>"}],
        },
        {"role": "tool", "tool_call_id": "x1", "content": "<script>alert('tool')</script>"},
    ]
    Trace.objects.filter(pk=item.item.trace_id).update(messages=messages)
    body = logged_in.get(url("review_item", item.code)).content.decode()
    assert "<script>alert(" not in body and "<img src=x" not in body
    assert "&lt;script&gt;alert(&#x27;agent&#x27;)&lt;/script&gt;" in body
    assert "Hi &lt;b&gt;there&lt;/b&gt;" in body


def test_no_page_names_the_model_run_or_trace(logged_in, traces, study, me, other, researcher):
    round_ = calibration_round(traces, me, researcher, Study.Feedback.IMMEDIATE)
    first = mine(me, study)[0]
    theirs = mine(other, study)[0]
    logged_in.post(url("review_submit", first.code), complete(nonce="b1"))
    calibration_item = mine(me, round_)[0]
    logged_in.post(url("review_submit", calibration_item.code), complete(nonce="b2"))
    other_note = "OTHER-CLINICIAN-PRIVATE-NOTE"
    theirs.draft = {"scores": {"clinical_safety": 1}, "why": {"clinical_safety": other_note}}
    theirs.save(update_fields=["draft"])
    pages = {
        "home": logged_in.get(reverse("review_home")),
        "open item": logged_in.get(url("review_item", mine(me, study)[1].code)),
        "submitted item": logged_in.get(url("review_item", first.code)),
        "revise": logged_in.get(url("review_item", first.code) + "?revise=1"),
        "draft": logged_in.post(
            url("review_draft", mine(me, study)[1].code), {"score-clinical_safety": "3"}
        ),
        "feedback": logged_in.get(url("review_feedback", calibration_item.code)),
        "round": logged_in.get(reverse("review_round", args=[round_.code])),
        "incomplete": logged_in.post(
            url("review_submit", mine(me, study)[2].code), {"nonce": "b3"}
        ),
    }
    forbidden = ["sim-steady", "sim-jittery", "temperature", "/traces/", "/runs/", other_note]
    forbidden += [f"/traces/{t.pk}/" for t in traces] + [other.code, "latency", "tokens"]
    for where, response in pages.items():
        assert response.status_code in (200, 400), where
        body = response.content.decode()
        for token in forbidden:
            assert token not in body, f"{token!r} in {where}"
        for path in re.findall(r'(?:href|action|hx-post)="([^"]+)"', body):
            assert not re.search(r"/\d+(/|$)", path), (where, path)  # no numeric ids in URLs


# --- faults ---------------------------------------------------------------------------------


def test_the_database_failing_during_a_submission_gives_a_clear_error_and_keeps_the_draft(
    logged_in, item, monkeypatch, caplog
):
    """The fault: the database stops answering as the clinician submits. What survives: the
    autosaved draft, no half-written submission, and the same form submits once it is back."""
    from django.db import OperationalError

    from annotation import reviewing

    saved = logged_in.post(url("review_draft", item.code), complete(active="30"))
    assert saved.status_code == 200

    def database_down(*args, **kwargs):
        raise OperationalError("server closed the connection unexpectedly")

    monkeypatch.setattr(reviewing, "submit", database_down)
    logged_in.raise_request_exception = False
    form = complete(nonce="n-db-down", active="45")
    failed = logged_in.post(url("review_submit", item.code), form)

    assert failed.status_code == 503
    assert "The database is not answering" in failed.content.decode()
    assert "autosaved draft is" in " ".join(failed.content.decode().split())
    assert not Submission.objects.filter(assignment=item).exists()
    item.refresh_from_db()
    assert item.draft["scores"] == {key: 4 for key in CLINICAL + REALISM}
    assert [r.getMessage() for r in caplog.records if "database unavailable" in r.getMessage()]

    monkeypatch.undo()
    again = logged_in.post(url("review_submit", item.code), form)
    assert again.status_code == 302
    assert Submission.objects.filter(assignment=item).count() == 1


# --- drafts merge per field by version (issue 20) -------------------------------------------


def draft_post(client, item, versions, **form):
    return client.post(
        url("review_draft", item.code),
        {**form, "versions": json.dumps(versions)},
        headers={"HX-Request": "true"},
    )


def test_a_late_page_hide_save_is_not_overwritten_by_the_reloaded_pages_older_box(logged_in, item):
    # The reloaded page saves a score first; its why box is still empty (it was rendered before
    # the page-hide save of the text arrived) and carries the text's older version.
    draft_post(
        logged_in,
        item,
        {"score-clinical_safety": 300, "why-clinical_safety": 100},
        **{"score-clinical_safety": "2", "why-clinical_safety": ""},
    )
    draft_post(
        logged_in, item, {"why-clinical_safety": 200}, **{"why-clinical_safety": "Never asked."}
    )
    draft_post(  # the same late save again: nothing changes
        logged_in, item, {"why-clinical_safety": 200}, **{"why-clinical_safety": "Never asked."}
    )
    draft_post(logged_in, item, {"why-clinical_safety": 150}, **{"why-clinical_safety": "Nev"})
    item.refresh_from_db()
    assert item.draft["scores"] == {"clinical_safety": 2}
    assert item.draft["why"] == {"clinical_safety": "Never asked."}
    assert item.draft_versions == {"score-clinical_safety": 300, "why-clinical_safety": 200}
    # A page that knew only the older text is told of the newer one in the save's answer.
    answer = draft_post(
        logged_in,
        item,
        {},
        known=json.dumps({"why-clinical_safety": 150, "score-clinical_safety": 300}),
    )
    fresher = re.search(r'data-fresher="([^"]*)"', answer.content.decode()).group(1)
    assert json.loads(html.unescape(fresher)) == {"why-clinical_safety": [200, "Never asked."]}
    body = logged_in.get(url("review_item", item.code)).content.decode()
    versions = re.search(r'id="draft-versions" type="application/json">(.*?)</script>', body)
    assert json.loads(versions.group(1)) == item.draft_versions


def test_a_form_sent_without_versions_still_saves_every_field(logged_in, item):
    draft_post(logged_in, item, {"why-clinical_safety": 10**12}, **{"why-clinical_safety": "a"})
    logged_in.post(url("review_draft", item.code), {"why-clinical_safety": "b"})
    item.refresh_from_db()
    assert item.draft["why"] == {"clinical_safety": "b"}
    # Without the page's script the hidden field stays empty: an incomplete submit keeps it all.
    form = {"why-clinical_safety": "c", "score-clinical_safety": "4", "versions": "", "nonce": "x"}
    assert logged_in.post(url("review_submit", item.code), form).status_code == 400
    item.refresh_from_db()
    assert item.draft["why"] == {"clinical_safety": "c"}
    assert item.draft["scores"] == {"clinical_safety": 4}


# --- N/A only where the rubric allows it ------------------------------------------------------


def test_na_on_clinical_safety_is_refused_when_the_agent_replied(logged_in, item):
    response = logged_in.post(url("review_draft", item.code), {"score-clinical_safety": "na"})
    assert response.status_code == 400
    assert "N/A does not apply" in response.content.decode()
    submitted = logged_in.post(
        url("review_submit", item.code), complete(nonce="n-na", **{"score-clinical_safety": "na"})
    )
    assert submitted.status_code == 302  # back to the page with the reason
    assert not Submission.objects.filter(assignment=item).exists()
    ok = logged_in.post(url("review_draft", item.code), {"score-triage_quality": "na"})
    assert ok.status_code == 200


def test_na_on_clinical_safety_is_offered_when_the_agent_never_replied(logged_in, item):
    trace = item.item.trace
    trace.messages = [m for m in trace.messages if m.get("role") != "assistant"]
    trace.save(update_fields=["messages"])
    body = logged_in.get(url("review_item", item.code)).content.decode()
    assert 'name="score-clinical_safety" value="na"' in body
    response = logged_in.post(url("review_draft", item.code), {"score-clinical_safety": "na"})
    assert response.status_code == 200


def test_flags_have_keys_shown_on_the_page_and_in_the_key_map(logged_in, item):
    body = logged_in.get(url("review_item", item.code)).content.decode()
    assert 'data-key="u"' in body and 'data-key="b"' in body
    keymap = body[body.index('<dialog id="keymap"') :]
    assert "<kbd>u</kbd></td><td>flag: unsafe for the patient" in keymap
    assert "<kbd>b</kbd></td><td>flag: broken conversation" in keymap
    assert reverse("review_welcome") in keymap


# --- the introduction before the first item ---------------------------------------------------


def test_a_first_time_clinician_sees_the_introduction_once(client, study):
    newcomer = make_clinician("dr-new", onboarded=False)
    first = (
        create_study(
            StudySpec(name="Spring", overlap={"clinical": 1}, status="open"),
            [study.items.first().trace_id],
            [newcomer],
            study.created_by,
        )
        .items.get()
        .assignments.get()
    )
    client.force_login(newcomer.user)
    response = client.get(url("review_item", first.code))
    welcome = f"{reverse('review_welcome')}?next={first.code}"
    assert response.status_code == 302 and response["Location"] == welcome
    body = client.get(welcome).content.decode()
    assert "Your scores are never shown to anyone as yours" in body
    assert "Clinical track" in body and "Operations track" in body and "yours" in body
    assert "<kbd>u</kbd>" in body

    done = client.post(reverse("review_welcome"), {"next": first.code})
    assert done["Location"] == url("review_item", first.code)
    newcomer.refresh_from_db()
    seen = newcomer.onboarded_at
    assert seen is not None
    assert client.get(url("review_item", first.code)).status_code == 200
    client.post(reverse("review_welcome"), {"next": first.code})  # reopened from the key map
    newcomer.refresh_from_db()
    assert newcomer.onboarded_at == seen


def test_the_introduction_never_sends_to_someone_elses_item(logged_in, study, other):
    theirs = mine(other, study)[0]
    response = logged_in.post(reverse("review_welcome"), {"next": theirs.code})
    assert response["Location"] == reverse("review_next")
    body = logged_in.get(f"{reverse('review_welcome')}?next={theirs.code}").content.decode()
    assert theirs.code not in body


def test_a_long_profile_result_is_shown_whole_where_other_long_results_fold(logged_in, item):
    long = json.dumps({"name": "Ana", "notes": "x" * 900})
    trace = item.item.trace
    trace.messages = [
        {"role": "user", "content": "Hi."},
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [
                {"id": "a", "name": "get_profile", "arguments": {}},
                {"id": "b", "name": "list_doctors", "arguments": {}},
            ],
        },
        {"role": "tool", "tool_call_id": "a", "content": long, "status": "ok"},
        {"role": "tool", "tool_call_id": "b", "content": long, "status": "ok"},
        {"role": "assistant", "content": "Done."},
    ]
    trace.save(update_fields=["messages"])
    body = logged_in.get(url("review_item", item.code)).content.decode()
    profile = body[body.index('id="t1"') : body.index('id="t2"')]
    doctors = body[body.index('id="t2"') :]
    assert "reads-chart" in body[body.index('id="t1"') - 40 : body.index('id="t1"')]
    assert "<details>" not in profile and "x" * 900 in profile
    assert "<details>" in doctors[: doctors.index("</details>")]
