"""Draft → open → closed, and qualification as a stored record: a round that closes writes
each clinician's result once, and nothing submitted later changes it."""

import pytest
from django.urls import reverse

from annotation import lifecycle, reviewing
from annotation.models import AuditEvent, Qualification, Study
from annotation.qualification import is_qualified, report_for
from annotation.studies import StudySpec, create_study
from tests.annotation.test_review_views import CLINICAL, REALISM, make_clinician, mine
from tests.annotation.test_review_views import traces as traces  # noqa: F401 (fixture)

pytestmark = pytest.mark.django_db

REFERENCE = (
    {"clinical_safety": 2, "triage_quality": 2, "clinical_helpfulness": 2},
    {"clinical_safety": 4, "triage_quality": 4, "clinical_helpfulness": 4},
    {"clinical_safety": 5, "triage_quality": 5, "clinical_helpfulness": 5},
)


def make_round(traces, clinicians, researcher, **spec):
    round_ = create_study(
        StudySpec(
            name="Round 1",
            kind=Study.Kind.CALIBRATION,
            overlap={"clinical": len(clinicians)},
            min_exact=0.5,
            min_adjacent=0.8,
            min_alpha=0.4,
            **spec,
        ),
        [t.pk for t in traces[:3]],
        clinicians,
        researcher,
    )
    for item, scores in zip(round_.items.order_by("pk"), REFERENCE, strict=True):
        item.reference = {k: {"score": v, "why": f"{k} {v}"} for k, v in scores.items()}
        item.save(update_fields=["reference"])
    return round_


def score(clinician, round_, flip=False):
    """The reference's scores (or their mirror image, 6 − s) on every item of the round."""
    by_item = dict(
        zip(round_.items.order_by("pk").values_list("pk", flat=True), REFERENCE, strict=True)
    )
    for assignment in mine(clinician, round_):
        scores = {k: (6 - v if flip else v) for k, v in by_item[assignment.item_id].items()}
        scores |= dict.fromkeys(REALISM, 3)
        answer = {"scores": scores, "why": {}, "flags": [], "comments": []}
        reviewing.submit(assignment, answer, f"n-{assignment.code}", 60, clinician.user)


def test_new_studies_and_rounds_are_drafts_no_clinician_sees(traces, researcher):
    me = make_clinician("dr-draft")
    round_ = create_study(
        StudySpec(name="R", kind=Study.Kind.CALIBRATION, overlap={"clinical": 1}),
        [traces[0].pk],
        [me],
        researcher,
    )
    assert round_.status == Study.Status.DRAFT
    assert reviewing.next_open(me) is None and reviewing.home_for(me) == []


def test_a_draft_refuses_to_open_until_its_checklist_holds(traces, researcher):
    me = make_clinician("dr-one")
    round_ = create_study(
        StudySpec(name="R", kind=Study.Kind.CALIBRATION, overlap={"clinical": 1}),
        [t.pk for t in traces[:2]],
        [me, make_clinician("dr-ops", "operations")],
        researcher,
    )
    round_.overlap = {"clinical": 2}  # as after a deactivation, or an edit
    round_.save(update_fields=["overlap"])
    with pytest.raises(lifecycle.LifecycleError) as refused:
        lifecycle.open_study(round_, researcher)
    assert "2 of 2 reference items lack a reference" in str(refused.value)
    assert "clinical asks for 2 per item, 1 clinician cover it" in str(refused.value)
    round_.refresh_from_db()
    assert round_.status == Study.Status.DRAFT


def test_a_study_requiring_calibration_opens_only_with_qualified_clinicians(traces, researcher):
    me = make_clinician("dr-q")
    study = create_study(
        StudySpec(name="S", overlap={"clinical": 1}, require_calibration=True),
        [traces[3].pk],
        [me],
        researcher,
    )
    assert f"{me.code} has not passed a calibration round" in " ".join(lifecycle.problems(study))
    round_ = make_round(traces, [me], researcher, status=Study.Status.OPEN)
    score(me, round_)
    # Only the second clinician makes alpha defined; one clinician alone cannot pass.
    lifecycle.close_study(round_, researcher)
    record = Qualification.objects.get(clinician=me, round=round_)
    assert not record.passed and not is_qualified(me, round_.rubric_name, round_.rubric_version)


def test_a_qualification_stays_the_same_after_later_submissions_change_the_alpha(
    traces, researcher
):
    ana, ben, late = (make_clinician(n) for n in ("dr-ana", "dr-ben", "dr-late"))
    round_ = make_round(traces, [ana, ben, late], researcher, status=Study.Status.OPEN)
    score(ana, round_)
    score(ben, round_)
    lifecycle.close_study(round_, researcher)
    before = Qualification.objects.get(clinician=ana, round=round_)
    assert before.passed and is_qualified(ana, round_.rubric_name, round_.rubric_version)
    assert report_for(round_).dimensions["clinical_safety"].alpha == 1.0

    score(late, round_, flip=True)  # submitted after the round's result was written

    alpha = report_for(round_).dimensions["clinical_safety"].alpha
    assert alpha < round_.min_alpha and not report_for(round_).passed(ana.code, CLINICAL)
    after = Qualification.objects.get(clinician=ana, round=round_)
    assert (after.passed, after.results, after.at) == (before.passed, before.results, before.at)
    assert is_qualified(ana, round_.rubric_name, round_.rubric_version)


