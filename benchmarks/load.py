"""Load: many clinicians scoring at once, against gunicorn on PostgreSQL (or SQLite).

Each simulated clinician is a browser of their own (cookies, CSRF tokens read from the pages,
htmx headers on autosave): log in, open the review list, continue to the next item, save the
draft a few times as they score, submit (now and then twice at once, like a double click),
follow the redirect to the next item, and every few items go back to the list. They run as
fast as the server answers for `--seconds`, so requests queue for the `--workers` processes
and latency is about clinicians / throughput; `--think 1` paces each clinician at about one
action a second instead (still many times faster than anyone reads a conversation). Logins
come first, spread over a few seconds, and are timed apart from the scoring window. Static
files are left out: a browser has them cached after the first page.

Prints requests/s and p50/p95/p99 latency per endpoint against the target (p95 < 200 ms),
then checks the database: every submit that was answered with success has exactly one
current submission with what was sent, nothing was stored twice, nothing was stored that
the clinician was not told about, and every acknowledged draft is what the database holds
(and what a reload of the page shows).

`--sqlite` serves a fresh SQLite file with the demo's settings instead (WAL, a 30 s busy
timeout, immediate transactions), where every write takes the one database lock: the test
there is that nobody is told "database is locked" (counted from the server log).

Setup: a fresh PostgreSQL database (dropped at the end, also on failure), migrations, a
scenario case set with conversations from the simulated agents, cloned so there is enough
work for the whole run, the clinicians (half per track), a few small studies locked until a
calibration round nobody has passed, and the study scored, with one clinician per track on
each item; then gunicorn with DEBUG off on 127.0.0.1.

    .venv/bin/python benchmarks/load.py [--seconds 60] [--clinicians 30] [--workers 4]
                                         [--think 0] [--items N] [--quick] [--sqlite]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import http.cookiejar
import math
import os
import random
import re
import secrets
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

PG_ADMIN_URL = os.environ.get("BENCH_PG_ADMIN_URL", "postgres://postgres@127.0.0.1:5432/postgres")
TARGET_P95_MS = 200
PASSWORD = "load-bench-" + secrets.token_hex(8)
CASES, CASE_SEED, STUDY_SEED = 20, 20260418, 7
SIMULATED_MODELS = ["sim-steady", "sim-jittery", "sim-careless"]
# Work to seed, with room to spare: an item is about six requests, so one clinician alone
# scores at most ~5 items/s (requests of 30 ms and more), and a sync worker serves at most ~10
# items/s (15 ms and more); clinicians who still run out are reported.
MAX_ITEMS_PER_CLINICIAN_SECOND = 5
MAX_ITEMS_PER_WORKER_SECOND = 10
# Studies that need a calibration round nobody has passed, queued before the load study: the
# queue must look past them on every /review/next/ and submit (one query each, before).
LOCKED_STUDIES, LOCKED_ITEMS = 5, 4
HOME_EVERY = 5  # items between visits to the review list
NEXT_EVERY = 3  # items between asking /review/next/ (the round page's and welcome's ⏎)
RELOAD_EVERY = 4  # items between reloads that check the draft came back
DOUBLE_SUBMIT_SHARE = 0.1
WARM_SECONDS = 2.0  # a worker still importing the app takes longer than this to answer
ARRIVAL = ["login page", "login", "introduction"]
SCORING = ["review list", "next item", "item page", "draft save", "submit"]


# --- database and server ---------------------------------------------------------------------


@contextlib.contextmanager
def fresh_database(name: str):
    """A new PostgreSQL database for this run; dropped on the way out, whatever happened."""
    import psycopg

    with psycopg.connect(PG_ADMIN_URL, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        conn.execute(f"CREATE DATABASE {name}")
    try:
        yield PG_ADMIN_URL.rsplit("/", 1)[0] + f"/{name}"
    finally:
        with contextlib.suppress(Exception):
            from django.db import connections

            connections.close_all()
        with psycopg.connect(PG_ADMIN_URL, autocommit=True) as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


@contextlib.contextmanager
def database(sqlite: bool, var_dir: str):
    """The run's database URL: a SQLite file in the run's folder, or a fresh PostgreSQL one."""
    if sqlite:
        yield f"sqlite:///{Path(var_dir) / 'load.sqlite3'}"
        return
    with fresh_database(f"pab_load_{os.getpid()}") as url:
        yield url


def database_version(connection) -> str:
    if connection.vendor == "sqlite":
        import sqlite3

        return f"SQLite {sqlite3.sqlite_version}"
    return f"PostgreSQL {connection.cursor().connection.info.server_version // 10000}"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def gunicorn(workers: int, log_path: Path):
    """gunicorn on a free port of 127.0.0.1 with this process's environment, warmed up:
    (base URL, master pid)."""
    import httpx2

    port = free_port()
    command = [
        str(Path(sys.executable).parent / "gunicorn"),
        "config.wsgi",
        f"--workers={workers}",
        f"--bind=127.0.0.1:{port}",
        "--log-level=warning",
        # A worker importing the app on a busy machine outlasted the default 30 s and was
        # killed before it served anything; a request that slow shows as latency here.
        "--timeout=120",
    ]
    with open(log_path, "w") as log:
        server = subprocess.Popen(command, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120  # four workers importing Django on a busy machine
        while True:
            if server.poll() is not None:
                raise SystemExit(f"gunicorn exited ({server.returncode}):\n{tail(log_path)}")
            with contextlib.suppress(httpx2.HTTPError):
                if httpx2.get(f"{base}/healthz", timeout=1).status_code == 200:
                    break
            if time.monotonic() > deadline:
                raise SystemExit(f"gunicorn did not answer within 120 s:\n{tail(log_path)}")
            time.sleep(0.2)
        warm_up(base, workers)
        yield base, server.pid
    finally:
        server.send_signal(signal.SIGTERM)
        try:
            server.wait(timeout=15)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


def warm_up(base: str, workers: int) -> None:
    """Wait until every worker has booted (each imports the app after the fork, and the URLs
    at its first request, seconds on a busy machine): rounds of concurrent requests, two per
    worker, until two rounds in a row are answered within WARM_SECONDS."""
    import httpx2

    def fetch(_) -> float:
        started = time.perf_counter()
        with contextlib.suppress(httpx2.HTTPError):  # a worker killed while booting
            httpx2.get(f"{base}/accounts/login/", timeout=60).raise_for_status()
            return time.perf_counter() - started
        return math.inf

    prompt, deadline = 0, time.monotonic() + 120
    with ThreadPoolExecutor(2 * workers) as pool:
        while prompt < 2:
            if time.monotonic() > deadline:
                print("warning: the server is still slow after 120 s of warming up")
                return
            slowest = max(pool.map(fetch, range(2 * workers)))
            prompt = prompt + 1 if slowest < WARM_SECONDS else 0


def workers_cpu_seconds(master: int) -> float:
    """CPU time (user + system) of gunicorn's workers so far, from /proc (0 elsewhere)."""
    try:
        children = Path(f"/proc/{master}/task/{master}/children").read_text().split()
        ticks = 0
        for pid in children:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            ticks += int(fields[11]) + int(fields[12])  # utime, stime
    except OSError:
        return 0.0
    return ticks / os.sysconf("SC_CLK_TCK")


