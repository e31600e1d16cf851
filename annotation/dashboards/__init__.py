"""The live agreement dashboards (DESIGN §7, issue 10), cut by page: clinicians' current scores
and a jury's verdicts read from the database as `ratings.rating.Rating`s (`loading`), every agreement
figure computed by the pure `agreement` module, and each page (`jury`, `raters`, `quality`,
`planner`; `breakdowns` for the jury and quality pages) owning its tables and figures, kept as
plain data (numbers, `tables` of display strings, rendered plotly figures and their JSON) in the
shared cache, keyed by one query's `cache.stamp`. What several pages share is public in
`common`, `figures`, `filters`, `cache` and `loading`; no module reaches into another's private
names. This package re-exports only what the views, the tests and the benchmark use.
Researchers are not blinded: models, runs and cases appear here. Clinicians appear only by
their pseudonymous code. Nothing in this package is reachable from a clinician's page.
"""

from annotation.dashboards.bundle import study_bundle
from annotation.dashboards.cache import DATA_VERSION, POLL_SECONDS, stamp
from annotation.dashboards.common import BREAKDOWN_RESAMPLES, LIVE_RESAMPLES
from annotation.dashboards.corrected import corrected_data, corrected_facets
from annotation.dashboards.figures import figure_file
from annotation.dashboards.filters import Filters
from annotation.dashboards.loading import facets, load
from annotation.dashboards.pages import COMPUTE, LIVE_PAGES, page_data
from annotation.dashboards.planner import PlanRequest, pilots, plan_data
from annotation.dashboards.quality import correlation
from annotation.dashboards.tables import write_table_csv

__all__ = [
    "BREAKDOWN_RESAMPLES",
    "COMPUTE",
    "DATA_VERSION",
    "LIVE_PAGES",
    "LIVE_RESAMPLES",
    "POLL_SECONDS",
    "Filters",
    "PlanRequest",
    "correlation",
    "corrected_data",
    "corrected_facets",
    "facets",
    "figure_file",
    "load",
    "page_data",
    "pilots",
    "plan_data",
    "stamp",
    "study_bundle",
    "write_table_csv",
]
