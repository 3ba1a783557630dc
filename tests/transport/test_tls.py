"""`lawspeaker serve` with TLS: whole games over gRPC, HTTPS REST and Connect, and mutual TLS.

Certificates are made for each run (``trustme``): a CA that signs the server's certificate (for
127.0.0.1), a CA that signs the clients' certificates, and a stranger CA whose client certificate
the server must not accept. The servers are real ``lawspeaker serve`` processes, configured once
by flags and once by environment variables.
"""

from __future__ import annotations

import contextlib
import signal
import ssl
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import grpc
import httpx
import pytest
import trustme
from cryptography.hazmat.primitives import serialization
from grpc_health.v1 import health_pb2, health_pb2_grpc

from lawspeaker.v1 import game_pb2, rules_service_pb2_grpc
from lawspeaker.v1 import rules_service_pb2 as pb

from .helpers import play
from .test_connect import RULES, call_json
from .test_serve_command import start

pytestmark = pytest.mark.transport


@dataclass(frozen=True)
class Pki:
    """The files of one run's certificates."""

    server_cert: Path
    server_key: Path
    ca_file: Path  # what clients trust: the server's CA
    client_ca_file: Path  # what a mutual-TLS server trusts
    client: trustme.LeafCert  # signed by the client CA
    stranger: trustme.LeafCert  # signed by a CA the server does not know


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> Pki:
    where = tmp_path_factory.mktemp("pki")
    server_ca, client_ca, stranger_ca = trustme.CA(), trustme.CA(), trustme.CA()
    leaf = server_ca.issue_cert("127.0.0.1", "localhost")
    files = {name: where / f"{name}.pem" for name in ("cert", "key", "ca", "client-ca")}
    leaf.cert_chain_pems[0].write_to_path(str(files["cert"]))
    leaf.private_key_pem.write_to_path(str(files["key"]))
    server_ca.cert_pem.write_to_path(str(files["ca"]))
    client_ca.cert_pem.write_to_path(str(files["client-ca"]))
    return Pki(
        files["cert"],
        files["key"],
        files["ca"],
        files["client-ca"],
        client_ca.issue_cert("seat-client@example.test"),
        stranger_ca.issue_cert("stranger@example.test"),
    )


@dataclass(frozen=True)
class TlsServer:
    grpc_port: int
    http_port: int

    @property
    def base_url(self) -> str:
        return f"https://127.0.0.1:{self.http_port}"

    @property
    def target(self) -> str:
        return f"127.0.0.1:{self.grpc_port}"


@contextlib.contextmanager
def serving(args: list[str], env: dict[str, str]) -> Iterator[TlsServer]:
    """One `lawspeaker serve` on free loopback ports, stopped with SIGTERM at the end."""
    proc, grpc_port, http_port = start(
        ["--host", "127.0.0.1", "--grpc-port", "0", "--http-port", "0", *args], env
    )
    try:
        yield TlsServer(grpc_port, http_port)
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            code = proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)
            raise
        finally:
            if proc.stdout is not None:
                proc.stdout.close()
        assert code == 0


@pytest.fixture(scope="module")
def tls_server(pki: Pki) -> Iterator[TlsServer]:
    """TLS configured by flags."""
    with serving(["--tls-cert", str(pki.server_cert), "--tls-key", str(pki.server_key)], {}) as server:
        yield server


@pytest.fixture(scope="module")
def mtls_server(pki: Pki) -> Iterator[TlsServer]:
    """Mutual TLS configured by environment variables."""
    env = {
        "LAWSPEAKER_TLS_CERT": str(pki.server_cert),
        "LAWSPEAKER_TLS_KEY": str(pki.server_key),
        "LAWSPEAKER_TLS_CLIENT_CA": str(pki.client_ca_file),
    }
    with serving([], env) as server:
        yield server


def https_client(server: TlsServer, pki: Pki, cert: trustme.LeafCert | None = None) -> httpx.Client:
    """An HTTPS client that trusts only the run's server CA (and presents ``cert``)."""
    context = ssl.create_default_context(cafile=str(pki.ca_file))
    if cert is not None:
        cert.configure_cert(context)
    return httpx.Client(base_url=server.base_url, verify=context, timeout=30)


def grpc_channel(server: TlsServer, pki: Pki, cert: trustme.LeafCert | None = None) -> grpc.Channel:
    """A gRPC channel over TLS that trusts only the run's server CA (and presents ``cert``)."""
    key = chain = None
    if cert is not None:
        key = cert.private_key_pem.bytes()
        chain = b"".join(blob.bytes() for blob in cert.cert_chain_pems)
    credentials = grpc.ssl_channel_credentials(pki.ca_file.read_bytes(), key, chain)
    return grpc.secure_channel(server.target, credentials)


def health_check(channel: grpc.Channel) -> grpc.StatusCode:
    """The status of a health check over ``channel``: OK when the server answered."""
    try:
        health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), timeout=5)
    except grpc.RpcError as err:
        return err.code()
    return grpc.StatusCode.OK


def play_valhalla(server: TlsServer, pki: Pki, seed: int, cert: trustme.LeafCert | None = None) -> int:
    """One whole Valhalla game over gRPC and HTTPS REST at once (their answers compared at every
    step); the moves it took."""
    with grpc_channel(server, pki, cert) as channel, https_client(server, pki, cert) as http:
        stub = rules_service_pb2_grpc.RulesServiceStub(channel)
        steps, _, listed = play(stub, http, "valhalla", seed)
    assert listed.game_over and listed.outcome.result == game_pb2.GAME_RESULT_WIN
    return steps


