"""The researcher's side of review (/research/): who may reach each page, building studies and
rounds through their forms, references, the round report, adjudication, audit and export.

Helpers here (`conversations`, `make_clinician`, `submit_scores`) are shared with
test_people.py."""

from __future__ import annotations

import csv
import io
import itertools
import re

import pytest
from django.contrib.auth.models import Group, User
from django.core.management import call_command
from django.urls import URLPattern, reverse

from annotation import adjudication
from annotation.export import COLUMNS
from annotation.models import (
    Adjudication,
    Assignment,
    AuditEvent,
    Clinician,
    Item,
    Qualification,
    Study,
)
from annotation.reviewing import dimensions_of, revise, rubric_of, submit
from annotation.studies import StudySpec, create_study
from annotation.urls_research import urlpatterns
from jury.models import Panel
from patientagentbench.roles import CLINICIAN
from patientagentbench.suites.case_sets import create_case_set
from tests.annotation.consensus import qualify
from tests.finished_runs import simulated_run

pytestmark = pytest.mark.django_db
_nonces = itertools.count()


# --- shared helpers ---------------------------------------------------------------------------


@pytest.fixture
def conversations(sim_models):
    return twelve_conversations(sim_models)


def twelve_conversations(models):
    """Twelve finished patient conversations: six cases × two simulated models."""
    suite = create_case_set("research-cases", 6, seed=3)
    return simulated_run(suite=suite, models=models, max_turns=6)


def make_clinician(name: str, track: str = "clinical") -> Clinician:
    user = User.objects.create_user(username=f"{name}@example.org", email=f"{name}@example.org")
    user.groups.add(Group.objects.get_or_create(name=CLINICIAN)[0])
    return Clinician.objects.create(user=user, track=track)


def submit_scores(assignment: Assignment, default: int = 3, **scores) -> None:
    """Submit a complete answer: `default` on every dimension unless named in `scores`."""
    dims = dimensions_of(assignment, rubric_of(assignment.item.study))
    answer = {"scores": {d.key: scores.get(d.key, default) for d in dims}}
    answer["why"] = {d.key: f"{assignment.clinician.code} on {d.key}" for d in dims}
    submit(assignment, answer, f"n{next(_nonces)}", 30, assignment.clinician.user)


def trace_ids(run, n: int | None = None) -> list[int]:
    ids = list(run.traces.order_by("pk").values_list("pk", flat=True))
    return ids[:n] if n else ids


@pytest.fixture
def pair(conversations, researcher):
    """A study of four conversations, each scored by both of two clinical clinicians."""
    a, b = make_clinician("ana"), make_clinician("ben")
    study = create_study(
        StudySpec(status="open", name="Pilot", overlap={"clinical": 2}),
        trace_ids(conversations, 4),
        [a, b],
        researcher,
    )
    return study, a, b


# --- permissions ------------------------------------------------------------------------------


