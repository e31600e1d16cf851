import os
import subprocess
import sys
from io import StringIO

import pytest
from django.core.management import call_command


@pytest.mark.django_db
def test_no_missing_migrations():
    out = StringIO()
    call_command("makemigrations", "--check", "--dry-run", stdout=out)


@pytest.mark.slow
def test_check_deploy_is_clean_with_production_settings(tmp_path):
    env = {
        **os.environ,
        "DEBUG": "false",
        "SECRET_KEY": "x" * 64 + "-production-like-key-value",
        "ALLOWED_HOSTS": "pab.example.org",
        "PAB_VAR_DIR": str(tmp_path),
        "DJANGO_SETTINGS_MODULE": "config.settings",  # not the tests' settings
    }
    env.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)  # set for Playwright in tests only
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        env=env,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr
