"""A webhook receiver on loopback for the tests (stdlib ``http.server`` in a thread): it keeps every
request it is sent and answers 204, or 500 while ``failing`` is set. Signatures are checked by the
tests with ``standardwebhooks`` against the secret of each path (:meth:`Receiver.verify`)."""

from __future__ import annotations

import http.server
import json
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from standardwebhooks import Webhook


@dataclass(frozen=True)
class Delivery:
    path: str
    headers: dict[str, str]  # lower-case names
    body: bytes
    status: int  # what the receiver answered
    at: float  # when it arrived (Unix time)

    @property
    def id(self) -> str:
        return self.headers.get("webhook-id", "")

    @property
    def event(self) -> dict[str, Any]:
        got: dict[str, Any] = json.loads(self.body)
        return got


class Receiver:
    """``with Receiver() as receiver``: ``receiver.url(path)`` to give out, ``deliveries`` to read."""

    def __init__(self) -> None:
        self.failing = False
        self.deliveries: list[Delivery] = []
        self.changed = threading.Condition()
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:
                arrived = time.time()
                body = self.rfile.read(int(self.headers.get("content-length", "0")))
                status = 500 if outer.failing else 204
                headers = {k.lower(): v for k, v in self.headers.items()}
                with outer.changed:  # kept before it is answered: the sender's answer means it is here
                    outer.deliveries.append(Delivery(self.path, headers, body, status, arrived))
                    outer.changed.notify_all()
                self.send_response(status)
                self.send_header("content-length", "0")
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, name="webhook-receiver", daemon=True)

    def __enter__(self) -> Receiver:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(10)

    @property
    def port(self) -> int:
        return int(self.server.server_address[1])

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def snapshot(self) -> list[Delivery]:
        with self.changed:
            return list(self.deliveries)

    def accepted(self, path: str | None = None) -> list[Delivery]:
        """The deliveries answered 2xx (to ``path`` only, when given), in arrival order."""
        return [d for d in self.snapshot() if d.status < 300 and (path is None or d.path == path)]

    def wait_for(
        self, ready: Callable[[list[Delivery]], bool], timeout: float, every: float = 0.05
    ) -> list[Delivery]:
        """Blocks until ``ready(deliveries)`` holds, looked at again when deliveries came in, at most
        once per ``every`` seconds; AssertionError after ``timeout`` seconds.

        ``ready`` runs on a copy, without the lock, so that a handler never waits for it; and not
        after each of thousands of deliveries, so that it does not hold the GIL from the receiver's
        threads (the deliveries that come meanwhile are looked at together)."""
        deadline = time.monotonic() + timeout
        while True:
            looked = time.monotonic()
            with self.changed:
                seen = list(self.deliveries)
            if ready(seen):
                return seen
            with self.changed:
                while len(self.deliveries) == len(seen) or time.monotonic() < looked + every:
                    left = deadline - time.monotonic()
                    if left <= 0:
                        raise AssertionError(
                            f"not delivered within {timeout} s: {len(self.deliveries)} deliveries"
                        )
                    if len(self.deliveries) == len(seen):
                        self.changed.wait(left)
                    else:  # come in: looked at once ``every`` has passed since the last look
                        self.changed.wait(min(left, looked + every - time.monotonic()))

    def ids(self, path: str) -> list[str]:
        return [d.id for d in self.accepted(path)]


def verify(deliveries: Iterator[Delivery] | list[Delivery], secret: str) -> int:
    """Checks every delivery's signature with ``standardwebhooks`` (raises WebhookVerificationError
    on the first that fails); how many were checked."""
    hook = Webhook(secret)
    count = 0
    for delivery in deliveries:
        hook.verify(delivery.body, delivery.headers)
        count += 1
    return count
