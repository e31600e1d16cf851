"""People: inviting a clinician (a real set-password link, followed to a login), editing a
profile, and deactivating someone without losing any item's overlap."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import User
from django.core import mail
from django.urls import reverse

from annotation import people
from annotation.models import Assignment, AuditEvent, Clinician
from annotation.studies import StudyError, StudySpec, create_study
from patientagentbench.roles import CLINICIAN, has_role
from tests.annotation import test_research_views as shared
from tests.annotation.test_research_views import make_clinician, submit_scores, trace_ids

pytestmark = pytest.mark.django_db
conversations = shared.conversations  # the fixture, shared
LINK = re.compile(r"https?://\S+/accounts/reset/\S+/")


def invite(client, **extra):
    data = {"email": "Dr.Rivera@Example.org", "name": "Ana Rivera", "track": "clinical"}
    data.update(extra)
    return client.post(reverse("research_people"), data)


def test_invite_mails_one_link_that_sets_a_password_and_logs_in(client, researcher):
    client.force_login(researcher)
    response = invite(client, specialty="Family medicine", years=12)
    assert response.status_code == 302 and response["Location"] == reverse("research_people")
    user = User.objects.get(username="dr.rivera@example.org")
    clinician = user.clinician
    assert not user.has_usable_password() and has_role(user, CLINICIAN)
    assert (clinician.track, clinician.specialty, clinician.years_in_practice) == (
        "clinical",
        "Family medicine",
        12,
    )
    assert clinician.invited_by == researcher
    assert len(mail.outbox) == 1 and mail.outbox[0].to == ["dr.rivera@example.org"]
    [link] = LINK.findall(mail.outbox[0].body)

    # The researcher sees the same link once, on the page they land on.
    page = client.get(reverse("research_people")).content.decode()
    assert link in page and clinician.code in page
    assert link not in client.get(reverse("research_people")).content.decode()

    client.logout()
    form = client.get(link, follow=True)
    assert form.status_code == 200 and b"Choose your password" in form.content
    done = client.post(
        form.redirect_chain[-1][0],
        {"new_password1": "a-long-fresh-secret", "new_password2": "a-long-fresh-secret"},
        follow=True,
    )
    assert b"Password set" in done.content
    # Through the login form: django-axes checks every authentication against its request.
    logged_in = client.post(
        reverse("login"),
        {"username": "dr.rivera@example.org", "password": "a-long-fresh-secret"},
    )
    assert logged_in.status_code == 302 and "_auth_user_id" in client.session
    # One time only: the token hashed the old (unusable) password.
    client.logout()
    again = client.get(link, follow=True)
    assert b"no longer works" in again.content
    assert AuditEvent.objects.filter(action="clinician_invited").get().detail == {
        "clinician": clinician.code,
        "track": "clinical",
    }


def test_an_email_invited_twice_is_refused(client, researcher):
    client.force_login(researcher)
    invite(client)
    response = invite(client, email="dr.rivera@example.org")
    assert response.status_code == 200 and "already has an account" in response.content.decode()
    assert Clinician.objects.count() == 1 and len(mail.outbox) == 1


def test_a_new_link_goes_only_to_someone_without_a_password(client, researcher):
    client.force_login(researcher)
    invite(client)
    clinician = Clinician.objects.get()
    client.post(reverse("research_person_link", args=[clinician.pk]))
    assert len(mail.outbox) == 2
    clinician.user.set_password("chosen-already")
    clinician.user.save()
    client.post(reverse("research_person_link", args=[clinician.pk]))
    assert len(mail.outbox) == 2


def test_a_mail_outage_still_shows_the_link(client, researcher, settings):
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT = "127.0.0.1", 9  # nothing listens on discard
    client.force_login(researcher)
    invite(client)
    page = client.get(reverse("research_people")).content.decode()
    assert "could not be sent" in page and "/accounts/reset/" in page


def test_profile_edit_is_saved_and_audited_without_the_name(client, researcher):
    clinician = make_clinician("edit")
    client.force_login(researcher)
    client.post(
        reverse("research_person", args=[clinician.pk]),
        {"name": "Dr. Secret Name", "track": "both", "specialty": "Cardiology", "years": 5},
    )
    clinician.refresh_from_db()
    assert (clinician.track, clinician.specialty, clinician.years_in_practice) == (
        "both",
        "Cardiology",
        5,
    )
    event = AuditEvent.objects.get(action="clinician_updated")
    assert event.detail["changes"]["track"] == ["clinical", "both"]
    assert "Secret" not in str(event.detail)


@pytest.fixture
def staffed(conversations, researcher):
    """Four items, two clinical clinicians per item, among three clinicians."""
    a, b, c = (make_clinician(n) for n in ("a", "b", "c"))
    study = create_study(
        StudySpec(status="open", name="Staffed", overlap={"clinical": 2}),
        trace_ids(conversations, 4),
        [a, b, c],
        researcher,
    )
    return study, a, b, c


def _live_per_item(study) -> dict[int, list[str]]:
    live = Assignment.objects.filter(item__study=study).exclude(status=Assignment.Status.WITHDRAWN)
    per_item: dict[int, list[str]] = {}
    for item_id, code in live.values_list("item_id", "clinician__code"):
        per_item.setdefault(item_id, []).append(code)
    return per_item


def test_deactivating_moves_open_items_to_a_colleague_and_keeps_overlap(
    client, researcher, staffed
):
    study, a, b, c = staffed
    leaving = max((a, b, c), key=people.open_items)
    done = leaving.assignments.first()
    submit_scores(done)
    open_before = people.open_items(leaving)
    client.force_login(researcher)
    confirm = client.get(reverse("research_person_deactivate", args=[leaving.pk]))
    assert f'data-testid="open-items">{open_before}<' in confirm.content.decode()
    response = client.post(reverse("research_person_deactivate", args=[leaving.pk]), follow=True)
    assert f"{open_before} open item" in response.content.decode()
    leaving.user.refresh_from_db()
    assert not leaving.user.is_active and people.open_items(leaving) == 0
    per_item = _live_per_item(study)
    assert all(len(set(codes)) == 2 for codes in per_item.values())  # overlap kept, distinct
    # The submitted item stays theirs; the open ones went to the two colleagues.
    assert leaving.code in per_item[done.item_id]
    assert sum(leaving.code in codes for codes in per_item.values()) == 1
    moved = AuditEvent.objects.filter(action="reassigned")
    assert moved.count() == open_before
    assert {e.detail["from_code"] for e in moved} == {leaving.code}


def test_deactivating_changes_nothing_when_no_colleague_can_take_over(
    client, researcher, conversations
):
    a, b = make_clinician("x"), make_clinician("y")
    study = create_study(
        StudySpec(status="open", name="Pair", overlap={"clinical": 2}),
        trace_ids(conversations, 2),
        [a, b],
        researcher,
    )
    client.force_login(researcher)
    response = client.post(reverse("research_person_deactivate", args=[a.pk]))
    assert response.status_code == 200 and "Nothing was changed" in response.content.decode()
    a.user.refresh_from_db()
    assert a.user.is_active and people.open_items(a) == 2
    assert all(len(codes) == 2 for codes in _live_per_item(study).values())


def test_a_deactivated_clinician_can_be_reactivated(client, researcher):
    clinician = make_clinician("gone")
    client.force_login(researcher)
    client.post(reverse("research_person_deactivate", args=[clinician.pk]))
    clinician.user.refresh_from_db()
    assert not clinician.user.is_active
    client.post(reverse("research_person_reactivate", args=[clinician.pk]))
    clinician.user.refresh_from_db()
    assert clinician.user.is_active
    assert AuditEvent.objects.filter(action="clinician_reactivated").exists()


def test_people_page_lists_names_and_counts(client, researcher, staffed):
    _study, a, _b, _c = staffed
    a.user.first_name = "Ana Example"
    a.user.save()
    client.force_login(researcher)
    response = client.get(reverse("research_people"))
    row = next(c for c in response.context["people"] if c.pk == a.pk)
    assert row.n_open == people.open_items(a) and row.n_submitted == 0
    assert "Ana Example" in response.content.decode()


def _tracks_per_item(study) -> dict[int, dict[str, list[str]]]:
    live = Assignment.objects.filter(item__study=study).exclude(status=Assignment.Status.WITHDRAWN)
    per_item: dict[int, dict[str, list[str]]] = {}
    for item_id, code, tracks in live.values_list("item_id", "clinician__code", "tracks"):
        for track in tracks:
            per_item.setdefault(item_id, {}).setdefault(track, []).append(code)
    return per_item


def test_a_leaver_in_both_tracks_is_replaced_once_per_track(researcher, conversations):
    leaving = make_clinician("both", "both")
    study = create_study(
        StudySpec(status="open", name="Both", overlap={"clinical": 1, "operations": 1}),
        trace_ids(conversations, 3),
        [leaving],
        researcher,
    )
    clinical, operations = make_clinician("cl", "clinical"), make_clinician("op", "operations")
    assert people.deactivate(leaving, researcher) == 6
    for tracks in _tracks_per_item(study).values():
        assert tracks == {"clinical": [clinical.code], "operations": [operations.code]}


def test_a_colleague_already_on_the_item_takes_on_the_other_track(researcher, conversations):
    leaving, both = make_clinician("cl2", "clinical"), make_clinician("bo2", "both")
    study = create_study(
        StudySpec(status="open", name="Cover", overlap={"clinical": 1, "operations": 1}),
        trace_ids(conversations, 4),
        [leaving, both],
        researcher,
    )
    assert people.open_items(leaving) > 0
    people.deactivate(leaving, researcher)
    for tracks in _tracks_per_item(study).values():
        assert tracks == {"clinical": [both.code], "operations": [both.code]}


def test_nobody_is_handed_a_track_on_an_item_they_already_submitted(researcher, conversations):
    leaving, both = make_clinician("cl3", "clinical"), make_clinician("bo3", "both")
    study = create_study(
        StudySpec(status="open", name="Done", overlap={"clinical": 1, "operations": 1}),
        trace_ids(conversations, 4),
        [leaving, both],
        researcher,
    )
    shared_item = leaving.assignments.first().item
    submit_scores(shared_item.assignments.get(clinician=both))
    before = _tracks_per_item(study)
    with pytest.raises(StudyError, match="already submitted"):
        people.deactivate(leaving, researcher)
    leaving.user.refresh_from_db()
    assert leaving.user.is_active and _tracks_per_item(study) == before


# --- who may manage whom -------------------------------------------------------------------

ACTIONS = {
    "profile": (
        "research_person",
        {"name": "Renamed", "track": "clinical", "specialty": "", "years": ""},
    ),
    "deactivate": ("research_person_deactivate", {}),
    "reactivate": ("research_person_reactivate", {}),
    "password link": ("research_person_link", {}),
}


def clinician_also(role: str | None) -> Clinician:
    """A clinician's record on an account that holds `role` too (None: clinician only)."""
    from django.contrib.auth.models import Group

    clinician = make_clinician(f"also-{role or 'none'}")
    if role:
        clinician.user.groups.add(Group.objects.get_or_create(name=role)[0])
    return clinician