def research_urls(study: Study, item: Item, clinician: Clinician) -> list[tuple[str, str, str]]:
    """(name, url, method) for every /research/ URL."""
    dim = "clinical_safety"
    qualification, _ = Qualification.objects.get_or_create(
        clinician=clinician,
        round=study,
        defaults={"rubric_name": "r", "rubric_version": "1", "track": "clinical", "passed": True},
    )
    panel, _ = Panel.objects.get_or_create(name="matrix-panel")
    return [
        ("research_home", reverse("research_home"), "get"),
        ("research_people", reverse("research_people"), "get"),
        ("research_person", reverse("research_person", args=[clinician.pk]), "get"),
        (
            "research_person_deactivate",
            reverse("research_person_deactivate", args=[clinician.pk]),
            "get",
        ),
        (
            "research_person_reactivate",
            reverse("research_person_reactivate", args=[clinician.pk]),
            "post",
        ),
        ("research_person_link", reverse("research_person_link", args=[clinician.pk]), "post"),
        ("research_studies", reverse("research_studies"), "get"),
        ("research_first_study", reverse("research_first_study"), "get"),
        ("research_rubrics", reverse("research_rubrics"), "get"),
        (
            "research_rubric",
            reverse("research_rubric", args=["patientagentbench", 1]),
            "get",
        ),
        ("research_study_new", reverse("research_study_new"), "get"),
        (
            "research_deviations_review",
            reverse("research_deviations_review", args=[item.trace.run_id]),
            "get",
        ),
        ("research_study_preview", reverse("research_study_preview") + "?n_items=3", "get"),
        ("research_study", reverse("research_study", args=[study.pk]), "get"),
        ("research_study_status", reverse("research_study_status", args=[study.pk]), "post"),
        ("research_study_export", reverse("research_study_export", args=[study.pk]), "get"),
        ("research_round_report", reverse("research_round_report", args=[study.pk]), "get"),
        ("research_references", reverse("research_references", args=[study.pk]), "get"),
        ("research_adjudication", reverse("research_adjudication", args=[study.pk]), "get"),
        (
            "research_adjudicate",
            reverse("research_adjudicate", args=[study.pk, item.pk, dim]),
            "post",
        ),
        ("research_adjudicator_home", reverse("research_adjudicator_home"), "get"),
        ("research_round_new", reverse("research_round_new"), "get"),
        ("research_round_judges", reverse("research_round_judges", args=[study.pk]), "get"),
        (
            "research_round_judges_score",
            reverse("research_round_judges_score", args=[study.pk, panel.pk]),
            "post",
        ),
        (
            "research_round_judges_record",
            reverse("research_round_judges_record", args=[study.pk, panel.pk]),
            "post",
        ),
        (
            "research_qualification_reopen",
            reverse("research_qualification_reopen", args=[qualification.pk]),
            "post",
        ),
        ("research_item_audit", reverse("research_item_audit", args=[item.pk]), "get"),
        ("research_item_reference", reverse("research_item_reference", args=[item.pk]), "get"),
        (
            "research_item_conversation",
            reverse("research_item_conversation", args=[item.pk]),
            "get",
        ),
        ("research_study_bundle", reverse("research_study_bundle", args=[study.pk]), "get"),
        ("research_dashboards", reverse("research_dashboards"), "get"),
        ("research_dashboard_jury", reverse("research_dashboard_jury"), "get"),
        ("research_dashboard_raters", reverse("research_dashboard_raters"), "get"),
        ("research_dashboard_quality", reverse("research_dashboard_quality"), "get"),
        ("research_dashboard_corrected", reverse("research_dashboard_corrected"), "get"),
        (
            "research_dashboard_planner",
            reverse("research_dashboard_planner") + f"?pilot={study.pk}&items=4&overlaps=2",
            "get",
        ),
        (
            "research_dashboard_table",
            reverse("research_dashboard_table", args=["jury", "envelope"]),
            "get",
        ),
        (
            "research_dashboard_figure",
            reverse("research_dashboard_figure", args=["raters", "matrix"]),
            "get",
        ),
    ]


def test_the_matrix_names_every_research_url(pair):
    study, a, _b = pair
    named = {p.name for p in urlpatterns if isinstance(p, URLPattern)}
    listed = {name for name, _url, _method in research_urls(study, study.items.first(), a)}
    assert named == listed


@pytest.mark.parametrize("persona", ["anonymous", "clinician", "outsider", "researcher", "admin"])
def test_permission_matrix(client, pair, persona, admin_user, researcher, clinician, outsider):
    study, a, _b = pair
    submit_scores(a.assignments.first())
    users = {
        "admin": admin_user,
        "researcher": researcher,
        "clinician": a.user,  # a clinician with real work in the study
        "outsider": outsider,
    }
    if persona in users:
        client.force_login(users[persona])
    for name, url, method in research_urls(study, study.items.first(), a):
        response = getattr(client, method)(url)
        if persona == "anonymous":
            assert response.status_code == 302, name
            assert response["Location"].startswith(reverse("login")), name
        elif persona in ("clinician", "outsider"):
            assert response.status_code == 403, (name, persona, response.status_code)
        else:
            assert response.status_code in (200, 302), (name, persona, response.status_code)


def test_the_cleo_persona_is_refused_too(client, clinician, pair):
    client.force_login(clinician)
    assert client.get(reverse("research_studies")).status_code == 403
    assert client.get(reverse("research_people")).status_code == 403


# --- studies ----------------------------------------------------------------------------------


def test_a_study_is_created_through_the_form(client, researcher, conversations):
    clinicians = [
        make_clinician(n, t)
        for n, t in [("c1", "clinical"), ("c2", "clinical"), ("o1", "operations"), ("b1", "both")]
    ]
    client.force_login(researcher)
    form = client.get(reverse("research_study_new"))
    assert form.status_code == 200 and b"sim-steady" in form.content
    response = client.post(
        reverse("research_study_new"),
        {
            "name": "Winter pilot",
            "runs": [conversations.pk],
            "n_items": 6,
            "seed": 7,
            "overlap_clinical": 2,
            "overlap_operations": 1,
            "reference_percent": 0,
            "clinicians": [c.pk for c in clinicians],
            "adjudication_threshold": 2,
            "require_calibration": "on",
        },
    )
    study = Study.objects.get(name="Winter pilot")
    assert response.status_code == 302
    assert response["Location"] == reverse("research_study", args=[study.pk])
    assert study.items.count() == 6 and study.require_calibration and study.seed == 7
    assert study.overlap == {"clinical": 2, "operations": 1}
    for item in study.items.all():
        live = item.assignments.exclude(status=Assignment.Status.WITHDRAWN)
        covers = [t for a in live for t in a.tracks]
        assert covers.count("clinical") == 2 and covers.count("operations") == 1
    page = client.get(response["Location"])
    assert page.status_code == 200
    for clinician in clinicians:
        assert clinician.code.encode() in page.content
    assert AuditEvent.objects.filter(action="study_created", study=study).exists()