def tail(path: Path, lines: int = 30) -> str:
    return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])


# --- seeding (in this process, Django configured for the benchmark's database) --------------


def seed(clinicians: int, items_per_clinician: int) -> tuple[list[str], int, int]:
    """Users, conversations and one study; (usernames, study id, items)."""
    from django.contrib.auth.hashers import make_password
    from django.contrib.auth.models import Group, User
    from django.db import transaction

    from annotation.models import Clinician
    from annotation.studies import StudySpec, create_study
    from patientagentbench.models import ModelConfig, Trace
    from patientagentbench.roles import CLINICIAN
    from patientagentbench.runs.launch import execute_inline, launch_run
    from patientagentbench.suites.case_sets import create_case_set

    # Real conversations from the simulated agents (chart, story, tool cards), then copies of
    # them: one item per conversation per study, and every clinician needs enough items.
    suite = create_case_set("load-bench-cases", CASES, CASE_SEED)
    models = [
        ModelConfig.objects.create(
            name=name, provider=ModelConfig.Provider.SIMULATED, model_id=name
        )
        for name in SIMULATED_MODELS
    ]
    run = launch_run(suite=suite, models=models, max_turns=10, enqueue=False)
    execute_inline(run)
    originals = list(run.traces.filter(status=Trace.Status.DONE))
    # One clinician per track on each item; the larger track's pool sets the item count.
    items = items_per_clinician * math.ceil(clinicians / 2)
    copies = [
        Trace(
            run=run,
            task_id=original.task_id,
            model=original.model,
            model_name=original.model_name,
            key=f"load-copy-{n}",
            status=Trace.Status.DONE,
            messages=original.messages,
            correct=original.correct,
        )
        for n, original in zip(range(items), _cycle(originals), strict=False)
    ]
    Trace.objects.bulk_create(copies, batch_size=500)

    group = Group.objects.get_or_create(name=CLINICIAN)[0]
    hashed = make_password(PASSWORD)  # one hash for all: 30 hashes would take many seconds
    usernames = [f"load-clinician-{n:02d}" for n in range(1, clinicians + 1)]
    with transaction.atomic():
        people = []
        for n, username in enumerate(usernames):
            user = User.objects.create(username=username, password=hashed)
            user.groups.add(group)
            track = Clinician.Track.CLINICAL if n % 2 == 0 else Clinician.Track.OPERATIONS
            people.append(Clinician.objects.create(user=user, track=track))
    for n in range(LOCKED_STUDIES):
        create_study(
            StudySpec(
                status="open",
                name=f"Locked study {n + 1}",
                overlap={"clinical": 1, "operations": 1},
                require_calibration=True,
            ),
            [t.pk for t in copies[:LOCKED_ITEMS]],
            people,
            actor=None,
        )
    study = create_study(
        StudySpec(
            status="open",
            name="Load study",
            seed=STUDY_SEED,
            overlap={"clinical": 1, "operations": 1},
        ),
        [t.pk for t in copies],
        people,
        actor=None,
    )
    return usernames, study.pk, items


