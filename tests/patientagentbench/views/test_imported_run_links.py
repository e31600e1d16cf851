"""An imported run's pages link only to pages that exist: its report's downloads and the
case set its case pages point back to."""

import re
from io import StringIO

import pytest
from django.core.management import call_command

from patientagentbench.models import Run
from tests.patientagentbench.analysis.paths import GOLDEN

pytestmark = pytest.mark.django_db


@pytest.fixture
def imported_run(db):
    sample = GOLDEN / "patientagentbench-sample" / "conversations.json"
    call_command("import_traces", str(sample), stdout=StringIO())
    return Run.objects.get()


def links(html: str, prefix: str) -> set[str]:
    return {href for href in re.findall(r'href="([^"#]+)"', html) if href.startswith(prefix)}


def test_every_report_download_of_an_imported_run_exists(client, researcher, imported_run):
    client.force_login(researcher)
    report = client.get(f"/runs/{imported_run.pk}/report/").content.decode()
    downloads = links(report, f"/runs/{imported_run.pk}/report/")
    assert downloads, "the report offers downloads"
    assert {href: client.get(href).status_code for href in downloads} == dict.fromkeys(
        downloads, 200
    )


def test_an_imported_case_links_back_to_a_page_that_exists(client, researcher, imported_run):
    client.force_login(researcher)
    trace = imported_run.traces.select_related("task").first()
    case = client.get(f"/case-sets/{trace.task.suite_id}/cases/{trace.task.pk}/")
    assert case.status_code == 200
    suite_page = f"/case-sets/{trace.task.suite_id}/"
    assert suite_page in links(case.content.decode(), "/case-sets/")
    assert client.get(suite_page).status_code == 200
