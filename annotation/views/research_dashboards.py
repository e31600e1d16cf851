"""Agreement dashboards (researchers and admins; a clinician gets 403 everywhere here): jury vs
clinicians, inter-rater reliability, consistency vs clinician-judged quality, and the study
planner; every table as CSV, every figure as HTML, a study as one zip.

Views stay thin: `annotation.dashboards` loads, computes and caches. A live page's `#live`
partial polls every 5 s with the stamp it was rendered at; while nothing has changed the
answer is 204 (htmx swaps nothing, so a chart keeps its zoom) after one query, otherwise the
cached rendering for the new stamp, recomputed first if nobody has asked for it yet.
"""

from __future__ import annotations

from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.vary import vary_on_headers

from annotation import dashboards
from annotation.dashboards import Filters, PlanRequest
from annotation.models import Study
from jury.models import Panel
from patientagentbench.roles import STAFF_ROLES, role_required

TABS = (
    ("jury", "Jury vs clinicians", "research_dashboard_jury"),
    ("raters", "Inter-rater", "research_dashboard_raters"),
    ("quality", "Consistency and quality", "research_dashboard_quality"),
    ("planner", "Study planner", "research_dashboard_planner"),
    ("corrected", "Jury-corrected means", "research_dashboard_corrected"),
)


@role_required(*STAFF_ROLES)
def dashboards_home(request):
    return redirect("research_dashboard_jury")


@role_required(*STAFF_ROLES)
@vary_on_headers("HX-Request")
def jury(request):
    return _live(request, "jury")


@role_required(*STAFF_ROLES)
@vary_on_headers("HX-Request")
def raters(request):
    return _live(request, "raters")


@role_required(*STAFF_ROLES)
@vary_on_headers("HX-Request")
def quality(request):
    return _live(request, "quality")


def _live(request, page: str):
    filters = Filters.from_query(request.GET)
    current = dashboards.stamp()
    if request.htmx and request.GET.get("stamp") == current:
        return HttpResponse(status=204)  # nothing new: keep what the page shows
    data = dashboards.page_data(page, filters, current)
    query = filters.query()
    context = {
        "page": page,
        "data": data,
        "filters": filters,
        "query": query,
        # The stamp of what is shown (older than `current` while another request recomputes).
        "poll_url": f"{request.path}?{query}{'&' if query else ''}stamp={data['stamp']}",
        "poll_seconds": dashboards.POLL_SECONDS,
    }
    template = f"annotation/research/dashboard_{page}.html"
    if request.htmx:
        return render(request, f"{template}#live", context)
    context |= _chrome(page, query) | {"fields": dashboards.facets(filters, page)}
    if filters.study:
        context["study"] = Study.objects.filter(pk=filters.study).first()
    return render(request, template, context)


def _chrome(page: str, query: str) -> dict:
    """The tabs (keeping the selection) and the study list link."""
    suffix = f"?{query}" if query else ""
    return {
        "tabs": [
            (key, label, reverse(name) + ("" if key == "planner" else suffix))
            for key, label, name in TABS
        ]
    }


@role_required(*STAFF_ROLES)
@vary_on_headers("HX-Request")
def planner(request):
    plan = PlanRequest.from_query(request.GET)
    context = {
        "page": "planner",
        "plan": plan,
        "query": plan.query(),
        "result": dashboards.plan_data(plan) if plan.pilot else None,
    }
    if request.htmx:
        return render(request, "annotation/research/dashboard_planner.html#result", context)
    context |= _chrome("planner", "") | {
        "pilots": dashboards.pilots(),
        "panels": Panel.objects.order_by("name").values_list("pk", "name"),
    }
    return render(request, "annotation/research/dashboard_planner.html", context)


@role_required(*STAFF_ROLES)
@vary_on_headers("HX-Request")
def corrected(request):
    """Model means three ways for one randomly sampled study; polls like the live pages."""
    filters = Filters.from_query(request.GET)
    current = dashboards.stamp()
    if request.htmx and request.GET.get("stamp") == current:
        return HttpResponse(status=204)
    data = dashboards.corrected_data(filters, current)
    query = filters.query()
    context = {
        "page": "corrected",
        "data": data,
        "filters": filters,
        "query": query,
        "poll_url": f"{request.path}?{query}{'&' if query else ''}stamp={data['stamp']}",
        "poll_seconds": dashboards.POLL_SECONDS,
    }
    template = "annotation/research/dashboard_corrected.html"
    if request.htmx:
        return render(request, f"{template}#live", context)
    context |= _chrome("corrected", query) | {"fields": dashboards.corrected_facets(filters)}
    return render(request, template, context)


def _data(request, page: str) -> dict:
    if page == "corrected":
        return dashboards.corrected_data(Filters.from_query(request.GET))
    if page == "planner":
        plan = PlanRequest.from_query(request.GET)
        if not plan.pilot:
            raise Http404("Choose a pilot first.")
        return dashboards.plan_data(plan)
    if page not in dashboards.LIVE_PAGES:
        raise Http404("No such dashboard.")
    return dashboards.page_data(page, Filters.from_query(request.GET))


@role_required(*STAFF_ROLES)
def table_csv(request, page, name):
    found = _data(request, page)["tables"].get(name)
    if found is None:
        raise Http404("No such table.")
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{page}-{name}.csv"'
    dashboards.write_table_csv(found, response)
    return response


@role_required(*STAFF_ROLES)
def figure_html(request, page, name):
    found = _data(request, page)["figures"].get(name)
    if found is None:
        raise Http404("No such figure.")
    response = HttpResponse(dashboards.figure_file(found, f"{page}-{name}"))
    response["Content-Disposition"] = f'attachment; filename="{page}-{name}.html"'
    return response


@role_required(*STAFF_ROLES)
def study_bundle(request, pk):
    study = get_object_or_404(Study, pk=pk)
    response = HttpResponse(dashboards.study_bundle(study), content_type="application/zip")
    response["Content-Disposition"] = f'attachment; filename="study-{study.pk}-bundle.zip"'
    return response
