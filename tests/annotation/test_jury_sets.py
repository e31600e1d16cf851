"""A study's items as a jury subset: the jury's launch page and run_jury --study score
exactly the conversations clinicians score (the review app registers the set; jury does not
import it)."""

from io import StringIO

import pytest
from django.core.management import call_command
from django.urls import reverse

from annotation.studies import StudySpec, create_study
from jury.models import JuryRun
from tests.annotation.test_blinding import _clinician
from tests.jury.conftest import simulated_model
from tests.jury.test_scoring import panel_of, scenario_run

pytestmark = pytest.mark.django_db
__all__ = ["scenario_run"]


@pytest.fixture
def one_clinician_study(scenario_run, researcher):
    ids = list(scenario_run.traces.values_list("pk", flat=True))[:2]
    return create_study(
        StudySpec(name="Pilot", overlap={"clinical": 1}, status="open"),
        ids,
        [_clinician("dr-set", "clinical")],
        researcher,
    )


def study_traces(study) -> set[int]:
    return set(study.items.values_list("trace_id", flat=True))


def test_the_launch_page_offers_and_scores_a_studys_items(
    client, researcher, scenario_run, one_clinician_study
):
    panel = panel_of(simulated_model("sim-judge-a"), name="studied")
    client.force_login(researcher)
    url = reverse("jury_launch", args=[scenario_run.pk])
    assert f"The items of study {one_clinician_study.pk}: Pilot" in client.get(url).content.decode()
    client.post(
        url, {"panel": panel.pk, "repeat": 1, "conversations": f"study:{one_clinician_study.pk}"}
    )
    jury_run = JuryRun.objects.get()
    assert set(jury_run.jobs.values_list("trace_id", flat=True)) == study_traces(
        one_clinician_study
    )
    assert (
        jury_run.subset == f"The items of study {one_clinician_study.pk}: Pilot (2 conversations)"
    )


def test_run_jury_scores_a_studys_items(scenario_run, one_clinician_study):
    panel_of(simulated_model("sim-judge-a"), name="cli-study")
    call_command(
        "run_jury", "--run", str(scenario_run.pk), "--panel", "cli-study",
        "--study", str(one_clinician_study.pk), stdout=StringIO(),
    )  # fmt: skip
    assert set(JuryRun.objects.get().jobs.values_list("trace_id", flat=True)) == study_traces(
        one_clinician_study
    )
