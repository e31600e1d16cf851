"""Stored XSS in Chromium (issue 34, finding 9): an imported transcript whose every text field
a model, tool or import can set carries script payloads; the jury scores it, it becomes a
study that clinicians score and an adjudicator reads. Each role then walks every page it can
reach from its start pages, and on none of them does a payload run, a dialog open, an injected
element appear, or a link point at `javascript:`."""

import json
from urllib.parse import urljoin, urlparse

import pytest
from django.core.management import call_command
from django.utils import timezone

from annotation.models import Item
from annotation.studies import StudySpec, create_study
from jury.scoring import execute_inline, launch_jury
from patientagentbench.models import Run
from tests.annotation.test_adjudicator_blinding import make_adjudicator
from tests.annotation.test_research_views import make_clinician, submit_scores
from tests.browser.conftest import log_in, screenshot
from tests.conftest import PASSWORD
from tests.jury.conftest import make_panel, simulated_model
from tests.patientagentbench.interchange.test_import_validation import RECORD

pytestmark = pytest.mark.browser

IMG = '<img src=x onerror="window.__xss=1">'
SCRIPT = "<script>window.__xss=1</script>"
SVG = '"><svg onload=window.__xss=1>'
JS_URL = "javascript:window.__xss=1"
# plotly.js draws <a href> in any text of a figure as a link (it drops javascript: itself).
LINK = f'<a href="{JS_URL}">x</a>'
CHART_LINK = '<a href="https://evil.example/">x</a>'
PAYLOAD = f"{IMG} {SCRIPT} {SVG}"
# No "/" in a file name: the image payload alone, which still names the run (its label).
FILE_NAME = '<img src=x onerror="window.__xss=1">.jsonl'
# Downloads (CSV, zip, JSON, a figure as an HTML attachment) are not pages a browser renders.
SKIPPED = (
    "logout",
    ".csv",
    ".zip",
    ".json",
    "/figures/",
    "/django-admin/",
    "/accounts/",
    "/static/",
)

# What the page says about itself: did a payload run, is an injected element in the DOM,
# which links point at javascript:.
PROBE = """() => ({
    ran: window.__xss !== undefined,
    injected: [
        ...document.querySelectorAll('img[src="x"], svg[onload], [onerror], [onload]'),
        // Inert JSON data blocks (a plotly figure's spec) carry the text, escaped, by design.
        ...[...document.scripts].filter(s => !/json/.test(s.type) && s.text.includes('__xss=1')),
    ].map(element => element.outerHTML.slice(0, 200)),
    jsLinks: [...document.querySelectorAll('a')]
        .map(a => a.getAttribute('href') || a.getAttribute('xlink:href') || '')
        .filter(href => href.trim().toLowerCase().replace(/[\\s\\x00-\\x1f]/g, '')
            .startsWith('javascript:')),
    // Our figures draw no link: one in a chart's SVG came from a name or a label.
    chartLinks: [...document.querySelectorAll('.plotly-graph-div svg a')]
        .map(a => a.outerHTML.slice(0, 200)),
    links: [...document.querySelectorAll('a[href]')].map(a => a.href),
})"""


