"""Every management command of the project explains itself with --help.

Each command's --help goes through Django's own `manage.py` dispatch (ManagementUtility) in
this process: a new interpreter per command cost 1-2 s each. One test still starts the real
`manage.py` to show the entry point works from a fresh process."""

import importlib
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.management import ManagementUtility

ROOT = Path(__file__).resolve().parents[1]
APPS = ("patientagentbench", "annotation", "jury", "config")
COMMANDS = sorted(
    (app, path.stem)
    for app in APPS
    for path in (ROOT / app / "management" / "commands").glob("*.py")
    if not path.stem.startswith("_")
)


def help_of(command: str, capsys, monkeypatch) -> str:
    """What `manage.py COMMAND --help` prints, at the width a pipe gets (80 columns)."""
    monkeypatch.setenv("COLUMNS", "80")
    capsys.readouterr()
    argv = ["manage.py", command, "--help"]
    with pytest.raises(SystemExit) as exited:
        # What ManagementUtility.execute does once Django is set up (it is, here).
        ManagementUtility(argv).fetch_command(command).run_from_argv(argv)
    printed = capsys.readouterr()
    assert exited.value.code in (0, None), printed.err
    return printed.out


def test_the_commands_are_found():
    names = {name for _app, name in COMMANDS}
    assert {"run_benchmark", "seed_demo", "export_study", "serve"} <= names


@pytest.mark.parametrize(("app", "command"), COMMANDS)
def test_every_command_explains_itself(app, command, capsys, monkeypatch):
    module = importlib.import_module(f"{app}.management.commands.{command}")
    assert module.Command.help.strip(), f"{command} has no help text"
    printed = help_of(command, capsys, monkeypatch)
    assert f"usage: manage.py {command}" in printed
    assert module.Command.help.split()[0] in printed


@pytest.mark.slow
def test_the_real_manage_py_prints_a_commands_help():
    """The entry point itself, in a fresh interpreter: settings, app loading, dispatch."""
    module = importlib.import_module("patientagentbench.management.commands.run_benchmark")
    result = subprocess.run(
        [sys.executable, "manage.py", "run_benchmark", "--help"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert "usage: manage.py run_benchmark" in result.stdout
    assert module.Command.help.split()[0] in result.stdout