def test_a_study_form_with_too_few_clinicians_says_so(client, researcher, conversations):
    only = make_clinician("solo")
    client.force_login(researcher)
    response = client.post(
        reverse("research_study_new"),
        {
            "name": "Too big",
            "n_items": 3,
            "seed": 1,
            "overlap_clinical": 2,
            "overlap_operations": 0,
            "reference_percent": 0,
            "clinicians": [only.pk],
            "adjudication_threshold": 2,
        },
    )
    assert response.status_code == 200
    assert "needs 2 distinct clinicians" in response.content.decode()
    assert not Study.objects.filter(name="Too big").exists()


def test_the_preview_partial_counts_the_sample(client, researcher, conversations):
    c1, c2 = make_clinician("p1"), make_clinician("p2")
    client.force_login(researcher)
    response = client.get(
        reverse("research_study_preview"),
        {
            "kind": "study",
            "n_items": 4,
            "seed": 1,
            "models": ["sim-steady"],
            "overlap_clinical": 2,
            "overlap_operations": 1,
            "clinicians": [c1.pk, c2.pk],
        },
        headers={"HX-Request": "true"},
    )
    body = response.content.decode()
    assert response.status_code == 200
    assert "<html" not in body and 'id="preview"' in body
    preview = response.context["preview"]
    assert preview["total"] == 4
    assert {m["model"]: m["selected"] for m in preview["models"]} == {"sim-steady": 4}
    assert sum(s["selected"] for s in preview["strata"]) == 4  # outcome strata: one each
    assert preview["work"]["reviews"] == 12 and preview["work"]["each"] == 6
    assert "operations: 1 per item, 0 chosen" in body
    # Strata as words: "Automatic checks: failed", never "outcome = failed".
    assert "Automatic checks: failed" in body and "outcome = " not in body


def test_the_preview_names_per_model_strata_in_words(client, researcher, conversations):
    client.force_login(researcher)
    body = client.get(
        reverse("research_study_preview"),
        {"kind": "study", "n_items": 4, "seed": 1, "design": "per_model"},
    ).content.decode()
    assert "Model: sim-steady" in body and "model = " not in body


def test_the_preview_says_when_fewer_match_than_asked_for(client, researcher, conversations):
    client.force_login(researcher)
    response = client.get(
        reverse("research_study_preview"),
        {"kind": "study", "n_items": 5000, "seed": 1, "models": ["sim-steady"]},
        headers={"HX-Request": "true"},
    )
    total = response.context["preview"]["total"]
    assert 0 < total < 5000
    assert f"You asked for 5000; only {total} match" in response.content.decode()


def test_the_preview_asks_for_a_number_first(client, researcher, conversations):
    client.force_login(researcher)
    response = client.get(reverse("research_study_preview"), {"kind": "study"})
    assert "Enter the number of conversations" in response.content.decode()


def test_study_page_and_item_audit_trail(client, researcher, pair):
    study, a, b = pair
    assignment = a.assignments.first()
    submit_scores(assignment, default=3)
    revise(
        assignment,
        {"scores": {d: 4 for d in assignment.submissions.get().scores}},
        "misread the refill",
        "rev-1",
        10,
        a.user,
    )
    client.force_login(researcher)
    page = client.get(reverse("research_study", args=[study.pk])).content.decode()
    assert "sim-" in page and a.code in page and b.code in page
    audit_page = client.get(reverse("research_item_audit", args=[assignment.item_id]))
    body = audit_page.content.decode()
    assert "misread the refill" in body and "v2" in body and "submitted" in body
    assert a.user.username not in body  # the clinician acts under their code
    actions = [e.action for e, _what in audit_page.context["events"]]
    assert actions.index("assigned") < actions.index("submitted") < actions.index("revised")


