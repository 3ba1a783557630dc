"""The README's webhook receiver, run as written: its ``receive`` verifies a delivery the service's
own signer made, acts on an event once however often it is delivered, and refuses a forged one. The
two names it leaves to the reader's app, ``webhook_secret`` and ``notify``, are given here."""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

import pytest
from standardwebhooks import WebhookVerificationError

from lawspeaker.sessions import delivery, webhooks

README = Path(__file__).resolve().parents[2] / "README.md"


def example() -> str:
    section = README.read_text(encoding="utf-8").split("\n## Webhooks: told when it is your turn\n", 1)[1]
    found = re.search(r"^```python\n(.*?)^```$", section.split("\n## ", 1)[0], re.MULTILINE | re.DOTALL)
    assert found, "the README's webhooks section has no ```python block"
    return found.group(1)


def test_the_readme_receiver_verifies_dedupes_and_refuses_a_forgery() -> None:
    secret = webhooks.new_secret()
    told: list[tuple[str, int]] = []
    scope: dict[str, Any] = {
        "webhook_secret": secret,
        "notify": lambda session, seat: told.append((session, seat)),
    }
    exec(compile(example(), "README.md", "exec"), scope)
    change = webhooks.Change(session="valhalla.x", game="valhalla", rev=3, at=time.time(), to_act=(1,))
    event = webhooks.events(change)[0]
    now = time.time()
    headers = {
        "webhook-id": event.id,
        "webhook-timestamp": str(int(now)),
        "webhook-signature": delivery.Signer().sign(secret, event.id, now, event.payload),
    }
    assert scope["receive"](event.payload, headers) == 204
    assert scope["receive"](event.payload, headers) == 204  # a redelivery: answered, not acted on
    assert told == [("valhalla.x", 1)]
    forged = {
        **headers,
        "webhook-signature": delivery.Signer().sign(webhooks.new_secret(), event.id, now, event.payload),
    }
    with pytest.raises(WebhookVerificationError):
        scope["receive"](event.payload, forged)
