"""The analysis report of a run or an imported trace set, with downloads."""

import pandas as pd
from django.http import Http404, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, render
from django.utils.text import slugify

from patientagentbench.analysis import figures as figure_tools
from patientagentbench.models import Run
from patientagentbench.report import FIGURE_TITLES, cached_study, flatten, table_view
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
    study = cached_study(run)
    stats = study.statistics
    context = {
        "run": run,
        "empty": not study.cells,
        "stats": stats,
        "headline": stats.get("headline", []),
        "tables": [
            (name, table_view(frame)) for name, frame in study.tables.items() if name != "cells"
        ],
        "figures": [
            (name, FIGURE_TITLES.get(name, name), _figure_div(run, name, fig))
            for name, fig in study.figures.items()
        ],
        "tests": [
            (key, title, flatten(stats.get(key))) for key, title in TEST_SECTIONS if key in stats
        ],
        "published": _published_tables(study.published),
    }
    return render(request, "runs/report.html", context)


def _figure_div(run, name, fig) -> str:
    # plotly's own HTML for the figure; all data in it is JSON-encoded by plotly.
    return figure_tools.figure_html(fig, div_id=f"fig-{name}", filename=_filename(run, name))


def _filename(run, name: str) -> str:
    return f"run{run.pk}-{slugify(name)}"


def _published_tables(published) -> list:
    if not published:
        return []
    models = pd.DataFrame([{"model": k, **v} for k, v in published["models"].items()])
    categories = pd.DataFrame([{"category": k, **v} for k, v in published["categories"].items()])
    return [
        ("Table 1, per model", table_view(models)),
        ("Table 2, per category", table_view(categories)),
    ]


@role_required(*STAFF_ROLES)
def report_table_csv(request, pk, name):
    run = _run(pk)
    frame = cached_study(run).tables.get(name)
    if frame is None:
        raise Http404("No such table.")
    response = HttpResponse(frame.to_csv(index=False), content_type="text/csv")
    response["Content-Disposition"] = f'attachment; filename="{_filename(run, name)}.csv"'
    return response


@role_required(*STAFF_ROLES)
def report_figure_html(request, pk, name):
    run = _run(pk)
    fig = cached_study(run).figures.get(name)
    if fig is None:
        raise Http404("No such figure.")
    response = HttpResponse(
        figure_tools.figure_document(fig, filename=_filename(run, name)), content_type="text/html"
    )
    response["Content-Disposition"] = f'attachment; filename="{_filename(run, name)}.html"'
    return response


@role_required(*STAFF_ROLES)
def report_statistics_json(request, pk):
    run = _run(pk)
    response = JsonResponse(cached_study(run).statistics, json_dumps_params={"indent": 1})
    response["Content-Disposition"] = f'attachment; filename="{_filename(run, "statistics")}.json"'
    return response
