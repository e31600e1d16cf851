"""What django-axes counts failed log-ins against: the typed username and the client's address
(config.client_address says how it is read behind a proxy)."""

from django.conf import settings
from django.contrib.auth import get_user_model

from config.client_address import client_address


def client_address_for_lockout(request) -> str | None:
    return client_address(
        request.META.get("REMOTE_ADDR"),
        request.META.get("HTTP_X_FORWARDED_FOR"),
        settings.CLIENT_ADDRESS_PROXIES,
    )


def username_for_lockout(request, credentials=None) -> str | None:
    """The typed username, clipped to the longest a user can have.

    Django's login form does not bound the username before authenticating, and axes stores
    what it gets in a varchar(255): a longer name was a 500 on PostgreSQL. No account has a
    longer name, so clipping locks nobody who could log in."""
    source = credentials if credentials else getattr(request, "POST", {})
    name = source.get("username") if source else None
    if name is None:
        return None
    limit = get_user_model()._meta.get_field("username").max_length
    return str(name).replace("\x00", "")[:limit]
