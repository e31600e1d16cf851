"""The first-study guide (/research/start/): it reads what exists, says the minimums up front
from the qualification rule itself, and points at the next thing to do."""

import re

import pytest
from django.urls import reverse

from annotation import adjudication, guide, lifecycle
from annotation.models import Study
from annotation.pure.calibration import Thresholds
from annotation.qualification import design_blockers
from annotation.reviewing import rubric_of
from annotation.studies import StudySpec, create_study
from ratings.rubric import cached_rubric
from tests.annotation.test_research_views import make_clinician, trace_ids, twelve_conversations

pytestmark = pytest.mark.django_db


def steps_read(client, researcher) -> list[str]:
    client.force_login(researcher)
    page = client.get(reverse("research_first_study"))
    assert page.status_code == 200
    html = page.content.decode()
    return [re.sub(r"<[^>]+>|\s+", " ", s) for s in html.split('data-testid="step"')[1:]]


@pytest.mark.parametrize(
    "thresholds",
    [Thresholds(0.5, 0.8, 0.4), Thresholds(0.5, 0.8, -1.0), Thresholds(0.9, 1.0, 0.9)],
    ids=["default", "no-alpha-target", "strict"],
)
def test_the_minimums_are_the_qualification_rules_own(thresholds):
    rubric = cached_rubric()
    need = guide.minimums(rubric, thresholds)
    pair = [
        guide.StandIn(f"C-{n}", frozenset({"clinical"})) for n in range(need.clinicians_per_track)
    ]
    fewer = pair[:-1]
    assert design_blockers(pair, rubric, need.items, thresholds) == []
    assert design_blockers(pair, rubric, need.items - 1, thresholds) != [] or need.items == 1
    assert design_blockers(fewer, rubric, 40, thresholds) != [] or len(pair) == 1


def test_an_empty_project_is_told_what_it_needs_first(client, researcher):
    steps = steps_read(client, researcher)
    need = guide.minimums(cached_rubric())
    assert len(steps) == 7
    assert "0 finished conversations can be reviewed" in steps[0]
    assert f"A round needs at least {need.items}" in steps[0] and "Import transcripts" in steps[0]
    assert "0 on clinical, 0 on operations" in steps[2]
    assert f"at least {need.clinicians_per_track} of them" in steps[2]
    assert "New calibration round" in steps[3]
    assert 'class="card current"' in client.get(reverse("research_first_study")).content.decode()


def test_the_guide_follows_a_round_to_open(client, researcher, sim_models):
    run = twelve_conversations(sim_models)
    ana, ben = make_clinician("ana"), make_clinician("ben")
    steps = steps_read(client, researcher)
    assert "12 finished conversations can be reviewed" in steps[0]
    assert "2 on clinical, 0 on operations: enough for clinical" in steps[2]

    study = create_study(
        StudySpec(name="Round A", kind=Study.Kind.CALIBRATION, overlap={"clinical": 2}),
        trace_ids(run, 6),
        [ana, ben],
        researcher,
    )
    steps = steps_read(client, researcher)
    assert "“Round A” (draft, 6 conversations)" in steps[3]
    assert "6 of 6 conversations lack a reference" in steps[4]
    assert "References complete" in steps[5]  # the checklist's own words

    for level, item in zip((1, 2, 3, 4, 5, 3), study.items.order_by("pk"), strict=True):
        adjudication.set_reference(
            item, {d.key: {"score": level, "why": "w"} for d in rubric_of(study).scored}, researcher
        )
    steps = steps_read(client, researcher)
    assert "Every one of its 6 conversations has a reference" in steps[4]
    assert "Its checklist holds: it can open" in steps[5]
    lifecycle.open_study(study, researcher)
    assert "“Round A” is open" in steps_read(client, researcher)[5]


def test_clinicians_cannot_open_the_guide(client, clinician):
    client.force_login(clinician)
    assert client.get(reverse("research_first_study")).status_code in (302, 403)


def test_the_studies_page_links_the_guide(client, researcher):
    client.force_login(researcher)
    page = client.get(reverse("research_studies")).content.decode()
    assert reverse("research_first_study") in page
