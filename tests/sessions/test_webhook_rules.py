"""Webhooks' pure rules (issue 38, ``lawspeaker.sessions.webhooks``): which events a version makes,
their ids and bodies, the retry schedule, and which URLs and addresses may be called. No I/O: the
resolver is a function the tests hand in, never real DNS."""

from __future__ import annotations

import asyncio
import ipaddress
import json
import random

import pytest
from standardwebhooks import Webhook

from lawspeaker.sessions import delivery, webhooks
from lawspeaker.sessions.webhooks import Allowlist, Change, Config, WebhookRefused

SESSION = "valhalla.abc"


class Hook:
    def __init__(self, url: str, secret: str) -> None:
        self.url, self.secret = url, secret


def change(**fields: object) -> Change:
    base: dict[str, object] = {"session": SESSION, "game": "valhalla", "rev": 5, "at": 1_800_000_000.25}
    return Change(**{**base, **fields})  # type: ignore[arg-type]


def kinds(c: Change) -> list[tuple[str, object]]:
    return [(e.type, json.loads(e.payload)["data"].get("seat")) for e in webhooks.events(c)]


# --------------------------------------------------------------------------- events


def test_a_seat_is_told_once_when_it_becomes_to_act_not_while_it_stays() -> None:
    assert kinds(change(to_act=(1,), before_to_act=(0,))) == [("seat.to_act", 1)]
    assert kinds(change(to_act=(1,), before_to_act=(1,))) == []  # its second move of one turn
    assert kinds(change(to_act=(0, 2), before_to_act=(2,))) == [("seat.to_act", 0)]
    assert kinds(change(to_act=(), before_to_act=(0,))) == []  # the server moves (a bot, a draw)


def test_a_creation_tells_every_seat_to_act_at_once() -> None:
    assert kinds(change(rev=1, to_act=(0,), before_to_act=None)) == [("seat.to_act", 0)]


def test_a_claim_an_end_and_a_rematch_each_make_their_event_in_order() -> None:
    c = change(
        claimed=(2, "Astrid"),
        to_act=(2,),
        before_to_act=(),
        names=("Bjorn", "", "Astrid"),
        ended=None,
        rematch="",
    )
    assert kinds(c) == [("seat.claimed", 2), ("seat.to_act", 2)]
    data = [json.loads(e.payload)["data"] for e in webhooks.events(c)]
    assert data[0]["displayName"] == data[1]["displayName"] == "Astrid"
    ended = change(ended=("Seat 0 wins.", (0,)), names=("Bjorn", "Astrid"), rematch="valhalla.next")
    got = webhooks.events(ended)
    assert [e.type for e in got] == ["game.ended", "session.rematch"]
    body = json.loads(got[0].payload)
    assert body["data"]["winners"] == [{"seat": 0, "displayName": "Bjorn"}]
    assert body["data"]["summary"] == "Seat 0 wins."
    assert json.loads(got[1].payload)["data"]["rematch"] == "valhalla.next"


def test_the_body_is_a_standard_webhooks_payload_fixed_by_the_version() -> None:
    c = change(to_act=(1,), before_to_act=(0,), names=("", "Sigrid"))
    first, again = webhooks.events(c), webhooks.events(c)
    assert first == again  # derived again: the same id and the same bytes
    body = json.loads(first[0].payload)
    assert set(body) == {"type", "timestamp", "data"}
    assert body["type"] == "seat.to_act" and body["timestamp"] == "2027-01-15T08:00:00.250Z"
    assert body["data"] == {
        "session": SESSION,
        "game": "valhalla",
        "etag": "5",
        "seat": 1,
        "displayName": "Sigrid",
    }


