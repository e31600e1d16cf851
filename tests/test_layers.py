"""The architecture, enforced: imports point one way (sandbox ← pure packages ← the Django
pipeline ← jury ← annotation) and no module imports itself through a circle.

Every import is read from the source with `ast`, function-level ones included, so a cycle
cannot hide inside a function body. Each rule is also checked against a synthetic module that
breaks it, so these tests can fail.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TOP_PACKAGES = ("patientagentbench", "sandbox", "jury", "annotation")

# Plain modules on plain data: no Django, no database, testable in isolation.
PURE = (
    "sandbox",
    "patientagentbench.analysis",
    "patientagentbench.cases",
    "patientagentbench.simulated",
    "patientagentbench.providers",
    "patientagentbench.transcripts",
    "patientagentbench.conversation",
    "patientagentbench.prompts",
)
RUN_MACHINERY = (
    "patientagentbench.runs",
    "patientagentbench.conversation",
    "patientagentbench.suites",
    "patientagentbench.providers",
    "patientagentbench.simulated",
)


def within(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def forbidden(importer: str, imported: str) -> str | None:
    """Why `importer` may not import `imported`, or None when the import points downward."""
    importer_is_pure = any(within(importer, pure) for pure in PURE)
    imported_is_pure = any(within(imported, pure) for pure in PURE)
    rules = [
        (
            within(importer, "sandbox")
            and not within(imported, "sandbox")
            and any(within(imported, top) for top in TOP_PACKAGES),
            "sandbox is the lowest layer",
        ),
        (importer_is_pure and within(imported, "django"), "pure packages import no Django"),
        (
            importer_is_pure and within(imported, "patientagentbench") and not imported_is_pure,
            "pure packages import only pure packages",
        ),
        (
            within(importer, "patientagentbench")
            and (within(imported, "jury") or within(imported, "annotation")),
            "the pipeline never imports jury or annotation",
        ),
        (
            within(importer, "jury") and within(imported, "annotation"),
            "jury never imports annotation",
        ),
        (
            within(importer, "annotation") and any(within(imported, m) for m in RUN_MACHINERY),
            "annotation never touches providers, simulators or the run machinery",
        ),
    ]
    return next((reason for broken, reason in rules if broken), None)


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports_of(source: str, module: str, is_package: bool) -> set[str]:
    """Absolute names of everything a module imports, at any depth of its body."""
    names: set[str] = set()
    package = module if is_package else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join([*anchor, base] if base else anchor)
            names.add(base)
            # `from pkg import submodule` imports the submodule too.
            names.update(f"{base}.{alias.name}" for alias in node.names)
    return names


def project_modules() -> dict[str, tuple[Path, set[str]]]:
    modules = {}
    for top in TOP_PACKAGES:
        for path in sorted((ROOT / top).rglob("*.py")):
            if "migrations" in path.parts:
                continue
            name = module_name(path)
            modules[name] = (
                path,
                imports_of(path.read_text(), name, path.name == "__init__.py"),
            )
    return modules


def import_graph(modules) -> dict[str, set[str]]:
    """Edges between project modules only (an import of `a.b.c` names module `a.b.c` or, when
    that is a function or class, its module `a.b`)."""
    graph: dict[str, set[str]] = {}
    for name, (_path, imported) in modules.items():
        targets = set()
        for target in imported:
            while target and target not in modules:
                target = target.rpartition(".")[0]
            if target and target != name:
                targets.add(target)
        graph[name] = targets
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def violations(modules) -> list[str]:
    return sorted(
        f"{name} imports {imported}: {reason}"
        for name, (_path, imports) in modules.items()
        for imported in imports
        if (reason := forbidden(name, imported))
    )


# --- the project -----------------------------------------------------------------------------


def test_imports_point_downward():
    assert violations(project_modules()) == []


def test_no_import_cycles():
    modules = project_modules()
    # A package's __init__ re-exporting its submodules is not a cycle of behaviour.
    graph = {
        name: {t for t in targets if not name.startswith(t + ".")}
        for name, targets in import_graph(modules).items()
    }
    assert cycles(graph) == []


def test_views_ask_a_function_to_enqueue():
    """Views never send Celery tasks themselves; a domain function does, after commit."""
    for path in sorted((ROOT / "patientagentbench" / "views").rglob("*.py")):
        tree = ast.parse(path.read_text())
        sends = [
            node.lineno
            for node in ast.walk(tree)
            if isinstance(node, ast.Attribute) and node.attr in ("delay", "apply_async")
        ]
        assert sends == [], f"{path.name} sends tasks at lines {sends}"


# --- the rules can fail ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("importer", "source"),
    [
        ("sandbox.clinic", "from patientagentbench.simulated.agent import X"),
        ("patientagentbench.analysis.metrics", "from patientagentbench.models import Trace"),
        ("patientagentbench.cases.sampler", "import django.db"),
        ("patientagentbench.runs.launch", "from annotation.models import Item"),
        ("patientagentbench.results.study", "def f():\n    from jury import panels"),
        ("jury.scoring", "from annotation import models"),
        ("annotation.views", "from patientagentbench.runs.launch import launch_run"),
        ("annotation.views", "from patientagentbench.providers.factory import build_provider"),
        ("patientagentbench.simulated.agent", "from ..runs import execution"),
    ],
)
def test_an_upward_import_is_caught(importer, source):
    fake = {importer: (Path("fake.py"), imports_of(source, importer, False))}
    assert violations(fake), source


def test_allowed_imports_pass():
    allowed = {
        "patientagentbench.runs.execution": "from sandbox.seeding import trace_seed",
        "annotation.views": "from patientagentbench.transcripts import transcript_of",
        "jury.prompts": "from patientagentbench.transcripts import transcript_of",
        "patientagentbench.simulated.agent": "from .plans import Step",
    }
    fake = {
        name: (Path("fake.py"), imports_of(source, name, False)) for name, source in allowed.items()
    }
    assert violations(fake) == []


def test_a_cycle_hidden_in_a_function_is_found():
    modules = {
        "patientagentbench.a": (Path("a.py"), imports_of("import patientagentbench.b", "x", False)),
        "patientagentbench.b": (
            Path("b.py"),
            imports_of("def f():\n    from patientagentbench.a import g", "x", False),
        ),
        "patientagentbench.c": (Path("c.py"), set()),
    }
    assert cycles(import_graph(modules)) == [["patientagentbench.a", "patientagentbench.b"]]