def test_the_audit_trail_reads_as_sentences_with_dimension_labels(client, researcher, pair):
    study, a, _b = pair
    assignment = a.assignments.first()
    submit_scores(assignment, default=3, clinical_safety=4)
    client.force_login(researcher)
    response = client.get(reverse("research_item_audit", args=[assignment.item_id]))
    body = response.content.decode()
    item = assignment.item_id
    assert f"{researcher.username} assigned item {item} to {a.code}." in body
    assert f"{a.code} submitted scores for item {item} (version 1)." in body
    assert "Clinical safety: 4" in body  # the submitted scores, by label
    # No Python dict, no dict repr escaped for HTML, and no raw dimension key on the page.
    main = body.split("<main", 1)[1].split("</main>", 1)[0]
    assert "{" not in main and "}" not in main
    assert "&#x27;clinician&#x27;" not in body and "'clinician'" not in body
    assert "clinical_safety" not in body and "draft_saved" not in body


def test_closing_a_study_is_audited(client, researcher, pair):
    study, _a, _b = pair
    client.force_login(researcher)
    client.post(reverse("research_study_status", args=[study.pk]), {"confirm": "yes"})
    study.refresh_from_db()
    assert study.status == Study.Status.CLOSED
    assert AuditEvent.objects.filter(action="study_closed", study=study).exists()


# --- calibration rounds -----------------------------------------------------------------------


def test_a_round_is_created_and_references_are_entered(client, researcher, conversations):
    # Two per track: alpha compares clinicians, so one alone on a track could never pass.
    chosen = [make_clinician("r1"), make_clinician("r2", "operations")]
    chosen += [make_clinician("r3"), make_clinician("r4", "operations")]
    client.force_login(researcher)
    response = client.post(
        reverse("research_round_new"),
        {
            "name": "Round 1",
            "source": "explicit",
            "trace_ids": ", ".join(map(str, trace_ids(conversations, 3))),
            "seed": 1,
            "clinicians": [c.pk for c in chosen],
            "feedback": "immediate",
            "min_exact": 0.5,
            "min_adjacent": 0.8,
            "min_alpha": 0.4,
        },
    )
    study = Study.objects.get(name="Round 1")
    assert response["Location"] == reverse("research_references", args=[study.pk])
    assert study.is_calibration and study.items.count() == 3
    assert study.feedback == "immediate" and study.overlap == {"clinical": 2, "operations": 2}
    item = study.items.order_by("pk").first()
    page = client.get(reverse("research_item_reference", args=[item.pk]))
    assert page.status_code == 200 and "sim-steady" not in page.content.decode()
    data = {f"score-{d.key}": "3" for d in rubric_of(study).scored}
    data.update({"score-clinical_safety": "2", "why-clinical_safety": "Missed the red flag."})
    data["score-conversational_quality"] = "na"
    saved = client.post(reverse("research_item_reference", args=[item.pk]), data)
    item.refresh_from_db()
    assert item.reference["clinical_safety"] == {"score": 2, "why": "Missed the red flag."}
    assert item.reference["conversational_quality"]["score"] is None
    assert item.reference["triage_quality"]["score"] == 3
    # "Save and next" goes on to the next item still missing a reference.
    following = study.items.order_by("pk")[1]
    assert saved["Location"] == reverse("research_item_reference", args=[following.pk])
    assert AuditEvent.objects.filter(action="reference_set", item=item).exists()
    # Clinicians meet the round only once the researcher opens it, and only complete.
    assert study.status == Study.Status.DRAFT
    refused = client.post(
        reverse("research_study_status", args=[study.pk]), {"back": "references"}, follow=True
    )
    study.refresh_from_db()
    assert study.status == Study.Status.DRAFT
    assert "2 of 3 reference items lack a reference" in refused.content.decode()
    # References that vary between items: on one score everywhere no alpha, so no pass.
    for n, rest in enumerate(study.items.exclude(pk=item.pk).order_by("pk")):
        varied = {f"score-{d.key}": str(4 + n) for d in rubric_of(study).scored}
        client.post(reverse("research_item_reference", args=[rest.pk]), varied)
    opened = client.post(reverse("research_study_status", args=[study.pk]), {"back": "references"})
    assert opened["Location"] == reverse("research_references", args=[study.pk])
    study.refresh_from_db()
    assert study.status == Study.Status.OPEN


def test_a_round_asks_references_only_for_the_tracks_it_covers(client, researcher, conversations):
    clinical = make_clinician("only-clinical")
    study = create_study(
        StudySpec(
            status="open",
            name="Clinical round",
            kind=Study.Kind.CALIBRATION,
            overlap={"clinical": 1},
        ),
        trace_ids(conversations, 1),
        [clinical],
        researcher,
    )
    client.force_login(researcher)
    item = study.items.get()
    form = client.get(reverse("research_item_reference", args=[item.pk])).context["form"]
    assert [d.key for d in form.dimensions] == [
        "clinical_safety",
        "triage_quality",
        "clinical_helpfulness",
    ]


