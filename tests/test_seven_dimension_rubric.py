"""A seventh dimension is a change to the rubric file alone (issue 36, item 1).

`tests/fixtures/rubrics/sevendim-v1.json` is the v1 rubric with one more operations dimension
(`documentation_quality`) and a pass mark of 4. It goes through the simulated jury (one call
per dimension and one call for all), the judges' prompt and answer schema, the review page and
its form, and the raters, jury and quality dashboards of a study on it; nothing outside the
file names seven dimensions or the pass mark. The study bundle (its export) carries the
clinicians' scores and the agreement figures on it (its scores.csv has no jury rows here; not
looked into).
"""

import base64
import csv
import io
import json
import re
import shutil
import zipfile
from pathlib import Path

import numpy as np
import pytest
from django.core.management import CommandError, call_command
from django.test import Client
from django.urls import reverse

import ratings.rubric
from annotation.models import Clinician, Submission
from annotation.studies import StudySpec, create_study
from jury.models import Judge, JuryRun, Panel, Verdict
from jury.pure.parsing import parse_verdict
from jury.pure.prompts import judge_messages, verdict_schema
from jury.scoring import execute_inline, launch_jury
from patientagentbench.models import ModelConfig, Trace
from patientagentbench.suites.case_sets import create_case_set
from patientagentbench.transcripts import transcript_of
from ratings.rubric import RUBRICS_DIR, cached_rubric, load_rubric
from tests.annotation.test_review_views import make_clinician
from tests.finished_runs import simulated_run

FIXTURE = Path(__file__).parent / "fixtures" / "rubrics" / "sevendim-v1.json"
SEVENTH = "documentation_quality"


@pytest.fixture
def seven(tmp_path, monkeypatch):
    """The rubric directory with the seven-dimension rubric beside the real ones."""
    for path in RUBRICS_DIR.glob("*.json"):
        shutil.copy(path, tmp_path)
    shutil.copy(FIXTURE, tmp_path)
    monkeypatch.setattr(ratings.rubric, "RUBRICS_DIR", tmp_path)
    cached_rubric.cache_clear()
    yield cached_rubric("sevendim", "1")
    cached_rubric.cache_clear()


@pytest.fixture
def traces(sim_models):
    cases = create_case_set("seven-cases", 3, 7)
    run = simulated_run(suite=cases, models=sim_models[:1], max_turns=6)
    return run, list(run.traces.filter(status=Trace.Status.DONE).order_by("pk"))


def seven_study(traces, researcher, username):
    """An open study of these conversations on the seven-dimension rubric, and its one
    operations clinician (who scores the seventh dimension)."""
    me = make_clinician(username, Clinician.Track.OPERATIONS)
    study = create_study(
        StudySpec(status="open", name=f"Seven {username}", overlap={"operations": 1}),
        [t.pk for t in traces],
        [me],
        researcher,
    )
    study.rubric_name = "sevendim"  # the one change a second rubric needs
    study.save(update_fields=["rubric_name"])
    return me, study


def test_the_file_alone_makes_seven_scored_dimensions_and_its_pass_mark():
    rubric = load_rubric("sevendim", directory=FIXTURE.parent)
    assert len(rubric.scored) == 7 and rubric.scored[-1].key == SEVENTH
    assert (rubric.scale.points, rubric.pass_threshold) == ((1, 2, 3, 4, 5), 4)
    assert [rubric.passes(s) for s in (3, 4)] == [False, True]
    assert SEVENTH in {d.key for d in rubric.dimensions_for({"operations"})}


def test_the_judge_reads_the_seventh_dimension_and_the_rubrics_pass_mark(seven):
    transcript = transcript_of([{"role": "user", "content": "Hi"}], user_label="Patient")
    system, user = judge_messages(seven, SEVENTH, {}, transcript)
    assert "A score of 4 or more passes." in system.content
    assert "Documentation quality" in user.content
    schema = verdict_schema(seven.scale)["anyOf"][0]["properties"]["score"]
    assert (schema["minimum"], schema["maximum"]) == (1, 5)
    assert parse_verdict({"score": 5, "rationale": "ok"}, seven.scale).score == 5
    assert "outside 1 to 5" in parse_verdict({"score": 6}, seven.scale).problem


