"""The README's commands work when pasted into a fresh shell."""

import re
from pathlib import Path

README = (Path(__file__).resolve().parents[1] / "README.md").read_text()


def test_every_manage_py_command_runs_through_the_projects_python():
    bare = re.findall(r"^.*(?<![/\w])(?<!uv run )python manage\.py.*$", README, re.MULTILINE)
    assert not bare, "a plain `python` has no Django in a fresh shell:\n" + "\n".join(bare)


def test_make_demo_port_is_documented():
    assert re.search(r"make demo PORT=\d+", README)
