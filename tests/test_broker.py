"""The embedded broker (evaltrans.broker): a worker never takes a message file half written,
and a worker whose tasks fill its prefetch slots waits for an ack instead of polling.

kombu's filesystem transport creates the file under its final name and then writes it; a
worker that polls in between takes the empty file and stops ("Unrecoverable error:
JSONDecodeError"), losing the message. The tests poll the queue at that very moment, from
inside the write, instead of hoping a thread hits it.
"""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from queue import Empty

import pytest
from kombu import Connection, Consumer, Exchange, Producer, Queue
from kombu.transport import filesystem

from evaltrans import broker

QUEUE = "celery"


def _channel(folder: Path, transport: str):  # noqa: ANN202 (a kombu channel)
    connection = Connection(
        "filesystem://localhost//",
        transport=transport,
        transport_options={
            "data_folder_in": str(folder),
            "data_folder_out": str(folder),
            "control_folder": str(folder / "control"),
            "store_processed": False,
        },
    )
    return connection.default_channel


def _poll_while_writing(monkeypatch, module, consumer) -> list:  # noqa: ANN001
    """Make ``module``'s put poll the queue from ``consumer`` once the message file is open and
    before a byte of it is written (both put methods serialise the payload at that point)."""
    seen: list = []
    real_dumps = module.dumps

    def dumps_after_a_poll(payload):  # noqa: ANN001, ANN202
        try:
            seen.append(consumer._get(QUEUE))
        except Empty:
            seen.append("nothing")
        except json.JSONDecodeError as error:
            seen.append(error)
        return real_dumps(payload)

    monkeypatch.setattr(module, "dumps", dumps_after_a_poll)
    return seen


def test_a_message_is_invisible_until_written_whole(tmp_path, monkeypatch):
    producer = _channel(tmp_path, "evaltrans.broker:FilesystemTransport")
    consumer = _channel(tmp_path, "evaltrans.broker:FilesystemTransport")
    seen = _poll_while_writing(monkeypatch, broker, consumer)
    producer._put(QUEUE, {"body": "x" * 100_000, "number": 1})
    assert seen == ["nothing"]
    assert consumer._get(QUEUE) == {"body": "x" * 100_000, "number": 1}
    assert list(tmp_path.iterdir()) == []  # no part file left


def test_a_failed_write_leaves_no_file(tmp_path, monkeypatch):
    producer = _channel(tmp_path, "evaltrans.broker:FilesystemTransport")

    def full_disk(payload):  # noqa: ANN001, ANN202
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(broker, "dumps", full_disk)
    with pytest.raises(broker.ChannelError):
        producer._put(QUEUE, {"number": 1})
    assert list(tmp_path.iterdir()) == []


def test_kombus_own_transport_still_hands_out_the_empty_file(tmp_path, monkeypatch):
    # Why evaltrans.broker exists. When this fails, kombu writes its files whole and
    # evaltrans.broker (with CELERY_BROKER_TRANSPORT) can go.
    producer = _channel(tmp_path, "filesystem")
    consumer = _channel(tmp_path, "filesystem")
    seen = _poll_while_writing(monkeypatch, filesystem, consumer)
    producer._put(QUEUE, {"number": 1})
    assert len(seen) == 1 and isinstance(seen[0], json.JSONDecodeError)
    with pytest.raises(Empty):
        consumer._get(QUEUE)  # and the message is lost


@pytest.mark.parametrize(
    ("url", "transport"),
    [
        ("filesystem://localhost//", "evaltrans.broker:FilesystemTransport"),
        ("redis://127.0.0.1:6379/0", None),  # a transport set would win over the URL's scheme
        ("amqp://guest:guest@127.0.0.1:5672//", None),
    ],
)
def test_only_the_filesystem_broker_gets_this_transport(url, transport):
    assert broker.transport_for(url) == transport


# --- waiting while every prefetch slot is taken ------------------------------------------------


def _busy_worker(folder: Path, queues: tuple[str, ...] = ("tasks",)):  # noqa: ANN202
    """A connection consuming ``queues`` (the first with one prefetch slot, as a worker's with
    late acks; the others without a limit, as Celery's remote control), the bodies and the
    messages it got, and a function that publishes to one of the queues."""
    connection = Connection(
        "filesystem://localhost//",
        transport="evaltrans.broker:FilesystemTransport",
        transport_options={
            "data_folder_in": str(folder),
            "data_folder_out": str(folder),
            "control_folder": str(folder / "control"),
            "store_processed": False,
            "polling_interval": 0.01,
        },
    )
    got: list = []

    def queue(name: str) -> Queue:
        # Names of this test's own: kombu remembers declared exchanges per process, so a name
        # an earlier test declared would not be bound in this test's folder.
        unique = f"{name}-{folder.name}"
        return Queue(unique, Exchange(unique), unique)

    for number, name in enumerate(queues):
        channel = connection.channel()
        if number == 0:
            channel.basic_qos(prefetch_count=1)
        consumer = Consumer(channel, [queue(name)])
        consumer.register_callback(lambda body, message: got.append((body, message)))
        consumer.consume()
    producer = Producer(connection.channel())

    def publish(name: str, body: str) -> None:
        target = queue(name)
        producer.publish(
            body, exchange=target.exchange, routing_key=target.routing_key, declare=[target]
        )

    return connection, got, publish


def test_a_worker_with_its_slot_taken_does_not_poll_every_interval(tmp_path, monkeypatch):
    connection, got, publish = _busy_worker(tmp_path)
    publish("tasks", "first")
    publish("tasks", "second")
    connection.drain_events(timeout=5)
    assert len(got) == 1  # its slot is now taken
    transport = connection.transport
    looks = []
    real_get = transport.cycle.get

    def counted_get(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        looks.append(1)
        return real_get(*args, **kwargs)

    monkeypatch.setattr(transport.cycle, "get", counted_get)
    with pytest.raises(TimeoutError):
        connection.drain_events(timeout=0.6)
    # kombu's loop looks every 10 ms (about 60 times); this one every BUSY_POLL_S (0.25 s).
    assert 1 <= len(looks) <= 5
    assert len(got) == 1
    connection.release()


def test_an_ack_from_another_thread_lets_the_worker_take_the_next_message(tmp_path, monkeypatch):
    # The pool's result thread acks a finished task; the loop must wake for it, not for the
    # next poll: with BUSY_POLL_S at 30 s a missed wake-up would wait the whole 10 s timeout.
    monkeypatch.setattr(broker, "BUSY_POLL_S", 30.0)
    connection, got, publish = _busy_worker(tmp_path)
    publish("tasks", "first")
    publish("tasks", "second")
    connection.drain_events(timeout=5)
    threading.Timer(0.1, got[0][1].ack).start()
    started = time.monotonic()
    connection.drain_events(timeout=10)
    assert time.monotonic() - started < 5  # about 0.1 s: woken by the ack
    assert sorted(body for body, _ in got) == ["first", "second"]
    got[1][1].ack()
    connection.release()


def test_a_queue_without_prefetch_limit_is_still_polled_while_the_slot_is_taken(
    tmp_path, monkeypatch
):
    # Celery's remote-control queue has no prefetch limit: no ack wakes the loop for it.
    monkeypatch.setattr(broker, "BUSY_POLL_S", 0.05)
    connection, got, publish = _busy_worker(tmp_path, queues=("tasks", "control"))
    publish("tasks", "first")
    connection.drain_events(timeout=5)
    publish("control", "ping")
    connection.drain_events(timeout=5)
    assert [body for body, _ in got] == ["first", "ping"]
    connection.release()
