"""The architecture, enforced: imports point one way (sandbox ← pure packages ← the Django
pipeline ← jury ← annotation ← config, the project shell; ratings under jury and annotation only), the pipeline's
subpackages sit on ordered floors, and no module imports itself through a circle.

Every import is read from the source with `ast`, function-level ones included, so a cycle
cannot hide inside a function body. Dependencies by name go the same way: a URL name
(`{% url %}`, `reverse`, `redirect`), a management command (`call_command`), a template
(`render`, `{% include %}`, `{% extends %}`), an urlconf (`include("x.urls")`) and an app label
all belong to the app that defines them, and only the project shell may name every app. Each
rule is also checked against a synthetic module or template that breaks it, so these tests can
fail.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TOP_PACKAGES = ("patientagentbench", "sandbox", "ratings", "jury", "annotation", "config")

# Plain modules on plain data: no Django, no database, testable in isolation. Two whole
# packages are pure layers, the pipeline keeps its pure floors as subpackages, and an app's
# pure modules live in its `pure/` subpackage, found here rather than listed. The README's
# layout says which; `test_the_readme_and_this_list_agree` keeps the two the same.
PURE_LAYERS = ("sandbox", "ratings")
PIPELINE_PURE = (
    "patientagentbench.analysis",
    "patientagentbench.cases",
    "patientagentbench.simulated",
    "patientagentbench.providers",
    "patientagentbench.transcripts",
    "patientagentbench.conversation",
    "patientagentbench.prompts",
    "patientagentbench.csv_safe",
)
# The pipeline's leaves the ratings floor may use: plain modules that import nothing of the
# project (csv_safe is the one CSV writer, and the ratings table writes through it).
RATINGS_MAY_USE = ("patientagentbench.csv_safe",)


def pure_subpackages() -> tuple[str, ...]:
    """Every package named `pure` in the project."""
    found = (
        ".".join(init.relative_to(ROOT).parts[:-1])
        for top in TOP_PACKAGES
        for init in (ROOT / top).rglob("pure/__init__.py")
    )
    return tuple(sorted(found))


PURE = PURE_LAYERS + PIPELINE_PURE + pure_subpackages()
RUN_MACHINERY = (
    "patientagentbench.runs",
    "patientagentbench.conversation",
    "patientagentbench.suites",
    "patientagentbench.providers",
    "patientagentbench.simulated",
)

# The pipeline's own floors, lowest first: a module imports from its floor or a lower one.
# Every module of patientagentbench sits on one (`test_every_pipeline_module_has_a_floor`).
PIPELINE_FLOORS = (
    # Leaves: configuration helpers, the agent's prompts, the transcript view, the providers.
    (
        "env",
        "mailed_links",
        "cache",
        "csv_safe",
        "log_filters",
        "roles",
        "extensions",
        "prompts",
        "transcripts",
        "providers",
    ),
    ("cases", "conversation"),  # case data and the conversation loop, on providers' types
    ("analysis", "simulated"),  # metrics on cases; the simulated agents and patient
    ("models",),  # the database
    ("results",),  # scoring per trace, cells, the cached analysis
    ("runs",),  # launch, execution, claims, workers
    ("suites", "interchange"),  # install and play suites; formats in and out
    ("views", "templatetags"),  # pages
    ("management", "demo"),  # the CLI and the demo data, which drive all of them
    ("", "apps"),  # the package itself
)
# Imports that run up the floors on purpose; each says why and what would remove it.
PIPELINE_UPWARD = {
    (
        "patientagentbench.providers.factory",
        "patientagentbench.simulated.agent",
    ): "the factory builds every provider kind by name and the simulated agent is one of them; "
    "imported inside build_provider only, and simulated/ depends on providers.types, never on "
    "the factory, so no cycle forms (a registry the simulated package fills would remove it)",
    (
        "patientagentbench.results.study",
        "patientagentbench.suites.install",
    ): "reads only SUITES_DIR, where the paper's published tables live, not the installer; "
    "moving that path constant below results (settings or analysis) would remove it",
}


def within(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def pipeline_floor(module: str) -> int | None:
    """Index of the module's floor in PIPELINE_FLOORS; None outside the pipeline or unplaced."""
    if not within(module, "patientagentbench"):
        return None
    rest = module.removeprefix("patientagentbench").removeprefix(".")
    first = rest.split(".")[0]
    return next((i for i, floor in enumerate(PIPELINE_FLOORS) if first in floor), None)