def test_whole_game_over_grpc_and_https(tls_server: TlsServer, pki: Pki) -> None:
    assert play_valhalla(tls_server, pki, seed=3) > 10


def test_whole_game_over_connect_on_https(tls_server: TlsServer, pki: Pki) -> None:
    with https_client(tls_server, pki) as http:
        state = call_json(
            http,
            f"{RULES}/NewGame",
            pb.NewGameRequest(game="valhalla", players=2, seed=8),
            pb.NewGameResponse,
        ).state
        for _ in range(2000):
            listed = call_json(
                http,
                f"{RULES}/LegalMoves",
                pb.LegalMovesRequest(game="valhalla", state=state),
                pb.LegalMovesResponse,
            )
            if listed.game_over:
                break
            request = pb.ApplyMoveRequest(game="valhalla", state=state, move=listed.moves[-1])
            state = call_json(http, f"{RULES}/ApplyMove", request, pb.ApplyMoveResponse).state
        else:
            pytest.fail("the game did not end")
    assert listed.outcome.result == game_pb2.GAME_RESULT_WIN


def test_cleartext_is_not_served(tls_server: TlsServer) -> None:
    """Neither port answers a client that does not speak TLS: nothing is served in the clear."""
    with grpc.insecure_channel(tls_server.target) as channel:
        assert health_check(channel) == grpc.StatusCode.UNAVAILABLE
    with pytest.raises(httpx.TransportError):
        httpx.get(f"http://127.0.0.1:{tls_server.http_port}/healthz", timeout=5)


def test_the_server_proves_who_it_is(tls_server: TlsServer) -> None:
    """A client that does not trust the run's CA (the system's CAs only) refuses the server, on
    both ports: the certificate served is the one given, not a default."""
    with pytest.raises(httpx.ConnectError, match="CERTIFICATE_VERIFY_FAILED"):
        httpx.get(f"{tls_server.base_url}/healthz", timeout=5)
    with grpc.secure_channel(tls_server.target, grpc.ssl_channel_credentials()) as channel:
        assert health_check(channel) == grpc.StatusCode.UNAVAILABLE


@pytest.mark.parametrize("who", ["no certificate", "a stranger's certificate"])
def test_mutual_tls_refuses_clients_without_a_trusted_certificate(
    mtls_server: TlsServer, pki: Pki, who: str
) -> None:
    cert = None if who == "no certificate" else pki.stranger
    with grpc_channel(mtls_server, pki, cert) as channel:
        assert health_check(channel) == grpc.StatusCode.UNAVAILABLE
    with https_client(mtls_server, pki, cert) as http, pytest.raises(httpx.TransportError):
        http.get("/healthz")


def test_mutual_tls_client_with_a_certificate_plays(mtls_server: TlsServer, pki: Pki) -> None:
    assert play_valhalla(mtls_server, pki, seed=12, cert=pki.client) > 10
    with https_client(mtls_server, pki, pki.client) as http:
        new = pb.NewGameRequest(game="valhalla", players=2, seed=12)
        assert call_json(http, f"{RULES}/NewGame", new, pb.NewGameResponse).state.HasField("valhalla")


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--tls-cert", "{cert}"], "--tls-cert needs --tls-key"),
        (["--tls-key", "{key}"], "--tls-key needs --tls-cert"),
        (["--tls-client-ca", "{ca}"], "--tls-client-ca needs --tls-cert and --tls-key"),
        (["--tls-cert", "{cert}", "--tls-key", "{ca}"], "not a PEM certificate chain and its private key"),
        (
            ["--tls-cert", "{cert}", "--tls-key", "{key}", "--tls-client-ca", "{key}"],
            "not PEM CA certificates",
        ),
        (["--tls-cert", "{cert}", "--tls-key", "{cert}.missing"], "no such file"),
        (["--tls-cert", "{cert}", "--tls-key", "{other_key}"], "(key values mismatch)"),
        (["--tls-cert", "{cert}", "--tls-key", "{encrypted_key}"], "the key is encrypted"),
    ],
)
def test_unusable_tls_flags_are_one_line_and_a_failure(
    pki: Pki, tmp_path: Path, args: list[str], says: str
) -> None:
    """Nothing starts, and the operator reads one line naming the flag (no traceback, and no
    prompt for a passphrase on the terminal)."""
    files = {"cert": pki.server_cert, "key": pki.server_key, "ca": pki.ca_file}
    files["other_key"] = tmp_path / "other-key.pem"
    pki.stranger.private_key_pem.write_to_path(str(files["other_key"]))
    files["encrypted_key"] = tmp_path / "encrypted-key.pem"
    key = serialization.load_pem_private_key(pki.server_key.read_bytes(), password=None)
    encrypted = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.BestAvailableEncryption(b"passphrase"),
    )
    files["encrypted_key"].write_bytes(encrypted)
    argv = [arg.format(**files) for arg in args]
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "lawspeaker",
            "serve",
            "--host",
            "127.0.0.1",
            "--grpc-port",
            "0",
            "--http-port",
            "0",
            *argv,
        ],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode != 0
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and says in lines[0], done.stderr
    assert "grpc_port=" not in done.stdout  # nothing was served
