"""The embedded broker (config.broker): a consumer sees whole messages or none, each message
is taken once, and a file that does not decode is set aside instead of killing the worker."""

import queue
import threading
import time

import pytest
from kombu import Connection

from config.broker import UNREADABLE_FOLDER, WRITING_SUFFIX


@pytest.fixture
def folders(tmp_path):
    paths = {name: tmp_path / name for name in ("in", "processed", "control")}
    for path in paths.values():
        path.mkdir()
    return paths


@pytest.fixture
def name(request) -> str:
    """A queue of the test's own: kombu keeps declared bindings in memory per process, so a
    second test's queue of the same name would not be bound in its new folder."""
    return request.node.name.removeprefix("test_")[:40]


def connect(folders) -> Connection:
    return Connection(
        "filesystem://localhost/",
        transport="config.broker:Transport",
        transport_options={
            "data_folder_in": str(folders["in"]),
            "data_folder_out": str(folders["in"]),
            "processed_folder": str(folders["processed"]),
            "control_folder": str(folders["control"]),
            "store_processed": False,
        },
    )


def take(jobs, timeout: float = 2.0):
    message = jobs.get(timeout=timeout)
    message.ack()
    return message.payload


def test_an_empty_message_file_is_set_aside_and_the_next_message_delivered(folders, name):
    """kombu's own transport raised JSONDecodeError here, which ended the worker."""
    with connect(folders) as connection:
        jobs = connection.SimpleQueue(name)
        jobs.put({"job": 1})
        # What a poller found when it listed the folder between kombu's open() and write().
        (folders["in"] / f"0000_written-later.{name}.msg").touch()

        assert take(jobs) == {"job": 1}
        with pytest.raises(queue.Empty):
            jobs.get(timeout=0.3)
        jobs.close()
    assert [p.name for p in (folders["processed"] / UNREADABLE_FOLDER).iterdir()] == [
        f"0000_written-later.{name}.msg"
    ]


def test_a_message_still_being_written_is_not_taken(folders, name):
    with connect(folders) as connection:
        jobs = connection.SimpleQueue(name)
        (folders["in"] / f"0000_half.{name}.msg{WRITING_SUFFIX}").write_bytes(b'{"bo')
        with pytest.raises(queue.Empty):
            jobs.get(timeout=0.3)
        jobs.close()
    assert (folders["in"] / f"0000_half.{name}.msg{WRITING_SUFFIX}").exists()


def test_producers_and_consumers_at_once_deliver_every_message_exactly_once(folders, name):
    producers, per_producer = 4, 40
    received: list[int] = []
    errors: list[BaseException] = []
    done = threading.Event()

    def produce(first: int) -> None:
        try:
            with connect(folders) as connection:
                jobs = connection.SimpleQueue(name)
                for n in range(first, first + per_producer):
                    jobs.put({"n": n, "padding": "x" * 400_000})  # a write long enough to be seen
                jobs.close()
        except BaseException as exc:  # noqa: BLE001 - reported by the main thread
            errors.append(exc)

    def consume() -> None:
        try:
            with connect(folders) as connection:
                jobs = connection.SimpleQueue(name)
                while not done.is_set():
                    try:
                        received.append(take(jobs, timeout=0.2)["n"])
                    except queue.Empty:
                        continue
                jobs.close()
        except BaseException as exc:  # noqa: BLE001 - reported by the main thread
            errors.append(exc)

    # Bound before anyone sends, as a worker's queue is: kombu notes a binding in the
    # process's memory before it writes the exchange's table, so a thread sending meanwhile
    # routes to nobody (the worker process binds at its start, long before the web sends).
    with connect(folders) as connection:
        connection.SimpleQueue(name).close()
    consumers = [threading.Thread(target=consume) for _ in range(3)]
    for thread in consumers:
        thread.start()
    writers = [threading.Thread(target=produce, args=(i * per_producer,)) for i in range(producers)]
    for thread in writers:
        thread.start()
    for thread in writers:
        thread.join()
    deadline = time.monotonic() + 30
    while len(received) < producers * per_producer and time.monotonic() < deadline:
        time.sleep(0.05)
    done.set()
    for thread in consumers:
        thread.join()

    assert errors == []
    assert sorted(received) == list(range(producers * per_producer))
    assert not (folders["processed"] / UNREADABLE_FOLDER).exists()
