"""People (researchers and admins): the clinicians, invitations, profiles and deactivation.

This is the one researcher page that shows a clinician's name and email; everywhere else they
are their pseudonymous code. The set-password link of a new invitation is shown once, on the
page the researcher lands on after inviting, so the demo works without a mail server.
"""

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from annotation import people as people_service
from annotation.models import Clinician
from annotation.studies import StudyError
from annotation.views.research_forms import InviteForm, ProfileForm
from patientagentbench.mailed_links import referrer_stays_on_site, site_url
from patientagentbench.roles import STAFF_ROLES, role_required, roles_of

SHOWN_ONCE = "research_invite_link"


@role_required(*STAFF_ROLES)
def people(request):
    form = InviteForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            invitation = people_service.invite(
                email=data["email"],
                name=data["name"],
                track=data["track"],
                specialty=data["specialty"],
                years=data["years"],
                actor=request.user,
                site_url=site_url(request),
            )
        except people_service.PeopleError as exc:
            form.add_error("email", str(exc))
        else:
            _show_link_once(request, invitation)
            return redirect("research_people")
    invitation = request.session.pop(SHOWN_ONCE, None)
    response = render(
        request,
        "annotation/research/people.html",
        {"people": people_service.people(), "form": form, "invitation": invitation},
    )
    # The page then holds a live set-password link; nothing it leads to learns its address.
    return referrer_stays_on_site(response) if invitation else response


def _clinician_to_manage(pk) -> Clinician:
    """A clinician whose account is nothing more: profile, deactivation and password links
    never reach a researcher's or an admin's account, even one that also holds the
    clinician role (staff accounts are managed in django-admin, by admins)."""
    clinician = get_object_or_404(Clinician.objects.select_related("user"), pk=pk)
    user = clinician.user
    if roles_of(user) & set(STAFF_ROLES) or user.is_staff or user.is_superuser:
        raise PermissionDenied(
            f"{clinician.code} is also a researcher or an admin: manage that account in "
            "django-admin."
        )
    return clinician


def _show_link_once(request, invitation) -> None:
    request.session[SHOWN_ONCE] = {
        "code": invitation.clinician.code,
        "email": invitation.clinician.user.email,
        "link": invitation.link,
        "emailed": invitation.emailed,
    }


@role_required(*STAFF_ROLES)
def person(request, pk):
    clinician = _clinician_to_manage(pk)
    initial = {
        "name": clinician.user.first_name,
        "track": clinician.track,
        "specialty": clinician.specialty,
        "years": clinician.years_in_practice,
    }
    form = ProfileForm(request.POST or None, initial=initial)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        changed = people_service.update_profile(
            clinician,
            name=data["name"],
            track=data["track"],
            specialty=data["specialty"],
            years=data["years"],
            actor=request.user,
        )
        messages.success(
            request,
            f"Saved {clinician.code}: {', '.join(changed)}." if changed else "Nothing changed.",
        )
        return redirect("research_people")
    return render(
        request,
        "annotation/research/person.html",
        {
            "clinician": clinician,
            "form": form,
            "open_items": people_service.open_items(clinician),
        },
    )


@role_required(*STAFF_ROLES)
def person_deactivate(request, pk):
    """GET asks for confirmation and says how many open items will move; POST moves them."""
    clinician = _clinician_to_manage(pk)
    error = ""
    if request.method == "POST":
        try:
            moved = people_service.deactivate(clinician, request.user)
        except (people_service.PeopleError, StudyError) as exc:
            error = str(exc)
        else:
            messages.success(
                request,
                f"Deactivated {clinician.code}; {moved} open item{'s' if moved != 1 else ''} "
                "moved to colleagues.",
            )
            return redirect("research_people")
    return render(
        request,
        "annotation/research/deactivate.html",
        {
            "clinician": clinician,
            "open_items": people_service.open_items(clinician),
            "error": error,
        },
    )


@role_required(*STAFF_ROLES)
@require_POST
def person_reactivate(request, pk):
    clinician = _clinician_to_manage(pk)
    people_service.reactivate(clinician, request.user)
    messages.success(request, f"{clinician.code} can log in again.")
    return redirect("research_people")


@role_required(*STAFF_ROLES)
@require_POST
def person_new_link(request, pk):
    clinician = _clinician_to_manage(pk)
    try:
        invitation = people_service.new_link(clinician, request.user, site_url(request))
    except people_service.PeopleError as exc:
        messages.error(request, str(exc))
    else:
        _show_link_once(request, invitation)
    return redirect("research_people")