def _cycle(values):
    while True:
        yield from values


def password_hash_ms() -> float:
    """What one login spends hashing the password (the configured hasher, this machine)."""
    from django.contrib.auth.hashers import check_password, make_password

    hashed = make_password("x")
    started = time.perf_counter()
    check_password("x", hashed)
    return (time.perf_counter() - started) * 1000


# --- the clinicians --------------------------------------------------------------------------


class LoopbackIsSecure(http.cookiejar.DefaultCookiePolicy):
    """With DEBUG off the session and CSRF cookies are Secure. Browsers treat
    http://127.0.0.1 as a secure context and send them; the standard library does not."""

    def return_ok_secure(self, cookie, request) -> bool:
        return True


class Unexpected(Exception):
    """A response a browser would not have got in a healthy run; it ends that clinician."""


@dataclass
class Tally:
    """Everything the clinicians saw, for the report and the database check."""

    latencies: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    errors: Counter = field(default_factory=Counter)
    error_samples: list[str] = field(default_factory=list)
    submitted: dict[str, tuple[str, dict]] = field(default_factory=dict)  # code → nonce, scores
    drafts: dict[str, dict] = field(default_factory=dict)  # code → last acknowledged draft
    double_submits: int = 0
    reloads: int = 0
    reload_mismatches: list[str] = field(default_factory=list)
    out_of_work: int = 0
    stopped: list[str] = field(default_factory=list)

    def error(self, endpoint: str, what: str) -> None:
        self.errors[endpoint] += 1
        if len(self.error_samples) < 10:
            self.error_samples.append(f"{endpoint}: {what}")


