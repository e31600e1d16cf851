"""The Content-Security-Policy, and pages that keep it: no inline script, no on* handler, no
javascript: URL on any page an admin, a researcher or a clinician can reach; figures travel as
JSON islands that static/js/figures.js draws."""

from __future__ import annotations

import html as html_module
import json
import re
from collections import Counter, deque
from html.parser import HTMLParser
from urllib.parse import urljoin, urlsplit

import plotly.graph_objects as go
import pytest
from django.contrib.auth.models import Group
from django.urls import reverse

from annotation.dashboards import figures as dashboard_figures
from patientagentbench.analysis.figures import figure_html
from patientagentbench.roles import ADMIN
from tests.annotation.test_dashboards import scored  # noqa: F401  (a fixture)
from tests.annotation.test_research_views import conversations  # noqa: F401  (a fixture)
from tests.finished_runs import simulated_run

pytestmark = pytest.mark.django_db

JSON_TYPES = {"application/json", "application/ld+json"}


def policy(response) -> dict[str, list[str]]:
    header = response["Content-Security-Policy"]
    directives = (part.strip().split() for part in header.split(";") if part.strip())
    return {name: values for name, *values in directives}


def test_every_page_carries_a_policy_without_inline_script(client):
    csp = policy(client.get(reverse("login")))
    assert csp["script-src"] == ["'self'"]  # no 'unsafe-inline', no 'unsafe-eval', no nonce
    assert csp["default-src"] == ["'self'"]
    assert csp["object-src"] == ["'none'"] and csp["frame-ancestors"] == ["'none'"]
    assert csp["base-uri"] == ["'self'"] and csp["form-action"] == ["'self'"]
    # plotly.js and htmx write styles at run time; CSS runs no code.
    assert csp["style-src"] == ["'self'", "'unsafe-inline'"]
    assert "data:" in csp["img-src"]  # plotly's camera button renders the PNG from a data URL


