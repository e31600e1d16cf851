"""Settings for the test run: the project's settings with one change."""

from config.settings import *  # noqa: F403

# PBKDF2 costs ~0.5 s a hash and most tests create users; test_production_hasher.py keeps it.
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