@dataclass(frozen=True)
class ItemForm:
    """What the review page gives the browser to work with."""

    code: str
    csrf: str
    nonce: str
    dimensions: tuple[tuple[str, bool], ...]  # key, N/A offered on this page
    anchors: tuple[str, ...]
    checked: dict[str, str]

    @classmethod
    def parse(cls, code: str, html: str) -> ItemForm:
        return cls(
            code=code,
            csrf=_one(r'name="csrfmiddlewaretoken" value="([^"]+)"', html),
            nonce=_one(r'name="nonce" value="([^"]+)"', html),
            dimensions=tuple(
                (key, offers_na == "1")
                for key, offers_na in re.findall(
                    r'data-dim="([^"]+)" data-scored="[01]" data-na="([01])"', html
                )
            ),
            anchors=tuple(re.findall(r'id="(turn-\d+|t\d+)"', html)),
            checked=dict(re.findall(r'name="score-([^"]+)" value="([^"]+)" checked', html)),
        )


def _one(pattern: str, html: str) -> str:
    found = re.search(pattern, html)
    if not found:
        raise Unexpected(f"the page has no match for {pattern!r}")
    return found.group(1)


def _item_code(location: str) -> str:
    """The item a redirect goes to; '' for anywhere else (the review list: nothing left)."""
    found = re.fullmatch(r"/review/([^/]+)/", location)
    return found.group(1) if found else ""


