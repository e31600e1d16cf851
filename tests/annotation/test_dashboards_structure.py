"""The dashboards package is cut by page: each page module owns its loading, tables and figures,
and what several pages share is public. No dashboards module may import an underscore name from
another (that would be one page reaching into another's internals)."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "annotation" / "dashboards"


def _private_cross_imports() -> list[str]:
    found = []
    for path in sorted(PACKAGE.glob("*.py")):
        tree = ast.parse(path.read_text(), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(
                "annotation.dashboards"
            ):
                found += [
                    f"{path.name}:{node.lineno} imports {alias.name} from {node.module}"
                    for alias in node.names
                    if alias.name.startswith("_")
                ]
            elif isinstance(node, ast.Attribute) and node.attr.startswith("_"):
                # `figures._forest` through a module imported whole is the same reach.
                value = node.value
                if isinstance(value, ast.Name) and value.id in _dashboard_modules(tree):
                    found.append(f"{path.name}:{node.lineno} uses {value.id}.{node.attr}")
    return found


def _dashboard_modules(tree: ast.Module) -> set[str]:
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == "annotation.dashboards":
            names |= {alias.asname or alias.name for alias in node.names}
        elif isinstance(node, ast.Import):
            names |= {
                alias.asname or alias.name
                for alias in node.names
                if alias.name.startswith("annotation.dashboards.") and alias.asname
            }
    return names


def test_no_dashboards_module_imports_a_private_name_from_another():
    found = _private_cross_imports()
    assert not found, "private names imported across dashboards modules:\n" + "\n".join(found)
