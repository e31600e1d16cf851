"""Where a login lands (staff on the runs, clinicians on their home), the health check and
the /favicon.ico redirect."""

from django.core.exceptions import PermissionDenied
from django.http import HttpResponse
from django.shortcuts import redirect
from django.templatetags.static import static

from patientagentbench import extensions
from patientagentbench.roles import ALL_ROLES, STAFF_ROLES, has_role, role_required


@role_required(*ALL_ROLES)
def home(request):
    if has_role(request.user, *STAFF_ROLES):
        return redirect("run_list")
    # Other roles land where their app said (annotation: clinicians on their review home),
    # so the pipeline names no page of an app above it.
    for role, url_name in extensions.landings():
        if has_role(request.user, role):
            return redirect(url_name)
    raise PermissionDenied  # a role whose app is not installed has no home here


def healthz(request):
    return HttpResponse("ok", content_type="text/plain")


def favicon(request):
    """Clients that ignore the page's <link rel=icon> ask for /favicon.ico; the icon is an
    SVG under static/, so send them there rather than keep a second copy."""
    return redirect(static("favicon.svg"), permanent=True)