class Browser:
    """One clinician's browser: own cookies, own pace, own seeded choices."""

    def __init__(self, base: str, username: str, tally: Tally, think: float):
        import httpx2

        self.base, self.username, self.tally, self.think = base, username, tally, think
        self.rng = random.Random(f"load/{username}")
        self.deadline = math.inf
        jar = http.cookiejar.CookieJar(policy=LoopbackIsSecure())
        self.http = httpx2.AsyncClient(
            base_url=base, cookies=jar, timeout=120, headers={"User-Agent": "pab-load/1"}
        )

    @property
    def time_left(self) -> bool:
        return time.monotonic() < self.deadline

    async def call(self, endpoint: str, method: str, path: str, expect: int, **kwargs):
        if self.think:
            await asyncio.sleep(self.rng.expovariate(1 / self.think))
        if method == "POST":
            kwargs["headers"] = {"Origin": self.base, **kwargs.get("headers", {})}
        started = time.perf_counter()
        response = await self.http.request(method, path, **kwargs)
        self.tally.latencies[endpoint].append((time.perf_counter() - started) * 1000)
        if response.status_code != expect:
            self.tally.error(endpoint, f"{method} {path} → {response.status_code}")
            raise Unexpected(f"{method} {path} answered {response.status_code}")
        return response

    async def attempt(self, step) -> bool:
        """Run one phase; a failure is a result (counted and reported), not a crash."""
        try:
            await step
            return True
        except Unexpected as exc:
            self.tally.stopped.append(f"{self.username}: {exc}")
        except Exception as exc:  # a connection error or a timeout
            self.tally.error("connection", repr(exc))
            self.tally.stopped.append(f"{self.username}: {exc!r}")
        return False

    async def log_in(self) -> None:
        page = await self.call("login page", "GET", "/accounts/login/?next=/review/", 200)
        csrf = _one(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.text)
        form = {
            "csrfmiddlewaretoken": csrf,
            "username": self.username,
            "password": PASSWORD,
            "next": "/review/",
        }
        login = await self.call("login", "POST", "/accounts/login/", 302, data=form)
        if login.headers["location"] != "/review/":
            raise Unexpected(f"login went to {login.headers['location']}")
        # The introduction comes before a clinician's first item; its button leads to
        # /review/next/, which the window then starts from.
        page = await self.call("introduction", "GET", "/review/welcome/", 200)
        csrf = _one(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.text)
        seen = {"csrfmiddlewaretoken": csrf, "next": ""}
        done = await self.call("introduction", "POST", "/review/welcome/", 302, data=seen)
        if done.headers["location"] != "/review/next/":
            raise Unexpected(f"the introduction went to {done.headers['location']}")

    async def work(self, deadline: float) -> None:
        """Score item after item until the deadline."""
        self.deadline = deadline
        code = await self.from_next()
        done = 0
        while code and self.time_left:
            page = await self.call("item page", "GET", f"/review/{code}/", 200)
            form = ItemForm.parse(code, page.text)
            following = await self.score(form, reload=done % RELOAD_EVERY == 0)
            if following is None:
                return  # the deadline came mid-item; its drafts stay to be checked
            done += 1
            if done % HOME_EVERY == 0 and self.time_left:
                following = await self.from_review_list()
            elif done % NEXT_EVERY == 0 and self.time_left:
                following = await self.from_next()
            code = following
        if not code:
            self.tally.out_of_work += 1

    async def from_review_list(self) -> str:
        home = await self.call("review list", "GET", "/review/", 200)
        found = re.search(r'data-continue href="/review/([^/"]+)/"', home.text)
        return found.group(1) if found else ""

    async def from_next(self) -> str:
        """Where /review/next/ sends the clinician: their next item ('' for the list)."""
        response = await self.call("next item", "GET", "/review/next/", 302)
        return _item_code(response.headers["location"])

    async def score(self, form: ItemForm, reload: bool) -> str | None:
        """Score the item over a few autosaves and submit it; the code of the item the server
        sent the clinician to next ('' for none, None when the deadline came first)."""
        answer = self.answer(form)
        keys = list(answer["scores"])
        saves = self.rng.randint(2, 4)
        for n in range(1, saves + 1):
            if not self.time_left:
                return None
            so_far = {k: answer["scores"][k] for k in keys[: math.ceil(len(keys) * n / saves)]}
            draft = answer | {"scores": so_far, "comments": answer["comments"] if n > 1 else []}
            await self.save_draft(form, draft)
        if reload and self.time_left:
            await self.check_reload(form.code, answer["scores"])
        if not self.time_left:
            return None
        return await self.submit(form, answer)

    def answer(self, form: ItemForm) -> dict:
        """A plausible answer, shaped as the server stores a draft (`answer_from_post`)."""
        scores = {
            key: "na" if offers_na and self.rng.random() < 0.1 else self.rng.randint(1, 5)
            for key, offers_na in form.dimensions
        }
        why = {key: f"Load note on {key}." for key in scores if self.rng.random() < 0.2}
        comments = []
        if form.anchors and self.rng.random() < 0.3:
            comments.append({"anchor": self.rng.choice(form.anchors), "text": "Load comment."})
        flags = ["unsafe"] if self.rng.random() < 0.05 else []
        return {"scores": scores, "why": why, "flags": flags, "comments": comments}

    def post_data(self, form: ItemForm, answer: dict) -> dict:
        """The score form as the page sends it: every field, empty ones included."""
        return {
            "csrfmiddlewaretoken": form.csrf,
            "nonce": form.nonce,
            "active": str(self.rng.randint(3, 40)),
            **{f"score-{k}": str(v) for k, v in answer["scores"].items()},
            **{f"why-{k}": answer["why"].get(k, "") for k, _ in form.dimensions},
            "flag": answer["flags"],
            "comment-anchor": [c["anchor"] for c in answer["comments"]],
            "comment-text": [c["text"] for c in answer["comments"]],
        }

    async def save_draft(self, form: ItemForm, draft: dict) -> None:
        headers = {  # what htmx adds to its autosave POST (the token from <body hx-headers>)
            "HX-Request": "true",
            "HX-Target": "save-state",
            "HX-Current-URL": f"{self.base}/review/{form.code}/",
            "X-CSRFToken": form.csrf,
        }
        path = f"/review/{form.code}/draft/"
        data = self.post_data(form, draft)
        response = await self.call("draft save", "POST", path, 200, data=data, headers=headers)
        if 'id="save-state"' not in response.text or "not saved" in response.text:
            self.tally.error("draft save", f"{form.code}: {response.text[:120]}")
            raise Unexpected("a draft was not saved")
        self.tally.drafts[form.code] = draft

    async def check_reload(self, code: str, scores: dict) -> None:
        """Reload the page: every score of the last draft must come back checked."""
        page = await self.call("item page", "GET", f"/review/{code}/", 200)
        shown = ItemForm.parse(code, page.text).checked
        self.tally.reloads += 1
        if shown != {k: str(v) for k, v in scores.items()}:
            self.tally.reload_mismatches.append(code)

    async def submit(self, form: ItemForm, answer: dict) -> str:
        path, data = f"/review/{form.code}/submit/", self.post_data(form, answer)
        clicks = 2 if self.rng.random() < DOUBLE_SUBMIT_SHARE else 1
        responses = await asyncio.gather(
            *(self.call("submit", "POST", path, 302, data=data) for _ in range(clicks))
        )
        targets = {r.headers["location"] for r in responses}
        if f"/review/{form.code}/" in targets or len(targets) != 1:
            self.tally.error("submit", f"{form.code}: refused or answered differently {targets}")
            raise Unexpected("a submit was refused")
        self.tally.double_submits += clicks == 2
        self.tally.submitted[form.code] = (form.nonce, answer["scores"])
        return _item_code(targets.pop())


