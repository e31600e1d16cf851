"""gunicorn reads this file from the directory it starts in (`gunicorn config.wsgi ...` in the
project's folder, as README's Production says). It trusts X-Forwarded-Proto only where the app
does (PAB_BEHIND_PROXY, PAB_TRUSTED_PROXIES): config.client_address says how."""

import os

from config.client_address import gunicorn_forwarded_allow_ips

forwarded_allow_ips = gunicorn_forwarded_allow_ips(dict(os.environ))