def test_explicit_round_refuses_conversations_used_in_a_study(client, researcher, pair):
    study, a, _b = pair
    used = study.items.first().trace_id
    client.force_login(researcher)
    response = client.post(
        reverse("research_round_new"),
        {
            "name": "Leaky",
            "source": "explicit",
            "trace_ids": str(used),
            "seed": 1,
            "clinicians": [a.pk],
            "feedback": "end",
            "min_exact": 0.5,
            "min_adjacent": 0.8,
            "min_alpha": 0.4,
        },
    )
    assert response.status_code == 200 and str(used) in response.content.decode()
    assert not Study.objects.filter(name="Leaky").exists()


def _round_post(*clinicians, **fields) -> dict:
    return {
        "name": "Sourced",
        "seed": 1,
        "clinicians": [c.pk for c in clinicians],
        "feedback": "end",
        "min_exact": 0.5,
        "min_adjacent": 0.8,
        "min_alpha": 0.4,
        **fields,
    }


def test_a_round_checks_only_the_chosen_sources_fields(client, researcher, conversations):
    """Found 9: the hidden fields of the sources not chosen are neither checked nor read."""
    c1, c2 = make_clinician("src"), make_clinician("src-2")
    client.force_login(researcher)
    ids = trace_ids(conversations, 2)
    explicit = _round_post(
        c1, c2, source="explicit", trace_ids=f"{ids[0]} {ids[1]}", n_items="many", runs=["x"]
    )
    response = client.post(reverse("research_round_new"), explicit)
    assert response.status_code == 302, response.context["form"].errors
    study = Study.objects.get(name="Sourced")
    assert sorted(study.items.values_list("trace_id", flat=True)) == ids
    sampled = _round_post(c1, c2, name="Sampled", source="sample", n_items=3, trace_ids="not ids")
    assert client.post(reverse("research_round_new"), sampled).status_code == 302
    assert Study.objects.get(name="Sampled").items.count() == 3
    # The chosen source's own fields are still checked.
    refused = client.post(reverse("research_round_new"), _round_post(c1, c2, source="explicit"))
    assert refused.context["form"].errors == {"trace_ids": ["List the conversations' trace ids."]}


@pytest.mark.parametrize(
    ("tracks", "items", "why"),
    [
        (["clinical"], 3, "fewer than 2 clinicians gave scores"),
        (["clinical", "clinical"], 1, "only 1 item has scores from 2 or more clinicians"),
        (["clinical", "operations"], 3, "fewer than 2 clinicians gave scores"),
    ],
)
def test_the_round_form_refuses_a_design_that_cannot_qualify_everyone(
    client, researcher, conversations, tracks, items, why
):
    chosen = [make_clinician(f"solo-{n}", track) for n, track in enumerate(tracks)]
    client.force_login(researcher)
    ids = " ".join(map(str, trace_ids(conversations, items)))
    response = client.post(
        reverse("research_round_new"), _round_post(*chosen, source="explicit", trace_ids=ids)
    )
    assert response.status_code == 200 and not Study.objects.filter(name="Sourced").exists()
    errors = " ".join(response.context["form"].non_field_errors())
    assert "cannot pass even by scoring exactly as the reference" in errors and why in errors
    assert why in response.content.decode()


def test_a_new_round_does_not_redraw_what_its_clinicians_were_taught_on(
    client, researcher, conversations
):
    """Found 5: with the default seed and the same filters, round B drew round A's cases."""
    c1, c2 = make_clinician("taught-1"), make_clinician("taught-2")
    client.force_login(researcher)
    first = _round_post(c1, c2, name="Round A", source="sample", n_items=4)
    assert client.post(reverse("research_round_new"), first).status_code == 302
    taught = set(Study.objects.get(name="Round A").items.values_list("trace_id", flat=True))
    preview = client.get(
        reverse("research_study_preview"), {**first, "kind": "calibration"}
    ).content.decode()
    assert "4 conversations left out: the chosen clinicians were already calibrated on" in preview
    again = client.post(
        reverse("research_round_new"), {**first, "name": "Round B"}, follow=True
    ).content.decode()
    drawn = set(Study.objects.get(name="Round B").items.values_list("trace_id", flat=True))
    assert len(drawn) == 4 and not drawn & taught
    assert "The sampler left out 4 conversations the chosen clinicians were already" in again
    # Given as trace ids, the repeats are kept but named.
    ids = " ".join(map(str, sorted(taught)))
    explicit = client.post(
        reverse("research_round_new"),
        _round_post(c1, c2, name="Round C", source="explicit", trace_ids=ids),
        follow=True,
    ).content.decode()
    for code in (c1.code, c2.code):
        assert f"{code} was already calibrated on 4 of these 4 conversations" in explicit