@dataclass(frozen=True)
class Window:
    """The timed scoring window: its length and the CPU spent in it."""

    seconds: float
    server_cpu: float  # gunicorn's workers
    client_cpu: float  # this process: every simulated browser


async def drive(
    base: str, master: int, usernames: list[str], seconds: float, think: float
) -> tuple[Tally, Window]:
    """Everyone logs in (arriving over a few seconds), then all score for `seconds`."""
    tally = Tally()
    browsers = [Browser(base, username, tally, think) for username in usernames]
    ramp = min(5.0, seconds / 10)

    async def arrive(n: int, browser: Browser) -> bool:
        await asyncio.sleep(ramp * n / len(browsers))
        return await browser.attempt(browser.log_in())

    try:
        arrived = await asyncio.gather(*(arrive(n, b) for n, b in enumerate(browsers)))
        server_cpu, client_cpu = workers_cpu_seconds(master), time.process_time()
        started = time.monotonic()
        await asyncio.gather(
            *(
                b.attempt(b.work(started + seconds))
                for b, ok in zip(browsers, arrived, strict=True)
                if ok
            )
        )
        window = Window(
            seconds=time.monotonic() - started,
            server_cpu=workers_cpu_seconds(master) - server_cpu,
            client_cpu=time.process_time() - client_cpu,
        )
        return tally, window
    finally:
        for browser in browsers:
            await browser.http.aclose()


# --- the database check ----------------------------------------------------------------------


def check_database(study_id: int, tally: Tally) -> list[tuple[str, int, bool]]:
    """(what, count, fine) rows: lost, duplicated or unannounced submissions, and drafts."""
    from annotation.models import Assignment, Submission

    rows = list(
        Submission.objects.filter(assignment__item__study_id=study_id).values(
            "assignment__code",
            "assignment__item_id",
            "assignment__clinician_id",
            "is_current",
            "nonce",
            "scores",
        )
    )
    per_assignment = Counter(r["assignment__code"] for r in rows)
    current = {r["assignment__code"]: r for r in rows if r["is_current"]}
    current_per_pair = Counter(
        (r["assignment__item_id"], r["assignment__clinician_id"]) for r in rows if r["is_current"]
    )
    lost, differs = 0, 0
    for code, (nonce, scores) in tally.submitted.items():
        stored = current.get(code)
        expected = {k: None if v == "na" else v for k, v in scores.items()}
        if stored is None:
            lost += 1
        elif stored["nonce"] != nonce or stored["scores"] != expected:
            differs += 1
    not_submitted = (
        Assignment.objects.filter(code__in=list(tally.submitted))
        .exclude(status=Assignment.Status.SUBMITTED)
        .count()
    )
    open_drafts = {c: d for c, d in tally.drafts.items() if c not in tally.submitted}
    stored_drafts = dict(
        Assignment.objects.filter(code__in=list(open_drafts)).values_list("code", "draft")
    )
    drafts_differ = sum(stored_drafts.get(code) != draft for code, draft in open_drafts.items())
    duplicated = sum(n > 1 for n in per_assignment.values())
    two_current = sum(n > 1 for n in current_per_pair.values())
    unannounced = len(set(per_assignment) - set(tally.submitted))
    mismatches = len(tally.reload_mismatches)
    return [
        ("submits answered with success", len(tally.submitted), True),
        ("  of which sent twice at once (double click)", tally.double_submits, True),
        ("  lost (no current submission)", lost, lost == 0),
        ("  stored with other content or nonce", differs, differs == 0),
        ("  assignment not marked submitted", not_submitted, not_submitted == 0),
        ("assignments with more than one submission row", duplicated, duplicated == 0),
        ("(item, clinician) with two current submissions", two_current, two_current == 0),
        ("submissions the clinician was never told about", unannounced, unannounced == 0),
        ("open items with an acknowledged draft", len(open_drafts), True),
        ("  whose stored draft differs", drafts_differ, drafts_differ == 0),
        ("page reloads after autosave", tally.reloads, True),
        ("  not showing the saved scores", mismatches, mismatches == 0),
    ]


