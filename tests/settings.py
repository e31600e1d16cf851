"""Settings for the test run: the project's settings with one change."""

import os

# The tests run as `make demo` does, with DEBUG on (its default is off); the production-like
# tests set their own environment. Subprocesses the tests start inherit it.
os.environ.setdefault("DEBUG", "true")

from config.settings import *  # noqa: E402, F403

# PBKDF2 costs ~0.5 s a hash and most tests create users; test_production_hasher.py keeps it.
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
