"""The analysis report of a run or an imported trace set, with downloads.

Every view reads `run_analysis`, plain data cached per run state, so a page view renders
stored fragments instead of recomputing statistics and figures.
"""

import plotly.io
from django.http import Http404, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, render

from patientagentbench.analysis import figures as figure_tools
from patientagentbench.csv_safe import frame_to_csv
from patientagentbench.models import Run
from patientagentbench.results import findings
from patientagentbench.results.scoring import DEFAULT_MALFORMED, MALFORMED_MODES
from patientagentbench.results.study import (
    FIGURE_TITLES,
    file_stem,
    run_analysis,
    table_frame,
    table_title,
    table_view,
)
from patientagentbench.roles import STAFF_ROLES, role_required


def _run(pk) -> Run:
    return get_object_or_404(Run.objects.select_related("suite"), pk=pk)


def _malformed(request) -> str:
    """The analysis setting for malformed tool calls; anything unknown is the default."""
    value = request.GET.get("malformed", DEFAULT_MALFORMED)
    return value if value in MALFORMED_MODES else DEFAULT_MALFORMED


@role_required(*STAFF_ROLES)
def run_report(request, pk):
    run = _run(pk)
    malformed = _malformed(request)
    analysis = run_analysis(run, malformed)
    stats = analysis["statistics"]
    has_published = bool(analysis["published"])
    context = {
        "run": run,
        "empty": not analysis["n_cells"],
        "stats": stats,
        "malformed": malformed,
        "malformed_modes": MALFORMED_MODES,
        "malformed_meaning": MALFORMED_MODES[malformed],
        "query": "" if malformed == DEFAULT_MALFORMED else f"?malformed={malformed}",
        "headline": findings.headline_rows(stats, has_published=has_published),
        "sections": findings.report_sections(stats, has_published=has_published),
        "dropped": findings.dropped_rows(stats),
        "tables": [
            (name, table_title(name), table_view(table))
            for name, table in analysis["tables"].items()
            if name != "cells"
        ],
        # Runs without cells (an import with one repetition, say) have no such download.
        "has_cells": "cells" in analysis["tables"],
        "figures": [
            (name, FIGURE_TITLES.get(name, name), div)
            for name, div in analysis["figure_divs"].items()
        ],
        "published": _published_tables(analysis["published"]),
    }
    return render(request, "runs/report.html", context)


def _published_tables(published) -> list:
    if not published:
        return []
    models = [{"model": k, **v} for k, v in published["models"].items()]
    categories = [{"category": k, **v} for k, v in published["categories"].items()]
    return [
        ("Table 1, per model", table_view(_records_table(models))),
        ("Table 2, per category", table_view(_records_table(categories))),
    ]


def _records_table(records: list[dict]) -> dict:
    columns = list(dict.fromkeys(key for record in records for key in record))
    return {"columns": columns, "rows": [[r.get(c) for c in columns] for r in records]}


@role_required(*STAFF_ROLES)
def report_table_csv(request, pk, name):
    run = _run(pk)
    table = run_analysis(run, _malformed(request))["tables"].get(name)
    if table is None:
        raise Http404("No such table.")
    response = HttpResponse(frame_to_csv(table_frame(table)), content_type="text/csv")
    response["Content-Disposition"] = f'attachment; filename="{file_stem(run, name)}.csv"'
    return response


@role_required(*STAFF_ROLES)
def report_figure_html(request, pk, name):
    run = _run(pk)
    figure_json = run_analysis(run, _malformed(request))["figure_json"].get(name)
    if figure_json is None:
        raise Http404("No such figure.")
    document = figure_tools.figure_document(
        plotly.io.from_json(figure_json), filename=file_stem(run, name)
    )
    response = HttpResponse(document, content_type="text/html")
    response["Content-Disposition"] = f'attachment; filename="{file_stem(run, name)}.html"'
    return response


@role_required(*STAFF_ROLES)
def report_statistics_json(request, pk):
    run = _run(pk)
    statistics = run_analysis(run, _malformed(request))["statistics"]
    response = JsonResponse(statistics, json_dumps_params={"indent": 1})
    response["Content-Disposition"] = f'attachment; filename="{file_stem(run, "statistics")}.json"'
    return response