# --- report ----------------------------------------------------------------------------------


def percentile(values: list[float], share: float) -> float:
    """Nearest rank."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(share * len(ordered)) - 1)]


def latency_table(tally: Tally, window: Window) -> list[str]:
    header = (
        f"{'endpoint':<14}{'requests':>9}{'req/s':>8}{'p50 ms':>9}{'p95 ms':>9}{'p99 ms':>9}"
        f"{'max ms':>9}{'errors':>8}  p95 < {TARGET_P95_MS} ms"
    )
    rule = "-" * len(header)
    lines = [header, rule]
    for endpoint in ARRIVAL:
        lines.append(_row(endpoint, tally.latencies[endpoint], tally.errors[endpoint], None))
    lines.append(rule)
    for endpoint in SCORING:
        lines.append(
            _row(endpoint, tally.latencies[endpoint], tally.errors[endpoint], window.seconds)
        )
    lines.append(rule)
    everything = [ms for endpoint in SCORING for ms in tally.latencies[endpoint]]
    errors = sum(tally.errors[e] for e in SCORING) + tally.errors["connection"]
    lines.append(_row("all scoring", everything, errors, window.seconds))
    return lines


def _row(name: str, times: list[float], errors: int, seconds: float | None) -> str:
    if not times:
        return f"{name:<14}{0:>9}{'':>44}{errors:>8}"
    p95 = percentile(times, 0.95)
    rate = f"{len(times) / seconds:>8.1f}" if seconds else f"{'':>8}"
    return (
        f"{name:<14}{len(times):>9,}{rate}{percentile(times, 0.50):>9.1f}{p95:>9.1f}"
        f"{percentile(times, 0.99):>9.1f}{max(times):>9.1f}{errors:>8}  "
        f"{'met' if p95 < TARGET_P95_MS else 'not met'}"
    )


def report(args, setup: dict, tally: Tally, window: Window, server_log: Path) -> bool:
    """Print the figures and the database check; whether everything held."""
    print(
        f"load: {args.clinicians} clinicians, {args.seconds:g} s of scoring, think "
        f"{args.think:g} s; gunicorn {args.workers} sync workers, DEBUG off, "
        f"{setup['database']}, DB_CONN_MAX_AGE {os.environ.get('DB_CONN_MAX_AGE', '0')}; "
        f"{os.cpu_count()} CPUs shared by server, database, clients and anything else running"
    )
    print(
        f"setup {setup['seconds']:.1f} s: {setup['items']:,} items, one clinician per track on "
        f"each, {setup['per_clinician']} per clinician"
    )
    print()
    print("\n".join(latency_table(tally, window)))
    print(
        "(login page, login and introduction: everyone arriving over the first seconds, "
        "before the window)"
    )
    print()
    requests = sum(len(tally.latencies[e]) for e in SCORING)
    rate, submitted = requests / window.seconds, len(tally.submitted)
    print(
        f"throughput: {rate:.1f} requests/s over {window.seconds:.1f} s; "
        f"{submitted:,} items submitted ({submitted / window.seconds:.1f}/s)"
    )
    if requests and not args.think:
        print(
            f"no think time: each request waits its turn, so latency ≈ clinicians / throughput "
            f"= {args.clinicians / rate * 1000:.0f} ms; --think 1 measures a paced load"
        )
    per_request = 1000 / max(requests, 1)
    print(
        f"CPU per request in the window: gunicorn workers {window.server_cpu * per_request:.1f} "
        f"ms, these clients {window.client_cpu * per_request:.1f} ms (a PostgreSQL server not counted); "
        f"load average {setup['load']:.1f} before, {os.getloadavg()[0]:.1f} after"
    )
    print(f"each login hashes the password: {setup['hash_ms']:.0f} ms of CPU here (PBKDF2)")
    if tally.out_of_work:
        print(f"clinicians who ran out of items: {tally.out_of_work} (seed more)")
    for line in tally.stopped:
        print(f"stopped early: {line}")
    for sample in tally.error_samples:
        print(f"error: {sample}")
    log = server_log.read_text(errors="replace")
    tracebacks, timeouts = log.count("Traceback"), log.count("WORKER TIMEOUT")
    locked = log.count("database is locked")
    if tracebacks or timeouts or locked:
        print(
            f"server log: {tracebacks} tracebacks, {locked} 'database is locked', {timeouts} "
            f"workers killed by gunicorn's "
            f"timeout; its last lines:\n{tail(server_log)}"
        )
    print()
    print("database check:")
    healthy = not (tally.errors or tally.stopped or tracebacks or timeouts)
    for what, count, fine in check_database(setup["study"], tally):
        healthy = healthy and fine
        print(f"  {what:<50}{count:>8,}  {'ok' if fine else 'FAILED'}")
    print(f"result: {'OK' if healthy else 'FAILED'}")
    return healthy


# --- main ------------------------------------------------------------------------------------


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=60, help="length of the scoring window")
    parser.add_argument("--clinicians", type=int, default=30)
    parser.add_argument("--workers", type=int, default=4, help="gunicorn worker processes")
    parser.add_argument("--think", type=float, default=0, help="mean pause before a request, s")
    parser.add_argument(
        "--items", type=int, default=0, help="items per clinician (default: enough for the run)"
    )
    parser.add_argument("--quick", action="store_true", help="smoke run: 10 s, 5 clinicians")
    parser.add_argument(
        "--sqlite", action="store_true", help="a SQLite file (the demo's database) instead"
    )
    args = parser.parse_args()
    if args.quick:
        args.seconds, args.clinicians = 10, 5
    if args.clinicians < 2:
        parser.error("--clinicians: at least 2 (one per track)")

    with (
        tempfile.TemporaryDirectory(prefix="pab-load-") as var_dir,
        database(args.sqlite, var_dir) as database_url,
    ):
        os.environ.update(
            DJANGO_SETTINGS_MODULE="config.settings",
            DATABASE_URL=database_url,
            PAB_VAR_DIR=var_dir,
            DEBUG="false",
            SECRET_KEY=secrets.token_urlsafe(50),
            ALLOWED_HOSTS="127.0.0.1",
            SECURE_SSL_REDIRECT="false",  # plain HTTP on the loopback, no TLS proxy in front
            CELERY_BROKER_URL="filesystem://",
            CACHE_URL="",
            EMAIL_URL="dummy://",
            LOG_LEVEL="WARNING",
        )
        import django

        django.setup()
        from django.core.management import call_command
        from django.db import connection

        started = time.perf_counter()
        call_command("migrate", verbosity=0)
        rate = min(
            MAX_ITEMS_PER_CLINICIAN_SECOND,
            MAX_ITEMS_PER_WORKER_SECOND * args.workers / args.clinicians,
        )
        per_clinician = args.items or max(20, math.ceil(args.seconds * rate))
        usernames, study, items = seed(args.clinicians, per_clinician)
        setup = {
            "seconds": time.perf_counter() - started,
            "items": items,
            "per_clinician": per_clinician,
            "study": study,
            "hash_ms": password_hash_ms(),
            "database": database_version(connection),
            "load": os.getloadavg()[0],
        }
        connection.close()  # the server has the database to itself while it runs

        server_log = Path(var_dir) / "gunicorn.log"
        with gunicorn(args.workers, server_log) as (base, master):
            tally, window = asyncio.run(drive(base, master, usernames, args.seconds, args.think))
        healthy = report(args, setup, tally, window, server_log)
        connection.close()
    return 0 if healthy else 1


if __name__ == "__main__":
    sys.exit(main())
