"""Logging filters the settings' LOGGING names."""

import logging


class ForbiddenInOneLine(logging.Filter):
    """A 403 is logged as one line with the path and who asked, not a traceback.

    Django logs a view's PermissionDenied on `django.request` with the exception attached,
    so every refused page would print a stack trace; a refusal is expected behaviour, and
    a line per refusal is what an operator scanning the log needs.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        if getattr(record, "status_code", None) != 403:
            return True
        record.exc_info, record.exc_text, record.stack_info = None, None, None
        request = getattr(record, "request", None)
        user = getattr(request, "user", None)
        if getattr(user, "is_authenticated", False) and isinstance(record.args, tuple):
            record.msg = f"{record.msg} (user %s)"
            record.args = (*record.args, user.get_username())
        return True