def runs_up_the_pipeline(importer: str, imported: str) -> bool:
    # Importing the bare package is what every `from patientagentbench import x` does.
    if imported == "patientagentbench" or not within(importer, "patientagentbench"):
        return False
    low, high = pipeline_floor(importer), pipeline_floor(imported)
    if low is None or high is None or high <= low:
        return False
    return not any(
        importer == source and within(imported, target) for source, target in PIPELINE_UPWARD
    )


def is_project(module: str) -> bool:
    return any(within(module, top) for top in TOP_PACKAGES)


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
            importer_is_pure and is_project(imported) and not imported_is_pure,
            "pure packages import only pure packages",
        ),
        (
            within(importer, "ratings")
            and is_project(imported)
            and not within(imported, "ratings")
            and not any(within(imported, leaf) for leaf in RATINGS_MAY_USE),
            "ratings imports nothing of the project but RATINGS_MAY_USE: jury and annotation "
            "stand on it",
        ),
        (
            within(importer, "patientagentbench") and within(imported, "ratings"),
            "the pipeline scores on no rubric, so it never imports ratings",
        ),
        (
            runs_up_the_pipeline(importer, imported),
            "the pipeline's floors point down (PIPELINE_FLOORS)",
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
            not within(importer, "config") and within(imported, "config"),
            "no app imports the project shell (config/): it stands on all of them",
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


# --- dependencies by name --------------------------------------------------------------------

# Who may name whose things, lowest first: a module or template names things of its own layer
# or lower ones. Names owned by no project layer (Django's `login`, `dumpdata`, `admin/...`)
# are free, and so are the shell's (every page extends its `base.html`).
NAME_RANKS = {"sandbox": 0, "ratings": 0, "patientagentbench": 1, "jury": 2, "annotation": 3}
SHELL = "project shell"
APP_LABELS = ("patientagentbench", "sandbox", "jury", "annotation")

# The project shell (config/: settings, URLs, the Celery app, WSGI, middleware, backups and the
# one demo seeder) wires every app together, so it may import and name every app.
SHELL_PACKAGE = "config"
# Templates live in templates/<folder>/; each folder belongs to one layer. "" is the top level:
# base.html (the site frame, whose menu links every app) and the error pages.
TEMPLATE_LAYERS = {
    "": SHELL,
    "registration": SHELL,  # Django's login pages, dressed for the site
    "runs": "patientagentbench",
    "cases": "patientagentbench",
    "models": "patientagentbench",
    "transcripts": "patientagentbench",
    "jury": "jury",
    "annotation": "annotation",
}
URL_FUNCTIONS = {"reverse", "reverse_lazy", "redirect", "resolve_url"}
APP_FUNCTIONS = {"is_installed", "get_app_config", "get_model", "get_models"}
TEMPLATE_NAME = re.compile(r"^[\w./-]+\.(?:html|txt)(?:#[\w-]+)?$")
URL_TAG = re.compile(r"{%\s*url\s+(['\"])([^'\"]+)\1")
TEMPLATE_TAG = re.compile(r"{%\s*(?:include|extends)\s+(['\"])([^'\"]+)\1")


def names_in_python(source: str) -> set[tuple[str, str]]:
    """(kind, name) for every URL name, command, urlconf, template and app label named by a
    string literal."""
    names: set[tuple[str, str]] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and node.args:
            func = node.func
            called = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
            first = node.args[0]
            if isinstance(first, ast.Constant) and isinstance(first.value, str):
                if called in URL_FUNCTIONS:
                    names.add(("url", first.value))
                elif called == "call_command":
                    names.add(("command", first.value))
                elif called == "include":
                    names.add(("urlconf", first.value))
                elif called in APP_FUNCTIONS:
                    names.add(("app", first.value.split(".")[0]))
        elif isinstance(node, ast.Tuple | ast.List | ast.Set):
            # A list of apps (INSTALLED_APPS, a backup's apps): two or more labels together.
            # One "jury" alone is too often a word, not an app.
            labels = [
                e.value for e in node.elts if isinstance(e, ast.Constant) and e.value in APP_LABELS
            ]
            if len(labels) >= 2:
                names.update(("app", label) for label in labels)
        elif (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and TEMPLATE_NAME.match(node.value)
        ):
            names.add(("template", node.value))
    return names


def names_in_template(text: str) -> set[tuple[str, str]]:
    return {("url", m.group(2)) for m in URL_TAG.finditer(text)} | {
        ("template", m.group(2)) for m in TEMPLATE_TAG.finditer(text)
    }


def template_layer(name: str) -> str | None:
    folder = name.split("#")[0].rpartition("/")[0].split("/")[0]
    return TEMPLATE_LAYERS.get(folder)


@dataclass(frozen=True)
class Owners:
    """Which layer defines each URL name and each management command, read from Django."""

    urls: dict[str, str]
    commands: dict[str, str]

    @classmethod
    def of_the_project(cls) -> Owners:
        from django.core.management import get_commands
        from django.urls import URLResolver, get_resolver

        urls: dict[str, str] = {}

        def walk(patterns):
            for pattern in patterns:
                if isinstance(pattern, URLResolver):
                    walk(pattern.url_patterns)
                elif pattern.name:
                    # The view's module says whose page it is (patientagentbench.urls mounts
                    # them all).
                    urls.setdefault(pattern.name, pattern.lookup_str.split(".")[0])

        walk(get_resolver().url_patterns)
        commands = {name: app.split(".")[0] for name, app in get_commands().items()}
        return cls(urls, commands)

    def owner(self, kind: str, name: str) -> str | None:
        if kind == "url":
            return self.urls.get(name)
        if kind == "command":
            return self.commands.get(name)
        if kind == "template":
            return template_layer(name)
        return name.split(".")[0]  # urlconf (a module) or app label


def name_violations(users: dict[str, tuple[str | None, set[tuple[str, str]]]], owners) -> list:
    """users: who (a module or a template) -> (its layer, the names it uses)."""
    found = []
    for user, (layer, names) in sorted(users.items()):
        if layer == SHELL or layer not in NAME_RANKS:
            continue
        for kind, name in sorted(names):
            owner = owners.owner(kind, name)
            if owner in NAME_RANKS and NAME_RANKS[owner] > NAME_RANKS[layer]:
                found.append(f"{user} names {kind} {name!r} of {owner}, a layer above {layer}")
    return found


def project_name_users() -> dict[str, tuple[str | None, set[tuple[str, str]]]]:
    users = {}
    for name, (path, _imports) in project_modules().items():
        layer = SHELL if within(name, SHELL_PACKAGE) else name.split(".")[0]
        users[name] = (layer, names_in_python(path.read_text()))
    for path in sorted((ROOT / "templates").rglob("*.html")):
        relative = path.relative_to(ROOT / "templates").as_posix()
        users[f"templates/{relative}"] = (
            template_layer(relative),
            names_in_template(path.read_text()),
        )
    return users


# --- the README's pure modules ---------------------------------------------------------------

LAYOUT_COLUMN = 30  # the layout block's descriptions start here


def readme_pure_claims() -> set[str]:
    """Modules the README's Layout block calls pure. A sub-entry (`  providers/`) marked
    "(pure" claims itself; a top-level entry claims the `*.py` files it names before "(pure",
    or the whole package when it names none."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    block = text.split("\n## Layout\n", 1)[1].split("```", 2)[1]
    entries: list[list] = []  # [top package, entry names or None, description]
    top = ""
    for line in block.splitlines()[1:]:
        name, description = line[:LAYOUT_COLUMN].strip(), line[LAYOUT_COLUMN:]
        if not name:
            if entries:
                entries[-1][2] += " " + description.strip()
            continue
        if not line.startswith(" "):
            top = name.rstrip("/")
            entries.append([top, None, description])
        else:
            entries.append([top, name, description])
    claims = set()
    for package, names, description in entries:
        if "(pure" not in description:
            continue
        if names:
            parts = [part.strip().removesuffix(".py").strip("/") for part in names.split(",")]
            claims |= {f"{package}.{part.replace('/', '.')}" for part in parts}
        else:
            files = re.findall(r"\b(\w+)\.py\b", description.split("(pure")[0])
            claims |= {f"{package}.{f}" for f in files} or {package}
    return claims


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


def test_every_pipeline_module_has_a_floor():
    unplaced = [
        name
        for name in project_modules()
        if within(name, "patientagentbench") and pipeline_floor(name) is None
    ]
    assert unplaced == [], "place these in PIPELINE_FLOORS"


def test_each_upward_pipeline_import_on_the_list_is_still_there():
    """An allow-listed import that went away leaves its entry behind; drop the entry."""
    modules = project_modules()
    for source, target in PIPELINE_UPWARD:
        assert any(within(i, target) for i in modules[source][1]), (source, target)


def test_names_point_downward():
    assert name_violations(project_name_users(), Owners.of_the_project()) == []


def test_every_template_folder_has_a_layer():
    unplaced = sorted(
        path.relative_to(ROOT / "templates").as_posix()
        for path in (ROOT / "templates").rglob("*.html")
        if template_layer(path.relative_to(ROOT / "templates").as_posix()) is None
    )
    assert unplaced == [], "add their folder to TEMPLATE_LAYERS"


def test_the_shell_holds_the_wiring():
    modules = project_modules()
    wiring = ("settings", "urls", "celery", "wsgi", "backups", "management.commands.seed_demo")
    assert [w for w in wiring if f"{SHELL_PACKAGE}.{w}" not in modules] == []
    assert [m for m in modules if m.startswith("patientagentbench.settings")] == []


def test_the_owners_are_read_from_django():
    owners = Owners.of_the_project()
    assert owners.urls["run_list"] == "patientagentbench"
    assert owners.urls["jury_home"] == "jury"
    assert owners.urls["review_home"] == owners.urls["research_studies"] == "annotation"
    assert owners.urls["login"] == "django"
    assert owners.commands["install_suites"] == "patientagentbench"
    assert owners.commands["run_jury"] == "jury"
    assert owners.commands["export_study"] == "annotation"
    assert owners.commands["seed_demo"] == owners.commands["serve"] == "config"


def test_the_apps_pure_modules_are_found_in_their_pure_packages():
    assert {"jury.pure", "annotation.pure"} <= set(pure_subpackages())
    modules = project_modules()
    for module in ("jury.pure.parsing", "annotation.pure.agreement"):
        assert module in modules and any(within(module, pure) for pure in PURE)


def test_the_readme_and_this_list_agree():
    claims = readme_pure_claims()
    assert {
        "ratings",
        "jury.pure",
        "patientagentbench.providers",
    } <= claims  # parsed at all
    assert sorted(claims - set(PURE)) == [], "the README calls these pure: add them to PURE"
    assert sorted(set(PURE) - claims) == [], "PURE holds these: mark them pure in the README"
    modules = project_modules()
    assert [p for p in PURE if not any(within(m, p) for m in modules)] == []


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
        ("sandbox.clinic", "from ratings.scale import SCORES"),
        ("patientagentbench.analysis.metrics", "from patientagentbench.models import Trace"),
        ("patientagentbench.cases.sampler", "import django.db"),
        ("patientagentbench.runs.launch", "from annotation.models import Item"),
        ("patientagentbench.results.study", "def f():\n    from jury import panels"),
        ("jury.scoring", "from annotation import models"),
        ("annotation.views", "from patientagentbench.runs.launch import launch_run"),
        ("annotation.views", "from patientagentbench.providers.factory import build_provider"),
        ("patientagentbench.simulated.agent", "from ..runs import execution"),
        # ratings: pure, and nothing of the project above it; the pipeline does not need it
        ("ratings.rubric", "from django.core.cache import cache"),
        ("ratings.rubric", "from jury.models import Panel"),
        ("ratings.scale", "from annotation import agreement"),
        ("ratings.rubric", "from patientagentbench.analysis import statistics"),
        ("patientagentbench.results.cells", "from ratings.scale import PASS_THRESHOLD"),
        # pure modules outside the pipeline
        ("jury.pure.aggregate", "from jury.models import Verdict"),
        ("annotation.pure.agreement", "import django.db.models"),
        # the pipeline's floors
        ("patientagentbench.results.cells", "from patientagentbench.runs.launch import launch_run"),
        ("patientagentbench.providers.types", "from patientagentbench.models import Trace"),
        ("patientagentbench.models", "from patientagentbench.results import cells"),
        ("patientagentbench.runs.launch", "from patientagentbench.views import runs"),
        ("patientagentbench.results.study", "from patientagentbench.suites.playing import play"),
        ("patientagentbench.providers.openai_chat", "from ..simulated import agent"),
        # the shell stands on every app; none stands on it
        ("patientagentbench.runs.execution", "from config.celery import app"),
        ("annotation.views", "from config import settings"),
        ("jury.demo", "from config.management.commands.seed_demo import X"),
    ],
)
def test_an_upward_import_is_caught(importer, source):
    fake = {importer: (Path("fake.py"), imports_of(source, importer, False))}
    assert violations(fake), source


def test_allowed_imports_pass():
    allowed = {
        "patientagentbench.runs.execution": "from sandbox.seeding import trace_seed",
        "annotation.views": "from patientagentbench.transcripts import transcript_of",
        "jury.pure.prompts": "from patientagentbench.transcripts import transcript_of",
        "patientagentbench.simulated.agent": "from .plans import Step",
        "jury.pure.aggregate": "from ratings.scale import PASS_THRESHOLD",
        "annotation.pure.agreement": "from ratings.alpha import alpha_undefined",
        "ratings.rubric": "from ratings.scale import SCORES",
        "patientagentbench.runs.launch": "from patientagentbench.results import cells",
        "patientagentbench.views.home": "from patientagentbench import extensions",
        "patientagentbench.providers.factory": "from patientagentbench.simulated.agent import A",
        "patientagentbench.results.study": "from patientagentbench.suites.install import X",
        "config.management.commands.seed_demo": "from annotation.demo import seed_review_demo",
        "config.celery": "from patientagentbench.runs.reconnect import ResendAfterReconnect",
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


@pytest.mark.parametrize(
    ("user", "layer", "text"),
    [
        (
            "templates/runs/detail.html",
            "patientagentbench",
            "<a href=\"{% url 'jury_launch' 1 %}\">",
        ),
        ("templates/cases/list.html", "patientagentbench", '{% url "review_home" %}'),
        (
            "templates/runs/list.html",
            "patientagentbench",
            '{% include "jury/home.html#scorings" %}',
        ),
        ("templates/jury/panel.html", "jury", "{% url 'research_dashboard_jury' %}"),
        (
            "templates/jury/home.html",
            "jury",
            '{% extends "annotation/research/dashboard_base.html" %}',
        ),
    ],
)
def test_an_upward_name_in_a_template_is_caught(user, layer, text):
    users = {user: (layer, names_in_template(text))}
    assert name_violations(users, Owners.of_the_project()), text


@pytest.mark.parametrize(
    ("module", "source"),
    [
        ("patientagentbench.views.home", 'return redirect("review_home")'),
        ("patientagentbench.views.runs", 'url = reverse("jury_run", args=[1])'),
        ("patientagentbench.views.runs", 'URL = reverse_lazy("research_studies")'),
        ("patientagentbench.management.commands.x", 'call_command("run_jury")'),
        ("patientagentbench.views.runs", 'return render(request, "jury/panel.html", {})'),
        ("patientagentbench.results.cells", 'if apps.is_installed("annotation"): pass'),
        ("patientagentbench.results.cells", 'APPS = ("patientagentbench", "jury")'),
        ("patientagentbench.results.cells", 'APPS = ["sandbox", "annotation"]'),
        ("patientagentbench.views.runs", 'path("j/", include("jury.urls"))'),
        ("jury.views", 'return redirect("review_home")'),
        ("jury.management.commands.run_jury", 'call_command("export_study")'),
        ("jury.views", 'Verdict = apps.get_model("annotation.Submission")'),
    ],
)
def test_an_upward_name_in_a_module_is_caught(module, source):
    users = {module: (module.split(".")[0], names_in_python(source))}
    assert name_violations(users, Owners.of_the_project()), source


def test_allowed_names_pass():
    owners = Owners.of_the_project()
    users = {
        "templates/runs/detail.html": (
            "patientagentbench",
            names_in_template(
                "{% url 'run_report' run.pk %}{% url action.url_name run.pk %}"
                '{% include "transcripts/thread.html#thread" %}{% extends "base.html" %}'
                "{% url 'login' %}"
            ),
        ),
        "templates/jury/panel.html": (
            "jury",
            names_in_template("{% url 'run_detail' 1 %}{% include \"runs/list.html#bar\" %}"),
        ),
        "templates/annotation/research/x.html": (
            "annotation",
            names_in_template("{% url 'jury_home' %}{% url 'review_home' %}"),
        ),
        "templates/base.html": (SHELL, names_in_template("{% url 'jury_home' %}")),
        "patientagentbench.views.home": (
            "patientagentbench",
            names_in_python('redirect("run_list")\nredirect(url_name)\ncall_command("dumpdata")'),
        ),
        "config.backups": (SHELL, names_in_python('APPS = ("jury", "annotation")')),
        "annotation.views.research_dashboards": (
            "annotation",
            names_in_python('redirect("jury_home")\ncall_command("install_suites")'),
        ),
    }
    assert name_violations(users, owners) == []


def test_the_readme_parse_reads_claims():
    """Sub-entries marked pure claim themselves, a top-level entry claims the files it names
    before "(pure" (or itself), and an entry not marked pure claims nothing."""
    assert readme_pure_claims() >= {
        "patientagentbench.conversation",
        "patientagentbench.prompts",
        "sandbox",
        "jury.pure",
        "annotation.pure",
    }
    assert "patientagentbench" not in readme_pure_claims()
    assert "jury.models" not in readme_pure_claims()
