"""The embedded default's broker: kombu's filesystem transport, with whole message files and
a worker that waits for its ack instead of polling while its tasks run.

kombu 5.7's filesystem transport creates a message file under its final name, then writes
it. A worker polling the folder in between takes the empty file, fails to decode it and
stops ("Unrecoverable error: JSONDecodeError"), and the message is gone: in the runs
benchmark, one of two workers stopped this way before its first task in 2 or 3 of about 50
runs, and left the run to the other. The lock kombu takes while writing does not help: it is
advisory, and the worker moves the file without asking for it.

Here a message is written under a name no worker reads (``….msg.part``) and renamed into the
queue when it is complete; a rename within a folder is atomic, so a worker finds a whole
message or none. While a worker's tasks hold every prefetch slot, its loop waits for the ack
that frees one (``FilesystemTransport``) rather than waking every polling interval. The
settings select this transport (``CELERY_BROKER_TRANSPORT = transport_for(URL)``) whenever the
broker URL is ``filesystem://``.
"""

from __future__ import annotations

import contextlib
import os
import threading
import uuid
from queue import Empty
from time import monotonic, sleep
from typing import Any

from kombu.exceptions import ChannelError
from kombu.transport import filesystem, virtual
from kombu.utils.encoding import str_to_bytes
from kombu.utils.json import dumps

PARTIAL_SUFFIX = ".part"

BUSY_POLL_S = 0.25
"""How often the folder is listed while every task slot is taken: for the channels without a
prefetch limit (Celery's remote control), which a freed slot does not wake."""


class QoS(virtual.QoS):
    """kombu's prefetch accounting; an ack or a reject also wakes the transport's loop, which
    waits for one while every prefetch slot is taken (the worker's tasks are running)."""

    def ack(self, delivery_tag: Any) -> None:
        super().ack(delivery_tag)
        self.channel.connection.slot_freed.set()

    def reject(self, delivery_tag: Any, requeue: bool = False) -> None:
        super().reject(delivery_tag, requeue)
        self.channel.connection.slot_freed.set()


class Channel(filesystem.Channel):
    QoS = QoS

    def _put(self, queue: str, payload: Any, **kwargs: Any) -> None:
        """Put ``payload`` onto ``queue``: written whole, then renamed into the queue."""
        # kombu's name: a worker takes the files of a queue in the order of their names.
        name = f"{int(round(monotonic() * 1000))}_{uuid.uuid4()}.{queue}.msg"
        path = os.path.join(self.data_folder_out, name)
        partial = path + PARTIAL_SUFFIX  # ends in ".part", so no queue's worker takes it
        try:
            with open(partial, "wb") as handle:
                handle.write(str_to_bytes(dumps(payload)))
            os.replace(partial, path)
        except OSError as exc:
            with contextlib.suppress(OSError):
                os.remove(partial)
            raise ChannelError(f"Cannot add file {path!r} to directory") from exc


class FilesystemTransport(filesystem.Transport):
    """kombu's filesystem transport, whose loop polls the folder only when it may take a
    message.

    kombu's loop lists the queue folder every ``polling_interval`` (10 ms here), and, while
    the worker's tasks hold every prefetch slot, wakes as often only to find it may take
    nothing. Here it then waits for the ack that frees a slot: the worker's main process no
    longer wakes 100 times a second beside the pool process that computes, and it asks for
    the next message as soon as a task is acked instead of up to one interval later.
    """

    Channel = Channel

    def __init__(self, client: Any, **kwargs: Any) -> None:
        super().__init__(client, **kwargs)
        self.slot_freed = threading.Event()

    def drain_events(self, connection: Any, timeout: float | None = None) -> None:
        started = monotonic()
        interval = self.polling_interval
        if timeout and interval and interval > timeout:
            interval = timeout
        while True:
            # Cleared before looking, so an ack from another thread after the look still wakes
            # the wait below.
            self.slot_freed.clear()
            try:
                self.cycle.get(self._deliver, timeout=timeout)
                return
            except Empty:
                pass
            waited = monotonic() - started
            if timeout is not None and waited >= timeout:
                raise TimeoutError()
            left = None if timeout is None else timeout - waited
            if self._slots_taken():
                self.slot_freed.wait(BUSY_POLL_S if left is None else min(BUSY_POLL_S, left))
            elif interval is not None:
                sleep(interval)

    def _slots_taken(self) -> bool:
        """Whether every consuming channel with a prefetch limit has its slots taken (the
        worker's tasks are running): then only an ack or a reject can let it take a task."""
        limited = [
            channel
            for channel in self.channels
            if channel._consumers and channel.qos.prefetch_count
        ]
        return bool(limited) and not any(channel.qos.can_consume() for channel in limited)


def transport_for(url: str) -> str | None:
    """Celery's ``broker_transport`` for broker ``url``: this module's transport for
    ``filesystem://``, else None (the URL's scheme chooses; a transport set here would win
    over it, and a Redis URL would get the filesystem transport)."""
    return f"{__name__}:FilesystemTransport" if url.startswith("filesystem://") else None
