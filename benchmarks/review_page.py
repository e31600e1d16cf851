"""Time the clinician's review page for a 30-turn conversation (DESIGN §10: median server
time < 50 ms; query count independent of conversation length).

Builds a fresh SQLite database with one scenario case, a 30-turn conversation with a tool
call in every agent turn, a study and a clinician, then requests the review page through
Django's test client and prints the median over many requests and the query count. Then
gives the clinician a study of 2,000 open items and times "next item" and the review home,
which must not grow with the queue.

    .venv/bin/python benchmarks/review_page.py
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.scratch import scratch_django  # noqa: E402

TURNS, REQUESTS, TARGET_MS = 30, 60, 50
QUEUE = 2000


def conversation(turns: int) -> list[dict]:
    messages = [{"role": "system", "content": "You are the patient assistant."}]
    for n in range(1, turns + 1):
        messages.append({"role": "user", "content": f"Patient message {n}: " + "words " * 30})
        call = {
            "id": f"t{n}",
            "name": "list_appointments",
            "arguments": {"patient_id": "P-1", "page": n},
            "raw_arguments": "{}",
            "malformed": False,
        }
        messages.append({"role": "assistant", "content": "", "tool_calls": [call]})
        messages.append(
            {
                "role": "tool",
                "tool_call_id": f"t{n}",
                "content": '{"appointments": []}',
                "status": "ok",
            }
        )
        messages.append({"role": "assistant", "content": f"Agent reply {n}: " + "text " * 40})
    return messages


def main() -> None:
    scratch_django("pab-review-bench-")
    from django.contrib.auth.models import Group, User
    from django.core.management import call_command
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext, setup_test_environment

    from annotation import reviewing
    from annotation.studies import StudySpec, create_study
    from patientagentbench.cases.generate import generate_case_set
    from patientagentbench.models import ModelConfig, Run, Suite, Task, Trace

    setup_test_environment()
    call_command("migrate", verbosity=0)
    case = generate_case_set(1, 3)[0]
    suite = Suite.objects.create(name="bench-cases", kind=Suite.Kind.SCENARIO, world="clinic")
    task = Task.objects.create(
        suite=suite, task_id=case["case_id"], case=case, attributes=case["attributes"]
    )
    model = ModelConfig.objects.create(
        name="bench-model", provider="simulated", model_id="sim-steady"
    )
    run = Run.objects.create(suite=suite, status=Run.Status.FINISHED)
    trace = Trace.objects.create(
        run=run,
        task=task,
        model=model,
        model_name=model.name,
        key="bench-1",
        status=Trace.Status.DONE,
        messages=conversation(TURNS),
    )
    user = User.objects.create_user("bench-clinician", password="x")
    user.groups.add(Group.objects.get_or_create(name="clinician")[0])
    clinician = reviewing.clinician_for(user)
    clinician.track = "both"
    clinician.save()
    create_study(StudySpec(status="open", name="bench"), [trace.pk], [clinician], None)
    code = clinician.assignments.get().code
    client = Client()
    client.force_login(user)
    url = f"/review/{code}/"
    client.get(url)  # first request loads templates; not what a clinician waits for each time
    times = []
    for _ in range(REQUESTS):
        started = time.perf_counter()
        response = client.get(url)
        times.append((time.perf_counter() - started) * 1000)
        assert response.status_code == 200
    with CaptureQueriesContext(connection) as queries:
        client.get(url)
    median = statistics.median(times)
    print(
        f"review page, {TURNS}-turn conversation ({TURNS} tool calls): median {median:.1f} ms, "
        f"p95 {sorted(times)[int(0.95 * len(times)) - 1]:.1f} ms over {REQUESTS} requests, "
        f"{len(queries)} queries; target median < {TARGET_MS} ms: "
        f"{'met' if median < TARGET_MS else 'MISSED'}"
    )
    time_queue(client, clinician, run, task, model)


def timed(client, url: str, status: int) -> tuple[float, int]:
    """Median milliseconds over REQUESTS requests of `url`, and one request's query count."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    times = []
    for _ in range(REQUESTS):
        started = time.perf_counter()
        assert client.get(url).status_code == status
        times.append((time.perf_counter() - started) * 1000)
    with CaptureQueriesContext(connection) as queries:
        client.get(url)
    return statistics.median(times), len(queries)


def time_queue(client, clinician, run, task, model) -> None:
    from annotation.studies import StudySpec, create_study
    from patientagentbench.models import Trace

    short = conversation(2)
    traces = Trace.objects.bulk_create(
        Trace(
            run=run,
            task=task,
            model=model,
            model_name=model.name,
            key=f"queue-{n}",
            repetition=n,
            status=Trace.Status.DONE,
            messages=short,
        )
        for n in range(QUEUE)
    )
    create_study(
        StudySpec(status="open", name="bench-queue"), [t.pk for t in traces], [clinician], None
    )
    for label, url, status in (
        ("next item", "/review/next/", 302),
        ("review home", "/review/", 200),
    ):
        median, queries = timed(client, url, status)
        print(f"{label} with {QUEUE + 1} open items: median {median:.1f} ms, {queries} queries")


if __name__ == "__main__":
    main()
