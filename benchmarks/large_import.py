"""A large import through the web page (issue 34, finding 3): peak memory of the web process
and of the worker for a file of `--mb` MB of trace JSONL (200 by default).

Each step runs in a fresh process against one scratch SQLite database, and prints its time
and peak RSS (ru_maxrss) beside its RSS before the step:

- web upload: the upload request through Django's WSGI handler, its body streamed from disk
  as gunicorn streams a socket (a test client would build the body in memory), then three
  polls of the status page;
- worker check: the job's first stage (read the file, compute the import rolled back);
- web confirm: the confirmation request and a poll;
- worker import: the second stage (read it again, write the run in one transaction);
- `--inline` also times what the upload and confirm requests did before the job (the preview
  and the import in the web process), for comparison.

    .venv/bin/python benchmarks/large_import.py [--mb 200] [--inline]
"""

from __future__ import annotations

import argparse
import io
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MB = 1024 * 1024
BOUNDARY = "pab-large-import-boundary"
TASKS = 50  # the file's traces are TASKS tasks × repetitions
USERNAME = "bench-researcher"


def build_jsonl(path: Path, megabytes: float) -> int:
    """Trace JSONL of about `megabytes` MB: ~5 KB conversations of 12 messages. Returns the
    number of records."""
    turns = []
    for turn in range(6):
        turns.append({"role": "user", "content": f"Question {turn}: " + "symptoms " * 40})
        turns.append({"role": "assistant", "content": f"Answer {turn}: " + "advice " * 60})
    written, records = 0, 0
    with path.open("w") as out:
        while written < megabytes * MB:
            record = {
                "format": "patientagentbench.trace/1",
                "suite": "large-bench",
                "model": f"model-{records % 3}",
                "temperature": 0.7,
                "status": "done",
                "end_reason": "user_ended",
                "tokens_in": 900,
                "tokens_out": 400,
                "correct": True,
                "correctness": {"passed": True, "checks": []},
                "task_id": f"task-{(records // 3) % TASKS:03d}",
                "repetition": records // (TASKS * 3),
                "messages": turns,
                "tool_calls": [],
                "final_response": turns[-1]["content"],
            }
            line = json.dumps(record) + "\n"
            out.write(line)
            written += len(line)
            records += 1
    return records


def multipart(path: Path, body: Path) -> None:
    """The upload form's body, written to disk: the file part streamed in."""
    with body.open("wb") as out:
        out.write(
            (
                f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="file"; '
                f'filename="{path.name}"\r\nContent-Type: application/octet-stream\r\n\r\n'
            ).encode()
        )
        with path.open("rb") as source:
            while chunk := source.read(MB):
                out.write(chunk)
        out.write(f"\r\n--{BOUNDARY}--\r\n".encode())


def rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KB on Linux


def current_rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


# --- the steps, each in a process of its own -------------------------------------------------


def setup_django(var_dir: Path) -> None:
    sys.path.insert(0, str(ROOT))
    from benchmarks.scratch import scratch_django

    scratch_django(
        "",
        var_dir=var_dir,
        DEBUG="true",  # a scratch process: no SECRET_KEY needed
        PAB_IMPORT_MAX_MB="1024",
        ALLOWED_HOSTS="testserver",
    )


def step_migrate(var_dir: Path) -> dict:
    setup_django(var_dir)
    from django.contrib.auth.models import Group, User
    from django.core.management import call_command

    from patientagentbench.roles import RESEARCHER

    call_command("migrate", verbosity=0)
    user = User.objects.create_user(USERNAME, password="not-used-here")
    user.groups.add(Group.objects.get_or_create(name=RESEARCHER)[0])
    return {}


class _Web:
    """Requests through Django's WSGI handler, as the web server makes them, logged in."""

    def __init__(self):
        from django.contrib.auth.models import User
        from django.core.handlers.wsgi import WSGIHandler
        from django.test import Client

        client = Client()
        client.force_login(User.objects.get(username=USERNAME))
        token = "a" * 32  # a CSRF secret of the cookie's shape, sent as cookie and header
        self.cookie = f"sessionid={client.cookies['sessionid'].value}; csrftoken={token}"
        self.token = token
        self.handler = WSGIHandler()
        # A web worker has served pages before this one: the first request imports every
        # view (pandas, plotly), which is the process's size, not the import's.
        self.request("GET", "/runs/import/")

    def request(self, method: str, path: str, body=None, length=0, content_type="", **extra):
        environ = {
            "REQUEST_METHOD": method,
            "PATH_INFO": path,
            "SERVER_NAME": "testserver",
            "SERVER_PORT": "80",
            "HTTP_HOST": "testserver",
            "HTTP_COOKIE": self.cookie,
            "HTTP_X_CSRFTOKEN": self.token,
            "CONTENT_LENGTH": str(length),
            "CONTENT_TYPE": content_type,
            "wsgi.input": body or io.BytesIO(b""),
            "wsgi.url_scheme": "http",
            "REMOTE_ADDR": "127.0.0.1",
            **extra,
        }
        answer = {}

        def start_response(status, headers, exc_info=None):
            answer["status"], answer["headers"] = status, dict(headers)

        content = b"".join(self.handler(environ, start_response))
        return answer["status"], answer["headers"], content

    def poll(self, job_id: int, times: int = 3) -> str:
        for _ in range(times):
            status, _headers, _content = self.request(
                "GET", f"/runs/import/{job_id}/", HTTP_HX_REQUEST="true"
            )
        return status


