"""The report's plotly figures build from a study frame and carry the expected traces."""

import html
import re

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from patientagentbench.analysis import figures as f
from patientagentbench.analysis.study import cells_frame
from tests.patientagentbench.analysis.paths import PROJECT_ROOT

FIXTURES = PROJECT_ROOT / "fixtures" / "suites"
FIGURES = {
    "model_comparison",
    "by_category",
    "by_difficulty",
    "divergence_histogram",
    "tss_vs_correctness",
    "model_category_heatmap",
    "unique_sequences_per_model",
}


@pytest.fixture(scope="module")
def frame():
    """Two models x six tasks over three categories and difficulties, hand-sized."""
    rng = np.random.default_rng(0)
    cells = []
    for m, model in enumerate(("gpt-4o", "sim-jittery")):
        for t in range(6):
            tss = float(np.clip(0.95 - 0.2 * m - 0.05 * t + rng.normal(0, 0.02), 0, 1))
            cells.append(
                {
                    "model": model,
                    "task_id": f"task-{t}",
                    "category": ("retrieval", "scheduling", "ambiguous")[t % 3],
                    "difficulty": ("easy", "medium", "hard")[t // 2],
                    "temperature": 1.0,
                    "attributes": {},
                    "n_valid": 10,
                    "n_error": 0,
                    "tss": tss,
                    "ac": tss - 0.15,
                    "unique_sequences": 1 + m + t % 2,
                    "correct_rate": tss - 0.1,
                    "divergence_steps": [1, 1, 2, 3] if t % 2 else [],
                }
            )
    return cells_frame(cells)


@pytest.fixture(scope="module")
def published():
    return f.load_published(FIXTURES)


def test_load_published_reads_the_three_paper_tables(published):
    assert len(published["models"]) == 7
    assert published["models"]["gpt-4o"]["tss"] == 0.87
    assert published["models"]["gpt-4o"]["output_exact_match"] == pytest.approx(0.075)
    assert published["models"]["o1"]["included_in_aggregate"] is False
    assert set(published["categories"]) == {
        "retrieval",
        "scheduling",
        "computation",
        "composition",
        "ambiguous",
    }
    assert published["categories"]["ambiguous"]["ac"] == 0.52
    assert len(published["headline"]) == 16
    # The file leaves this note's comma unquoted; the whole note survives.
    assert published["headline"]["mean_tss"]["note"] == "95% CI [0.84, 0.90]"


def test_all_figures_build_with_the_expected_traces(frame, published):
    figures = f.all_figures(frame, published)
    assert set(figures) == FIGURES
    names = {name: [trace.name for trace in fig.data] for name, fig in figures.items()}
    assert names["model_comparison"] == [
        "TSS (this study)",
        f.PUBLISHED_NAME,
        "AC (this study)",
        f.PUBLISHED_NAME,
    ]
    assert f.PUBLISHED_NAME in names["by_category"]
    assert f.PUBLISHED_NAME not in names["by_difficulty"]
    assert names["unique_sequences_per_model"] == [
        "Unique sequences (this study)",
        f.PUBLISHED_NAME,
    ]
    assert names["tss_vs_correctness"][:2] == ["gpt-4o", "sim-jittery"]
    assert names["tss_vs_correctness"][2].startswith("linear fit")
    assert [trace.type for trace in figures["model_category_heatmap"].data] == ["heatmap"]


def test_without_published_values_no_paper_trace_is_drawn(frame):
    for fig in f.all_figures(frame).values():
        assert all(trace.name != f.PUBLISHED_NAME for trace in fig.data)


def test_model_comparison_bars_are_means_with_ci_whiskers(frame):
    bars = f.model_comparison(frame).data[0]
    cells = frame[frame["model"] == "gpt-4o"]["tss"]
    assert list(bars.x) == ["gpt-4o", "sim-jittery"]
    assert bars.y[0] == pytest.approx(cells.mean())
    # Bootstrap whiskers: not symmetric, but around the mean and inside [0, 1].
    above, below = bars.error_y.array[0], bars.error_y.arrayminus[0]
    assert above > 0 and below > 0
    assert bars.y[0] - below >= 0 and bars.y[0] + above <= 1


def test_published_markers_sit_on_the_models_they_belong_to(frame, published):
    markers = f.model_comparison(frame, published).data[1]
    values = dict(zip(markers.x, markers.y, strict=True))
    assert values["gpt-4o"] == 0.87 and values["llama-3.3-70b"] == 0.71
    assert markers.showlegend is True
    assert f.model_comparison(frame, published).data[3].showlegend is False


def test_divergence_histogram_counts_pairs_and_names_the_early_share(frame):
    fig = f.divergence_histogram(frame)
    bars = fig.data[0]
    assert list(bars.x) == [1, 2, 3]
    assert list(bars.y) == [12, 6, 6]  # six cells with steps [1, 1, 2, 3]
    assert "75%" in fig.layout.title.text


def test_heatmap_holds_mean_tss_per_model_and_category(frame):
    heatmap = f.model_category_heatmap(frame).data[0]
    expected = frame.pivot_table(index="model", columns="category", values="tss")
    assert list(heatmap.y) == list(expected.index)
    assert list(heatmap.x) == list(expected.columns)
    assert np.allclose(np.array(heatmap.z, dtype=float), expected.to_numpy())


def test_figures_of_an_empty_study_say_there_is_no_data():
    for name, fig in f.all_figures(cells_frame([])).items():
        assert len(fig.data) == 0, name
        assert fig.layout.annotations, name


def test_figure_html_is_a_div_without_plotly_js(frame):
    html = f.figure_html(f.by_difficulty(frame), div_id="by-difficulty", filename="by_difficulty")
    assert html.lstrip().startswith("<div")
    assert 'id="by-difficulty"' in html
    assert "<html" not in html and len(html) < 100_000  # plotly.js alone is megabytes
    assert '"filename": "by_difficulty"' in html and '"format": "png"' in html


def test_figure_document_embeds_plotly_js_for_offline_download(frame):
    document = f.figure_document(f.by_difficulty(frame))
    assert "<html>" in document[:100] and document.rstrip().endswith("</html>")
    assert len(document) > 1_000_000
    assert '<script src="http' not in document  # nothing fetched from a CDN


@given(st.text(alphabet=st.sampled_from(list('<>&/ab="rhef:; ')), max_size=60))
def test_plain_markup_leaves_only_formatting_tags_and_the_same_text(text):
    """Whatever a name holds, no tag but a bare formatting one survives (no link, no style),
    and once plotly.js decodes the entities the reader sees exactly what was typed."""
    plain = f.plain_markup(text)
    tags = re.findall(r"<[^<>]*>", plain)
    assert all(re.fullmatch(r"</?(br|b|i|em|sup|sub|extra)\s*/?>", t, re.I) for t in tags)
    assert html.unescape(plain) == text


def test_plain_markup_keeps_our_formatting_and_breaks_links():
    assert f.plain_markup("a<br>b <b>c</b>") == "a<br>b <b>c</b>"
    assert f.plain_markup('<a href="https://x">m</a>') == '&lt;a href="https://x"&gt;m&lt;/a&gt;'
    assert f.plain_markup('<span style="x">') == '&lt;span style="x"&gt;'
