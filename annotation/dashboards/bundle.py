"""A whole study as one zip for researchers to take away: its scores as CSV, every agreement
figure as JSON, each page's tables as CSV and its figures as interactive HTML, with a README
saying what each file is and how the intervals were computed.
"""

from __future__ import annotations

import io
import json
import textwrap
import zipfile

import plotly.io as pio
from django.utils import timezone
from plotly.offline import get_plotlyjs

from annotation.dashboards.cache import stamp
from annotation.dashboards.common import BREAKDOWN_RESAMPLES, LIVE_RESAMPLES, agree
from annotation.dashboards.filters import Filters
from annotation.dashboards.loading import load, study_kind
from annotation.dashboards.pages import LIVE_PAGES, page_data
from annotation.dashboards.tables import write_table_csv
from annotation.export import write_csv
from annotation.models import Study
from patientagentbench.analysis.figures import figure_config

# --- a whole study as one zip ----------------------------------------------------------------------


BUNDLE_README = """Study bundle: {name} ({kind}, study id {pk})
Written {when} by PatientAgentBench. Clinicians appear by pseudonymous code only.

scores.csv
    Every clinician's current score: one row per item x clinician x dimension (the columns
    of the study's CSV export). Not applicable is an empty score with not_applicable = 1.

agreement.json
    Every agreement figure per dimension for this study, jury vs clinicians and among
    clinicians, as computed by annotation.pure.agreement: each figure's value, its bootstrap
    95% interval [low, high] (resampling items), and the items it stands on.

tables/
{tables}

figures/
    Interactive plotly figures; open one in a browser (it loads plotly.min.js beside it,
    so keep the folder together). Each chart's camera button saves a PNG.
{figures}

Intervals: bootstrap 95% CIs from {resamples} resamples of the items ({breakdown} in
breakdowns). Means compared with the jury are rounded half up (2.5 -> 3). Jury: {jury}.
"""


def study_bundle(study: Study) -> bytes:
    """The study's scores, agreement tables (CSV), figures (HTML) and a README, in one zip."""
    current = stamp()
    filters = Filters(study=study.pk, breakdown="model")
    pages = {page: page_data(page, filters, current) for page in LIVE_PAGES}
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as bundle:
        scores = io.StringIO()
        write_csv(study, scores)
        bundle.writestr("scores.csv", scores.getvalue())
        ds = load(Filters(study=study.pk))
        result = agree(
            ds.ratings(),
            ds.filters.margin,
            epsilon=ds.filters.epsilon,
            scale=ds.rubric.scale,
        )
        bundle.writestr("agreement.json", json.dumps(result, indent=2))
        tables, figures = _bundle_files(bundle, pages)
        bundle.writestr("figures/plotly.min.js", get_plotlyjs())
        jury = pages["jury"]["summary"]["jury"] or "none (no verdicts on these conversations)"
        readme = BUNDLE_README.format(
            name=study.name,
            kind=study_kind(study.kind),
            pk=study.pk,
            when=timezone.now().strftime("%Y-%m-%d %H:%M %Z"),
            tables="\n".join(tables),
            figures="\n".join(figures),
            resamples=LIVE_RESAMPLES,
            breakdown=BREAKDOWN_RESAMPLES,
            jury=jury,
        )
        bundle.writestr("README.txt", readme)
    return buffer.getvalue()


def _bundle_files(bundle: zipfile.ZipFile, pages: dict[str, dict]) -> tuple[list, list]:
    tables, figures = [], []
    for page, data in pages.items():
        for name, data_table in data["tables"].items():
            out = io.StringIO()
            write_table_csv(data_table, out)
            path = f"tables/{page}-{name}.csv"
            bundle.writestr(path, out.getvalue())
            tables.append(_readme_entry(path[7:], data_table["title"], data_table["note"]))
        for name, data_figure in data["figures"].items():
            path = f"figures/{page}-{name}.html"
            fig = pio.from_json(data_figure["json"])
            document = fig.to_html(
                full_html=True,
                include_plotlyjs="plotly.min.js",
                config=figure_config(f"{page}-{name}"),
            )
            bundle.writestr(path, document)
            figures.append(_readme_entry(path[8:], data_figure["title"], ""))
    return tables, figures


def _readme_entry(path: str, title: str, note: str) -> str:
    text = f"    {path}\n        {title}."
    if note:
        text += " " + note
    return _wrap(text)


def _wrap(text: str, width: int = 92) -> str:
    first, _, rest = text.partition("\n")
    body = textwrap.fill(rest.strip(), width, initial_indent=" " * 8, subsequent_indent=" " * 8)
    return first + ("\n" + body if rest else "")