class ScriptAudit(HTMLParser):
    """Everything on a page a strict script-src would refuse, and the links to follow."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.problems: list[str] = []
        self.links: list[str] = []
        self.islands = 0
        self._in_script = False

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        for name, value in attrs:
            if name.startswith("on"):
                self.problems.append(f"<{tag} {name}=...> handler attribute")
            if (value or "").strip().lower().startswith("javascript:"):
                self.problems.append(f"<{tag} {name}={value!r}>")
        if tag == "script":
            kind = (attributes.get("type") or "").lower()
            if kind in JSON_TYPES:
                self.islands += 1
            elif not attributes.get("src"):
                self.problems.append("inline <script>")
            elif not attributes["src"].startswith("/static/"):
                self.problems.append(f"script from elsewhere: {attributes['src']}")
        if tag == "a" and attributes.get("href") and "download" not in attributes:
            self.links.append(attributes["href"])


def audit(body: str) -> ScriptAudit:
    parser = ScriptAudit()
    parser.feed(body)
    return parser


def shape(path: str) -> str:
    """Pages of one kind (/traces/12/, /traces/13/, ...) share a shape."""
    return re.sub(r"\d+", "N", path.split("?")[0]) + ("?" if "?" in path else "")


def crawl(client, start: str, limit: int = 200, per_shape: int = 2) -> dict[str, ScriptAudit]:
    """The HTML pages reachable by GET from `start` within the site, `per_shape` of each kind
    (up to `limit`); a page that fails on the server is a problem too."""
    seen, queue, pages, shapes = {start}, deque([start]), {}, Counter()
    client.raise_request_exception = False
    while queue and len(pages) < limit:
        response = client.get(queue.popleft(), follow=True)
        url = response.request["PATH_INFO"]
        if response.request.get("QUERY_STRING"):
            url += f"?{response.request['QUERY_STRING']}"
        if response.status_code >= 500:
            pages[url] = failed = ScriptAudit()
            failed.problems.append(f"server error {response.status_code}")
            continue
        if response.status_code != 200 or not response["Content-Type"].startswith("text/html"):
            continue
        if "attachment" in response.get("Content-Disposition", ""):
            continue
        pages[url] = found = audit(response.content.decode())
        for href in found.links:
            target = urljoin(url, href)
            parts = urlsplit(target)
            if parts.netloc and parts.netloc != "testserver":
                continue
            path = parts.path + (f"?{parts.query}" if parts.query else "")
            if path.startswith(("/django-admin/", "/accounts/logout")) or path in seen:
                continue
            if shapes[shape(path)] >= per_shape:
                continue
            shapes[shape(path)] += 1
            seen.add(path)
            queue.append(path)
    return pages


@pytest.fixture
def site(scored, admin_user, researcher, office_suite, sim_models):  # noqa: F811
    """A study with scores and a jury's verdicts on a finished run of patient conversations,
    and a finished office-19 run with three repetitions (its report has figures); the
    researcher is also an admin, so one crawl reaches every staff page."""
    researcher.groups.add(Group.objects.get_or_create(name=ADMIN)[0])
    run = simulated_run(suite=office_suite, models=sim_models, repetitions=3)
    return scored | {"office_run": run}


def test_no_page_runs_inline_script(client, site, researcher):
    client.force_login(researcher)
    pages = crawl(client, "/")
    # The crawl reached the pages with figures, forms and live sections.
    reached = " ".join(pages)
    for expected in ("/runs/", "/case-sets/", "/models/", "/jury/", "/research/people/"):
        assert expected in reached, expected
    report = f"/runs/{site['office_run'].pk}/report/"
    dashboards = ("jury", "raters", "quality")
    with_figures = [report] + [f"/research/dashboards/{name}/" for name in dashboards]
    for url in with_figures:
        assert url in pages and pages[url].islands >= 1, url  # figures came as JSON
    problems = {url: page.problems for url, page in pages.items() if page.problems}
    assert problems == {}


def test_no_clinician_page_runs_inline_script(client, site):
    person = site["people"][0]
    client.force_login(person.user)
    pages = crawl(client, "/")
    assert any(url.startswith("/review/") for url in pages)
    problems = {url: page.problems for url, page in pages.items() if page.problems}
    assert problems == {}


def test_the_invitation_link_selects_itself_without_an_inline_handler(client, researcher):
    client.force_login(researcher)
    response = client.post(
        reverse("research_people"),
        {"email": "new.doc@example.org", "name": "New Doc", "track": "clinical"},
        follow=True,
    )
    body = response.content.decode()
    assert 'data-testid="invite-link"' in body, body[:2000]
    assert "data-select-on-focus" in body
    assert audit(body).problems == []


def test_the_error_and_login_pages_run_no_inline_script(client, researcher):
    assert audit(client.get(reverse("login")).content.decode()).problems == []
    client.force_login(researcher)
    assert audit(client.get("/no-such-page/").content.decode()).problems == []


def test_a_figure_is_a_div_and_a_json_island():
    fig = go.Figure(go.Bar(x=["a", "b"], y=[1, 2]))
    fig.update_layout(title="</script><script>alert(1)</script> & more", height=321)
    html = figure_html(fig, div_id="fig-test", filename="test-figure")
    found = audit(html)
    assert found.problems == [] and found.islands == 1
    assert html.count("<script") == 1 and html.count("</script>") == 1  # the title is escaped
    assert 'id="fig-test" class="plotly-graph-div"' in html
    assert 'data-plotly-figure="fig-test"' in html and "height:321px" in html
    island = html.split('data-plotly-figure="fig-test">', 1)[1].rsplit("</script>", 1)[0]
    spec = json.loads(island)
    # Entities in the data (analysis.figures.plain_markup), which plotly.js draws as the text.
    title = spec["figure"]["layout"]["title"]["text"]
    assert "<" not in title and html_module.unescape(title).startswith("</script><script>")
    assert spec["figure"]["data"][0]["y"] == [1, 2]
    assert spec["config"]["toImageButtonOptions"]["filename"] == "test-figure"
    assert spec["config"]["displaylogo"] is False


def test_dashboard_figures_come_as_islands_with_fresh_ids():
    fig = go.Figure(go.Scatter(x=[1], y=[1]))
    first, second = (dashboard_figures.figure(fig, "scatter", "Scatter") for _ in range(2))
    assert audit(first["div"]).problems == [] and audit(first["div"]).islands == 1
    assert first["div"] != second["div"]  # new div ids with every computation (htmx swaps)
