"""Django's password-reset views with the project's three guards on them.

- The mailed link starts from the configured site URL (patientagentbench.mailed_links), not the Host header.
- Reset mails are rate limited per email and per client address; past the limit the page
  answers exactly as it does for an unknown email, so nobody learns which emails have accounts.
- The pages a token reaches say `Referrer-Policy: same-origin` (Django already moves the token
  out of the address before showing the form; this keeps even the link itself out of any
  Referer header sent to another site, while the page's own forms keep their Origin for CSRF).
"""

import hashlib
from urllib.parse import urlsplit

from django.conf import settings
from django.contrib.auth import views as auth_views
from django.core.cache import cache

from config.login_throttle import client_address_for_lockout
from patientagentbench.mailed_links import referrer_stays_on_site, site_url

HOUR_S = 3600


def within_hourly_limit(kind: str, key: str, limit: int) -> bool:
    """Count one more under (kind, key) this hour; False once the count passes `limit`."""
    slot = f"pab:reset:{kind}:{hashlib.sha256(key.encode()).hexdigest()}"
    cache.add(slot, 0, HOUR_S)
    try:
        return cache.incr(slot) <= limit
    except ValueError:  # expired between add and incr: this is the first of a new hour
        cache.add(slot, 1, HOUR_S)
        return True


class PasswordResetView(auth_views.PasswordResetView):
    def form_valid(self, form):
        email = form.cleaned_data["email"].strip().lower()
        address = client_address_for_lockout(self.request) or "unknown"
        # Both counted on every request, so a flood from one address cannot hide behind the
        # per-email limit, nor mails to one person behind many addresses.
        by_address = within_hourly_limit(
            "address", address, settings.PASSWORD_RESET_REQUESTS_PER_ADDRESS
        )
        by_email = within_hourly_limit("email", email, settings.PASSWORD_RESET_MAILS_PER_EMAIL)
        if by_address and by_email:
            origin = urlsplit(site_url(self.request))
            form.save(
                domain_override=origin.netloc,
                use_https=origin.scheme == "https",
                token_generator=self.token_generator,
                from_email=self.from_email,
                email_template_name=self.email_template_name,
                subject_template_name=self.subject_template_name,
                request=self.request,
                html_email_template_name=self.html_email_template_name,
                extra_email_context=self.extra_email_context,
            )
        # The same answer whether or not a mail went out, and whether or not the email is known.
        return super(auth_views.PasswordResetView, self).form_valid(form)


class PasswordResetConfirmView(auth_views.PasswordResetConfirmView):
    def dispatch(self, *args, **kwargs):
        return referrer_stays_on_site(super().dispatch(*args, **kwargs))
