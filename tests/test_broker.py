"""The embedded broker (evaltrans.broker): a worker never takes a message file half written.

kombu's filesystem transport creates the file under its final name and then writes it; a
worker that polls in between takes the empty file and stops ("Unrecoverable error:
JSONDecodeError"), losing the message. The tests poll the queue at that very moment, from
inside the write, instead of hoping a thread hits it.
"""

from __future__ import annotations

import json
from pathlib import Path
from queue import Empty

import pytest
from kombu import Connection
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
