"""``lawspeaker serve``'s webhook flags (issue 38): each becomes the SessionApi's webhook settings, and
one that cannot work stops the command with a line naming the flag, before anything starts."""

from __future__ import annotations

import ipaddress

import pytest

from lawspeaker.server import cli
from lawspeaker.sessions import webhooks

SECRET = webhooks.new_secret()


def settings(*flags: str) -> webhooks.Config:
    return cli._webhooks(cli.parser().parse_args(["serve", *flags]))


def test_the_flags_make_the_server_s_target_allowlist_and_retry_bound() -> None:
    config = settings(
        "--webhook-url",
        "https://hooks.example/lawspeaker",
        "--webhook-secret",
        SECRET,
        "--webhook-allow",
        "hooks.internal,10.0.0.0/8",
        "--webhook-retry-seconds",
        "90",
    )
    assert (config.url, config.secret, config.retry_seconds) == (
        "https://hooks.example/lawspeaker",
        SECRET,
        90,
    )
    assert config.allow.names == frozenset({"hooks.internal"})
    assert config.allow.networks == (ipaddress.ip_network("10.0.0.0/8"),)
    default = settings()
    assert (default.url, default.retry_seconds, bool(default.allow)) == ("", 3600, False)


def test_the_secret_may_come_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LAWSPEAKER_WEBHOOK_SECRET", SECRET)
    monkeypatch.setenv("LAWSPEAKER_WEBHOOK_URL", "https://hooks.example/x")
    assert settings().secret == SECRET


@pytest.mark.parametrize(
    ("flags", "says"),
    [
        (["--webhook-url", "https://hooks.example/x"], "--webhook-url needs --webhook-secret"),
        (["--webhook-url", "http://hooks.example/x", "--webhook-secret", SECRET], "--webhook-url"),
        (["--webhook-url", "https://10.0.0.1/x", "--webhook-secret", SECRET], "private"),
        (["--webhook-secret", "whsec_tooshort"], "--webhook-secret"),
        (["--webhook-allow", "not a host!"], "--webhook-allow"),
        (["--webhook-retry-seconds", "-1"], "--webhook-retry-seconds"),
    ],
)
def test_a_setting_that_cannot_work_stops_the_command_naming_its_flag(flags: list[str], says: str) -> None:
    with pytest.raises(SystemExit) as stopped:
        settings(*flags)
    assert says in str(stopped.value)


def test_an_allowed_loopback_receiver_may_be_the_server_s_target() -> None:
    config = settings(
        "--webhook-url",
        "http://127.0.0.1:8099/hook",
        "--webhook-secret",
        SECRET,
        "--webhook-allow",
        "127.0.0.1",
    )
    assert config.url == "http://127.0.0.1:8099/hook"