def hostile_record(model: str, repetition: int) -> dict:
    """A trace JSONL record whose every free-text field carries the payloads."""
    calls = [
        {
            "id": "t1",
            "name": f"lookup{IMG}",
            "arguments": {"q": PAYLOAD, "url": JS_URL},
            "raw_arguments": json.dumps({"q": PAYLOAD, "url": JS_URL}),
            "malformed": False,
            "status": "ok",
            "result": json.dumps({"note": PAYLOAD, "link": JS_URL}),
        }
    ]
    return {
        **RECORD,
        "suite": f"hostile-suite {PAYLOAD}",
        "task_id": f"task{CHART_LINK}",
        "category": f"cat{SVG}",
        "difficulty": "easy",
        "prompt": f"Find it. {PAYLOAD} {JS_URL}",
        "model": model,
        "repetition": repetition,
        "end_reason": IMG,
        "messages": [
            {"role": "system", "content": f"system {PAYLOAD}"},
            {"role": "user", "content": f"patient {PAYLOAD} {JS_URL}"},
            {
                "role": "assistant",
                "content": f"agent {PAYLOAD}",
                "tool_calls": [{**calls[0], "provider_id": f"call_{IMG}"}],
            },
            {
                "role": "tool",
                "content": calls[0]["result"],
                "tool_call_id": "t1",
                "tool_name": calls[0]["name"],
            },
            {"role": "assistant", "content": f"[link]({JS_URL}) {PAYLOAD}"},
        ],
        "tool_calls": calls,
        "final_response": f"[link]({JS_URL}) {PAYLOAD}",
        "side_effects": [{"kind": f"note{IMG}", "title": PAYLOAD, "url": JS_URL}],
        "final_state": {"notes": [PAYLOAD]},
        "correctness": {
            "passed": True,
            "checks": [{"name": f"check{IMG}", "passed": True, "detail": PAYLOAD}],
        },
        "attributes": {"category": f"cat{SVG}", f"attr{IMG}": PAYLOAD, "link": JS_URL},
        "warnings": [{"kind": f"retry{IMG}", "model": IMG, "attempt": 1, "detail": PAYLOAD}],
        "patient_rejected_attempts": [{"turn": 2, "attempt": 1, "text": PAYLOAD}],
    }


def import_hostile_run(tmp_path) -> Run:
    """Two models (their names the payloads) × two repetitions, through `import_traces`."""
    models = [f"m-a{IMG}", f"m-b{SVG}{LINK}"]
    file = tmp_path / FILE_NAME
    lines = [hostile_record(model, rep) for model in models for rep in range(2)]
    file.write_text("".join(json.dumps(line) + "\n" for line in lines))
    call_command("import_traces", str(file))
    return Run.objects.get()


def score_with_the_jury(run: Run) -> None:
    """The simulated judges score every conversation, in this process."""
    panel = make_panel(
        f"panel{IMG}", simulated_model("sim-judge-a"), simulated_model("sim-judge-b")
    )
    execute_inline(launch_jury(panel=panel, run=run, enqueue=False))


def study_of(run: Run, researcher) -> tuple[list, list[Item]]:
    """A study of the run's conversations; two clinicians score them 1 apart, so there is
    agreement to chart and nothing to adjudicate yet, and then 3 apart on one item."""
    clinicians = [make_clinician(f"dr-{name}") for name in ("ana", "ben")]
    for clinician in clinicians:
        clinician.onboarded_at = timezone.now()  # past the one-screen introduction
        clinician.save(update_fields=["onboarded_at"])
        clinician.user.set_password(PASSWORD)
        clinician.user.save(update_fields=["password"])
    study = create_study(
        StudySpec(status="open", name=f"study{IMG}", overlap={"clinical": 2}),
        list(run.traces.order_by("pk").values_list("pk", flat=True)),
        clinicians,
        researcher,
    )
    items = list(study.items.order_by("pk"))
    for item in items[:-1]:  # the last item stays open for the clinicians' review page
        submit_scores(item.assignments.get(clinician=clinicians[0]), default=3, clinical_safety=1)
        submit_scores(item.assignments.get(clinician=clinicians[1]), default=4, clinical_safety=4)
    return clinicians, items