def test_ids_are_one_digest_of_session_version_type_and_seat() -> None:
    one = webhooks.event_id(SESSION, 5, "seat.to_act", 1)
    assert one == webhooks.event_id(SESSION, 5, "seat.to_act", 1)
    assert one.startswith("msg_") and len(one) == 36
    others = {
        webhooks.event_id(SESSION, 6, "seat.to_act", 1),
        webhooks.event_id(SESSION, 5, "seat.to_act", 0),
        webhooks.event_id(SESSION, 5, "clock.running_out", 1),
        webhooks.event_id("valhalla.abd", 5, "seat.to_act", 1),
        webhooks.event_id(SESSION, 5, "game.ended"),
    }
    assert one not in others and len(others) == 5
    assert webhooks.events(change(to_act=(1,), before_to_act=()))[0].id == one


def test_a_running_clock_makes_a_reminder_due_a_minute_or_a_quarter_of_the_move_before_it_ends() -> None:
    at = 1_800_000_100.0
    day = webhooks.events(change(to_act=(0,), before_to_act=(0,), deadline=(0, at, 86400.0)))
    assert [e.type for e in day] == ["clock.running_out"]
    assert day[0].due == at - 60 and day[0].only_at_rev
    assert json.loads(day[0].payload)["data"]["secondsLeft"] == 60
    short = webhooks.events(change(to_act=(0,), before_to_act=(1,), deadline=(0, at, 20.0)))
    assert [e.type for e in short] == ["seat.to_act", "clock.running_out"]
    assert short[1].due == at - 5
    assert json.loads(short[0].payload)["data"]["deadline"] == "2027-01-15T08:01:40.000Z"


def test_the_outbox_holds_each_event_once_per_target_and_nothing_without_one() -> None:
    c = change(to_act=(1,), before_to_act=(0,), webhook=Hook("https://hooks.example/s", "whsec_x"))
    assert webhooks.outbox(change(to_act=(1,), before_to_act=(0,)), Config()) == b""
    assert webhooks.outbox(change(to_act=(0,), before_to_act=(0,)), Config(url="https://a.example")) == b""
    items = webhooks.decode(webhooks.outbox(c, Config(url="https://server.example/all", secret="whsec_y")))
    assert [(i.url, i.secret, i.server) for i in items] == [
        ("https://hooks.example/s", "whsec_x", False),
        ("https://server.example/all", "", True),  # signed with the replica's --webhook-secret
    ]
    assert items[0].id == items[1].id and items[0].payload == items[1].payload
    assert items[0].due == items[0].first_due == c.at and items[0].attempts == 0


def test_a_signature_made_for_an_item_verifies_with_the_standard_webhooks_library() -> None:
    secret = webhooks.new_secret()
    assert secret.startswith("whsec_") and webhooks.valid_secret(secret)
    assert not webhooks.valid_secret("whsec_short") and not webhooks.valid_secret("not-a-secret")
    event = webhooks.events(change(to_act=(1,), before_to_act=()))[0]
    import time

    now = time.time()
    headers = {
        "webhook-id": event.id,
        "webhook-timestamp": str(int(now)),
        "webhook-signature": delivery.Signer().sign(secret, event.id, now, event.payload),
    }
    assert Webhook(secret).verify(event.payload, headers)["type"] == "seat.to_act"


# --------------------------------------------------------------------------- retries


def test_backoff_doubles_from_a_second_to_five_minutes_with_jitter_in_its_upper_half() -> None:
    rng = random.Random(3)
    for attempts, base in ((1, 1), (2, 2), (3, 4), (9, 256), (10, 300), (40, 300)):
        for _ in range(20):
            assert base / 2 <= webhooks.backoff(attempts, rng) <= base


def test_an_item_is_retried_until_its_bound_with_a_last_try_there_then_given_up() -> None:
    item = webhooks.decode(
        webhooks.outbox(change(to_act=(1,), before_to_act=()), Config(url="https://a.example", secret="s"))
    )[0]
    t0 = item.first_due
    rng = random.Random(1)
    after = webhooks.retried(item, t0, 60.0, rng)
    assert after.attempts == 1 and t0 + 0.5 <= after.due <= t0 + 1
    late = webhooks.retried(after, t0 + 59.5, 60.0, rng)
    assert late.due == t0 + 60  # the last try at the bound, not past it
    assert webhooks.expires_at(late, 60.0) == t0 + 60  # a failure from then on is the last


