"""Where a login lands (staff on the runs, clinicians on their home) and the health check."""

from django.http import HttpResponse
from django.shortcuts import redirect

from patientagentbench.roles import ALL_ROLES, STAFF_ROLES, has_role, role_required


@role_required(*ALL_ROLES)
def home(request):
    if has_role(request.user, *STAFF_ROLES):
        return redirect("run_list")
    # Review lives in the annotation app; named by URL so the pipeline never imports it.
    return redirect("review_home")


def healthz(request):
    return HttpResponse("ok", content_type="text/plain")