def test_the_round_form_groups_each_sources_fields_and_previews_on_first_visit(
    client, researcher, conversations
):
    client.force_login(researcher)
    body = client.get(reverse("research_round_new")).content.decode()
    for source, field in (
        ("sample", "n_items"),
        ("explicit", "trace_ids"),
        ("round", "source_round"),
    ):
        # A group runs to the next group or the end of the fieldset.
        group = body.split(f'data-show-when="source={source}"', 1)[1]
        group = re.split(r"data-show-when=|</fieldset>", group, maxsplit=1)[0]
        assert f'name="{field}"' in group
    # Found 9: the preview said nothing on the first visit while the count said 10.
    total = body.split('data-testid="sample-total">', 1)[1].split("<", 1)[0]
    assert total == "10" and "Enter the number of conversations" not in body


@pytest.fixture
def scored_round(conversations, researcher):
    """A round of four items with references; `close` matches them, `far` is 2–3 off."""
    close, far = make_clinician("close"), make_clinician("far")
    study = create_study(
        StudySpec(
            status="open",
            name="Round",
            kind=Study.Kind.CALIBRATION,
            overlap={"clinical": 2},
            min_exact=0.5,
            min_adjacent=0.8,
            min_alpha=-1.0,  # judge the clinicians' own rates here, not the group's alpha
        ),
        trace_ids(conversations, 4),
        [close, far],
        researcher,
    )
    references = [2, 4, 5, 1]
    for item, score in zip(study.items.order_by("pk"), references, strict=True):
        adjudication.set_reference(
            item,
            {d.key: {"score": score, "why": "because"} for d in rubric_of(study).scored},
            researcher,
        )
    for item, score in zip(study.items.order_by("pk"), references, strict=True):
        submit_scores(item.assignments.get(clinician=close), default=score)
        submit_scores(item.assignments.get(clinician=far), default=5 if score < 3 else 1)
    return study, close, far


def test_round_report_passes_the_close_clinician_and_fails_the_far_one(
    client, researcher, scored_round
):
    study, close, far = scored_round
    client.force_login(researcher)
    response = client.get(reverse("research_round_report", args=[study.pk]))
    rows = {row["code"]: row for row in response.context["rows"]}
    assert rows[close.code]["qualified"] and not rows[far.code]["qualified"]
    assert all(r.passed for r in rows[close.code]["results"] if r)
    assert not any(r.passed for r in rows[far.code]["results"] if r)
    assert all(r.exact == 1.0 for r in rows[close.code]["results"] if r)
    body = response.content.decode()
    assert "pass" in body and "fail" in body and "Krippendorff" in body


def test_round_report_fails_everyone_when_alpha_is_below_the_threshold(
    client, researcher, scored_round
):
    study, close, _far = scored_round
    Study.objects.filter(pk=study.pk).update(min_alpha=0.9)
    client.force_login(researcher)
    response = client.get(reverse("research_round_report", args=[study.pk]))
    rows = {row["code"]: row for row in response.context["rows"]}
    assert not rows[close.code]["qualified"]
    assert all(a.alpha is None or a.alpha < 0.9 for _d, a in response.context["alphas"])


def test_a_new_round_can_adopt_an_earlier_rounds_consensus(client, researcher, scored_round):
    study, close, far = scored_round
    first = study.items.order_by("pk").first()
    adjudication.decide(first, "clinical_safety", 2, "The reference was right.", researcher)
    client.force_login(researcher)
    response = client.post(
        reverse("research_round_new"),
        {
            "name": "Round 2",
            "source": "round",
            "source_round": study.pk,
            "seed": 1,
            "clinicians": [close.pk, far.pk],
            "feedback": "end",
            "min_exact": 0.5,
            "min_adjacent": 0.8,
            "min_alpha": 0.4,
        },
    )
    second = Study.objects.get(name="Round 2")
    assert response.status_code == 302 and second.items.count() == 4
    same = second.items.get(trace_id=first.trace_id)
    assert same.reference["clinical_safety"] == {"score": 2, "why": "The reference was right."}
    # Undecided disputes give no consensus; the rest of the dimensions are all disputed here.
    assert "triage_quality" not in same.reference