@pytest.mark.django_db
@pytest.mark.parametrize("call_mode", [Judge.CallMode.PER_DIMENSION, Judge.CallMode.ONE_CALL])
def test_the_simulated_jury_scores_all_seven(seven, traces, call_mode):
    run, _ = traces
    panel = Panel.objects.create(name="seven", rubric_name="sevendim", rubric_version="1")
    model = ModelConfig.objects.create(
        name="sim-judge-a", provider="simulated", model_id="sim-judge-a"
    )
    panel.judges.add(Judge.objects.create(name="seven-a", model=model, call_mode=call_mode))
    jury_run = launch_jury(panel=panel, run=run, enqueue=False)
    execute_inline(jury_run)
    jury_run.refresh_from_db()
    assert jury_run.status == JuryRun.Status.FINISHED
    verdicts = Verdict.objects.filter(panel=panel)
    per_trace = {}
    for verdict in verdicts:
        per_trace.setdefault(verdict.trace_id, set()).add(verdict.dimension)
        assert verdict.status != Verdict.Status.OK or verdict.score in seven.scale
    assert per_trace and all(dims == {d.key for d in seven.scored} for dims in per_trace.values())


@pytest.mark.django_db
def test_the_review_page_offers_and_stores_the_seventh_dimension(seven, traces, client, researcher):
    me, study = seven_study(traces[1][:1], researcher, "dr-seven")
    assignment = me.assignments.get(item__study=study)
    client.force_login(me.user)
    page = client.get(reverse("review_item", args=[assignment.code])).content.decode()
    assert f'data-dim="{SEVENTH}"' in page
    assert re.findall(rf'name="score-{SEVENTH}" value="(\d)"', page) == list("12345")
    assert 'data-points="1 2 3 4 5"' in page and 'data-span="1 to 5"' in page

    keys = [d.key for d in seven.dimensions_for({"operations"})]
    form = {f"score-{key}": "4" for key in keys} | {"nonce": "seven-1", "active": "30"}
    off_scale = form | {f"score-{SEVENTH}": "6"}
    refused = client.post(reverse("review_submit", args=[assignment.code]), off_scale, follow=True)
    assert "Documentation quality: choose 1 to 5" in refused.content.decode()
    assert not Submission.objects.filter(assignment=assignment).exists()
    client.post(reverse("review_submit", args=[assignment.code]), form)
    stored = Submission.objects.get(assignment=assignment)
    assert set(stored.scores) == set(keys) and stored.scores[SEVENTH] == 4


def scored_by_a_clinician_and_the_jury(rubric, run, me, study, score_of, name):
    """`me` submits `score_of(n)` on every dimension of their n-th item, then a simulated
    panel on `rubric` scores the run."""
    keys = [d.key for d in rubric.dimensions_for({"operations"})]
    client = Client()
    client.force_login(me.user)
    for n, assignment in enumerate(me.assignments.filter(item__study=study)):
        form = {f"score-{key}": str(score_of(n)) for key in keys} | {"nonce": f"{name}-{n}"}
        assert client.post(reverse("review_submit", args=[assignment.code]), form).status_code < 400
    assert Submission.objects.filter(assignment__item__study=study).count() == 2
    panel = Panel.objects.create(name=name, rubric_name=rubric.name, rubric_version=rubric.version)
    model = ModelConfig.objects.create(
        name="sim-judge-b", provider="simulated", model_id="sim-judge-b"
    )
    panel.judges.add(Judge.objects.create(name=f"{name}-b", model=model))
    execute_inline(launch_jury(panel=panel, run=run, enqueue=False))


@pytest.mark.django_db
def test_the_dashboards_show_the_seventh_dimension(seven, traces, client, researcher):
    run, done = traces
    me, study = seven_study(done[:2], researcher, "dr-seven-dash")
    scored_by_a_clinician_and_the_jury(seven, run, me, study, lambda n: 2 + n, "seven-dash")

    client.force_login(researcher)
    for page in (
        "research_dashboard_raters",
        "research_dashboard_jury",
        "research_dashboard_quality",
    ):
        response = client.get(reverse(page) + f"?study={study.pk}")
        assert response.status_code == 200, page
        # A figure's row, not only the dimension picker: the seventh is computed on.
        assert "<td>Documentation quality</td>" in response.content.decode(), page
    raters = client.get(reverse("research_dashboard_raters") + f"?study={study.pk}")
    assert "nominal on pass/fail (≥ 4)" in raters.content.decode()  # the rubric's pass mark
    bundle = client.get(reverse("research_study_bundle", args=[study.pk]))
    assert bundle.status_code == 200
    with zipfile.ZipFile(
        io.BytesIO(b"".join(bundle.streaming_content) if bundle.streaming else bundle.content)
    ) as archive:
        text = {name: archive.read(name).decode("utf-8", "replace") for name in archive.namelist()}
    rows = [r for r in csv.DictReader(io.StringIO(text["scores.csv"])) if r["dimension"] == SEVENTH]
    assert sorted((r["rater_kind"], r["score"]) for r in rows) == [
        ("clinician", "2"),
        ("clinician", "3"),
    ]
    assert SEVENTH in json.loads(text["agreement.json"])


