"""Pages load plotly.js's cartesian partial bundle from static/ (1.5 MB, not the full 4.8 MB);
the figures are built by the plotly Python package. The two must be one plotly.js version, and
the bundle must hold every trace type the project's figures draw, or a page would show empty
figures with nothing failing on the server."""

import ast
import re
from pathlib import Path

import plotly

ROOT = Path(__file__).resolve().parents[1]
BUNDLE = ROOT / "static" / "vendor" / "plotly" / "plotly-cartesian.min.js"
FULL = Path(plotly.__file__).parent / "package_data" / "plotly.min.js"
SOURCES = ("annotation", "jury", "patientagentbench")


def version(script: Path) -> str:
    head = script.read_text(encoding="utf-8", errors="replace")[:400]
    return re.search(r"plotly\.js(?: \([^)]*\))? v(\d+\.\d+\.\d+)", head).group(1)


def traces_in(script: Path) -> set[str]:
    text = script.read_text(encoding="utf-8", errors="replace")
    return set(re.findall(r'moduleType:"trace",name:"([a-z0-9]+)"', text))


def traces_drawn() -> set[str]:
    """Every `go.<Trace>(...)` the project's modules call, as plotly.js names it."""
    drawn = set()
    for package in SOURCES:
        for module in (ROOT / package).rglob("*.py"):
            for node in ast.walk(ast.parse(module.read_text())):
                if (
                    isinstance(node, ast.Call)
                    and isinstance(node.func, ast.Attribute)
                    and isinstance(node.func.value, ast.Name)
                    and node.func.value.id == "go"
                    and node.func.attr not in ("Figure", "Layout")
                ):
                    drawn.add(node.func.attr.lower())
    return drawn


def test_the_pages_bundle_is_the_plotly_js_of_the_python_package():
    assert version(BUNDLE) == version(FULL)


def test_the_bundle_draws_every_trace_type_the_figures_use():
    drawn = traces_drawn()
    assert {"bar", "scatter", "heatmap"} <= drawn  # the check sees the figures
    assert drawn <= traces_in(BUNDLE)


def test_every_page_template_loads_the_bundle_not_the_full_one():
    templates = [p for p in (ROOT / "templates").rglob("*.html") if "plotly" in p.read_text()]
    assert templates
    for template in templates:
        text = template.read_text()
        assert "vendor/plotly/plotly-cartesian.min.js" in text, template
        assert "plotly.min.js" not in text.replace("plotly-cartesian.min.js", ""), template
