"""Redis restarted in the middle of a run: the run recovers by itself, every trace once.

A private redis-server (so the shared one is never touched) is the broker, the cache and the
provider-slot store of two real worker processes. The run is launched from the command line, as
an operator would; with traces running, Redis is killed and started again on the same port,
either empty (no persistence: every queued and fetched message is gone) or from its
append-only file (the messages survive; the ones the worker had fetched stay unacknowledged).
Either way the run must finish with every trace done exactly once and nothing errored.
"""

import shutil
import signal
import subprocess
import time

import pytest
import redis

from patientagentbench.models import Run
from patientagentbench.runs.execution import progress
from tests.integration.workers import (
    free_port,
    launch_from_the_command_line,
    running_claims,
    wait_until,
)
from tests.patience import patient
from tests.services import IN_CI

REPETITIONS = 2  # 19 tasks × 2: 38 traces of two 0.25 s calls each

pytestmark = pytest.mark.django_db(transaction=True)


class PrivateRedis:
    """A redis-server on its own port and folder, which a test may kill and start again."""

    def __init__(self, folder, persistent: bool):
        self.folder, self.port = folder, free_port()
        self.persistence = (
            ["--appendonly", "yes", "--appendfsync", "always"]
            if persistent
            else ["--appendonly", "no"]
        )
        self.process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        argv = ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1"]
        argv += ["--save", "", "--dir", str(self.folder), *self.persistence]
        self.process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, cwd=self.folder)
        client = redis.Redis.from_url(self.url)
        deadline = time.monotonic() + patient(10)
        while True:
            try:
                # Loading the append-only file answers BUSY/LOADING; wait until it serves.
                client.set("pab:probe", "1")
                return
            except redis.RedisError:
                if time.monotonic() > deadline:
                    pytest.fail("the private redis-server did not come up")
                time.sleep(0.05)

    def kill(self) -> None:
        self.process.send_signal(signal.SIGKILL)  # no goodbye: clients see a dropped socket
        self.process.wait(timeout=patient(10))

    def queued_messages(self) -> int:
        return int(redis.Redis.from_url(self.url).llen("celery"))


@pytest.fixture(params=["empty", "from its append-only file"])
def private_redis(request, tmp_path):
    if shutil.which("redis-server") is None:
        if IN_CI:
            pytest.fail("CI needs redis-server on the PATH")
        pytest.skip("needs redis-server on the PATH")
    server = PrivateRedis(tmp_path, persistent=request.param != "empty")
    server.start()
    yield server
    if server.process.poll() is None:
        server.kill()


def test_a_run_recovers_from_a_redis_restart(workers, office_suite, slow_model, private_redis):
    workers.env.update(
        CELERY_BROKER_URL=private_redis.url,
        CACHE_URL=private_redis.url,
        CONCURRENCY_REDIS_URL=private_redis.url,
    )
    workers.start("left", pool="threads", concurrency=2)
    workers.start("right", pool="threads", concurrency=2)
    run, _ = launch_from_the_command_line(
        # A local stub without prices: the limit counts calls, set far above what it makes.
        workers.env,
        "--models",
        "slowish",
        "--runs",
        str(REPETITIONS),
        "--call-limit",
        "100000",
    )
    wait_until(
        lambda: progress(run.pk)["done"] >= 3 and len(running_claims(run)) >= 2,
        90,
        "traces running",
        run,
    )
    private_redis.kill()
    time.sleep(2)  # the worker notices and keeps trying; traces in flight go on
    private_redis.start()

    wait_until(lambda: not Run.objects.get(pk=run.pk).is_active, 120, "the run finishing", run)
    run.refresh_from_db()
    assert run.status == Run.Status.FINISHED, progress(run.pk)
    traces = list(run.traces.values("key", "status", "attempts", "worker", "error"))
    assert len(traces) == 19 * REPETITIONS
    assert len({t["key"] for t in traces}) == len(traces)
    assert [t for t in traces if t["status"] != "done"] == []
    # No worker died, so no trace ran twice: messages sent again were claimed once.
    assert {t["attempts"] for t in traces} == {1}
    assert all(t["worker"] == "" for t in traces)
    assert all(p.poll() is None for p in workers.processes), "a worker exited"
    # Both reconnected; one of them sent the queued jobs again.
    logs = workers.log("left") + workers.log("right")
    assert logs.count("broker connection restored; sent") == 1, logs[-3000:]
    assert logs.count("broker connection restored; another worker sends") == 1
