"""Set-password links, invited and reset: where they point, how long and how often they work,
who learns them, and what the reset page tells a stranger (issue 34, finding 9)."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.contrib.auth.tokens import default_token_generator
from django.core import mail
from django.core.exceptions import ImproperlyConfigured
from django.urls import reverse

from annotation.models import Clinician
from patientagentbench.mailed_links import configured_site_url
from patientagentbench.roles import CLINICIAN, roles_of

pytestmark = pytest.mark.django_db
LINK = re.compile(r"https?://[^\s/]+/accounts/reset/\S+/")
SITE = "https://pab.example.org"
RESET = "/accounts/password_reset/"


@pytest.fixture(autouse=True)
def hosts_an_attacker_can_name(settings):
    """A site that answers to more than one name, as behind a proxy with aliases: any of them
    can be the Host header of a request, and only SITE may start a mailed link."""
    settings.ALLOWED_HOSTS = ["pab.example.org", "evil.example", "testserver"]
    settings.SITE_URL = SITE
    # Each test counts its own reset mails: a cache of its own, not the shared one in var/.
    settings.CACHES = {
        "default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "x"}
    }
    from django.core.cache import cache

    cache.clear()


def account(email="known@example.org"):
    return User.objects.create_user(email, email=email, password="an-old-long-secret")


def invite(client, email="new@example.org", **extra):
    data = {"email": email, "name": "Ana", "track": "clinical", **extra}
    return client.post(reverse("research_people"), data, HTTP_HOST="evil.example")


def the_link(message) -> str:
    [link] = LINK.findall(message.body)
    return link


def test_the_reset_mail_links_to_the_site_not_the_host_header(client):
    account()
    client.post(RESET, {"email": "known@example.org"}, HTTP_HOST="evil.example")
    assert the_link(mail.outbox[0]).startswith(f"{SITE}/accounts/reset/")
    assert "evil.example" not in mail.outbox[0].body + mail.outbox[0].subject


def test_invitation_and_renewed_links_go_to_the_site_not_the_host_header(client, researcher):
    client.force_login(researcher)
    invite(client)
    clinician = Clinician.objects.get()
    client.post(reverse("research_person_link", args=[clinician.pk]), HTTP_HOST="evil.example")
    assert len(mail.outbox) == 2
    for message in mail.outbox:
        assert the_link(message).startswith(f"{SITE}/accounts/reset/")


def test_a_renewed_invitation_makes_the_earlier_link_stop_working(client, researcher):
    client.force_login(researcher)
    invite(client)
    clinician = Clinician.objects.get()
    client.post(reverse("research_person_link", args=[clinician.pk]))
    first, renewed = (the_link(m).removeprefix(SITE) for m in mail.outbox)
    client.logout()
    assert b"no longer works" in client.get(first, follow=True).content
    assert b"Choose your password" in client.get(renewed, follow=True).content


def test_a_link_expires_after_the_reset_timeout(client, settings, monkeypatch):
    user = account()
    client.post(RESET, {"email": user.email})
    link = the_link(mail.outbox[0]).removeprefix(SITE)
    generator_now = default_token_generator._now
    late = timedelta(seconds=settings.PASSWORD_RESET_TIMEOUT + 1)
    monkeypatch.setattr(default_token_generator, "_now", lambda: generator_now() + late)
    assert b"no longer works" in client.get(link, follow=True).content
    monkeypatch.undo()
    assert b"Choose your password" in client.get(link, follow=True).content


def test_a_reset_link_works_once(client):
    user = account()
    client.post(RESET, {"email": user.email})
    link = the_link(mail.outbox[0]).removeprefix(SITE)
    form = client.get(link, follow=True)
    client.post(
        form.redirect_chain[-1][0],
        {"new_password1": "a-brand-new-secret", "new_password2": "a-brand-new-secret"},
    )
    user.refresh_from_db()
    assert user.check_password("a-brand-new-secret")
    assert b"no longer works" in client.get(link, follow=True).content


def answer(response) -> tuple:
    return response.status_code, response.get("Location"), response.content


def test_the_reset_page_answers_the_same_for_every_email(client, researcher):
    account()
    client.force_login(researcher)
    invite(client, email="invited@example.org")  # no password yet: Django sends it nothing
    client.logout()
    mail.outbox.clear()
    answers = {
        email: answer(client.post(RESET, {"email": email}))
        for email in ("known@example.org", "nobody@example.org", "invited@example.org")
    }
    assert len(set(answers.values())) == 1, answers
    assert [m.to for m in mail.outbox] == [["known@example.org"]]


def test_reset_mails_to_one_email_are_limited_and_the_answer_does_not_change(client, settings):
    account()
    answers = {answer(client.post(RESET, {"email": "known@example.org"})) for _ in range(10)}
    assert len(mail.outbox) == settings.PASSWORD_RESET_MAILS_PER_EMAIL == 3
    assert len(answers) == 1


def test_reset_requests_from_one_address_are_limited(client, settings):
    settings.PASSWORD_RESET_REQUESTS_PER_ADDRESS = 4
    for n in range(6):
        account(f"person{n}@example.org")
        client.post(RESET, {"email": f"person{n}@example.org"})
    assert len(mail.outbox) == 4
    # Another address is counted on its own.
    client.post(RESET, {"email": "person5@example.org"}, REMOTE_ADDR="192.0.2.7")
    assert len(mail.outbox) == 5


def test_pages_holding_a_live_link_send_no_referrer_to_other_sites(client, researcher):
    client.force_login(researcher)
    invite(client)
    shown = client.get(reverse("research_people"))
    assert shown["Referrer-Policy"] == "same-origin"
    link = the_link(mail.outbox[0]).removeprefix(SITE)
    client.logout()
    at_the_link = client.get(link)
    assert at_the_link.status_code == 302 and at_the_link["Referrer-Policy"] == "same-origin"
    # Django moves the token out of the address before it shows the form.
    form = client.get(at_the_link["Location"])
    assert b"Choose your password" in form.content
    assert form["Referrer-Policy"] == "same-origin"
    assert link.split("/")[-2] not in at_the_link["Location"]


def test_an_invited_clinician_cannot_pick_a_role(client, researcher):
    client.force_login(researcher)
    invite(client, role="admin", groups="researcher", is_staff="on", is_superuser="on")
    user = User.objects.get(username="new@example.org")
    assert roles_of(user) == {CLINICIAN} and not (user.is_staff or user.is_superuser)
    client.logout()
    form = client.get(the_link(mail.outbox[0]).removeprefix(SITE), follow=True)
    client.post(
        form.redirect_chain[-1][0],
        {
            "new_password1": "a-brand-new-secret",
            "new_password2": "a-brand-new-secret",
            "groups": "admin",
            "is_staff": "on",
            "is_superuser": "on",
        },
    )
    user.refresh_from_db()
    assert user.has_usable_password()
    assert roles_of(user) == {CLINICIAN} and not (user.is_staff or user.is_superuser)


@pytest.mark.parametrize(
    ("value", "debug", "hosts", "expected"),
    [
        ("https://pab.example.org/", False, ["*"], "https://pab.example.org"),
        ("http://localhost:8000", True, [], "http://localhost:8000"),
        ("", False, ["pab.example.org", "alias.example"], "https://pab.example.org"),
        ("", False, [".example.org", "pab.example.org"], "https://pab.example.org"),
        ("", True, ["*"], ""),  # DEBUG, on one's own machine: the request's own origin
    ],
)
def test_the_site_url_setting(value, debug, hosts, expected):
    assert configured_site_url(value, debug=debug, allowed_hosts=hosts) == expected


@pytest.mark.parametrize(
    ("value", "hosts"),
    [
        ("", ["*"]),
        ("", [".example.org"]),
        ("pab.example.org", ["pab.example.org"]),
        ("ftp://pab.example.org", ["pab.example.org"]),
        ("https://pab.example.org/app", ["pab.example.org"]),
        ("https://user@pab.example.org", ["pab.example.org"]),
    ],
)
def test_a_site_url_that_cannot_start_a_link_stops_the_start(value, hosts):
    with pytest.raises(ImproperlyConfigured):
        configured_site_url(value, debug=False, allowed_hosts=hosts)
