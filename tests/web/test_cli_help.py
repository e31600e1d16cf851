"""Every management command of the project explains itself with --help."""

import importlib
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
APPS = ("patientagentbench", "annotation", "jury")
COMMANDS = sorted(
    (app, path.stem)
    for app in APPS
    for path in (ROOT / app / "management" / "commands").glob("*.py")
    if not path.stem.startswith("_")
)


def test_the_commands_are_found():
    names = {name for _app, name in COMMANDS}
    assert {"run_benchmark", "seed_demo", "export_study", "seed_review_demo"} <= names


@pytest.mark.parametrize(("app", "command"), COMMANDS)
def test_every_command_explains_itself(app, command):
    module = importlib.import_module(f"{app}.management.commands.{command}")
    assert module.Command.help.strip(), f"{command} has no help text"
    result = subprocess.run(
        [sys.executable, "manage.py", command, "--help"], capture_output=True, text=True, cwd=ROOT
    )
    assert result.returncode == 0, result.stderr
    assert "usage:" in result.stdout and module.Command.help.split()[0] in result.stdout
