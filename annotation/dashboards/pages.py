"""The live pages by name: which computation serves each and `page_data`, which serves a page's
results from the cache keyed by the stamp and recomputes them only when it has moved. Kept
apart from the pages themselves so the study bundle and the views reach every page one way.
"""

from __future__ import annotations

from collections.abc import Callable

from annotation.dashboards.cache import DATA_VERSION, cached, stamp
from annotation.dashboards.filters import Filters
from annotation.dashboards.jury import gate, jury_page
from annotation.dashboards.loading import Dataset, load
from annotation.dashboards.quality import quality_page
from annotation.dashboards.raters import raters_page

LIVE_PAGES = ("jury", "raters", "quality")


def page_data(page: str, filters: Filters, current: str | None = None) -> dict:
    """A live page's results as plain data, computed only when the stamp has moved."""
    base = f"dashboards:v{DATA_VERSION}:{page}:{filters.digest()}"
    data = cached(base, current or stamp(), lambda: COMPUTE[page](load(filters)))
    # Every reader (page, CSV, bundle) gets the verdicts gated on the jury's standing.
    return gate(data, override=filters.unqualified == "show") if page == "jury" else data


COMPUTE: dict[str, Callable[[Dataset], dict]] = {
    "jury": jury_page,
    "raters": raters_page,
    "quality": quality_page,
}
