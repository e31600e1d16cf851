"""The one CSV writer: formula-like text is defused, numbers stay numbers, a round trip is exact."""

import csv
import io
import zipfile

import pytest
from django.core.management import call_command
from django.urls import reverse
from hypothesis import given
from hypothesis import strategies as st

from patientagentbench import csv_safe
from patientagentbench.models import ModelConfig
from tests.factories import one_review

HOSTILE = '=HYPERLINK("http://x")'


@pytest.mark.parametrize("start", ["=", "+", "-", "@", "\t", "\r"])
def test_formula_like_text_gets_a_leading_quote(start):
    assert csv_safe.safe_cell(start + "cmd|' /C calc'!A0") == "'" + start + "cmd|' /C calc'!A0"


@pytest.mark.parametrize("number", [-0.25, "-0.25", "+3", "-1e-05", 7, "12"])
def test_numbers_stay_numeric(number):
    assert csv_safe.safe_cell(number) == number


@given(st.lists(st.lists(st.one_of(st.text(), st.integers()), min_size=1, max_size=5)))
def test_write_then_read_gives_the_cells_back(rows):
    out = io.StringIO(newline="")
    csv_safe.writer(out, lineterminator="\n").writerows(rows)
    cells = csv.reader(io.StringIO(out.getvalue(), newline=""))
    assert [[csv_safe.read_cell(c) for c in row] for row in cells] == [
        [str(c) for c in row] for row in rows
    ]


def _formula_cells(text: str) -> list[str]:
    return [
        cell
        for row in csv.reader(io.StringIO(text))
        for cell in row
        if cell.startswith(csv_safe.FORMULA_STARTS) and not csv_safe._PLAIN_NUMBER.fullmatch(cell)
    ]


@pytest.mark.django_db
def test_a_hostile_model_name_is_defused_in_every_export(researcher, client, tmp_path):
    model = ModelConfig.objects.create(name=HOSTILE, provider="simulated", model_id="sim-steady")
    review = one_review(model, "hostile-cases", count=1)
    review.submit({d.key: 4 for d in review.dimensions})
    run, study = review.run, review.study

    exports = {}
    out = tmp_path / "study.csv"
    call_command("export_study", str(study.pk), "--out", str(out), stdout=io.StringIO())
    exports["export_study"] = out.read_text()
    report = io.StringIO()
    call_command("consistency_report", "--run", str(run.pk), "--format", "csv", stdout=report)
    exports["consistency_report"] = report.getvalue()
    client.force_login(researcher)
    bundle = client.get(reverse("research_study_bundle", args=[study.pk]))
    with zipfile.ZipFile(io.BytesIO(bundle.content)) as files:
        for name in files.namelist():
            if name.endswith(".csv"):
                exports[name] = files.read(name).decode()
    assert "scores.csv" in exports

    carrying = {name for name, text in exports.items() if HOSTILE in text.replace('""', '"')}
    assert {"export_study", "consistency_report", "scores.csv"} <= carrying
    for name in carrying:
        assert "'" + HOSTILE in exports[name].replace('""', '"'), name
    for name, text in exports.items():
        assert not _formula_cells(text), name