@pytest.mark.parametrize("actor", ["researcher", "admin_user"])
@pytest.mark.parametrize("target_role", ["researcher", "admin"])
@pytest.mark.parametrize("action", sorted(ACTIONS))
def test_no_one_manages_a_staff_account_through_the_people_page(
    client, request, actor, target_role, action
):
    target = clinician_also(target_role)
    user = target.user
    before = (user.first_name, user.is_active, user.password)
    client.force_login(request.getfixturevalue(actor))
    name, data = ACTIONS[action]
    response = client.post(reverse(name, args=[target.pk]), data)
    assert response.status_code == 403
    user.refresh_from_db()
    assert (user.first_name, user.is_active, user.password) == before


@pytest.mark.parametrize("actor", ["researcher", "admin_user"])
def test_both_staff_roles_manage_a_clinician_only_account(client, request, actor):
    target = clinician_also(None)
    client.force_login(request.getfixturevalue(actor))
    name, data = ACTIONS["profile"]
    assert client.post(reverse(name, args=[target.pk]), data).status_code == 302
    name, data = ACTIONS["deactivate"]
    client.post(reverse(name, args=[target.pk]), data)
    target.user.refresh_from_db()
    assert (target.user.first_name, target.user.is_active) == ("Renamed", False)


def test_demo_clinicians_have_names_and_emails():
    from annotation.demo import seed_review_demo

    for username in ("clinician1", "clinician2", "clinician3"):
        User.objects.create_user(username=username)
    seed_review_demo()  # no conversations yet: it still sets up the demo people
    names = {u.get_full_name() for u in User.objects.filter(username__startswith="clinician")}
    emails = {u.email for u in User.objects.filter(username__startswith="clinician")}
    assert len(names) == 3 and "" not in names
    assert len(emails) == 3 and all("@" in e for e in emails)


def test_researcher_label_names_the_clinician_when_known():
    ana = make_clinician("ana")
    ana.user.first_name, ana.user.last_name = "Dr Ana", "Silva"
    ana.n_open = 8
    assert people.researcher_label(ana) == f"Dr Ana Silva ({ana.code}) · clinical · 8 open"
    plain = make_clinician("plain", "operations")
    plain.n_open = 0
    assert people.researcher_label(plain) == f"{plain.code} · operations · 0 open"
