"""The username django-axes counts failures against."""

from django.contrib.auth import get_user_model


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
