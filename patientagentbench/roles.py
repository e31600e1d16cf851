"""Four roles as groups; every view names the roles that may see it."""

from functools import wraps

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied

CLINICIAN = "clinician"
RESEARCHER = "researcher"
ADMIN = "admin"
# Decides disputed scores, blinded: sees the adjudication queue and the pages it links to, and
# nothing else of the research area (no runs, jury, dashboards, people or exports).
ADJUDICATOR = "adjudicator"
ALL_ROLES = (CLINICIAN, RESEARCHER, ADMIN, ADJUDICATOR)
STAFF_ROLES = (RESEARCHER, ADMIN)
ADJUDICATING_ROLES = (ADJUDICATOR, *STAFF_ROLES)


def roles_of(user) -> set[str]:
    if not user.is_authenticated:
        return set()
    cached = getattr(user, "_pab_roles", None)
    if cached is None:
        cached = set(user.groups.values_list("name", flat=True))
        if user.is_superuser:
            cached.add(ADMIN)
        user._pab_roles = cached
    return cached


def has_role(user, *roles: str) -> bool:
    return bool(roles_of(user) & set(roles))


def role_required(*roles: str):
    """Login, then 403 unless the user holds one of `roles`."""

    def decorator(view):
        @login_required
        @wraps(view)
        def wrapped(request, *args, **kwargs):
            if not has_role(request.user, *roles):
                raise PermissionDenied
            return view(request, *args, **kwargs)

        return wrapped

    return decorator


def role_context(request):
    user_roles = roles_of(getattr(request, "user", None)) if hasattr(request, "user") else set()
    return {
        "is_admin": ADMIN in user_roles,
        "is_researcher": bool(user_roles & set(STAFF_ROLES)),
        "is_clinician": CLINICIAN in user_roles,
        "is_adjudicator": ADJUDICATOR in user_roles,
    }
