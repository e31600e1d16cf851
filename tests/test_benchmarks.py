"""The benchmark scripts are run by hand, not by the tests, so a module moved under them breaks
them silently (pipeline.py still imported patientagentbench.celery after config/ came in, and
three scripts imported pure modules from their old places): every name they import from the
project must resolve."""

import ast
import importlib
import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PROJECT = {"annotation", "config", "jury", "patientagentbench", "ratings", "sandbox", "tests"}
SCRIPTS = sorted((ROOT / "benchmarks").glob("*.py"))


def project_imports(script: Path) -> list[tuple[str, str]]:
    tree = ast.parse(script.read_text())
    return [
        (node.module, alias.name)
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module
        if node.module.split(".")[0] in PROJECT
        for alias in node.names
    ]


def resolves(module: str, name: str) -> bool:
    return hasattr(importlib.import_module(module), name) or (
        importlib.util.find_spec(f"{module}.{name}") is not None
    )


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_every_project_name_a_benchmark_imports_exists(script):
    missing = [f"{m}.{n}" for m, n in project_imports(script) if not resolves(m, n)]
    assert missing == []


def test_the_check_sees_the_scripts():
    assert any(script.name == "pipeline.py" for script in SCRIPTS)
    assert ("config.celery", "app") in project_imports(ROOT / "benchmarks" / "pipeline.py")
