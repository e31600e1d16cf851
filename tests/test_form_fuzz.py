"""Hostile input (issue 13): every form a person can post, and the query parameters pages read,
fed out-of-range numbers, foreign ids, 100k-character strings, deeply nested JSON, control
characters, NUL bytes, lone surrogates, empty values and repeated fields.

Whatever arrives, the answer is never a 500 and never a logged traceback, a refused post
leaves every row as it was, and an accepted one stores values inside their bounds.

Covered: model create/edit; run launch, its preview and task list; case set generation;
review draft autosave, submit and revise (and review URLs with foreign or hostile codes);
adjudication; references and adopting a consensus; study and round creation and the sampler
preview; invitations and profiles; jury panels, judges, launch and resume; log-in, password
change, reset and set; the runs list's filters; report, dashboard, planner, jury-page and
export query parameters; buttons naming rows; and every form posted by a role that may not.

Bodies are encoded here, byte by byte (`encode`), so a lone surrogate reaches the server as
the bytes a hand-made request would carry (Django decodes them as U+FFFD) and a field can
appear several times. Fuzzing runs on one world built once per module (`world`); each
example rolls back to a savepoint (`rolled_back`), so every example meets the same rows."""

from __future__ import annotations

import logging
import math
import os
import re
import traceback
from contextlib import contextmanager
from dataclasses import dataclass, field
from decimal import Decimal
from urllib.parse import quote_from_bytes

import pytest
from django.conf import settings as django_settings
from django.contrib.auth.models import Group, User
from django.contrib.auth.tokens import default_token_generator
from django.db import transaction
from django.forms.models import model_to_dict
from django.test import Client
from django.urls import reverse
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from annotation import adjudication
from annotation.models import (
    Adjudication,
    Assignment,
    Clinician,
    Item,
    Study,
    Submission,
)
from annotation.reviewing import dimensions_of, rubric_of, submit
from annotation.studies import StudySpec, create_study
from jury.models import Judge, JudgeJob, JuryRun, Panel, Verdict
from jury.scoring import execute_inline as score_inline
from jury.scoring import launch_jury
from patientagentbench.models import CaseSetJob, ModelConfig, Run, Suite, Task, Trace
from patientagentbench.roles import ADMIN, CLINICIAN, RESEARCHER
from patientagentbench.runs.launch import execute_inline, launch_run
from patientagentbench.suites.case_sets import create_case_set
from patientagentbench.suites.install import install_all_suites
from tests.conftest import PASSWORD
from tests.factories import person, rows_for_scope

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.filterwarnings("ignore:Generating overly large repr"),
]

