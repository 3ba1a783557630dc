"""TLS for ``lawspeaker serve``: one certificate and key for both ports, and optionally mutual TLS.

Mobile apps refuse cleartext by default (iOS App Transport Security, Android's network security
config) and browsers call only ``https`` from an ``https`` page, so the service either terminates
TLS itself (these flags) or sits behind a proxy that does. One :class:`ServerTLS` configures gRPC
(``grpc.ssl_server_credentials``) and HTTP (uvicorn's ``ssl_*`` options) from the same files, so the
two ports can never present different certificates or trust different clients.

The files are read and checked once, before any port is bound (:meth:`ServerTLS.load`): a missing
file, a key that does not match its certificate or a client CA that is not PEM is one line naming
the flag, not a traceback from inside grpc or a uvicorn task. A renewed certificate takes a restart
(a rolling one, on Kubernetes), as every other setting does.
"""

from __future__ import annotations

import re
import ssl
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc


class TLSConfigError(ValueError):
    """The TLS flags or files are unusable; the message is the one line to show the operator."""


@dataclass(frozen=True)
class ServerTLS:
    """The server's certificate chain and key (PEM files), and with ``client_ca`` the CA bundle
    whose certificates clients must present (mutual TLS: a client without one is refused)."""

    cert: Path
    key: Path
    client_ca: Path | None = None

    @classmethod
    def from_flags(cls, cert: str | None, key: str | None, client_ca: str | None) -> ServerTLS | None:
        """The configuration the ``--tls-*`` flags ask for: None for plain TCP (no flag given).

        Raises :class:`TLSConfigError` when only one of the certificate and key is given, when a
        client CA comes without them, or when a file cannot be used.
        """
        if not cert and not key:
            if client_ca:
                raise TLSConfigError(
                    "--tls-client-ca needs --tls-cert and --tls-key (LAWSPEAKER_TLS_CERT, LAWSPEAKER_TLS_KEY)"
                )
            return None
        if not cert or not key:
            given, missing = ("--tls-cert", "--tls-key") if cert else ("--tls-key", "--tls-cert")
            raise TLSConfigError(
                f"{given} needs {missing} too (env LAWSPEAKER_TLS_CERT and LAWSPEAKER_TLS_KEY): "
                "give both, or neither to serve without TLS"
            )
        tls = cls(Path(cert), Path(key), Path(client_ca) if client_ca else None)
        tls.load()
        return tls

    @property
    def mutual(self) -> bool:
        return self.client_ca is not None

    def load(self) -> None:
        """Reads every file as the servers will and raises :class:`TLSConfigError` naming the flag
        of the first that cannot be used."""
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        for flag, path in (
            ("--tls-cert", self.cert),
            ("--tls-key", self.key),
            ("--tls-client-ca", self.client_ca),
        ):
            if path is not None and not path.is_file():
                raise TLSConfigError(f"{flag} {path}: no such file")

        def encrypted() -> bytes:  # instead of OpenSSL's prompt on the terminal (grpc has none)
            raise TLSConfigError(f"--tls-key {self.key}: the key is encrypted; give it unencrypted")

        try:
            context.load_cert_chain(self.cert, self.key, password=encrypted)
        except (ssl.SSLError, OSError) as err:
            raise TLSConfigError(
                f"--tls-cert {self.cert} / --tls-key {self.key}: not a PEM certificate chain and its "
                f"private key ({_why(err)})"
            ) from None
        if self.client_ca is not None:
            try:
                context.load_verify_locations(cafile=self.client_ca)
            except (ssl.SSLError, OSError) as err:
                raise TLSConfigError(
                    f"--tls-client-ca {self.client_ca}: not PEM CA certificates ({_why(err)})"
                ) from None

    def grpc_credentials(self) -> grpc.ServerCredentials:
        """Credentials for ``server.add_secure_port``: with a client CA, clients must present a
        certificate it signed (the handshake fails otherwise, before any call)."""
        root = self.client_ca.read_bytes() if self.client_ca is not None else None
        return grpc.ssl_server_credentials(
            [(self.key.read_bytes(), self.cert.read_bytes())],
            root_certificates=root,
            require_client_auth=root is not None,
        )

    def uvicorn_options(self) -> dict[str, Any]:
        """Keyword arguments for ``uvicorn.Config``: the same files, and with a client CA a
        certificate required of every client."""
        options: dict[str, Any] = {"ssl_certfile": str(self.cert), "ssl_keyfile": str(self.key)}
        if self.client_ca is not None:
            options["ssl_ca_certs"] = str(self.client_ca)
            options["ssl_cert_reqs"] = ssl.CERT_REQUIRED
        return options

    def describe(self) -> str:
        """How the ports are served, for the startup log."""
        return "TLS with client certificates (mutual TLS)" if self.mutual else "TLS"


def _why(err: Exception) -> str:
    """The reason of an ssl error without its library prefix (``[SSL] PEM lib (_ssl.c:...)``)."""
    if isinstance(err, ssl.SSLError) and err.reason:
        return str(err.reason).replace("_", " ").lower()
    text = str(getattr(err, "strerror", None) or err)
    return re.sub(r"^\[\w+\]\s*|\s*\(_ssl\.c:\d+\)$", "", text)