def test_a_reminder_of_a_version_the_session_moved_on_from_is_obsolete() -> None:
    at = 1_800_000_100.0
    items = webhooks.decode(
        webhooks.outbox(
            change(rev=5, to_act=(0,), before_to_act=(1,), deadline=(0, at, 30.0)),
            Config(url="https://a.example", secret="s"),
        )
    )
    to_act, reminder = items
    assert not webhooks.obsolete(reminder, 5) and webhooks.obsolete(reminder, 6)
    assert not webhooks.obsolete(to_act, 6)  # only a reminder depends on the version staying


# --------------------------------------------------------------------------- URLs and addresses

NOTHING = Allowlist()


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("", webhooks.URL_INVALID),
        ("ftp://hooks.example/x", webhooks.URL_INVALID),
        ("http://hooks.example/x", webhooks.URL_INVALID),  # http:// only for an allowed host
        ("https:///x", webhooks.URL_INVALID),
        ("https://user:pw@hooks.example/x", webhooks.URL_INVALID),
        ("https://hooks.example/x#frag", webhooks.URL_INVALID),
        ("https://hooks example/x", webhooks.URL_INVALID),
        ("https://hooks.exämple/x", webhooks.URL_INVALID),
        ("https://hooks.example:0/x", webhooks.URL_INVALID),
        ("https://hooks.example:99999/x", webhooks.URL_INVALID),
        ("https://" + "a" * 2050 + ".example/", webhooks.URL_INVALID),
        ("https://127.0.0.1/x", webhooks.HOST_NOT_ALLOWED),
        ("https://127.8.9.10:8443/x", webhooks.HOST_NOT_ALLOWED),
        ("https://10.1.2.3/x", webhooks.HOST_NOT_ALLOWED),
        ("https://172.16.0.1/x", webhooks.HOST_NOT_ALLOWED),
        ("https://192.168.1.1/x", webhooks.HOST_NOT_ALLOWED),
        ("https://169.254.169.254/latest/meta-data", webhooks.HOST_NOT_ALLOWED),
        ("https://100.64.0.1/x", webhooks.HOST_NOT_ALLOWED),  # shared address space (CGNAT)
        ("https://0.0.0.0/x", webhooks.HOST_NOT_ALLOWED),
        ("https://224.0.0.1/x", webhooks.HOST_NOT_ALLOWED),
        ("https://255.255.255.255/x", webhooks.HOST_NOT_ALLOWED),
        ("https://[::1]/x", webhooks.HOST_NOT_ALLOWED),
        ("https://[::]/x", webhooks.HOST_NOT_ALLOWED),
        ("https://[fe80::1]/x", webhooks.HOST_NOT_ALLOWED),
        ("https://[fd00::1]/x", webhooks.HOST_NOT_ALLOWED),
        ("https://[ff02::1]/x", webhooks.HOST_NOT_ALLOWED),
        ("https://[::ffff:127.0.0.1]/x", webhooks.HOST_NOT_ALLOWED),  # IPv4-mapped
        ("https://[::ffff:169.254.169.254]/x", webhooks.HOST_NOT_ALLOWED),
        ("https://[64:ff9b::a00:1]/x", webhooks.HOST_NOT_ALLOWED),  # NAT64 of 10.0.0.1
        ("https://[2002:7f00:1::]/x", webhooks.HOST_NOT_ALLOWED),  # 6to4 of 127.0.0.1
    ],
)
def test_a_url_that_cannot_be_an_endpoint_or_names_a_private_address_is_refused(
    url: str, reason: str
) -> None:
    with pytest.raises(WebhookRefused) as refused:
        webhooks.parse_url(url, NOTHING)
    assert refused.value.reason == reason, refused.value.message