# Derandomized, so CI sees the same examples every run; FUZZ_RANDOM=1 explores new ones and
# FUZZ_EXAMPLES=N asks for more of them.
FUZZ = settings(
    max_examples=int(os.environ.get("FUZZ_EXAMPLES", 25)),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    derandomize=not os.environ.get("FUZZ_RANDOM"),
    database=None,
)
FEW = settings(FUZZ, max_examples=max(12, FUZZ.max_examples // 2))

DROP = object()  # a field left out of the post altogether


# --- hostile values -------------------------------------------------------------------------

OUT_OF_RANGE = [
    "-1",
    "-0",
    "0",
    "-99999999999999999999",
    "9" * 30,
    "2147483648",
    "9223372036854775808",
    "18446744073709551616",
    "1e309",
    "-1e309",
    "1e-400",
    "NaN",
    "nan",
    "-NaN",
    "sNaN",
    "inf",
    "-Infinity",
    "0x1F",
    "1_000",
    "1,5",
    "3.7",
    "5e2",
    "+5",
    "²",
    "٣",
    "①",
    " 7 ",
    "9" * 5000,
]
numbers = st.one_of(
    st.sampled_from(OUT_OF_RANGE),
    st.integers(min_value=-(10**40), max_value=10**40).map(str),
    st.floats().map(repr),
    st.decimals(allow_nan=True, allow_infinity=True).map(str),
)
nested_json = st.integers(min_value=50, max_value=5000).flatmap(
    lambda n: st.sampled_from(["[" * n + "]" * n, '{"a":' * n + "1" + "}" * n, "[" * n])
)
huge = st.sampled_from(
    [
        "x" * 100_000,
        "9" * 100_000,
        "é" * 100_000,
        "<b>&amp;" * 12_500,
        "a@" + "b" * 100_000 + ".org",
        "1," * 50_000,
    ]
)
control = st.text(
    st.one_of(
        st.integers(min_value=0, max_value=0x1F).map(chr),
        st.sampled_from("\x7f\x85\u2028\u2029\ufeff\u200b\u202e"),
    ),
    min_size=1,
    max_size=12,
)
nul = st.one_of(st.just("\x00"), st.text(max_size=8).map(lambda s: f"a{s}\x00{s}"))
surrogates = st.lists(
    st.integers(min_value=0xD800, max_value=0xDFFF).map(chr), min_size=1, max_size=3
).map(lambda chars: "a" + "".join(chars) + "b")
empty = st.sampled_from(["", " ", "\t", "\r\n"])
scalar = st.one_of(
    numbers, nested_json, huge, control, nul, surrogates, empty, st.text(max_size=30)
)
# A list: the same field repeated, where the form expects one value.
HOSTILE = st.one_of(scalar, st.lists(scalar, min_size=2, max_size=3))

MISSING_IDS = ["0", "-1", "999999", "2147483648", "9" * 25, "1.0", "1e3"]


def ids_or_hostile(ids) -> st.SearchStrategy:
    """A foreign id (another object type's, another study's, a missing one), several of them,
    or any hostile value."""
    foreign = st.sampled_from(sorted({str(i) for i in ids} | set(MISSING_IDS)))
    return st.one_of(foreign, st.lists(foreign, min_size=2, max_size=4), HOSTILE)


def hostile_form(valid: dict, ids: dict | None = None) -> st.SearchStrategy:
    """The valid form with some of its fields replaced by hostile values or left out, and
    sometimes a field it does not know."""
    ids = ids or {}
    optional = {
        name: st.one_of(ids_or_hostile(ids[name]) if name in ids else HOSTILE, st.just(DROP))
        for name in valid
    }
    optional["unexpected"] = HOSTILE
    changes = st.fixed_dictionaries({}, optional=optional).filter(bool)

    def merged(found: dict) -> dict:
        data = dict(valid)
        for name, value in found.items():
            if value is DROP:
                data.pop(name, None)
            else:
                data[name] = value
        return data

    return changes.map(merged)


def pairs(data: dict) -> list[tuple[str, str]]:
    out = []
    for name, value in data.items():
        for one in value if isinstance(value, list | tuple) else [value]:
            out.append((name, str(one)))
    return out


def encode(data: dict) -> str:
    """application/x-www-form-urlencoded, with lone surrogates as their (invalid) UTF-8."""
    return "&".join(
        quote_from_bytes(k.encode("utf-8", "surrogatepass"), safe="")
        + "="
        + quote_from_bytes(v.encode("utf-8", "surrogatepass"), safe="")
        for k, v in pairs(data)
    )


# --- sending and the three rules -------------------------------------------------------------

FORM = "application/x-www-form-urlencoded"


def counts(models) -> dict[str, int]:
    return {model.__name__: model.objects.count() for model in models}


@dataclass
class Sent:
    response: object
    before: dict = field(default_factory=dict)
    after: dict = field(default_factory=dict)

    @property
    def status(self) -> int:
        return self.response.status_code

    @property
    def changed(self) -> bool:
        return self.before != self.after


def send(client, caplog, method: str, url: str, data: dict, watch=(), headers=None) -> Sent:
    """Post (or get) `data`; fail on a 500 or a logged traceback. Returns the row counts of
    `watch` before and after."""
    client.raise_request_exception = False
    before = counts(watch)
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="django.request"):
        if method == "get":
            query = encode(data)
            response = client.get(f"{url}?{query}" if query else url, headers=headers or {})
        else:
            response = client.post(url, encode(data), content_type=FORM, headers=headers or {})
    tracebacks = [
        r
        for r in caplog.records
        if r.name == "django.request" and (r.levelno >= logging.ERROR or r.exc_info)
    ]
    assert response.status_code < 500 and not tracebacks, (
        f"{response.status_code} for {method} {url}: {_why(tracebacks)}"
    )
    return Sent(response, before, counts(watch))


def _why(records) -> str:
    """The exception behind a 500 and where it was raised, in one line."""
    for record in records:
        if record.exc_info:
            exc = record.exc_info[1]
            frames = traceback.extract_tb(record.exc_info[2])
            ours = [f for f in frames if "site-packages" not in f.filename] or frames
            where = ", ".join(f"{f.filename}:{f.lineno}" for f in (ours[-1], frames[-1]))
            return f"{type(exc).__name__}: {str(exc)[:200]} at {where}"
    return records[0].getMessage() if records else "no logged exception"


@contextmanager
def rolled_back():
    """One example's changes, undone when it ends (a savepoint), so every example meets the
    same world and a database error in one cannot poison the next."""
    with transaction.atomic():
        yield
        transaction.set_rollback(True)


def refused_keeps_rows(sent: Sent) -> None:
    """A post that did not go through (the form again, 4xx) changed no row count."""
    if sent.status != 302:
        assert not sent.changed, (sent.status, sent.before, sent.after)


def no_nul(*texts) -> bool:
    return all("\x00" not in str(t) for t in texts)


# --- the world the forms act on --------------------------------------------------------------


def make_clinician(username: str, track: str = Clinician.Track.CLINICAL) -> Clinician:
    user = User.objects.create_user(username=username, password=PASSWORD)
    user.groups.add(Group.objects.get_or_create(name=CLINICIAN)[0])
    return Clinician.objects.create(user=user, track=track)


def submit_all(assignment: Assignment, default: int, nonce: str, **scores) -> None:
    dims = dimensions_of(assignment, rubric_of(assignment.item.study))
    answer = {"scores": {d.key: scores.get(d.key, default) for d in dims}}
    answer["why"] = {d.key: f"{assignment.clinician.code} on {d.key}" for d in dims}
    submit(assignment, answer, nonce, 30, assignment.clinician.user)


@dataclass
class World:
    admin: User
    researcher: User
    me: Clinician
    other: Clinician
    run: Run
    office: Suite
    cases: Suite
    traces: list
    study: Study
    other_study: Study
    round: Study
    open_item: Assignment  # mine, open
    submitted_item: Assignment  # mine, submitted
    others_item: Assignment  # someone else's
    disputed: Item
    panel: Panel
    imported_panel: Panel
    judge: Judge
    jury_run: JuryRun
    writer: ModelConfig
    ids: list = field(default_factory=list)


@pytest.fixture(scope="module")
def world(django_db_setup, django_db_blocker):
    """One world for the module (a few seconds to build), inside a transaction rolled back at
    the end; each test's own changes roll back to a savepoint as usual."""
    with rows_for_scope(django_db_blocker):
        try:
            yield _build(
                person("fuzz-admin", ADMIN, password=PASSWORD),
                person("fuzz-researcher", RESEARCHER, password=PASSWORD),
            )
        finally:
            SESSIONS.clear()


def _build(admin: User, researcher: User) -> World:
    (office,) = [s for s in install_all_suites() if s.name == "office-19"]
    models = [
        ModelConfig.objects.create(name=n, provider="simulated", model_id=n)
        for n in ("sim-steady", "sim-jittery")
    ]
    writer = ModelConfig.objects.create(
        name="fuzz-writer", provider="openai", model_id="gpt-x", price_in=1, price_out=2
    )
    cases = create_case_set("fuzz-cases", 3, seed=5)
    run = launch_run(suite=cases, models=models, max_turns=5, enqueue=False)
    execute_inline(run)
    traces = list(run.traces.filter(status=Trace.Status.DONE).order_by("pk"))
    me, other = make_clinician("dr-me"), make_clinician("dr-other")
    study = create_study(
        StudySpec(status="open", name="Fuzz study", overlap={"clinical": 2}),
        [t.pk for t in traces[:3]],
        [me, other],
        researcher,
    )
    other_study = create_study(
        StudySpec(status="open", name="Other study", overlap={"clinical": 2}),
        [traces[3].pk],
        [me, other],
        researcher,
    )
    mine = list(me.assignments.filter(item__study=study).order_by("position"))
    # Both clinicians scored my first item; they are 3 apart on clinical safety.
    disputed = mine[0].item
    submit_all(mine[0], 3, "n-me", clinical_safety=1)
    submit_all(disputed.assignments.get(clinician=other), 4, "n-other", clinical_safety=4)
    round_ = create_study(
        StudySpec(
            status="open", name="Fuzz round", kind=Study.Kind.CALIBRATION, overlap={"clinical": 2}
        ),
        [traces[4].pk],
        [me, other],
        researcher,
    )
    judge_models = [
        ModelConfig.objects.create(name=n, provider="simulated", model_id=n)
        for n in ("sim-judge-a", "sim-judge-b")
    ]
    panel = Panel.objects.create(name="fuzz-panel")
    judges = [Judge.objects.create(name=f"fuzz-{m.name}", model=m) for m in judge_models]
    panel.judges.add(*judges)
    imported = Panel.objects.create(name="imported-panel", imported=True)
    jury_run = launch_jury(panel=panel, run=run, enqueue=False)
    score_inline(jury_run)
    others_item = (
        Assignment.objects.filter(item__study=study, clinician=other).exclude(item=disputed).first()
    )
    found = World(
        admin=admin,
        researcher=researcher,
        me=me,
        other=other,
        run=run,
        office=office,
        cases=cases,
        traces=traces,
        study=study,
        other_study=other_study,
        round=round_,
        open_item=mine[1],
        submitted_item=mine[0],
        others_item=others_item,
        disputed=disputed,
        panel=panel,
        imported_panel=imported,
        judge=judges[0],
        jury_run=jury_run,
        writer=writer,
    )
    # Ids of every kind of object, to post where another kind is expected.
    ids: set[int] = set()
    for model in (Run, Suite, ModelConfig, Study, Item, Clinician, User, Panel, Judge, JuryRun):
        ids.update(model.objects.values_list("pk", flat=True)[:30])
    ids.update(t.pk for t in traces)
    ids.update(office.tasks.values_list("pk", flat=True)[:3])
    ids.update(cases.tasks.values_list("pk", flat=True))
    found.ids = sorted(ids)
    for user in (admin, researcher, me.user, other.user):
        signer = Client()
        signer.force_login(user)
        SESSIONS[user.pk] = signer.cookies[django_settings.SESSION_COOKIE_NAME].value
    return found


# User id → the key of a session signed in as that user, made with the world.
SESSIONS: dict[int, str] = {}


def as_user(client, user):
    """Signed in as `user` through the session made with the world. A force_login here would
    write a session row and a login record for every example only for its rollback to drop
    them (~10 ms an example); an example that logs out or changes the session rolls back too."""
    key = SESSIONS.get(user.pk)
    if key is None:
        client.force_login(user)
    else:
        client.cookies[django_settings.SESSION_COOKIE_NAME] = key
    return client


# --- model configurations (admin) -------------------------------------------------------------

MODEL_FORM = {
    "name": "fuzz-model",
    "provider": "openai",
    "model_id": "gpt-x",
    "base_url": "",
    "api_key_env": "FUZZ_KEY",
    "price_in": "1.5",
    "price_out": "2",
    "max_concurrency": "4",
    "max_output_tokens": "1024",
    "enabled": "on",
}
DECIMAL_12_4 = Decimal("99999999.9999")


def model_rows_in_bounds() -> None:
    from patientagentbench.models import MAX_OUTPUT_TOKENS_CEILING

    for m in ModelConfig.objects.all():
        assert 0 < len(m.name) <= 120 and no_nul(m.name, m.model_id, m.api_key_env, m.base_url)
        assert m.provider in ModelConfig.Provider.values
        for price in (m.price_in, m.price_out):
            assert price.is_finite() and 0 <= price <= DECIMAL_12_4
        assert 0 <= m.max_concurrency < 2**31
        assert 1 <= m.max_output_tokens <= MAX_OUTPUT_TOKENS_CEILING


@FUZZ
@given(data=hostile_form(MODEL_FORM))
def test_model_create(client, caplog, world, data):
    with rolled_back():
        as_user(client, world.admin)
        sent = send(client, caplog, "post", reverse("model_create"), data, [ModelConfig])
        refused_keeps_rows(sent)
        model_rows_in_bounds()


@FUZZ
@given(data=hostile_form(MODEL_FORM))
def test_model_edit(client, caplog, world, data):
    with rolled_back():
        as_user(client, world.admin)
        writer = ModelConfig.objects.get(pk=world.writer.pk)
        before = model_to_dict(writer)
        sent = send(client, caplog, "post", reverse("model_edit", args=[writer.pk]), data)
        if sent.status != 302:
            writer.refresh_from_db()
            assert model_to_dict(writer) == before
        model_rows_in_bounds()


# --- launching runs and the launch preview (admin) --------------------------------------------


def launch_form(world: World) -> dict:
    return {
        "suite": str(world.office.pk),
        "models": [str(m.pk) for m in ModelConfig.objects.filter(name="sim-steady")],
        "tasks": [str(world.office.tasks.order_by("pk").first().pk)],
        "repetitions": "1",
        "temperatures": "0",
        "max_iterations": "3",
        "max_turns": "",
        "patient_model": "",
        "spend_limit": "",
    }


def run_rows_in_bounds() -> None:
    for run in Run.objects.all():
        assert 1 <= run.repetitions <= 100 and 1 <= run.max_iterations <= 50
        assert 1 <= run.max_turns <= 50
        assert run.temperatures and all(
            isinstance(t, int | float) and math.isfinite(t) and 0 <= t <= 2
            for t in run.temperatures
        )
        assert run.spend_limit is None or (
            run.spend_limit.is_finite() and 0 <= run.spend_limit <= DECIMAL_12_4
        )


@FUZZ
@given(st.data())
def test_run_launch(client, caplog, world, data):
    with rolled_back():
        as_user(client, world.admin)
        ids = dict.fromkeys(("suite", "models", "tasks", "patient_model"), world.ids)
        form = data.draw(hostile_form(launch_form(world), ids))
        sent = send(client, caplog, "post", reverse("run_launch"), form, [Run, Trace])
        refused_keeps_rows(sent)
        run_rows_in_bounds()


@FUZZ
@given(st.data())
def test_run_launch_preview_and_task_list(client, caplog, world, data):
    with rolled_back():
        as_user(client, world.admin)
        ids = dict.fromkeys(("suite", "models", "tasks", "patient_model"), world.ids)
        form = data.draw(hostile_form(launch_form(world), ids))
        method = data.draw(st.sampled_from(["get", "post"]))
        for url, headers in (
            (reverse("run_preview"), {"HX-Request": "true"}),
            (reverse("run_launch"), {"HX-Request": "true", "HX-Target": "tasks-field"}),
        ):
            how = "get" if url == reverse("run_launch") else method
            sent = send(client, caplog, how, url, form, [Run, Trace], headers)
            assert not sent.changed


# --- case set generation (researchers: template writer; admins: model writers too) ------------

CASE_SET_FORM = {"name": "fuzz-set", "count": "3", "seed": "1", "writer": "template"}


def case_set_jobs_in_bounds() -> None:
    for job in CaseSetJob.objects.all():
        assert 1 <= job.count <= 2000 and 0 <= job.seed < 2**63
        assert len(job.name) <= 120 and re.fullmatch(r"[-a-zA-Z0-9_]+", job.name)
        assert job.writer == "template" or ModelConfig.objects.filter(name=job.writer).exists()
        if job.writer != "template":
            assert job.count <= 200


@FUZZ
@given(st.data())
def test_case_set_generation(client, caplog, world, data):
    with rolled_back():
        user = data.draw(st.sampled_from([world.researcher, world.admin]))
        as_user(client, user)
        valid = dict(CASE_SET_FORM)
        if user == world.admin:
            valid |= {
                "writer": data.draw(st.sampled_from(["template", "fuzz-writer"])),
                "max_spend": "5",
            }
        form = data.draw(hostile_form(valid))
        sent = send(
            client, caplog, "post", reverse("case_set_list"), form, [CaseSetJob, Suite, Task]
        )
        refused_keeps_rows(sent)
        case_set_jobs_in_bounds()


# --- the review page: draft autosave, submit and revise (clinicians) -------------------------


def review_form(assignment: Assignment, score: str = "3") -> dict:
    form = {}
    for dimension in dimensions_of(assignment, rubric_of(assignment.item.study)):
        form[f"score-{dimension.key}"] = score
        form[f"why-{dimension.key}"] = "Seen."
    form |= {
        "flag": "unsafe",
        "comment-anchor": "turn-1",
        "comment-text": "Here.",
        "active": "12",
        "nonce": "fuzz-nonce",
    }
    return form


def answer_in_bounds(assignment: Assignment, answer: dict) -> None:
    from annotation.reviewing import FLAGS, MAX_COMMENTS, MAX_TEXT

    keys = {d.key: d for d in dimensions_of(assignment, rubric_of(assignment.item.study))}
    for key, value in (answer.get("scores") or {}).items():
        assert key in keys
        allowed = {1, 2, 3, 4, 5} | ({"na", None} if keys[key].scored else set())
        assert value in allowed, (key, value)
    for key, text in (answer.get("why") or answer.get("justifications") or {}).items():
        assert key in keys and 0 < len(text) <= MAX_TEXT and no_nul(text)
    assert set(answer.get("flags") or ()) <= set(FLAGS)
    comments = answer.get("comments") or []
    assert len(comments) <= MAX_COMMENTS
    assert all(len(c["text"]) <= MAX_TEXT and no_nul(c["text"], c["anchor"]) for c in comments)


def review_rows_in_bounds(assignment: Assignment) -> None:
    assignment.refresh_from_db()
    answer_in_bounds(assignment, assignment.draft or {})
    assert 0 <= assignment.seconds_on_item < 10**6
    for submission in Submission.objects.filter(assignment__clinician=assignment.clinician):
        answer_in_bounds(
            submission.assignment,
            {
                "scores": submission.scores,
                "justifications": submission.justifications,
                "flags": submission.flags,
                "comments": submission.comments,
            },
        )
        assert len(submission.nonce) <= 40 and no_nul(submission.nonce, submission.reason)


@FUZZ
@given(st.data())
def test_review_draft_autosave(client, caplog, world, data):
    with rolled_back():
        item = world.open_item
        as_user(client, world.me.user)
        form = data.draw(hostile_form(review_form(item)))
        url = reverse("review_draft", args=[item.code])
        sent = send(client, caplog, "post", url, form, [Submission], {"HX-Request": "true"})
        assert not sent.changed and sent.status in (200, 400)
        review_rows_in_bounds(item)


@FUZZ
@given(st.data())
def test_review_submit(client, caplog, world, data):
    with rolled_back():
        item = world.open_item
        as_user(client, world.me.user)
        form = data.draw(hostile_form(review_form(item)))
        url = reverse("review_submit", args=[item.code])
        sent = send(client, caplog, "post", url, form, [Submission])
        refused_keeps_rows(sent)
        review_rows_in_bounds(item)


@FUZZ
@given(st.data())
def test_review_revise(client, caplog, world, data):
    with rolled_back():
        item = world.submitted_item
        as_user(client, world.me.user)
        form = data.draw(hostile_form(review_form(item, "2") | {"reason": "Looked again."}))
        url = reverse("review_revise", args=[item.code])
        sent = send(client, caplog, "post", url, form, [Submission])
        refused_keeps_rows(sent)
        review_rows_in_bounds(item)


CODES = st.one_of(st.sampled_from(["nope", "0", "A" * 300]), control, nul, surrogates, huge)


@FEW
@given(st.data())
def test_review_pages_with_foreign_or_hostile_codes(client, caplog, world, data):
    """Someone else's item is 403, an unknown code 404; the study filter of "next" too."""
    with rolled_back():
        as_user(client, world.me.user)
        code = data.draw(st.one_of(st.just(world.others_item.code), CODES))
        form = data.draw(hostile_form(review_form(world.open_item)))
        for name in ("review_draft", "review_submit", "review_revise"):
            url = "/review/" + quote_from_bytes(code.encode("utf-8", "surrogatepass"), safe="")
            url += "/" + name.removeprefix("review_") + "/"
            sent = send(client, caplog, "post", url, form, [Submission])
            assert sent.status in (403, 404) and not sent.changed
        study = data.draw(st.one_of(st.just(world.other_study.code), CODES))
        send(client, caplog, "get", reverse("review_next"), {"study": study})
        if code != world.others_item.code:
            send(client, caplog, "get", url.removesuffix("revise/") + "feedback/", {})


# --- adjudication and references (researchers) ------------------------------------------------


def adjudications_in_bounds() -> None:
    from annotation.adjudication import MAX_REASON

    for decision in Adjudication.objects.all():
        assert decision.score is None or 1 <= decision.score <= 5
        assert decision.reason.strip() and len(decision.reason) <= MAX_REASON
        assert no_nul(decision.reason, decision.dimension)


@FUZZ
@given(st.data())
def test_adjudication_decision(client, caplog, world, data):
    with rolled_back():
        as_user(client, world.researcher)
        prefix = f"d{world.disputed.pk}-clinical_safety"
        form = data.draw(
            hostile_form({f"{prefix}-score": "2", f"{prefix}-reason": "Late but present."})
        )
        study_pk = data.draw(
            st.sampled_from([world.study.pk, world.other_study.pk, world.round.pk])
        )
        item_pk = data.draw(st.sampled_from([world.disputed.pk, world.open_item.item_id, 999999]))
        dimension = data.draw(st.sampled_from(["clinical_safety", "triage_quality", "no-such"]))
        url = reverse("research_adjudicate", args=[study_pk, item_pk, dimension])
        headers = data.draw(st.sampled_from([{}, {"HX-Request": "true"}]))
        sent = send(client, caplog, "post", url, form, [Adjudication], headers)
        if not headers:  # with htmx a decision answers 200 too (the decided dispute)
            refused_keeps_rows(sent)
        if sent.changed:
            assert (study_pk, item_pk, dimension) == (
                world.study.pk,
                world.disputed.pk,
                "clinical_safety",
            )
        adjudications_in_bounds()


def reference_form(world: World) -> dict:
    form = {}
    for dimension in adjudication.rubric_of(world.round).scored:
        form[f"score-{dimension.key}"] = "4"
        form[f"why-{dimension.key}"] = "Because."
    return form


def references_in_bounds() -> None:
    for reference in Item.objects.exclude(reference=None).values_list("reference", flat=True):
        for entry in reference.values():
            assert entry["score"] is None or 1 <= entry["score"] <= 5
            assert len(entry.get("why", "")) <= 4000 and no_nul(entry.get("why", ""))


@FUZZ
@given(st.data())
def test_reference_scores(client, caplog, world, data):
    with rolled_back():
        as_user(client, world.researcher)
        item = world.round.items.get()
        form = data.draw(hostile_form(reference_form(world)))
        before = Item.objects.get(pk=item.pk).reference
        sent = send(
            client, caplog, "post", reverse("research_item_reference", args=[item.pk]), form
        )
        if sent.status != 302:
            assert Item.objects.get(pk=item.pk).reference == before
        references_in_bounds()


@FUZZ
@given(source=ids_or_hostile([1, 2, 3, 999999]))
def test_references_adopt_a_consensus(client, caplog, world, source):
    with rolled_back():
        as_user(client, world.researcher)
        url = reverse("research_references", args=[world.round.pk])
        sent = send(client, caplog, "post", url, {"source": source}, [Item, Study])
        assert not sent.changed
        references_in_bounds()


# --- studies and calibration rounds (researchers) ---------------------------------------------


def study_form(world: World) -> dict:
    return {
        "name": "Fuzzed study",
        "runs": [str(world.run.pk)],
        "n_items": "1",
        "seed": "1",
        "outcome": "",
        "overlap_clinical": "1",
        "overlap_operations": "0",
        "reference_percent": "0",
        "clinicians": [str(world.me.pk), str(world.other.pk)],
        "adjudication_threshold": "2",
        "instructions": "",
    }


def round_form(world: World) -> dict:
    return {
        "name": "Fuzzed round",
        "source": "explicit",
        "trace_ids": str(world.traces[5].pk),
        "source_round": "",
        "n_items": "",
        "seed": "1",
        "clinicians": [str(world.me.pk), str(world.other.pk)],
        "feedback": "immediate",
        "min_exact": "0.5",
        "min_adjacent": "0.8",
        "min_alpha": "0.4",
    }


STUDY_IDS = ("runs", "clinicians", "source_round", "trace_ids", "models")


def studies_in_bounds() -> None:
    for study in Study.objects.all():
        assert study.name.strip() and len(study.name) <= 200 and no_nul(study.name)
        assert -(2**63) <= study.seed < 2**63
        assert all(0 <= n <= 20 for n in study.overlap.values())
        assert 0 <= study.reference_share <= 1 and 1 <= study.adjudication_threshold <= 4
        for value in (study.min_exact, study.min_adjacent, study.min_alpha):
            assert math.isfinite(value) and -1 <= value <= 1
        assert 0 <= study.min_exact <= 1 and 0 <= study.min_adjacent <= 1
        assert no_nul(study.instructions)


@FUZZ
@given(st.data())
def test_study_creation(client, caplog, world, data):
    with rolled_back():
        as_user(client, world.researcher)
        form = data.draw(hostile_form(study_form(world), dict.fromkeys(STUDY_IDS, world.ids)))
        watch = [Study, Item, Assignment]
        sent = send(client, caplog, "post", reverse("research_study_new"), form, watch)
        refused_keeps_rows(sent)
        studies_in_bounds()


@FUZZ
@given(st.data())
def test_calibration_round_creation(client, caplog, world, data):
    with rolled_back():
        as_user(client, world.researcher)
        valid = round_form(world)
        valid["source"] = data.draw(st.sampled_from(["explicit", "sample", "round"]))
        valid["n_items"], valid["source_round"] = "1", str(world.round.pk)
        form = data.draw(hostile_form(valid, dict.fromkeys(STUDY_IDS, world.ids)))
        watch = [Study, Item, Assignment]
        sent = send(client, caplog, "post", reverse("research_round_new"), form, watch)
        refused_keeps_rows(sent)
        studies_in_bounds()


@FUZZ
@given(st.data())
def test_study_preview(client, caplog, world, data):
    with rolled_back():
        as_user(client, world.researcher)
        valid = study_form(world) | round_form(world)
        form = data.draw(hostile_form(valid, dict.fromkeys(STUDY_IDS, world.ids)))
        form["kind"] = data.draw(st.one_of(st.sampled_from(["study", "calibration"]), HOSTILE))
        sent = send(client, caplog, "get", reverse("research_study_preview"), form, [Study, Item])
        assert not sent.changed


# --- people (researchers) ---------------------------------------------------------------------

INVITE_FORM = {
    "email": "new.person@example.org",
    "name": "New Person",
    "track": "clinical",
    "specialty": "",
    "years": "5",
}


def people_in_bounds() -> None:
    for clinician in Clinician.objects.select_related("user"):
        assert clinician.years_in_practice is None or 0 <= clinician.years_in_practice <= 70
        assert clinician.track in Clinician.Track.values
        assert len(clinician.specialty) <= 120 and no_nul(clinician.specialty)
        user = clinician.user
        assert len(user.first_name) <= 150 and no_nul(user.first_name, user.email, user.username)


@FUZZ
@given(form=hostile_form(INVITE_FORM))
def test_invite(client, caplog, world, form):
    with rolled_back():
        as_user(client, world.researcher)
        sent = send(client, caplog, "post", reverse("research_people"), form, [User, Clinician])
        refused_keeps_rows(sent)
        people_in_bounds()


@FUZZ
@given(form=hostile_form({k: v for k, v in INVITE_FORM.items() if k != "email"}))
def test_profile_edit(client, caplog, world, form):
    with rolled_back():
        as_user(client, world.researcher)
        before = model_to_dict(Clinician.objects.get(pk=world.other.pk))
        url = reverse("research_person", args=[world.other.pk])
        sent = send(client, caplog, "post", url, form, [User, Clinician])
        if sent.status != 302:
            assert model_to_dict(Clinician.objects.get(pk=world.other.pk)) == before
        people_in_bounds()


# --- the jury: panels, judges, launching and resuming a scoring (researchers) ----------------


def jury_rows_in_bounds() -> None:
    from jury.forms import MAX_REPEAT

    for judge in Judge.objects.all():
        assert math.isfinite(judge.temperature) and 0 <= judge.temperature <= 2
        assert no_nul(judge.name, judge.prompt_version) and len(judge.prompt_version) <= 20
    for panel in Panel.objects.all():
        assert panel.aggregation in Panel.Aggregation.values and no_nul(panel.name)
        assert panel.imported or panel.judges.exists()
    for jury_run in JuryRun.objects.all():
        assert 1 <= jury_run.repeat <= MAX_REPEAT
        assert jury_run.spend_limit is None or (
            jury_run.spend_limit.is_finite() and 0 <= jury_run.spend_limit <= DECIMAL_12_4
        )


@FUZZ
@given(st.data())
def test_jury_panel_new(client, caplog, world, data):
    with rolled_back():
        as_user(client, world.researcher)
        valid = {
            "name": "fuzz-new-panel",
            "judges": [str(world.judge.pk)],
            "aggregation": "mean",
            "rubric": "patientagentbench@1",
        }
        form = data.draw(hostile_form(valid, {"judges": world.ids}))
        sent = send(client, caplog, "post", reverse("jury_panel_new"), form, [Panel, Judge])
        refused_keeps_rows(sent)
        jury_rows_in_bounds()


@FUZZ
@given(st.data())
def test_jury_judge_new_and_edit(client, caplog, world, data):
    with rolled_back():
        as_user(client, world.researcher)
        valid = {
            "name": "fuzz-new-judge",
            "model": str(world.judge.model_id),
            "prompt_version": "1",
            "temperature": "0",
        }
        form = data.draw(hostile_form(valid, {"model": world.ids}))
        url = data.draw(
            st.sampled_from(
                [reverse("jury_judge_new"), reverse("jury_judge_edit", args=[world.judge.pk])]
            )
        )
        before = Judge.objects.filter(pk=world.judge.pk).values().get()
        sent = send(client, caplog, "post", url, form, [Judge, Panel])
        refused_keeps_rows(sent)
        if sent.status != 302:
            assert Judge.objects.filter(pk=world.judge.pk).values().get() == before
        jury_rows_in_bounds()


@FUZZ
@given(st.data())
def test_jury_launch(client, caplog, world, data):
    with rolled_back():
        as_user(client, world.researcher)
        valid = {"panel": str(world.panel.pk), "repeat": "1", "spend_limit": ""}
        form = data.draw(hostile_form(valid, {"panel": world.ids}))
        url = reverse("jury_launch", args=[world.run.pk])
        sent = send(client, caplog, "post", url, form, [JuryRun, JudgeJob, Verdict])
        refused_keeps_rows(sent)
        jury_rows_in_bounds()


@FUZZ
@given(form=hostile_form({"spend_limit": "5"}))
def test_jury_resume(client, caplog, world, form):
    with rolled_back():
        as_user(client, world.researcher)
        url = reverse("jury_run_resume", args=[world.jury_run.pk])
        sent = send(client, caplog, "post", url, form, [JuryRun, JudgeJob, Verdict])
        assert not sent.changed
        jury_rows_in_bounds()


# --- logging in and passwords -----------------------------------------------------------------


@FUZZ
@given(form=hostile_form({"username": "fuzz-researcher", "password": "wrong-password"}))
def test_login(client, caplog, world, form):
    with rolled_back():
        sent = send(client, caplog, "post", reverse("login"), form, [User, Clinician])
        assert not sent.changed
        assert "_auth_user_id" not in client.session


@FEW
@given(st.data())
def test_password_change_reset_and_set(client, caplog, world, data):
    with rolled_back():
        user = world.me.user
        hashed = User.objects.get(pk=user.pk).password
        new = {"new_password1": "a-new-long-password", "new_password2": "a-new-long-password"}
        # Change, logged in.
        as_user(client, user)
        form = data.draw(hostile_form({"old_password": "wrong"} | new))
        send(client, caplog, "post", reverse("password_change"), form, [User])
        assert User.objects.get(pk=user.pk).password == hashed
        client.logout()
        # Ask for a reset link.
        form = data.draw(hostile_form({"email": "dr-me@example.org"}))
        sent = send(client, caplog, "post", reverse("password_reset"), form, [User])
        assert not sent.changed
        # Set a password from a reset link: a refused one changes nothing.
        uid = urlsafe_base64_encode(force_bytes(user.pk))
        token = default_token_generator.make_token(user)
        link = reverse("password_reset_confirm", args=[uid, token])
        follow = client.get(link)
        assert follow.status_code in (200, 302)
        target = follow.get("Location", link)
        form = data.draw(
            hostile_form({"new_password1": "x", "new_password2": "y"})  # mismatched: refused
        )
        if form.get("new_password1") == form.get("new_password2"):
            form["new_password2"] = "different"
        send(client, caplog, "post", target, form, [User])
        assert User.objects.get(pk=user.pk).password == hashed


# --- query parameters: reports, the runs list, dashboards, the jury's pages -------------------

EVERY_MODEL = [Run, Trace, Study, Item, Assignment, Submission, Adjudication, JuryRun, Verdict]


@FUZZ
@given(st.data())
def test_run_list_filters(client, caplog, world, data):
    with rolled_back():
        as_user(client, world.researcher)
        query = data.draw(
            hostile_form(
                {"suite": str(world.cases.pk), "status": "finished", "page": "1"},
                {"suite": world.ids},
            )
        )
        sent = send(client, caplog, "get", reverse("run_list"), query, EVERY_MODEL)
        assert sent.status == 200 and not sent.changed


@FEW
@given(st.data())
def test_report_query_parameters(client, caplog, world, data):
    with rolled_back():
        as_user(client, world.researcher)
        query = data.draw(hostile_form({"malformed": "keep"}))
        pk = world.run.pk
        for url in (
            reverse("run_report", args=[pk]),
            reverse("report_statistics_json", args=[pk]),
            reverse("report_table_csv", args=[pk, "models"]),
            reverse("report_figure_html", args=[pk, "tss"]),
        ):
            sent = send(client, caplog, "get", url, query, EVERY_MODEL)
            assert sent.status in (200, 404) and not sent.changed


DASHBOARD_QUERY = {
    "study": "1",
    "run": "1",
    "model": "sim-steady",
    "attribute": "category=refills",
    "panel": "1",
    "judge": "1",
    "margin": "0.1",
    "breakdown": "model",
    "dimension": "clinical_safety",
    "realism_by": "category",
    "stamp": "x",
}
PLANNER_QUERY = {"pilot": "1", "items": "20, 40", "overlaps": "2, 3", "target": "0.2", "panel": "1"}


@FEW
@given(st.data())
def test_dashboard_query_parameters(client, caplog, world, data):
    with rolled_back():
        as_user(client, world.researcher)
        ids = dict.fromkeys(("study", "run", "panel", "judge", "pilot"), world.ids)
        query = data.draw(hostile_form(DASHBOARD_QUERY | PLANNER_QUERY, ids))
        page = data.draw(st.sampled_from(["jury", "raters", "quality", "planner"]))
        headers = data.draw(st.sampled_from([{}, {"HX-Request": "true"}]))
        sent = send(
            client, caplog, "get", f"/research/dashboards/{page}/", query, EVERY_MODEL, headers
        )
        assert sent.status in (200, 204) and not sent.changed
        for kind in ("tables", "figures"):
            ext = "csv" if kind == "tables" else "html"
            url = f"/research/dashboards/{page}/{kind}/summary.{ext}"
            sent = send(client, caplog, "get", url, query, EVERY_MODEL)
            assert sent.status in (200, 404) and not sent.changed


@FEW
@given(st.data())
def test_jury_and_study_page_query_parameters(client, caplog, world, data):
    with rolled_back():
        as_user(client, world.researcher)
        query = data.draw(
            hostile_form(
                {
                    "model": "sim-steady",
                    "repetition": "all",
                    "by": "category",
                    "before": "1:1:1",
                    "after": "x",
                    "versions": "all",
                }
            )
        )
        run, panel = world.run.pk, world.panel.pk
        for url in (
            reverse("jury_verdicts", args=[run, panel]),
            reverse("jury_leaderboard", args=[run, panel]),
            reverse("jury_consistency", args=[panel]),
            reverse("research_study_export", args=[world.study.pk]),
            reverse("review_next"),
        ):
            sent = send(client, caplog, "get", url, query, EVERY_MODEL)
            assert sent.status in (200, 403, 404) and not sent.changed


# --- buttons: posts that name a row in their URL ---------------------------------------------

BUTTONS = [
    "model_toggle",
    "run_cancel",
    "run_resume",
    "research_study_status",
    "research_person_deactivate",
    "research_person_reactivate",
    "research_person_link",
    "jury_run_cancel",
    "jury_run_resume",
]


@FEW
@given(st.data())
def test_buttons_with_foreign_ids(client, caplog, world, data):
    """Every button's row id may name another kind of row, a missing one or one past 64 bits;
    the body is ignored, whatever it holds."""
    name = data.draw(st.sampled_from(BUTTONS))
    pk = data.draw(st.sampled_from([*world.ids, 0, 999999, 2**63 - 1, 10**30]))
    body = data.draw(hostile_form({"back": "references", "spend_limit": "1"}))
    with rolled_back():
        as_user(client, world.admin)
        sent = send(client, caplog, "post", reverse(name, args=[pk]), body)
        assert sent.status in (200, 302, 404)


# --- the wrong role: refused (403, or 404 for what it may not know of), never a 500 ----------


def forbidden(world: World) -> list[tuple[str, str, dict]]:
    """(who, url, a valid form) for every form above, posted by a role that may not use it."""
    w = world
    prefix = f"d{w.disputed.pk}-clinical_safety"
    admin_forms = [
        (reverse("model_create"), MODEL_FORM),
        (reverse("model_edit", args=[w.writer.pk]), MODEL_FORM),
        (reverse("run_launch"), launch_form(w)),
        (reverse("run_preview"), launch_form(w)),
    ]
    staff_forms = [
        (reverse("case_set_list"), CASE_SET_FORM),
        (reverse("research_study_new"), study_form(w)),
        (reverse("research_round_new"), round_form(w)),
        (reverse("research_people"), INVITE_FORM),
        (reverse("research_person", args=[w.other.pk]), INVITE_FORM),
        (
            reverse("research_adjudicate", args=[w.study.pk, w.disputed.pk, "clinical_safety"]),
            {f"{prefix}-score": "2", f"{prefix}-reason": "x"},
        ),
        (reverse("research_item_reference", args=[w.round.items.get().pk]), reference_form(w)),
        (reverse("research_references", args=[w.round.pk]), {"source": "1"}),
        (reverse("jury_panel_new"), {"name": "p", "judges": str(w.judge.pk)}),
        (reverse("jury_judge_new"), {"name": "j", "model": str(w.judge.model_id)}),
        (reverse("jury_launch", args=[w.run.pk]), {"panel": str(w.panel.pk), "repeat": "1"}),
        (reverse("jury_run_resume", args=[w.jury_run.pk]), {"spend_limit": "1"}),
    ]
    clinician_forms = [
        (reverse("review_draft", args=[w.open_item.code]), review_form(w.open_item)),
        (reverse("review_submit", args=[w.open_item.code]), review_form(w.open_item)),
        (reverse("review_revise", args=[w.submitted_item.code]), review_form(w.submitted_item)),
    ]
    return (
        [("clinician", url, form) for url, form in admin_forms + staff_forms]
        + [("researcher", url, form) for url, form in admin_forms + clinician_forms]
        + [("admin", url, form) for url, form in clinician_forms]
        + [("nobody", url, form) for url, form in admin_forms + staff_forms + clinician_forms]
    )


@settings(FUZZ, max_examples=40)
@given(st.data())
def test_a_role_that_may_not_post_is_refused(client, caplog, world, data):
    with rolled_back():
        who, url, valid = data.draw(st.sampled_from(forbidden(world)))
        form = data.draw(st.one_of(st.just(valid), hostile_form(valid, {})))
        users = {"clinician": world.me.user, "researcher": world.researcher, "admin": world.admin}
        if who in users:
            as_user(client, users[who])
        else:
            client.logout()
        watch = [ModelConfig, Run, CaseSetJob, Study, Item, Assignment, Submission, Adjudication]
        watch += [User, Clinician, Panel, Judge, JuryRun]
        sent = send(client, caplog, "post", url, form, watch)
        assert not sent.changed
        if who == "nobody":
            assert sent.status == 302 and "/accounts/login/" in sent.response["Location"]
        else:
            assert sent.status in (403, 404), (who, url, sent.status)


# --- known hostile values, one field at a time --------------------------------------------------
# Each case posts a valid form with one field replaced: the values the fuzzing above found,
# kept as plain regression cases so they run on every database whatever the examples drawn.


@dataclass(frozen=True)
class Target:
    who: str  # a World attribute: admin, researcher or me (the clinician)
    url: object  # World -> url
    valid: object  # World -> form
    watch: tuple
    bounds: object  # World -> None, asserting the stored rows are in bounds
    method: str = "post"
    headers: dict = field(default_factory=dict)


def _review_bounds(name):
    return lambda w: review_rows_in_bounds(getattr(w, name))


TARGETS = {
    "model_create": Target(
        "admin",
        lambda w: reverse("model_create"),
        lambda w: MODEL_FORM,
        (ModelConfig,),
        lambda w: model_rows_in_bounds(),
    ),
    "case_set": Target(
        "researcher",
        lambda w: reverse("case_set_list"),
        lambda w: CASE_SET_FORM,
        (CaseSetJob, Suite, Task),
        lambda w: case_set_jobs_in_bounds(),
    ),
    "run_launch": Target(
        "admin",
        lambda w: reverse("run_launch"),
        launch_form,
        (Run, Trace),
        lambda w: run_rows_in_bounds(),
    ),
    "run_preview": Target(
        "admin",
        lambda w: reverse("run_preview"),
        launch_form,
        (Run, Trace),
        lambda w: run_rows_in_bounds(),
        headers={"HX-Request": "true"},
    ),
    "draft": Target(
        "me",
        lambda w: reverse("review_draft", args=[w.open_item.code]),
        lambda w: review_form(w.open_item),
        (Submission,),
        _review_bounds("open_item"),
        headers={"HX-Request": "true"},
    ),
    "submit": Target(
        "me",
        lambda w: reverse("review_submit", args=[w.open_item.code]),
        lambda w: review_form(w.open_item),
        (Submission,),
        _review_bounds("open_item"),
    ),
    "revise": Target(
        "me",
        lambda w: reverse("review_revise", args=[w.submitted_item.code]),
        lambda w: review_form(w.submitted_item, "2") | {"reason": "Looked again."},
        (Submission,),
        _review_bounds("submitted_item"),
    ),
    "references": Target(
        "researcher",
        lambda w: reverse("research_references", args=[w.round.pk]),
        lambda w: {"source": "1"},
        (Item, Study),
        lambda w: references_in_bounds(),
    ),
    "study_new": Target(
        "researcher",
        lambda w: reverse("research_study_new"),
        study_form,
        (Study, Item, Assignment),
        lambda w: studies_in_bounds(),
    ),
    "round_new": Target(
        "researcher",
        lambda w: reverse("research_round_new"),
        round_form,
        (Study, Item, Assignment),
        lambda w: studies_in_bounds(),
    ),
    "invite": Target(
        "researcher",
        lambda w: reverse("research_people"),
        lambda w: INVITE_FORM,
        (User, Clinician),
        lambda w: people_in_bounds(),
    ),
    "jury_panel": Target(
        "researcher",
        lambda w: reverse("jury_panel_new"),
        lambda w: {
            "name": "p2",
            "judges": str(w.judge.pk),
            "aggregation": "mean",
            "rubric": "patientagentbench@1",
        },
        (Panel,),
        lambda w: jury_rows_in_bounds(),
    ),
    "jury_launch": Target(
        "researcher",
        lambda w: reverse("jury_launch", args=[w.run.pk]),
        lambda w: {"panel": str(w.panel.pk), "repeat": "1", "spend_limit": ""},
        (JuryRun, JudgeJob),
        lambda w: jury_rows_in_bounds(),
    ),
    "jury_resume": Target(
        "researcher",
        lambda w: reverse("jury_run_resume", args=[w.jury_run.pk]),
        lambda w: {"spend_limit": "5"},
        (JuryRun, JudgeJob),
        lambda w: jury_rows_in_bounds(),
    ),
    "login": Target(
        "nobody",
        lambda w: reverse("login"),
        lambda w: {"username": "fuzz-researcher", "password": "wrong"},
        (User,),
        lambda w: None,
    ),
    "dashboard": Target(
        "researcher",
        lambda w: reverse("research_dashboard_jury"),
        lambda w: {},
        (Study,),
        lambda w: None,
        method="get",
    ),
    "planner": Target(
        "researcher",
        lambda w: reverse("research_dashboard_planner"),
        lambda w: {"pilot": str(w.study.pk)},
        (Study,),
        lambda w: None,
        method="get",
    ),
    "study_preview": Target(
        "researcher",
        lambda w: reverse("research_study_preview"),
        study_form,
        (Study, Item),
        lambda w: None,
        method="get",
    ),
    "review_next": Target(
        "me",
        lambda w: reverse("review_next"),
        lambda w: {},
        (Submission,),
        lambda w: None,
        method="get",
    ),
}

BIG = "9" * 30
KNOWN = [
    ("model_create", "price_in", "-1"),
    ("model_create", "price_out", "-0.0001"),
    ("model_create", "max_output_tokens", BIG),
    ("model_create", "name", "a\x00b"),
    ("case_set", "seed", BIG),
    ("case_set", "seed", "9223372036854775808"),
    ("case_set", "count", BIG),
    ("case_set", "name", "x" * 100_000),
    ("run_launch", "models", BIG),
    ("run_launch", "tasks", "-" + BIG),
    ("run_launch", "suite", BIG),
    ("run_launch", "spend_limit", "1e20"),
    ("run_launch", "spend_limit", "100000000"),
    ("run_launch", "temperatures", "nan"),
    ("run_launch", "temperatures", "1e309"),
    ("run_preview", "repetitions", BIG),
    ("run_preview", "tasks", BIG),
    ("draft", "why-clinical_safety", "a\x00b"),
    ("draft", "comment-text", "\x00"),
    ("draft", "score-clinical_safety", "\x00"),
    ("draft", "active", "9" * 5000),
    ("submit", "nonce", "\x00"),
    ("submit", "nonce", "x" * 100_000),
    ("revise", "reason", "why\x00"),
    ("references", "source", "1.0"),
    ("references", "source", "abc"),
    ("references", "source", "\x00"),
    ("references", "source", BIG),
    ("study_new", "seed", BIG),
    ("study_new", "overlap_clinical", "abc"),
    ("study_new", "runs", BIG),
    ("study_new", "clinicians", "-" + BIG),
    ("study_new", "name", "a\x00"),
    ("round_new", "trace_ids", "²"),
    ("round_new", "trace_ids", BIG),
    ("round_new", "seed", BIG),
    ("round_new", "min_alpha", "NaN"),
    ("invite", "email", "a\x00@example.org"),
    ("invite", "years", BIG),
    ("jury_panel", "judges", BIG),
    ("jury_panel", "name", "\x00"),
    ("jury_launch", "spend_limit", "100000000"),
    ("jury_launch", "spend_limit", "1e20"),
    ("jury_launch", "panel", str(10**30)),
    ("jury_resume", "spend_limit", "100000000"),
    ("login", "username", "\x00"),
    ("login", "username", "x" * 100_000),
    ("login", "password", "\x00"),
    ("dashboard", "study", BIG),
    ("dashboard", "study", "²"),
    ("dashboard", "run", "-" + BIG),
    ("dashboard", "model", "\x00"),
    ("dashboard", "panel", "²"),
    ("planner", "pilot", "²"),
    ("planner", "pilot", BIG),
    ("planner", "items", "²"),
    ("planner", "overlaps", "², 3"),
    ("planner", "target", "nan"),
    ("study_preview", "seed", BIG),
    ("study_preview", "runs", BIG),
    ("study_preview", "n_items", "1e309"),
    ("review_next", "study", "\x00"),
]


@pytest.mark.parametrize(("target", "name", "value"), KNOWN, ids=lambda v: repr(v)[:24])
def test_known_hostile_value(client, caplog, world, target, name, value):
    spec = TARGETS[target]
    if spec.who != "nobody":
        as_user(client, getattr(world, spec.who) if spec.who != "me" else world.me.user)
    form = dict(spec.valid(world)) | {name: value}
    sent = send(client, caplog, spec.method, spec.url(world), form, spec.watch, spec.headers)
    if spec.method == "post":
        refused_keeps_rows(sent)
    else:
        assert not sent.changed
    spec.bounds(world)


@pytest.mark.parametrize("code", ["\x00", "a\x00b", BIG, "x" * 5000])
@pytest.mark.parametrize("page", ["", "draft/", "submit/", "feedback/"])
def test_hostile_review_codes(client, caplog, world, code, page):
    as_user(client, world.me.user)
    url = "/review/" + quote_from_bytes(code.encode(), safe="") + "/" + page
    sent = send(client, caplog, "post" if page in ("draft/", "submit/") else "get", url, {})
    assert sent.status == 404
    url = "/review/round/" + quote_from_bytes(code.encode(), safe="") + "/"
    assert send(client, caplog, "get", url, {}).status == 404