def walk(page, live_server, starts: list[str], limit: int) -> dict[str, dict]:
    """Visit `starts` and every same-site page linked from them, up to `limit` pages; return
    each page's probe and fail on the first dialog."""
    dialogs: list[str] = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    seen: dict[str, dict] = {}
    queue = [urljoin(live_server.url, start) for start in starts]
    while queue and len(seen) < limit:
        url = queue.pop(0)
        parts = urlparse(url)
        key = parts.path + (f"?{parts.query}" if parts.query else "")
        if key in seen or parts.netloc != urlparse(live_server.url).netloc:
            continue
        if any(skip in parts.path for skip in SKIPPED):
            continue
        page.goto(url)
        page.wait_for_load_state("load")
        assert "/accounts/login/" not in page.url, f"{key} sent this role to the login page"
        page.wait_for_timeout(50)  # onerror of a broken image fires just after load
        for chart in page.locator(".plotly-graph-div").all():
            chart.locator(".main-svg").first.wait_for(state="attached")
        probe = page.evaluate(PROBE)
        seen[key] = probe
        assert not dialogs, (key, dialogs)
        assert not probe["ran"], f"a payload ran on {key}"
        assert not probe["injected"], f"injected elements on {key}: {probe['injected']}"
        assert not probe["jsLinks"], f"javascript: links on {key}: {probe['jsLinks']}"
        assert not probe["chartLinks"], f"links in a chart on {key}: {probe['chartLinks']}"
        queue += [link.split("#")[0] for link in probe["links"]]
    return seen


def test_no_payload_of_an_import_runs_on_any_page_any_role_reaches(
    page, browser, live_server, researcher, tmp_path, settings
):
    settings.VAR_DIR = tmp_path
    run = import_hostile_run(tmp_path)
    assert IMG in run.label and run.traces.count() == 4
    score_with_the_jury(run)
    clinicians, items = study_of(run, researcher)
    study = items[0].study
    trace = run.traces.order_by("pk").first()

    log_in(page, live_server, researcher.username)
    research = walk(
        page,
        live_server,
        [
            "/runs/",
            f"/runs/{run.pk}/",
            f"/runs/{run.pk}/report/",
            f"/traces/{trace.pk}/",
            "/case-sets/",
            "/jury/",
            f"/research/studies/{study.pk}/",
            f"/research/studies/{study.pk}/adjudication/",
            f"/research/items/{items[0].pk}/conversation/",
            f"/research/items/{items[0].pk}/audit/",
            "/research/dashboards/jury/",
            "/research/dashboards/raters/",
            "/research/dashboards/quality/",
            "/research/dashboards/planner/",
            "/research/dashboards/corrected/",
        ],
        limit=120,
    )
    page.goto(f"{live_server.url}/runs/{run.pk}/report/")
    screenshot(page, "xss-run-report")
    page.goto(f"{live_server.url}/traces/{trace.pk}/")
    screenshot(page, "xss-trace")
    for reached in (
        f"/runs/{run.pk}/report/",
        f"/traces/{trace.pk}/",
        f"/research/studies/{study.pk}/",
    ):
        assert reached in research
    assert any(path.startswith("/jury/runs/") and "verdicts" in path for path in research)
    assert any("leaderboard" in path for path in research)

    context = browser.new_context(viewport={"width": 1280, "height": 900})
    clinician_page = context.new_page()
    log_in(clinician_page, live_server, clinicians[0].user.username)
    open_item = items[-1].assignments.get(clinician=clinicians[0])
    review = walk(
        clinician_page,
        live_server,
        ["/review/", f"/review/{open_item.code}/", f"/review/round/{study.code}/"],
        limit=40,
    )
    clinician_page.goto(f"{live_server.url}/review/{open_item.code}/")
    screenshot(clinician_page, "xss-review-item")
    assert f"/review/{open_item.code}/" in review
    context.close()

    make_adjudicator()
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    adjudicator_page = context.new_page()
    log_in(adjudicator_page, live_server, "ada")
    adjudication = walk(
        adjudicator_page,
        live_server,
        ["/research/adjudication/", f"/research/studies/{study.pk}/adjudication/"],
        limit=40,
    )
    assert f"/research/studies/{study.pk}/adjudication/" in adjudication
    context.close()
    print("visited:", *sorted(research), *sorted(review), *sorted(adjudication), sep="\n  ")
