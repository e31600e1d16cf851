"""The live agreement dashboards (DESIGN §7, issue 10): clinicians' current scores and a jury's
verdicts read from the database as `agreement.Rating`s (`loading`), every agreement figure
computed by the pure `agreement` module, and each page's results (`jury`, `raters`, `quality`,
`planner`) kept as plain data (numbers, `tables` of display strings, rendered plotly `figures`
and their JSON) in the shared cache, keyed by one query's `cache.stamp`. This package only
re-exports what the views, the tests and the benchmark use. Researchers are not blinded:
models, runs and cases appear here. Clinicians appear only by their pseudonymous code. Nothing
in this package is reachable from a clinician's page.
"""

from annotation.dashboards.breakdowns import breakdown
from annotation.dashboards.bundle import BUNDLE_README, study_bundle
from annotation.dashboards.cache import (
    CACHE_SECONDS,
    COMPUTE_LOCK_SECONDS,
    DATA_VERSION,
    POLL_SECONDS,
    STAMP_ACTIONS,
    stamp,
)
from annotation.dashboards.common import (
    BREAKDOWN_RESAMPLES,
    CELL_METRICS,
    DRIFT_WINDOW,
    LIVE_RESAMPLES,
    QUALITY_DIMENSIONS,
)
from annotation.dashboards.figures import PALETTE, figure, figure_file
from annotation.dashboards.filters import Filters
from annotation.dashboards.jury import MODE_LABELS, jury_page
from annotation.dashboards.loading import (
    JURY_RATER,
    TRACK_ORDER,
    Conversation,
    Dataset,
    Jury,
    Score,
    facets,
    jury_scores,
    load,
    to_ratings,
)
from annotation.dashboards.pages import COMPUTE, LIVE_PAGES, page_data
from annotation.dashboards.planner import PlanRequest, pilots, plan_data
from annotation.dashboards.quality import correlation, quality_page
from annotation.dashboards.raters import LEAST_REALISTIC, raters_page
from annotation.dashboards.tables import (
    VERDICT_CSS,
    VERDICT_WORDS,
    Column,
    table,
    write_table_csv,
)
from jury.verdicts import case_attributes

__all__ = [
    "BREAKDOWN_RESAMPLES",
    "BUNDLE_README",
    "CACHE_SECONDS",
    "CELL_METRICS",
    "COMPUTE",
    "COMPUTE_LOCK_SECONDS",
    "DATA_VERSION",
    "DRIFT_WINDOW",
    "JURY_RATER",
    "LEAST_REALISTIC",
    "LIVE_PAGES",
    "LIVE_RESAMPLES",
    "MODE_LABELS",
    "PALETTE",
    "POLL_SECONDS",
    "QUALITY_DIMENSIONS",
    "STAMP_ACTIONS",
    "TRACK_ORDER",
    "VERDICT_CSS",
    "VERDICT_WORDS",
    "Column",
    "Conversation",
    "Dataset",
    "Filters",
    "Jury",
    "PlanRequest",
    "Score",
    "breakdown",
    "case_attributes",
    "correlation",
    "facets",
    "figure",
    "figure_file",
    "jury_page",
    "jury_scores",
    "load",
    "page_data",
    "pilots",
    "plan_data",
    "quality_page",
    "raters_page",
    "stamp",
    "study_bundle",
    "table",
    "to_ratings",
    "write_table_csv",
]
