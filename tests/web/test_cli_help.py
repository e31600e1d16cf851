import subprocess
import sys

import pytest

COMMANDS = [
    "add_model",
    "run_benchmark",
    "import_traces",
    "export_traces",
    "seed_demo",
    "install_suites",
    "serve",
    "consistency_report",
    "analysis_report",
]


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_explains_itself(command):
    result = subprocess.run(
        [sys.executable, "manage.py", command, "--help"], capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    assert "usage:" in result.stdout and len(result.stdout.splitlines()) > 5
