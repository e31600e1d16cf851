"""Login throttling (django-axes): a username and an address are each locked after a few
failed log-ins, the lockout is the login page with a reason, and an admin can lift it."""

import pytest
from django.conf import settings
from django.core.management import call_command
from django.urls import reverse

from tests.conftest import PASSWORD

pytestmark = pytest.mark.django_db

LIMIT = settings.AXES_FAILURE_LIMIT


def attempt(client, username, password, address="10.0.0.1"):
    return client.post(
        reverse("login"), {"username": username, "password": password}, REMOTE_ADDR=address
    )


def logged_in(client) -> bool:
    return "_auth_user_id" in client.session


def test_the_limit_is_a_few_failures_within_a_cool_off():
    assert 3 <= LIMIT <= 10
    assert settings.AXES_COOLOFF_TIME.total_seconds() >= 5 * 60
    assert settings.AXES_LOCKOUT_PARAMETERS == ["username", "ip_address"]


def test_thirty_wrong_passwords_are_not_all_answered(client, researcher):
    answers = [attempt(client, researcher.username, f"guess-{n}").status_code for n in range(30)]
    # The login page saying "didn't match", then from the LIMIT-th failure on the lockout
    # (no password is checked any more).
    assert answers == [200] * (LIMIT - 1) + [429] * (30 - LIMIT + 1)
    # Locked: the right password is refused too, without logging in.
    response = attempt(client, researcher.username, PASSWORD)
    assert response.status_code == 429 and not logged_in(client)


def test_the_lockout_is_the_login_page_with_the_reason(client, researcher):
    for n in range(LIMIT):
        attempt(client, researcher.username, f"guess-{n}")
    response = attempt(client, researcher.username, PASSWORD)
    body = response.content.decode()
    assert response.status_code == 429
    assert response["Content-Type"].startswith("text/html")
    assert "Too many failed log-ins" in body and 'data-testid="lockout"' in body
    minutes = int(settings.AXES_COOLOFF_TIME.total_seconds() // 60)
    assert f"for {minutes} minutes" in body and "An admin can lift the lock" in body
    # Inside the site's layout, with the form to try again later.
    assert "<title>Log in: too many attempts · PatientAgentBench</title>" in body
    assert 'class="brand"' in body and 'name="password"' in body
    assert f'value="{researcher.username}"' in body
    assert PASSWORD not in body


def test_a_username_is_locked_whatever_the_address(client, researcher):
    for n in range(LIMIT):
        attempt(client, researcher.username, f"guess-{n}", address=f"10.0.1.{n}")
    response = attempt(client, researcher.username, PASSWORD, address="10.0.2.1")
    assert response.status_code == 429 and not logged_in(client)


def test_an_address_is_locked_whatever_the_username(client, researcher, clinician):
    for n in range(LIMIT):
        attempt(client, f"nobody-{n}", "guess", address="10.0.3.3")
    refused = attempt(client, clinician.username, PASSWORD, address="10.0.3.3")
    assert refused.status_code == 429 and not logged_in(client)
    # Another address is untouched, and so is an account nobody guessed at.
    accepted = attempt(client, researcher.username, PASSWORD, address="10.0.3.4")
    assert accepted.status_code == 302 and logged_in(client)


def test_failures_below_the_limit_do_not_lock(client, researcher):
    for n in range(LIMIT - 1):
        assert attempt(client, researcher.username, f"guess-{n}").status_code == 200
    assert attempt(client, researcher.username, PASSWORD).status_code == 302
    assert logged_in(client)


@pytest.mark.parametrize(
    "command",
    [
        ("axes_reset",),
        ("axes_reset_username", "rita"),
        ("axes_reset_ip", "10.0.0.1"),
    ],
)
def test_an_admin_lifts_a_lock_from_the_command_line(client, researcher, command):
    assert researcher.username == "rita"
    for n in range(LIMIT):
        attempt(client, researcher.username, f"guess-{n}")
    assert attempt(client, researcher.username, PASSWORD).status_code == 429
    call_command(*command)
    response = attempt(client, researcher.username, PASSWORD)
    assert response.status_code == 302 and logged_in(client)


def test_an_admin_lifts_a_lock_in_django_admin(client, researcher, django_user_model):
    from axes.models import AccessAttempt

    for n in range(LIMIT):
        attempt(client, researcher.username, f"guess-{n}")
    superuser = django_user_model.objects.create_superuser("root", password="root-password-1")
    admin_client = client.__class__()
    admin_client.force_login(superuser)
    listing = admin_client.get(reverse("admin:axes_accessattempt_changelist"))
    assert listing.status_code == 200 and researcher.username in listing.content.decode()
    lock = AccessAttempt.objects.get(username=researcher.username)
    confirm = admin_client.post(
        reverse("admin:axes_accessattempt_delete", args=[lock.pk]), {"post": "yes"}
    )
    assert confirm.status_code == 302
    assert attempt(client, researcher.username, PASSWORD).status_code == 302


def test_a_successful_login_does_not_clear_failures_piled_on_another_account(
    client, researcher, clinician
):
    # An attacker with an account must not reset the count on the account they are guessing.
    for n in range(LIMIT - 1):
        attempt(client, researcher.username, f"guess-{n}")
    assert attempt(client, clinician.username, PASSWORD, address="10.0.9.9").status_code == 302
    client.logout()
    assert attempt(client, researcher.username, "guess-last", address="10.0.9.9").status_code == 429


@pytest.mark.parametrize("length", [256, 10_000])
def test_an_overlong_username_is_a_failed_login_not_a_500(client, length):
    # axes stores the name in a varchar(255); on PostgreSQL the raw name was a DataError.
    from axes.models import AccessAttempt

    response = attempt(client, "x" * length, "guess")
    assert response.status_code == 200 and not logged_in(client)
    (stored,) = AccessAttempt.objects.values_list("username", flat=True)
    assert stored == "x" * 150


def test_overlong_usernames_sharing_a_prefix_count_as_one(client):
    for n in range(LIMIT):
        attempt(client, "y" * 150 + str(n), "guess", address=f"10.0.4.{n}")
    assert attempt(client, "y" * 150, "guess", address="10.0.5.1").status_code == 429
