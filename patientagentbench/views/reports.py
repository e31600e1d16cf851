"""The analysis report of a run or an imported trace set, with downloads.

Every view reads `run_analysis`, plain data cached per run state, so a page view renders
stored fragments instead of recomputing statistics and figures.
"""

import plotly.io
from django.http import Http404, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, render

from patientagentbench.analysis import figures as figure_tools
from patientagentbench.models import Run
from patientagentbench.results.study import (
    FIGURE_TITLES,
    file_stem,
    flatten,
    run_analysis,
    table_frame,
    table_view,
)
from patientagentbench.roles import STAFF_ROLES, role_required

TEST_SECTIONS = [
    ("tss_vs_ac", "TSS vs AC (paired t, Cohen's d)"),
    ("ambiguous_vs_structured", "Ambiguous vs structured tasks"),
    ("divergence", "First divergence"),
    ("output_exact_match", "Output exact match"),
    ("correctness_vs_tss", "Correctness vs TSS"),
    ("anova", "One-way ANOVA across models (eta²)"),
    ("split_half", "Split-half reliability"),
    ("bonferroni", "Bonferroni over the primary hypotheses"),
    ("mixed_model", "Linear mixed model (task as random effect)"),
    ("temperature", "Temperature comparison"),
]


def _run(pk) -> Run:
    return get_object_or_404(Run.objects.select_related("suite"), pk=pk)


@role_required(*STAFF_ROLES)
def run_report(request, pk):
    run = _run(pk)
    analysis = run_analysis(run)
    stats = analysis["statistics"]
    context = {
        "run": run,
        "empty": not analysis["n_cells"],
        "stats": stats,
        "headline": stats.get("headline", []),
        "tables": [
            (name, table_view(table))
            for name, table in analysis["tables"].items()
            if name != "cells"
        ],
        "figures": [
            (name, FIGURE_TITLES.get(name, name), div)
            for name, div in analysis["figure_divs"].items()
        ],
        "tests": [
            (key, title, flatten(stats.get(key))) for key, title in TEST_SECTIONS if key in stats
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
    table = run_analysis(run)["tables"].get(name)
    if table is None:
        raise Http404("No such table.")
    response = HttpResponse(table_frame(table).to_csv(index=False), content_type="text/csv")
    response["Content-Disposition"] = f'attachment; filename="{file_stem(run, name)}.csv"'
    return response


@role_required(*STAFF_ROLES)
def report_figure_html(request, pk, name):
    run = _run(pk)
    figure_json = run_analysis(run)["figure_json"].get(name)
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
    response = JsonResponse(run_analysis(run)["statistics"], json_dumps_params={"indent": 1})
    response["Content-Disposition"] = f'attachment; filename="{file_stem(run, "statistics")}.json"'
    return response
