"""The README and docs/ stand alone: every link inside the repository resolves, none leaves it,
and the commands' help names what they read."""

import re
import subprocess
from pathlib import Path
from urllib.parse import unquote

import pytest

from tests.test_cli_help import help_of

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
# [text](target) and [text](target "title"); images too. Code spans and blocks are removed
# first, so `a[i](x)` in an example is not a link.
LINK = re.compile(r"\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
FENCE = re.compile(r"^```.*?^```", re.S | re.M)
CODE = re.compile(r"`[^`\n]*`")
EXTERNAL = ("http://", "https://", "mailto:")


def _links(page: Path) -> list[str]:
    text = CODE.sub("", FENCE.sub("", page.read_text(encoding="utf-8")))
    return LINK.findall(text)


def _anchors(page: Path) -> set[str]:
    """GitHub's heading ids: lower case, punctuation dropped, spaces to hyphens."""
    text = FENCE.sub("", page.read_text(encoding="utf-8"))
    anchors = set()
    for heading in re.findall(r"^#{1,6}\s+(.+?)\s*#*$", text, re.M):
        slug = re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
        anchors.add(slug)
    return anchors


def test_the_docs_exist():
    names = {page.name for page in PAGES}
    assert {"README.md", "metrics.md", "rubric.md", "roles.md", "formats.md"} <= names


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_link_resolves_inside_the_repository(page):
    links = _links(page)
    assert links or page.name != "README.md", "the README links its docs"
    for link in links:
        if link.startswith(EXTERNAL):
            continue
        path, _, anchor = link.partition("#")
        target = (page.parent / unquote(path)).resolve() if path else page
        assert target.is_relative_to(ROOT), f"{page.name}: {link} leaves the repository"
        assert target.exists(), f"{page.name}: {link} does not exist"
        if anchor and target.suffix == ".md":
            assert anchor in _anchors(target), f"{page.name}: no heading #{anchor} in {path}"


def test_the_readme_links_every_doc_and_nothing_outside():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for doc in ("docs/metrics.md", "docs/rubric.md", "docs/roles.md", "docs/formats.md"):
        assert f"]({doc})" in readme, doc
    for page in PAGES:
        assert "../shared" not in page.read_text(encoding="utf-8"), page.name
        assert "DESIGN.md" not in page.read_text(encoding="utf-8"), page.name


def test_the_docs_define_the_metrics_and_the_rubric():
    metrics = (ROOT / "docs" / "metrics.md").read_text(encoding="utf-8")
    for term in ("TSS", "AC", "Divergence point", "Output agreement", "Correctness", "pass^k"):
        assert term in metrics, term
    rubric = (ROOT / "docs" / "rubric.md").read_text(encoding="utf-8")
    from ratings.rubric import cached_rubric

    for dimension in cached_rubric("patientagentbench", "1").dimensions:
        assert dimension.label in rubric, dimension.label


def test_the_readme_keeps_its_two_commands():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "make demo" in readme and "make test" in readme
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert re.search(r"^demo:", makefile, re.M) and re.search(r"^test:", makefile, re.M)


def test_make_demo_installs_the_inspect_extra_the_import_page_needs():
    """`make demo`'s install keeps the extra: a plain `uv sync --frozen` would remove it."""
    dry_run = subprocess.run(
        ["make", "-n", "-C", str(ROOT), "demo"], capture_output=True, text=True, check=True
    ).stdout
    syncs = [line for line in dry_run.splitlines() if line.startswith("uv sync")]
    assert syncs and all("--extra inspect" in line for line in syncs), syncs


def test_import_traces_help_names_every_format_it_reads(capsys, monkeypatch):
    help_text = help_of("import_traces", capsys, monkeypatch)
    for format_line in (
        "release JSON    the seed paper's release",
        "conversations   PatientAgentBench's conversations.json (LangChain",
        "JSONL           this project's own export (export_traces)",
    ):
        assert format_line in help_text, format_line
