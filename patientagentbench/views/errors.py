"""Error pages Django does not route through the 403/404/500 handlers."""

from django.shortcuts import render

CSRF_REFUSAL = "This form expired; reload the page and try again."


def csrf_failure(request, reason=""):
    """CSRF_FAILURE_VIEW: the site's 403 page, not Django's bare one. The usual cause is a
    page left open past its session (or a login in another tab), so say how to recover;
    Django already logs `reason` to django.security.csrf."""
    return render(request, "403.html", {"refusal": CSRF_REFUSAL}, status=403)