def _round_from(client, source, clinicians):
    """Post the new-round form with an earlier round as source; the page it lands on."""
    return client.post(
        reverse("research_round_new"),
        {
            "name": "Round 2",
            "source": "round",
            "source_round": source.pk,
            "seed": 1,
            "clinicians": [c.pk for c in clinicians],
            "feedback": "end",
            "min_exact": 0.5,
            "min_adjacent": 0.8,
            "min_alpha": 0.4,
        },
        follow=True,
    )


def test_a_consensus_counts_only_qualified_clinicians_and_says_what_it_left_out(
    client, researcher, scored_round
):
    study, close, far = scored_round
    client.force_login(researcher)
    body = _round_from(client, study, [close, far]).content.decode()
    second = Study.objects.get(name="Round 2")
    assert not second.items.exclude(reference=None).exists()
    assert "4 items got no consensus: no qualified clinician scored it there" in body
    assert f"Not counted, as not qualified: {', '.join(sorted([close.code, far.code]))}" in body


def test_a_consensus_resting_on_one_qualified_clinician_is_flagged(
    client, researcher, scored_round
):
    study, close, far = scored_round
    qualify(close, study)
    client.force_login(researcher)
    body = _round_from(client, study, [close, far]).content.decode()
    second = Study.objects.get(name="Round 2")
    # far's scores (2 or more away everywhere) would have made every dimension a dispute.
    references = [2, 4, 5, 1]
    for item, score in zip(study.items.order_by("pk"), references, strict=True):
        same = second.items.get(trace_id=item.trace_id)
        assert {entry["score"] for entry in same.reference.values()} == {score}
    assert "4 items took a consensus that rests on a single clinician" in body
    assert f"Not counted, as not qualified: {far.code}" in body


def test_the_references_page_says_whom_a_consensus_rests_on_before_adopting(
    client, researcher, scored_round
):
    study, close, far = scored_round
    target = create_study(
        StudySpec(name="Round 2", kind=Study.Kind.CALIBRATION, overlap={"clinical": 2}),
        list(study.items.values_list("trace_id", flat=True)),
        [close, far],
        researcher,
    )
    client.force_login(researcher)
    page = client.get(reverse("research_references", args=[target.pk])).content.decode()
    assert "0 of 2 clinicians qualified" in page and "none of its 2 clinicians is qualified" in page
    reply = client.post(
        reverse("research_references", args=[target.pk]),
        {"source": study.pk, "include_unqualified": "on"},
        follow=True,
    ).content.decode()
    assert "0 of 4 items took the consensus" in reply and "every clinician counted" in reply
    assert "4 items got no consensus: every dimension is disputed with no decision yet" in reply
    counted = ", ".join(sorted([close.code, far.code]))
    assert f"counts clinicians who are not qualified for this rubric version: {counted}" in reply


# --- adjudication -----------------------------------------------------------------------------


@pytest.fixture
def disputed(pair):
    """Both clinicians scored item 1; they are 3 apart on clinical safety, 1 on the rest."""
    study, a, b = pair
    item = study.items.order_by("pk").first()
    submit_scores(item.assignments.get(clinician=a), default=3, clinical_safety=1)
    submit_scores(item.assignments.get(clinician=b), default=4, clinical_safety=4)
    return study, item, a, b


def test_adjudication_queue_is_blinded_and_shows_both_sides(client, researcher, disputed):
    study, item, a, b = disputed
    client.force_login(researcher)
    response = client.get(reverse("research_adjudication", args=[study.pk]))
    body = response.content.decode()
    [(item_id, entries)] = response.context["items"]
    assert item_id == item.pk and [d.dimension for d, _f in entries] == ["clinical_safety"]
    assert a.code in body and b.code in body and f"{a.code} on clinical_safety" in body
    run = item.trace.run
    for secret in (
        "sim-steady",
        "sim-jittery",
        f"/runs/{run.pk}",
        f"/traces/{item.trace_id}",
        a.user.email,
        item.trace.task.task_id,
    ):
        assert secret not in body, secret
    conversation = client.get(reverse("research_item_conversation", args=[item.pk]))
    text = conversation.content.decode()
    assert conversation.status_code == 200 and 'class="turn' in text
    assert "sim-steady" not in text and "sim-jittery" not in text


