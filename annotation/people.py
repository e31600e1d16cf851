"""The clinicians a researcher works with: inviting them, editing their track and profile, and
letting them go without losing anyone's overlap.

An invitation creates the account with no usable password and mails a one-time link to
Django's own set-password page (`password_reset_confirm`): the researcher never chooses or sees
a password, and the link stops working once a password is set, because the token hashes the
password. `PasswordResetForm` itself is not used: it skips users without a usable password,
which is exactly what an invited clinician is, so the link is built from the same token
generator it uses.

Clinicians are pseudonymous to clinicians, adjudicators and exports: audit rows name the code,
never the name or email. Researchers' own pages and forms name them with `researcher_label`.
"""

from __future__ import annotations

import logging
import smtplib
from dataclasses import dataclass

from django.conf import settings
from django.contrib.auth.models import Group, User
from django.contrib.auth.tokens import default_token_generator
from django.core.mail import send_mail
from django.db import transaction
from django.db.models import Count, Q, QuerySet
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode

from annotation import audit
from annotation.models import Assignment, Clinician
from annotation.studies import deactivate_and_reassign
from patientagentbench.roles import CLINICIAN

log = logging.getLogger(__name__)


class PeopleError(ValueError):
    """A change the researcher asked for that cannot be made; the message says why."""


@dataclass(frozen=True)
class Invitation:
    clinician: Clinician
    link: str
    emailed: bool  # False when the mail server refused; the researcher still has the link


def display_name(clinician: Clinician) -> str:
    """The name a researcher knows them by ("Dr Ana Silva"), or "" when none was given."""
    return clinician.user.get_full_name().strip()


def names_by_code(codes) -> dict[str, str]:
    """Code → the name a researcher knows them by, for researchers' own pages (never one a
    clinician or an adjudicator reaches); a clinician without a name is left out."""
    found = Clinician.objects.filter(code__in=list(codes)).select_related("user")
    return {c.code: name for c in found if (name := display_name(c))}


def researcher_label(clinician: Clinician) -> str:
    """How every researcher form offers a clinician: "Dr Ana Silva (C-C0E8D3) · clinical · 8 open".

    `n_open` comes from the queryset's annotation; without a name the code stands alone.
    """
    name = display_name(clinician)
    who = f"{name} ({clinician.code})" if name else clinician.code
    return f"{who} · {clinician.track} · {clinician.n_open} open"


def people() -> QuerySet[Clinician]:
    """Every clinician with their open and submitted work, for the People page."""
    return (
        Clinician.objects.select_related("user")
        .annotate(
            n_open=Count("assignments", filter=Q(assignments__status=Assignment.Status.OPEN)),
            n_submitted=Count(
                "assignments", filter=Q(assignments__status=Assignment.Status.SUBMITTED)
            ),
        )
        .order_by("-user__is_active", "code")
    )


def invite(
    *,
    email: str,
    name: str,
    track: str,
    actor,
    site_url: str,
    specialty: str = "",
    years: int | None = None,
) -> Invitation:
    """A clinician account with no password yet, and the mailed link to set one."""
    email = email.strip().lower()
    if User.objects.filter(Q(username__iexact=email) | Q(email__iexact=email)).exists():
        raise PeopleError(f"Someone with the email {email} already has an account.")
    with transaction.atomic():
        user = User.objects.create_user(username=email, email=email, first_name=name.strip())
        user.groups.add(Group.objects.get_or_create(name=CLINICIAN)[0])
        clinician = Clinician.objects.create(
            user=user,
            track=track,
            specialty=specialty.strip(),
            years_in_practice=years,
            invited_by=actor if getattr(actor, "pk", None) else None,
        )
        audit.record(actor, "clinician_invited", clinician=clinician.code, track=track)
    link = set_password_link(user, site_url)
    return Invitation(clinician, link, send_invitation(clinician, link))


def new_link(clinician: Clinician, actor, site_url: str) -> Invitation:
    """Another set-password link for someone who has not set a password yet (lost mail,
    expired link), which replaces the earlier ones; an account with a password gets none, so
    this cannot take one over."""
    if clinician.user.has_usable_password():
        raise PeopleError(f"{clinician.code} has already set a password.")
    # A fresh unusable password: the token hashes it, so every earlier link (the one in the
    # lost mail, wherever it went) stops working and only the new one sets a password.
    clinician.user.set_unusable_password()
    clinician.user.save(update_fields=["password"])
    link = set_password_link(clinician.user, site_url)
    audit.record(actor, "invitation_renewed", clinician=clinician.code)
    return Invitation(clinician, link, send_invitation(clinician, link))


def set_password_link(user: User, site_url: str) -> str:
    path = reverse(
        "password_reset_confirm",
        kwargs={
            "uidb64": urlsafe_base64_encode(force_bytes(user.pk)),
            "token": default_token_generator.make_token(user),
        },
    )
    return site_url.rstrip("/") + path


def send_invitation(clinician: Clinician, link: str) -> bool:
    body = render_to_string(
        "annotation/research/invite_email.txt",
        {
            "name": clinician.user.first_name,
            "link": link,
            "username": clinician.user.username,
            "days": max(1, settings.PASSWORD_RESET_TIMEOUT // 86400),
        },
    )
    try:
        send_mail("Your PatientAgentBench reviewer account", body, None, [clinician.user.email])
    except (OSError, smtplib.SMTPException):
        # The account exists and the page shows the link; a mail outage must not undo that.
        log.exception("invitation mail to clinician %s failed", clinician.code)
        return False
    return True


def update_profile(
    clinician: Clinician, *, name: str, track: str, specialty: str, years: int | None, actor
) -> list[str]:
    """Save what changed and audit it; returns the names of the changed fields. A new track
    applies to new work: existing assignments keep the tracks they were made for."""
    changes = _changes(clinician, track=track, specialty=specialty.strip(), years=years)
    if clinician.user.first_name != name.strip():
        clinician.user.first_name = name.strip()
        clinician.user.save(update_fields=["first_name"])
        changes["name"] = "changed"  # the name itself stays out of the audit trail
    if not changes:
        return []
    clinician.track, clinician.specialty = track, specialty.strip()
    clinician.years_in_practice = years
    clinician.save(update_fields=["track", "specialty", "years_in_practice"])
    audit.record(actor, "clinician_updated", clinician=clinician.code, changes=changes)
    return sorted(changes)


def _changes(clinician: Clinician, **new) -> dict:
    old = {
        "track": clinician.track,
        "specialty": clinician.specialty,
        "years": clinician.years_in_practice,
    }
    return {field: [old[field], value] for field, value in new.items() if old[field] != value}


def open_items(clinician: Clinician) -> int:
    return clinician.assignments.filter(status=Assignment.Status.OPEN).count()


def deactivate(clinician: Clinician, actor) -> int:
    """Log them out of the work: open items go to eligible colleagues (same track, not already
    on the item, least loaded) so every item keeps its overlap. Returns the items moved;
    nothing changes when some item cannot be covered."""
    if not clinician.user.is_active:
        raise PeopleError(f"{clinician.code} is already deactivated.")
    return deactivate_and_reassign(clinician, actor)


def reactivate(clinician: Clinician, actor) -> None:
    """Let them log in again; the items that moved stay with the colleagues who have them."""
    clinician.user.is_active = True
    clinician.user.save(update_fields=["is_active"])
    audit.record(actor, "clinician_reactivated", clinician=clinician.code)