def test_public_https_urls_pass_and_name_their_port() -> None:
    assert webhooks.parse_url("https://hooks.example/x?y=1", NOTHING) == webhooks.Target(
        "https", "hooks.example", 443
    )
    assert webhooks.parse_url("https://93.184.216.34:8443/x", NOTHING).port == 8443
    assert webhooks.parse_url("https://[2606:4700::1111]/x", NOTHING).host == "2606:4700::1111"


def test_the_allowlist_exempts_hosts_by_name_address_or_network_and_lets_them_use_http() -> None:
    allow = Allowlist.parse("hooks.internal, 127.0.0.1,10.20.0.0/16,[::1]")
    assert allow.names == frozenset({"hooks.internal"})
    assert webhooks.parse_url("http://127.0.0.1:8080/x", allow).scheme == "http"
    assert webhooks.parse_url("http://hooks.internal/x", allow).host == "hooks.internal"
    assert webhooks.parse_url("https://10.20.3.4/x", allow).host == "10.20.3.4"
    assert webhooks.parse_url("https://[::1]/x", allow).host == "::1"
    with pytest.raises(WebhookRefused):
        webhooks.parse_url("https://10.21.0.1/x", allow)  # outside the allowed network
    with pytest.raises(WebhookRefused):
        webhooks.parse_url("http://hooks.example/x", allow)  # not allowed: https only
    with pytest.raises(ValueError):
        Allowlist.parse("not a host!")


def test_a_resolved_host_is_refused_if_any_of_its_addresses_is_not_public() -> None:
    assert webhooks.vet("hooks.example", ["93.184.216.34", "2606:2800:220:1::"], NOTHING) == [
        "93.184.216.34",
        "2606:2800:220:1::",
    ]
    for private in ("127.0.0.1", "10.0.0.7", "169.254.169.254", "::1", "::ffff:10.0.0.7", "fe80::1%eth0"):
        with pytest.raises(WebhookRefused) as refused:
            webhooks.vet("hooks.example", ["93.184.216.34", private], NOTHING)
        assert refused.value.reason == webhooks.HOST_NOT_ALLOWED
    with pytest.raises(WebhookRefused) as none:
        webhooks.vet("hooks.example", [], NOTHING)
    assert none.value.reason == webhooks.URL_INVALID
    allow = Allowlist.parse("hooks.internal,10.0.0.0/8")
    assert webhooks.vet("hooks.internal", ["127.0.0.1"], allow) == ["127.0.0.1"]  # exempt by name
    assert webhooks.vet("other.example", ["10.0.0.7"], allow) == ["10.0.0.7"]  # by network
    assert webhooks.forbidden(ipaddress.ip_address("8.8.8.8")) is None


def test_creation_resolves_the_host_with_the_resolver_it_is_given() -> None:
    asked: list[tuple[str, int]] = []

    def resolving(*addresses: str) -> delivery.Resolver:
        async def resolve(host: str, port: int) -> list[str]:
            asked.append((host, port))
            return list(addresses)

        return resolve

    async def main() -> None:
        target = await delivery.check("https://hooks.example:8443/x", NOTHING, resolving("93.184.216.34"))
        assert target.port == 8443 and asked == [("hooks.example", 8443)]
        for to in (("127.0.0.1",), ("93.184.216.34", "10.9.9.9"), ("::ffff:192.168.0.1",)):
            with pytest.raises(WebhookRefused) as refused:
                await delivery.check("https://rebind.example/x", NOTHING, resolving(*to))
            assert refused.value.reason == webhooks.HOST_NOT_ALLOWED
        # an address literal is not resolved
        with pytest.raises(WebhookRefused):
            await delivery.check("https://10.0.0.1/x", NOTHING, resolving("93.184.216.34"))
        assert [h for h, _ in asked].count("10.0.0.1") == 0

    asyncio.run(main())
