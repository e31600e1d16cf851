"""`create_study` and `create_round`: studies and calibration rounds from the command line,
through the same forms as the pages, so they make the same study and refuse with the same
words."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import transaction
from django.urls import reverse

from annotation import adjudication, lifecycle
from annotation.models import Assignment, Item, Study
from annotation.reviewing import rubric_of
from tests.annotation.test_research_views import (
    make_clinician,
    submit_scores,
    trace_ids,
    twelve_conversations,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def conversations(sim_models):
    return twelve_conversations(sim_models)


@pytest.fixture
def team():
    return [
        make_clinician("ana"),
        make_clinician("ben"),
        make_clinician("ops", "operations"),
    ]


@pytest.fixture
def round_team(team):
    """Two clinicians on each track: with one on a track, a round could qualify nobody."""
    return [*team, make_clinician("opb", "operations")]


def run(command: str, *args) -> str:
    out = io.StringIO()
    call_command(command, *args, stdout=out, stderr=io.StringIO())
    return out.getvalue()


def refusal(command: str, *args) -> str:
    with pytest.raises(CommandError) as refused:
        run(command, *args)
    return str(refused.value)


def codes(clinicians) -> str:
    return ",".join(c.code for c in clinicians)


def made(study: Study) -> dict:
    """What a study is, beyond its id and timestamps: settings, items and assignments."""
    fields = [
        "kind",
        "status",
        "seed",
        "overlap",
        "reference_share",
        "require_calibration",
        "feedback",
        "on_fail",
        "min_exact",
        "min_adjacent",
        "min_alpha",
        "adjudication_threshold",
        "blind_adjudication",
        "instructions",
        "rubric_version",
        "sampling",
    ]
    return {
        "settings": {f: getattr(study, f) for f in fields},
        "items": sorted(study.items.values_list("trace_id", "is_reference", "stratum")),
        "assignments": sorted(
            (a.item.trace_id, a.clinician.code, tuple(a.tracks), a.position)
            for a in Assignment.objects.filter(item__study=study).select_related(
                "item", "clinician"
            )
        ),
    }


# --- create_study -----------------------------------------------------------------------------


def test_create_study_prints_what_it_made_and_leaves_a_draft(conversations, team):
    printed = run(
        "create_study",
        "Winter pilot",
        "--n", "6", "--seed", "7", "--clinicians", codes(team),
        "--overlap-clinical", "2", "--overlap-operations", "1",
    )  # fmt: skip
    study = Study.objects.get(name="Winter pilot")
    assert study.status == Study.Status.DRAFT and study.items.count() == 6
    assert study.overlap == {"clinical": 2, "operations": 1}
    assert f"Created study {study.pk} “Winter pilot”: 6 items, 18 assignments" in printed
    assert "for 3 clinicians" in printed
    assert "[x] Overlap reachable" in printed and "Left as a draft" in printed


def test_create_study_matches_the_page(client, researcher, conversations, team):
    client.force_login(researcher)
    page = client.post(
        reverse("research_study_new"),
        {
            "name": "By page",
            "runs": [conversations.pk],
            "n_items": 5,
            "design": "uniform",
            "seed": 3,
            "models": ["sim-steady"],
            "overlap_clinical": 2,
            "overlap_operations": 1,
            "reference_percent": 40,
            "clinicians": [c.pk for c in team],
            "adjudication_threshold": 3,
            "require_calibration": "on",
            "blind_adjudication": "on",
            "instructions": "Read the whole conversation.",
        },
    )
    assert page.status_code == 302
    run(
        "create_study", "By command",
        "--runs", str(conversations.pk), "--n", "5", "--design", "uniform", "--seed", "3",
        "--model", "sim-steady", "--overlap-clinical", "2", "--overlap-operations", "1",
        "--reference-percent", "40", "--clinicians", ",".join(c.user.email for c in team),
        "--adjudication-threshold", "3", "--require-calibration",
        "--instructions", "Read the whole conversation.",
    )  # fmt: skip
    by_page = made(Study.objects.get(name="By page"))
    by_command = made(Study.objects.get(name="By command"))
    assert by_page["settings"]["blind_adjudication"] and by_page["settings"]["sampling"]
    assert by_command == by_page


def test_create_study_opens_only_when_asked_and_the_checklist_holds(conversations, team):
    printed = run("create_study", "Opened", "--n", "4", "--clinicians", codes(team[:2]),
                  "--overlap-operations", "0", "--open")  # fmt: skip
    assert Study.objects.get(name="Opened").status == Study.Status.OPEN
    assert "Opened" in printed
    # No one here has passed a calibration round: created, but not opened.
    message = refusal("create_study", "Needs calibration", "--n", "4",
                      "--clinicians", codes(team[:2]), "--overlap-operations", "0",
                      "--require-calibration", "--open")  # fmt: skip
    study = Study.objects.get(name="Needs calibration")
    assert study.status == Study.Status.DRAFT
    assert f"Study {study.pk} was created but left a draft. It cannot open yet." in message
    assert "have not passed a calibration round" in message


@pytest.mark.parametrize(
    ("args", "said"),
    [
        # the field's own check, named by its option
        (["--n", "0"], "--n: Ensure this value is greater than or equal to 1."),
        # the form's clean()
        (
            ["--n", "3", "--overlap-clinical", "0", "--overlap-operations", "0"],
            "Set at least one track's clinicians per item to 1 or more.",
        ),
        # assignment: two clinical per item, one clinical clinician
        (["--n", "3", "--clinicians", "{ana}", "--overlap-operations", "0"], "needs 2 distinct"),
        (["--n", "3", "--runs", "999999"], "--runs: Select a valid choice."),
        (["--n", "3", "--clinicians", "nobody@example.org"], "No clinician 'nobody@example.org'"),
        (["--n", "3", "--clinicians", ""], "--clinicians: This field is required."),
    ],
)
def test_create_study_refuses_in_one_line_what_the_form_refuses(conversations, team, args, said):
    args = [a.replace("{ana}", team[0].code) for a in args]
    if "--clinicians" not in args:
        args += ["--clinicians", codes(team)]
    message = refusal("create_study", "Refused", *args)
    assert said in message and "\n" not in message
    assert not Study.objects.filter(name="Refused").exists()


def test_create_study_refuses_a_deactivated_clinician(conversations, team):
    team[0].user.is_active = False
    team[0].user.save()
    message = refusal("create_study", "Refused", "--n", "3", "--clinicians", codes(team))
    assert f"{team[0].code} is deactivated" in message


# --- create_round -----------------------------------------------------------------------------


def test_create_round_from_trace_ids_prints_its_checklist(conversations, round_team):
    ids = trace_ids(conversations, 3)
    printed = run("create_round", "Round 1", "--traces", ",".join(map(str, ids)),
                  "--clinicians", codes(round_team), "--feedback", "end")  # fmt: skip
    study = Study.objects.get(name="Round 1")
    assert study.is_calibration and study.status == Study.Status.DRAFT
    assert sorted(study.items.values_list("trace_id", flat=True)) == ids
    assert study.overlap == {"clinical": 2, "operations": 2} and study.feedback == "end"
    assert f"Created calibration round {study.pk} “Round 1”: 3 items, 12 assignments" in printed
    assert "[ ] References complete: 3 of 3 reference items lack a reference." in printed


def test_create_round_refuses_a_round_that_could_qualify_nobody(conversations, team):
    """One operations clinician: the round's alpha needs two, so the form refuses it."""
    ids = ",".join(map(str, trace_ids(conversations, 3)))
    message = refusal("create_round", "Alone", "--traces", ids, "--clinicians", codes(team))
    assert "could not qualify" in message and "\n" not in message
    assert not Study.objects.filter(name="Alone").exists()


