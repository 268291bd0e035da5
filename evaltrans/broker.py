"""The embedded default's broker: kombu's filesystem transport, with whole message files.

kombu 5.7's filesystem transport creates a message file under its final name, then writes
it. A worker polling the folder in between takes the empty file, fails to decode it and
stops ("Unrecoverable error: JSONDecodeError"), and the message is gone: in the runs
benchmark, one of two workers stopped this way before its first task in 2 or 3 of about 50
runs, and left the run to the other. The lock kombu takes while writing does not help: it is
advisory, and the worker moves the file without asking for it.

Here a message is written under a name no worker reads (``….msg.part``) and renamed into the
queue when it is complete; a rename within a folder is atomic, so a worker finds a whole
message or none. The settings select it (``CELERY_BROKER_TRANSPORT = transport_for(URL)``)
whenever the broker URL is ``filesystem://``.
"""

from __future__ import annotations

import contextlib
import os
import uuid
from time import monotonic
from typing import Any

from kombu.exceptions import ChannelError
from kombu.transport import filesystem
from kombu.utils.encoding import str_to_bytes
from kombu.utils.json import dumps

PARTIAL_SUFFIX = ".part"


class Channel(filesystem.Channel):
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
    Channel = Channel


def transport_for(url: str) -> str | None:
    """Celery's ``broker_transport`` for broker ``url``: this module's transport for
    ``filesystem://``, else None (the URL's scheme chooses; a transport set here would win
    over it, and a Redis URL would get the filesystem transport)."""
    return f"{__name__}:FilesystemTransport" if url.startswith("filesystem://") else None
