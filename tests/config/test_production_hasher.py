"""The password hasher production uses: tests/settings.py swaps in MD5 for speed, so this one
test stores and checks a password with the project's own hashers, through the login page."""

import ast
from pathlib import Path

import pytest
from django.conf import global_settings
from django.contrib.auth.hashers import get_hasher, identify_hasher
from django.contrib.auth.models import User
from django.test import override_settings
from django.urls import reverse

import config.settings as project_settings

PRODUCTION_HASHERS = getattr(project_settings, "PASSWORD_HASHERS", global_settings.PASSWORD_HASHERS)


def test_the_test_settings_only_change_the_hasher():
    """Read from the file: at run time pytest-django has renamed the test database."""
    source = Path(__file__).resolve().parents[1] / "settings.py"
    assigned = {
        target.id
        for node in ast.parse(source.read_text()).body
        if isinstance(node, ast.Assign)
        for target in node.targets
        if isinstance(target, ast.Name) and target.id.isupper() and target.id[0] != "_"
    }
    assert assigned == {"PASSWORD_HASHERS"}
    from tests import settings as test_settings

    assert test_settings.PASSWORD_HASHERS != PRODUCTION_HASHERS


@pytest.mark.django_db
def test_a_password_is_stored_and_checked_with_the_production_hasher(client):
    with override_settings(PASSWORD_HASHERS=PRODUCTION_HASHERS):
        production = get_hasher("default")
        assert production.algorithm == "pbkdf2_sha256"
        user = User.objects.create_user(username="hashed", password="correct-horse-battery")
        user.refresh_from_db()
        assert identify_hasher(user.password).algorithm == production.algorithm
        assert not production.must_update(user.password)  # the current iteration count

        login = reverse("login")
        wrong = client.post(login, {"username": "hashed", "password": "wrong-horse"})
        assert wrong.status_code == 200 and "_auth_user_id" not in client.session
        right = client.post(login, {"username": "hashed", "password": "correct-horse-battery"})
        assert right.status_code == 302
        assert client.session["_auth_user_id"] == str(user.pk)
