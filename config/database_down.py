"""When the database stops answering mid-request: a clear 503, logged in one line.

Nothing is half-written (every write runs in a transaction that the failure rolls back), and a
clinician's last autosaved draft stays where it was; the page says so and asks them to send
again in a moment, instead of a bare 500.
"""

from __future__ import annotations

import logging

from django.db import InterfaceError, OperationalError
from django.shortcuts import render

logger = logging.getLogger("patientagentbench.database")


class DatabaseUnavailableMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_exception(self, request, exception):
        if not isinstance(exception, OperationalError | InterfaceError):
            return None
        logger.error(
            "database unavailable during %s %s: %s", request.method, request.path, exception
        )
        return render(request, "503.html", status=503)
