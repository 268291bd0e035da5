"""A TCP proxy that can simulate a server restart: ``cut()`` drops every open connection and
refuses new ones (the listening socket is closed, so a client gets "connection refused", as
from a server that is down), ``restore()`` listens again on the same port.

``refuse_next(n)`` drops the next ``n`` new connections at once, as a database that is still
starting up refuses clients. ``cut_when(pattern)`` arms a trigger: the moment a client sends ``pattern`` (e.g. the SQL of
an INSERT) the proxy cuts *before* forwarding it, so a fault can land at an exact point in a
transaction without touching the code under test.

Threads only (one accept thread, two pump threads per connection); every blocking call has a
timeout or is woken by ``shutdown``, so ``close()`` always returns.
"""

from __future__ import annotations

import select
import socket
import threading

BUFFER = 65536


class _Pair:
    """One client connection and its upstream connection."""

    def __init__(self, client: socket.socket, upstream: socket.socket) -> None:
        self.client = client
        self.upstream = upstream
        self.tail = b""  # end of the client's last bytes, for a pattern split over two reads
        self.closed = False

    def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        for sock in (self.client, self.upstream):
            try:
                sock.shutdown(socket.SHUT_RDWR)  # wakes the pump blocked in recv()
            except OSError:
                pass
            sock.close()


class TcpProxy:
    """Forward 127.0.0.1:<port> to ``target``; ``cut()`` and ``restore()`` simulate an outage."""

    def __init__(self, target_port: int, target_host: str = "127.0.0.1") -> None:
        self.target = (target_host, target_port)
        self._lock = threading.Lock()
        self._pairs: set[_Pair] = set()
        self._up = True
        self._stopped = threading.Event()
        self._listener: socket.socket | None = self._listen(0)
        self.port: int = self._listener.getsockname()[1]
        self._pattern: bytes | None = None
        self._countdown = 0
        self.fired = threading.Event()
        self._refusals = 0
        self.refused = threading.Event()
        self.accepted = 0
        self.cuts = 0
        self._thread = threading.Thread(target=self._accept_loop, name="fault-proxy", daemon=True)
        self._thread.start()

    # --- control ---------------------------------------------------------------------------

    @property
    def is_up(self) -> bool:
        return self._up

    def cut(self) -> None:
        """Close every open connection and refuse new ones until ``restore()``."""
        with self._lock:
            self._cut_locked()

    def restore(self) -> None:
        """Accept connections again, on the same port."""
        with self._lock:
            if self._up or self._stopped.is_set():
                return
            self._listener = self._listen(self.port)
            self._up = True

    def cut_when(self, pattern: bytes, occurrence: int = 1) -> threading.Event:
        """Cut when a client sends ``pattern`` for the ``occurrence``-th time (counted over all
        connections from now on); those bytes are not forwarded. Returns ``fired``."""
        with self._lock:
            self._pattern = pattern
            self._countdown = occurrence
            self.fired.clear()
        return self.fired

    def refuse_next(self, count: int = 1) -> threading.Event:
        """Close the next ``count`` new connections as soon as they are accepted (nothing is
        forwarded); returns ``refused``, set once all of them were refused."""
        with self._lock:
            self._refusals = count
            self.refused.clear()
        return self.refused

    def close(self) -> None:
        self._stopped.set()
        with self._lock:
            self._cut_locked()
        self._thread.join(timeout=5)

    @property
    def open_connections(self) -> int:
        with self._lock:
            return len(self._pairs)

    # --- internals -------------------------------------------------------------------------

    def _listen(self, port: int) -> socket.socket:
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        # The port is bound again after a cut while old connections may still be in TIME_WAIT.
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", port))
        listener.listen(64)
        return listener

    def _cut_locked(self) -> None:
        if self._up:
            self.cuts += 1
        self._up = False
        self._pattern = None
        if self._listener is not None:
            try:
                self._listener.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            self._listener.close()
            self._listener = None
        for pair in list(self._pairs):
            pair.close()
        self._pairs.clear()

    def _accept_loop(self) -> None:
        while not self._stopped.is_set():
            with self._lock:
                listener = self._listener
            if listener is None:
                self._stopped.wait(0.02)
                continue
            try:
                ready, _, _ = select.select([listener], [], [], 0.1)
                if not ready:
                    continue
                client, _ = listener.accept()
            except (OSError, ValueError):  # closed by cut() meanwhile
                continue
            with self._lock:
                refuse = self._refusals > 0
                if refuse:
                    self._refusals -= 1
                    if not self._refusals:
                        self.refused.set()
            if refuse:
                client.close()
                continue
            try:
                upstream = socket.create_connection(self.target, timeout=5)
                upstream.settimeout(None)
            except OSError:
                client.close()
                continue
            for sock in (client, upstream):
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            pair = _Pair(client, upstream)
            with self._lock:
                if not self._up:
                    pair.close()
                    continue
                self._pairs.add(pair)
                self.accepted += 1
            for source, target, outgoing in ((client, upstream, True), (upstream, client, False)):
                threading.Thread(
                    target=self._pump,
                    args=(pair, source, target, outgoing),
                    name="fault-proxy-pump",
                    daemon=True,
                ).start()

    def _triggered(self, pair: _Pair, data: bytes) -> bool:
        """Whether these client bytes complete the armed pattern's occurrence (under lock)."""
        pattern = self._pattern
        if pattern is None:
            return False
        combined = pair.tail + data
        pair.tail = combined[-(len(pattern) - 1) :] if len(pattern) > 1 else b""
        found = combined.count(pattern)
        if not found:
            return False
        self._countdown -= found
        return self._countdown <= 0

    def _pump(self, pair: _Pair, source: socket.socket, target: socket.socket, out: bool) -> None:
        while True:
            try:
                data = source.recv(BUFFER)
            except OSError:
                break
            if not data:
                break
            if out:
                with self._lock:
                    if self._triggered(pair, data):
                        self._cut_locked()
                        self.fired.set()
                        return
            try:
                target.sendall(data)
            except OSError:
                break
        with self._lock:
            self._pairs.discard(pair)
            pair.close()
