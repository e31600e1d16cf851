"""Pages behind login are never cached (`private, no-store`); passwords people choose pass
Django's common-password, similarity and all-digits checks."""

import pytest
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.urls import reverse

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("name", ["review_home", "research_studies", "run_list", "jury_home"])
def test_a_page_behind_login_is_private_and_not_stored(client, researcher, clinician, name):
    client.force_login(clinician if name == "review_home" else researcher)
    response = client.get(reverse(name))
    assert response.status_code == 200
    directives = {d.strip() for d in response["Cache-Control"].split(",")}
    assert {"private", "no-store"} <= directives


@pytest.mark.parametrize("password", ["password", "12345678", "83920174563", "clinician-ana"])
def test_weak_passwords_are_refused(django_user_model, password):
    user = django_user_model(username="clinician-ana", email="ana@example.org")
    with pytest.raises(ValidationError):
        validate_password(password, user)


def test_a_strong_password_passes(django_user_model):
    user = django_user_model(username="clinician-ana")
    validate_password("correct horse battery staple 42", user)