@pytest.fixture
def seven_points(seven, tmp_path):
    """The seven-dimension rubric on a 1–7 scale (every dimension gains levels 6 and 7), as
    `sevenpoint` beside it in the same rubric directory."""
    data = json.loads(FIXTURE.read_text())
    data["name"] = "sevenpoint"
    for dimension in data["dimensions"]:
        dimension["levels"] += [
            {"score": 6, "label": "Very good", "anchor": "Everything in level 5, and more so."},
            {"score": 7, "label": "Outstanding", "anchor": "Everything in level 6, and more so."},
        ]
    (tmp_path / "sevenpoint-v1.json").write_text(json.dumps(data))
    cached_rubric.cache_clear()
    return cached_rubric("sevenpoint", "1")


@pytest.mark.django_db
def test_the_jury_page_draws_a_seven_point_scale(seven_points, traces, client, researcher):
    assert seven_points.scale.points == (1, 2, 3, 4, 5, 6, 7)
    run, done = traces
    me, study = seven_study(done[:2], researcher, "dr-seven-points")
    study.rubric_name = "sevenpoint"
    study.save(update_fields=["rubric_name"])
    scored_by_a_clinician_and_the_jury(seven_points, run, me, study, lambda n: 7, "seven-points")

    client.force_login(researcher)
    response = client.get(reverse("research_dashboard_jury") + f"?study={study.pk}")
    assert response.status_code == 200
    assert "<td>Documentation quality</td>" in response.content.decode()
    confusion = heatmaps(response.content.decode(), "confusion")
    assert {label: counts.shape for label, counts in confusion.items()} == dict.fromkeys(
        confusion, (7, 7)
    )
    # One clinician gave 7 on both items of each of their dimensions: the last column holds
    # both pairs, whichever row (the jury's score) each fell in.
    scored = [d.label for d in seven_points.dimensions_for({"operations"}) if d.scored]
    for label in scored:
        # Every pair in the 7s column; a pair is missing only where the jury said N/A.
        counts = confusion[label]
        assert 0 < counts[:, 6].sum() == counts.sum() <= 2, label
    for label in set(confusion) - set(scored):
        assert confusion[label].sum() == 0, label


def heatmaps(page: str, name: str) -> dict[str, np.ndarray]:
    """A page's plotly figure `name`: each subplot's heatmap counts by its title."""
    found = re.search(
        rf'<script type="application/json" data-plotly-figure="fig-{name}-[^"]+">(.*?)</script>',
        page,
        re.S,
    )
    figure = json.loads(found.group(1))["figure"]
    titles = [a["text"] for a in figure["layout"]["annotations"]]
    counts = {}
    for title, trace in zip(titles, figure["data"], strict=False):
        z = trace["z"]
        shape = tuple(int(n) for n in z["shape"].split(","))
        counts[title] = np.frombuffer(base64.b64decode(z["bdata"]), dtype=z["dtype"]).reshape(shape)
    return counts


def test_the_agreement_command_reads_a_file_on_the_rubric_it_names(seven_points, tmp_path):
    """A plain ratings file on the 1–7 scale: refused on the default 1–5 rubric with the line
    and the range, read on `--rubric sevenpoint`, where 6 and 7 agree adjacently."""
    path = tmp_path / "ratings.csv"
    rows = ["item,rater,dimension,score"]
    for item in range(8):
        first = 6 + item % 2
        rows += [f"i{item},ana,task_completion,{first}", f"i{item},ben,task_completion,7"]
    path.write_text("\n".join(rows) + "\n")

    with pytest.raises(CommandError, match=r"line 2, column score: expected a score from 1 to 5"):
        call_command("agreement", ratings=path, resamples=0, stdout=io.StringIO())
    out = io.StringIO()
    call_command(
        "agreement", ratings=path, rubric="sevenpoint", resamples=0, format="json", stdout=out
    )
    clinicians = json.loads(out.getvalue())["task_completion"]["detail"]["clinicians"]
    assert clinicians["adjacent"]["value"] == 1.0
    assert clinicians["exact"]["value"] == 0.5
