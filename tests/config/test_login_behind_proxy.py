"""Login throttling behind a reverse proxy, through the real middleware stack: a proxy that
sets X-Forwarded-For and one that appends to it both lock the client's address, not
everyone's, and nothing a client writes in the header lets it escape its lock."""

import pytest
from django.conf import settings
from django.urls import reverse

from config.client_address import TrustedProxies
from tests.conftest import PASSWORD

pytestmark = pytest.mark.django_db
LIMIT = settings.AXES_FAILURE_LIMIT
PROXY = "10.0.0.2"  # REMOTE_ADDR: the proxy's own address


@pytest.fixture
def behind_proxy(settings):
    settings.CLIENT_ADDRESS_PROXIES = TrustedProxies.parse(1, "")


def login(client, username, password, forwarded_for):
    return client.post(
        reverse("login"),
        {"username": username, "password": password},
        REMOTE_ADDR=PROXY,
        HTTP_X_FORWARDED_FOR=forwarded_for,
    )


def forwarded(style, client_address, n):
    """The header a proxy passes on: its own (`sets`), or the client's with ours appended."""
    return client_address if style == "sets" else f"6.6.6.{n}, {client_address}"


@pytest.mark.parametrize("style", ["sets", "appends"])
def test_a_sprayer_is_locked_and_everyone_else_logs_in(
    behind_proxy, client, researcher, clinician, style
):
    for n in range(LIMIT):
        login(client, f"made-up-{n}", "guess", forwarded(style, "198.51.100.7", n))
    # The sprayer's address is locked, even with a right password and a new spoofed prefix.
    again = login(client, clinician.username, PASSWORD, forwarded(style, "198.51.100.7", 99))
    assert again.status_code == 429
    # The researcher, from their own address through the same proxy, is not.
    response = login(client, researcher.username, PASSWORD, "203.0.113.20")
    assert response.status_code == 302


def test_without_the_proxy_setting_the_header_is_ignored(client, researcher):
    for n in range(LIMIT):
        login(client, f"made-up-{n}", "guess", f"198.51.100.{n}")  # a new "address" each time
    # All came from one REMOTE_ADDR, so that address is locked whatever the header said.
    assert login(client, researcher.username, PASSWORD, "203.0.113.20").status_code == 429


def test_the_lock_is_recorded_against_the_client(behind_proxy, client):
    from axes.models import AccessAttempt

    login(client, "made-up", "guess", "6.6.6.6, 198.51.100.7")
    assert list(AccessAttempt.objects.values_list("ip_address", flat=True)) == ["198.51.100.7"]
