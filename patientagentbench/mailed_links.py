"""Links that go out by mail (invitations, password resets): the origin they start with, and
the Referrer-Policy of the pages that hold one.

A link built from the request's Host header goes wherever the request said it came from: with
more than one allowed host (or "*"), anyone who can ask for a reset mail for a victim chooses
the host the victim's token is sent to. So links start from PAB_SITE_URL; without it, a
production start takes the first allowed host over HTTPS, and only a DEBUG (own machine) run
uses the request's own origin, so `make demo` works on whatever port it serves.
"""

from urllib.parse import urlsplit

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured


def configured_site_url(value: str, *, debug: bool, allowed_hosts: list[str]) -> str:
    """The settings' SITE_URL: "https://pab.example.org" (no trailing slash), or "" for "the
    request's own origin", which only DEBUG gets."""
    if value:
        parts = urlsplit(value.strip())
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ImproperlyConfigured(
                f"PAB_SITE_URL: {value!r} is not an http(s) address such as https://pab.example.org"
            )
        if parts.path.strip("/") or parts.query or parts.fragment or parts.username:
            raise ImproperlyConfigured(
                f"PAB_SITE_URL: {value!r} must be a scheme and a host only (no path, query or login)"
            )
        return f"{parts.scheme}://{parts.netloc}"
    if debug:
        return ""
    named = [host for host in allowed_hosts if host != "*" and not host.startswith(".")]
    if not named:
        raise ImproperlyConfigured(
            "PAB_SITE_URL must be set when ALLOWED_HOSTS names no single host: mailed links "
            "need an address that is not the request's Host header."
        )
    return f"https://{named[0]}"


def site_url(request) -> str:
    """Where mailed links point: the configured origin, else (DEBUG only) the request's."""
    return settings.SITE_URL or request.build_absolute_uri("/").rstrip("/")


def referrer_stays_on_site(response):
    """A page holding (or reached by) a live set-password link sends no Referer to another
    site. Not "no-referrer": under it the browser posts the page's own forms with
    `Origin: null`, and Django's CSRF check refuses them (the set-password form among them)."""
    response["Referrer-Policy"] = "same-origin"
    return response
