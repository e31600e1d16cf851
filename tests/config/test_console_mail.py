"""Mail printed on the console in development: an invitation's set-password link is one
unbroken line a person can copy (Django's own console backend cut it quoted-printable)."""

import pytest
from django.test import override_settings

from annotation import people
from config import settings as project_settings

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("name", ["Ana Silva", "Zoé Ñúñez"])  # plain ASCII, and not
def test_the_console_prints_an_invitation_link_on_one_line(capsys, researcher, name):
    console = project_settings._email_url("console://")["backend"]
    with override_settings(EMAIL_BACKEND=console):
        invitation = people.invite(
            email="ana@example.org",
            name=name,
            track="clinical",
            actor=researcher,
            site_url="https://patientagentbench.example.org",
        )
    printed = capsys.readouterr().out.splitlines()
    assert len(invitation.link) > 78 and invitation.emailed
    assert invitation.link in printed
    assert f"Hello {name}," in printed
