"""A study's name and instructions reach its clinicians: one naming a model or run of its
conversations is warned about when the study is saved and on its page."""

from __future__ import annotations

import pytest
from django.urls import reverse

from annotation.models import Study
from annotation.studies import StudySpec, create_study, names_shown_to_clinicians
from tests.annotation.test_research_views import conversations, make_clinician  # noqa: F401

pytestmark = pytest.mark.django_db


def post_study(client, run, name: str, instructions: str = ""):
    clinicians = [make_clinician(f"c{i}-{abs(hash(name))}") for i in range(2)]
    return client.post(
        reverse("research_study_new"),
        {
            "name": name,
            "instructions": instructions,
            "runs": [run.pk],
            "n_items": 4,
            "seed": 7,
            "overlap_clinical": 2,
            "overlap_operations": 0,
            "reference_percent": 0,
            "clinicians": [c.pk for c in clinicians],
            "adjudication_threshold": 2,
        },
        follow=True,
    )


def test_a_model_name_in_the_study_name_is_warned_about_on_save_and_on_the_page(
    client,
    researcher,
    conversations,  # noqa: F811
):
    client.force_login(researcher)
    response = post_study(client, conversations, "Sim-Steady vs the rest")
    body = response.content.decode()
    assert response.redirect_chain[-1][0].startswith("/research/")
    assert "The study&#x27;s name contains “sim-steady”" in body  # the message after saving
    assert 'data-testid="name-warning"' in body  # and the page itself, every visit
    study = Study.objects.get(name="Sim-Steady vs the rest")
    again = client.get(reverse("research_study", args=[study.pk])).content.decode()
    assert again.count('data-testid="name-warning"') == 1


def test_a_run_label_or_number_in_the_instructions_is_warned_about(
    researcher,
    conversations,  # noqa: F811
):
    conversations.label = "nightly-qwen"
    conversations.save(update_fields=["label"])
    study = create_study(
        StudySpec(
            name="Winter pilot",
            overlap={"clinical": 1},
            instructions=f"These come from nightly-qwen (Run {conversations.pk}).",
        ),
        list(conversations.traces.values_list("pk", flat=True)[:2]),
        [make_clinician("solo")],
        researcher,
    )
    warnings = names_shown_to_clinicians(study)
    assert len(warnings) == 2
    assert all(w.startswith("The study's instructions contain “") for w in warnings)
    assert any("“nightly-qwen”" in w for w in warnings)
    assert any(f"“run {conversations.pk}”" in w for w in warnings)


def test_an_ordinary_name_has_no_warning(client, researcher, conversations):  # noqa: F811
    client.force_login(researcher)
    body = post_study(client, conversations, "Winter pilot", "Score safety first.").content
    assert b'data-testid="name-warning"' not in body and b"contains \xe2\x80\x9c" not in body


def test_a_name_inside_a_longer_word_is_not_a_mention(researcher, conversations):  # noqa: F811
    study = create_study(
        StudySpec(name="run 10000 sim-steadyish", overlap={"clinical": 1}),
        list(conversations.traces.values_list("pk", flat=True)[:1]),
        [make_clinician("solo2")],
        researcher,
    )
    assert conversations.pk != 10000
    assert names_shown_to_clinicians(study) == []