def test_an_adjudication_decision_is_stored_and_audited(client, researcher, disputed):
    study, item, _a, _b = disputed
    client.force_login(researcher)
    url = reverse("research_adjudicate", args=[study.pk, item.pk, "clinical_safety"])
    prefix = f"d{item.pk}-clinical_safety"
    missing_reason = client.post(url, {f"{prefix}-score": "2"}, headers={"HX-Request": "true"})
    assert "This field is required" in missing_reason.content.decode()
    assert not Adjudication.objects.exists()
    response = client.post(
        url,
        {f"{prefix}-score": "2", f"{prefix}-reason": "Escalation was late but present."},
        headers={"HX-Request": "true"},
    )
    assert response.status_code == 200 and "<html" not in response.content.decode()
    assert "decided: 2" in response.content.decode()
    decision = Adjudication.objects.get()
    assert (decision.item, decision.dimension, decision.score) == (item, "clinical_safety", 2)
    assert decision.decided_by == researcher
    event = AuditEvent.objects.get(action="adjudicated")
    assert event.item == item and event.detail == {"dimension": "clinical_safety", "score": 2}
    # A second decision, not an edit: both kept, the newest is the consensus.
    client.post(url, {f"{prefix}-score": "na", f"{prefix}-reason": "Nothing clinical here."})
    assert Adjudication.objects.count() == 2
    assert adjudication.consensus(study)[item.pk]["clinical_safety"]["score"] is None


def test_an_undisputed_dimension_cannot_be_decided_from_the_queue(client, researcher, disputed):
    study, item, _a, _b = disputed
    client.force_login(researcher)
    url = reverse("research_adjudicate", args=[study.pk, item.pk, "triage_quality"])
    response = client.post(url, {"reason": "x"})
    assert response.status_code == 302 and not Adjudication.objects.exists()


# --- export -----------------------------------------------------------------------------------


def test_export_csv_has_the_columns_and_one_row_per_item_rater_dimension(
    client, researcher, disputed, tmp_path
):
    study, item, a, b = disputed
    assignment = item.assignments.get(clinician=a)
    dims = list(assignment.submissions.get().scores)
    revise(assignment, {"scores": dict.fromkeys(dims, 2)}, "second look", "rev", 5, a.user)
    client.force_login(researcher)
    response = client.get(reverse("research_study_export", args=[study.pk]))
    assert response["Content-Type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    assert tuple(rows[0]) == COLUMNS
    assert len(rows) == 2 * len(dims)  # two raters, current versions only
    assert {r["rater"] for r in rows} == {a.code, b.code}
    assert {r["rater_kind"] for r in rows} == {"clinician"}
    assert {r["version"] for r in rows if r["rater"] == a.code} == {"2"}
    mine = {r["dimension"]: r for r in rows if r["rater"] == a.code}
    assert mine["clinical_safety"]["track"] == "clinical"
    assert mine["conversation_realism"]["track"] == "realism"
    assert rows[0]["model"] in ("sim-steady", "sim-jittery") and rows[0]["case_id"]
    out = tmp_path / "scores.csv"
    call_command("export_study", str(study.pk), "--out", str(out), "--all-versions")
    every = list(csv.DictReader(out.open()))
    assert len(every) == 3 * len(dims)


def test_not_applicable_exports_as_an_empty_score(client, researcher, pair):
    study, a, _b = pair
    submit_scores(a.assignments.first(), default=3, clinical_safety="na")
    client.force_login(researcher)
    rows = csv.DictReader(
        io.StringIO(client.get(reverse("research_study_export", args=[study.pk])).content.decode())
    )
    [safety] = [r for r in rows if r["dimension"] == "clinical_safety"]
    assert safety["score"] == "" and safety["not_applicable"] == "1"


# --- query counts -----------------------------------------------------------------------------


def test_list_and_queue_pages_take_a_bounded_number_of_queries(
    client, researcher, disputed, django_assert_max_num_queries
):
    study, _item, _a, _b = disputed
    client.force_login(researcher)
    for name, args in [
        ("research_studies", []),
        ("research_people", []),
        ("research_study", [study.pk]),
        ("research_adjudication", [study.pk]),
    ]:
        # A constant number per page, none per item: the study page's 13 include the items
        # its viewer is assigned to (kept off an adjudicator's own) and the names by code.
        with django_assert_max_num_queries(13):
            assert client.get(reverse(name, args=args)).status_code == 200


def test_a_studys_hidden_reference_items_get_references_too(client, researcher, conversations):
    a, b = make_clinician("h1"), make_clinician("h2")
    study = create_study(
        StudySpec(status="open", name="Drift", overlap={"clinical": 1}, reference_share=0.5),
        trace_ids(conversations, 4),
        [a, b],
        researcher,
    )
    client.force_login(researcher)
    page = client.get(reverse("research_references", args=[study.pk]))
    listed = [pk for pk, _missing in page.context["items"]]
    hidden = list(study.items.filter(is_reference=True).order_by("pk").values_list("pk", flat=True))
    assert listed == hidden and len(hidden) == 2
    detail = client.get(reverse("research_study", args=[study.pk])).content.decode()
    assert reverse("research_references", args=[study.pk]) in detail