def test_a_researcher_reopens_a_qualification_with_a_reason(traces, researcher):
    ana, ben = make_clinician("dr-ana"), make_clinician("dr-ben")
    round_ = make_round(traces, [ana, ben], researcher, status=Study.Status.OPEN)
    score(ana, round_)
    score(ben, round_)
    lifecycle.close_study(round_, researcher)
    record = Qualification.objects.get(clinician=ana, round=round_)
    with pytest.raises(lifecycle.LifecycleError):
        lifecycle.reopen_qualification(record, "  ", researcher)
    lifecycle.reopen_qualification(record, "Scored round 1 in a hurry", researcher)
    assert not is_qualified(ana, round_.rubric_name, round_.rubric_version)
    record.refresh_from_db()
    assert record.passed  # the result itself is kept as it was
    event = AuditEvent.objects.get(action="qualification_reopened")
    assert event.detail == {"clinician": ana.code, "reason": "Scored round 1 in a hurry"}


def test_the_round_report_shows_records_and_reopens_one(client, traces, researcher):
    ana, ben = make_clinician("dr-ana"), make_clinician("dr-ben")
    round_ = make_round(traces, [ana, ben], researcher, status=Study.Status.OPEN)
    score(ana, round_)
    score(ben, round_)
    client.force_login(researcher)
    url = reverse("research_study_status", args=[round_.pk])
    closed = client.post(url, {"confirm": "yes"}, follow=True)
    assert "results recorded for 2 clinicians" in closed.content.decode()
    record = Qualification.objects.get(clinician=ana, round=round_)
    report = client.get(reverse("research_round_report", args=[round_.pk])).content.decode()
    assert reverse("research_qualification_reopen", args=[record.pk]) in report
    url = reverse("research_qualification_reopen", args=[record.pk])
    client.post(url, {"reason": ""})
    assert not Qualification.objects.filter(reopened_at__isnull=False).exists()
    client.post(url, {"reason": "Retrain on triage"})
    record.refresh_from_db()
    assert record.reopened_reason == "Retrain on triage" and record.reopened_by == researcher


def test_a_closed_round_cannot_be_opened_again(traces, researcher):
    ana = make_clinician("dr-ana")
    round_ = make_round(traces, [ana], researcher, status=Study.Status.OPEN)
    lifecycle.close_study(round_, researcher)
    with pytest.raises(lifecycle.LifecycleError):
        lifecycle.open_study(round_, researcher)


def test_a_draft_study_page_shows_its_checklist_and_the_true_overlap(client, traces, researcher):
    ana, ben = make_clinician("dr-ana"), make_clinician("dr-ben")
    study = create_study(
        StudySpec(name="S", overlap={"clinical": 1}, require_calibration=True),
        [traces[0].pk],
        [ana, ben],
        researcher,
    )
    client.force_login(researcher)
    page = client.get(reverse("research_study", args=[study.pk])).content.decode()
    assert 'data-testid="checklist"' in page
    assert "has not passed a calibration round" in page  # one clinician holds the one item
    assert (
        "clinicians per item asked: clinical 1" in page and "assigned per item: 1 clinician" in page
    )


def test_a_round_that_cannot_qualify_its_clinician_does_not_open(traces, researcher):
    """Found 4: one clinician's round said "✓ Overlap reachable" and opened, yet alpha needs
    two clinicians, so nobody could pass it whatever they scored."""
    me = make_clinician("dr-alone")
    round_ = make_round(traces, [me], researcher)
    check = {c.label: c for c in lifecycle.checklist(round_)}["Qualification reachable"]
    assert not check.ok and "fewer than 2 clinicians gave scores" in check.detail
    with pytest.raises(lifecycle.LifecycleError, match="cannot pass even by scoring exactly"):
        lifecycle.open_study(round_, researcher)
    # The same round with a second clinician can qualify both: it opens.
    pair = make_round(traces, [me, make_clinician("dr-second")], researcher, status="draft")
    assert {c.label: c.ok for c in lifecycle.checklist(pair)}["Qualification reachable"]
    lifecycle.open_study(pair, researcher)


def test_a_round_on_one_item_cannot_qualify_anyone(traces, researcher):
    pair = [make_clinician("dr-a"), make_clinician("dr-b")]
    round_ = create_study(
        StudySpec(name="R", kind=Study.Kind.CALIBRATION, overlap={"clinical": 2}),
        [traces[0].pk],
        pair,
        researcher,
    )
    detail = {c.label: c for c in lifecycle.checklist(round_)}["Qualification reachable"].detail
    assert "only 1 item has scores from 2 or more clinicians" in detail


def test_a_clinician_who_met_every_target_is_not_told_to_reread_the_anchors(
    client, traces, researcher
):
    me = make_clinician("dr-exact")
    round_ = make_round(traces, [me], researcher, status=Study.Status.OPEN)
    score(me, round_)
    lifecycle.close_study(round_, researcher)
    assert not Qualification.objects.get(clinician=me, round=round_).passed
    client.force_login(me.user)
    body = client.get(reverse("review_round", args=[round_.code])).content.decode()
    assert "Result: <b>not yet</b>" in body and "You met every target" in body
    assert "Reread the anchors" not in body and "reread the anchors" not in body