def step_upload(var_dir: Path, body: str) -> dict:
    setup_django(var_dir)
    body = Path(body)
    from patientagentbench.interchange import import_jobs

    import_jobs.import_job.delay = lambda job_id: None  # the worker steps run it
    web = _Web()
    before, started = current_rss_mb(), time.perf_counter()
    with body.open("rb") as stream:
        status, headers, content = web.request(
            "POST",
            "/runs/import/",
            body=stream,
            length=body.stat().st_size,
            content_type=f"multipart/form-data; boundary={BOUNDARY}",
        )
    if not status.startswith("302"):
        sys.exit(f"the upload answered {status}: {content[:500]!r}")
    job_id = int(headers["Location"].rstrip("/").rsplit("/", 1)[-1])
    seconds = time.perf_counter() - started
    poll = web.poll(job_id)
    return {"seconds": seconds, "before": before, "peak": rss_mb(), "job": job_id, "poll": poll}


def step_worker(var_dir: Path, job_id: str) -> dict:
    setup_django(var_dir)
    job_id = int(job_id)
    from patientagentbench.interchange import import_jobs
    from patientagentbench.models import ImportJob

    before, started = current_rss_mb(), time.perf_counter()
    import_jobs.run_import_job(job_id, worker="")
    job = ImportJob.objects.get(pk=job_id)
    if job.status != ImportJob.Status.DONE:
        sys.exit(f"the job ended {job.status}: {job.error}")
    return {
        "seconds": time.perf_counter() - started,
        "before": before,
        "peak": rss_mb(),
        "traces": job.preview["traces"],
        "run": job.run_id,
    }


def step_confirm(var_dir: Path, job_id: str) -> dict:
    setup_django(var_dir)
    from patientagentbench.interchange import import_jobs

    import_jobs.import_job.delay = lambda job_id: None
    web = _Web()
    before, started = current_rss_mb(), time.perf_counter()
    status, _headers, _content = web.request("POST", f"/runs/import/{job_id}/confirm/")
    seconds = time.perf_counter() - started
    web.poll(job_id)
    return {"seconds": seconds, "before": before, "peak": rss_mb(), "status": status}


def step_inline(var_dir: Path, path: str) -> dict:
    """What the upload and confirm requests did before: preview, then import, in-process."""
    setup_django(var_dir)
    path = Path(path)
    from patientagentbench.interchange.importer import import_bytes, preview_import

    _Web()  # the same warmed web process as the other web steps
    before, started = current_rss_mb(), time.perf_counter()
    raw = path.read_bytes()  # the view joined the upload's chunks
    preview_import(raw, path.name, again=True)
    summary = import_bytes(raw, path.name, again=True)
    return {
        "seconds": time.perf_counter() - started,
        "before": before,
        "peak": rss_mb(),
        "traces": summary.traces,
    }


STEPS = {
    "migrate": step_migrate,
    "upload": step_upload,
    "worker": step_worker,
    "confirm": step_confirm,
    "inline": step_inline,
}


def in_child(step: str, *args) -> dict:
    done = subprocess.run(
        [sys.executable, __file__, "--step", step, *map(str, args)],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    if done.returncode:
        sys.exit(f"the {step} step failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def report(label: str, figures: dict, extra: str = "") -> None:
    print(
        f"{label:<32} {figures['seconds']:7.1f} s   peak RSS {figures['peak']:6.0f} MB "
        f"(before the step {figures['before']:4.0f} MB){extra}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=200.0, help="size of the JSONL file")
    parser.add_argument("--inline", action="store_true", help="also time the old inline path")
    parser.add_argument("--step", help=argparse.SUPPRESS)
    parser.add_argument("args", nargs="*", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.step:
        var_dir, *rest = args.args
        print(json.dumps(STEPS[args.step](Path(var_dir), *rest)))
        return
    with tempfile.TemporaryDirectory(prefix="pab-large-import-") as folder:
        folder = Path(folder)
        var_dir = folder / "var"
        var_dir.mkdir()
        path, body = folder / "large.jsonl", folder / "upload.body"
        records = build_jsonl(path, args.mb)
        multipart(path, body)
        print(
            f"{path.stat().st_size / MB:.0f} MB of trace JSONL, {records} conversations "
            f"({TASKS} tasks × 3 models); each step a fresh process on one SQLite database"
        )
        in_child("migrate", var_dir)
        upload = in_child("upload", var_dir, body)
        job = upload["job"]
        report("web: upload + 3 status polls", upload)
        check = in_child("worker", var_dir, job)
        report("worker: check (preview)", check, f"   {check['traces']} conversations")
        report("web: confirm + 3 status polls", in_child("confirm", var_dir, job))
        imported = in_child("worker", var_dir, job)
        report("worker: import", imported, f"   run {imported['run']}")
        if args.inline:
            inline = in_child("inline", var_dir, path)
            report("before: preview + import inline", inline, "   (in the web process)")


if __name__ == "__main__":
    main()