class Undo(Exception):
    """Rolls back what the page made, so the command draws from the same pool."""


def test_create_round_matches_the_page(client, researcher, conversations, round_team):
    client.force_login(researcher)
    # The page's round is undone before the command draws, or its items would be held out
    # of the command's draw as conversations these clinicians were already taught on.
    with pytest.raises(Undo), transaction.atomic():
        page = client.post(
            reverse("research_round_new"),
            {
                "name": "By page",
                "source": "sample",
                "n_items": 4,
                "design": "per_model",
                "seed": 5,
                "clinicians": [c.pk for c in round_team],
                "feedback": "immediate",
                "on_fail": "wait",
                "min_exact": 0.6,
                "min_adjacent": 0.9,
                "min_alpha": 0.5,
            },
        )
        assert page.status_code == 302
        by_page = made(Study.objects.get(name="By page"))
        raise Undo
    run("create_round", "By page", "--n", "4", "--design", "per_model", "--seed", "5",
        "--clinicians", codes(round_team), "--on-fail", "wait", "--min-exact", "0.6",
        "--min-adjacent", "0.9", "--min-alpha", "0.5")  # fmt: skip
    assert made(Study.objects.get(name="By page")) == by_page


def test_create_round_copies_a_round_with_its_consensus_and_opens_it(conversations, researcher):
    a, b = make_clinician("a"), make_clinician("b")
    ids = ",".join(map(str, trace_ids(conversations, 4)))
    # No references yet: --open is refused, the round stays a draft.
    message = refusal("create_round", "First", "--traces", ids, "--clinicians", codes([a, b]),
                      "--open")  # fmt: skip
    first = Study.objects.get(name="First")
    assert first.status == Study.Status.DRAFT and "4 of 4 reference items lack" in message
    # References that vary, matched by both clinicians: both qualify when the round closes,
    # so their consensus is one a new round may adopt.
    for level, item in zip((2, 4, 3, 5), first.items.order_by("pk"), strict=True):
        adjudication.set_reference(
            item, {d.key: {"score": level, "why": "w"} for d in rubric_of(first).scored}, researcher
        )
    lifecycle.open_study(first, researcher)
    for assignment in Assignment.objects.filter(item__study=first).select_related("item"):
        submit_scores(assignment, default=assignment.item.reference["clinical_safety"]["score"])
    lifecycle.close_study(first, researcher)
    printed = run("create_round", "Second", "--copy-round", str(first.pk),
                  "--clinicians", codes([a, b]), "--open")  # fmt: skip
    second = Study.objects.get(name="Second")
    assert second.status == Study.Status.OPEN
    assert "4 items took the copied round's consensus as reference." in printed
    first_trace = first.items.order_by("pk").first().trace_id
    assert second.items.get(trace_id=first_trace).reference["clinical_safety"]["score"] == 2


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--n", "3", "--traces", "1"], "Give exactly one of --n (sample), --traces or"),
        ([], "Give exactly one of --n (sample), --traces or"),
        (["--traces", "1;2"], "--traces: Trace ids are whole numbers"),
        (["--copy-round", "999999"], "--copy-round: Select a valid choice."),
        (["--n", "3", "--min-alpha", "2"], "--min-alpha: Ensure this value is less than"),
    ],
)
def test_create_round_refuses_in_one_line_what_the_form_refuses(
    conversations, round_team, args, said
):
    message = refusal("create_round", "Refused", *args, "--clinicians", codes(round_team))
    assert said in message and "\n" not in message
    assert not Study.objects.filter(name="Refused").exists()


def test_create_round_refuses_conversations_used_in_a_study(conversations, round_team):
    run(
        "create_study",
        "Study",
        "--n",
        "2",
        "--clinicians",
        codes(round_team),
        "--overlap-operations",
        "1",
    )
    used = Study.objects.get(name="Study").items.first().trace_id
    # With three more, so the round itself could qualify its clinicians.
    unused = [pk for pk in trace_ids(conversations) if not Item.objects.filter(trace_id=pk)][:3]
    chosen = ",".join(map(str, [used, *unused]))
    message = refusal(
        "create_round", "Leaky", "--traces", chosen, "--clinicians", codes(round_team)
    )
    assert message.endswith(f"already used in a study: {used}")
    assert not Study.objects.filter(name="Leaky").exists()
