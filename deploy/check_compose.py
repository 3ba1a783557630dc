"""CI check of deploy/compose.yaml, the proxy config it mounts and deploy/Dockerfile.

No container engine runs in CI, so nothing is started: what can be wrong in these files without an
engine noticing until deploy time is checked here instead. Every service, port, volume, network,
dependency and LAWSPEAKER_* variable the compose file names must exist (the variables as read by
``lawspeaker serve`` itself, see cli_env.py); the Dockerfile's ENV must list exactly the command's
variables, keep its defaults, and EXPOSE its ports; the proxy config's servers must be compose
services listening on the ports it names, gRPC spoken as HTTP/2 on both sides.

    .venv/bin/python deploy/check_compose.py [deploy/compose.yaml]
"""

from __future__ import annotations

import re
import shlex
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import cli_env
import yaml

DEPLOY = Path(__file__).resolve().parent

# Variables the image leaves out on purpose: they come at run time with the secrets they name.
RUN_TIME_ONLY = frozenset(
    {
        "LAWSPEAKER_API_KEYS",
        "LAWSPEAKER_API_KEYS_FOR_RULES",
        "LAWSPEAKER_API_KEYS_OPTIONAL",
        "LAWSPEAKER_TLS_CERT",
        "LAWSPEAKER_TLS_KEY",
        "LAWSPEAKER_TLS_CLIENT_CA",
        "LAWSPEAKER_WEBHOOK_SECRET",
    }
)
COMPOSE_KEYS = frozenset({"name", "services", "volumes", "networks", "configs", "secrets"})


# -- Dockerfile ---------------------------------------------------------------------------------


def dockerfile_instructions(text: str) -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) pairs, continuation lines joined and comment lines dropped."""
    out: list[tuple[str, str]] = []
    pending = ""
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        line = pending + line
        pending = ""
        word, _, rest = line.partition(" ")
        out.append((word.upper(), rest.strip()))
    return out


def dockerfile_env(text: str) -> dict[str, str]:
    """The final stage's ENV variables (``ENV k=v ...`` form; the legacy ``ENV k v`` is refused)."""
    env: dict[str, str] = {}
    for word, rest in dockerfile_instructions(text):
        if word == "FROM":
            env = {}  # a new stage starts from the base image's environment
        elif word == "ENV":
            for token in shlex.split(rest):
                name, eq, value = token.partition("=")
                if not eq:
                    raise ValueError(f"ENV {rest!r}: use the ENV name=value form")
                env[name] = value
    return env


def dockerfile_exposed(text: str) -> set[int]:
    """The ports the Dockerfile EXPOSEs (TCP)."""
    ports: set[int] = set()
    for word, rest in dockerfile_instructions(text):
        if word == "EXPOSE":
            ports |= {int(p.split("/")[0]) for p in rest.split()}
    return ports


def check_dockerfile(text: str) -> list[str]:
    """Problems with the image's LAWSPEAKER_* ENV, its EXPOSE and its HEALTHCHECK."""
    problems: list[str] = []
    env = dockerfile_env(text)
    ours = {k: v for k, v in env.items() if k.startswith(cli_env.PREFIX)}
    wanted = cli_env.serve_env_names() - RUN_TIME_ONLY
    for name in sorted(set(ours) - wanted):
        why = (
            "given at run time, not baked in"
            if name in RUN_TIME_ONLY
            else "not a variable of lawspeaker serve"
        )
        problems.append(f"Dockerfile: ENV {name}: {why}")
    for name in sorted(wanted - set(ours)):
        problems.append(f"Dockerfile: ENV lacks {name}, a variable of lawspeaker serve")
    try:
        image = vars(cli_env.serve_settings(ours))
        default = vars(cli_env.serve_settings({}))
    except ValueError as err:
        return [*problems, f"Dockerfile: lawspeaker serve refuses its ENV: {err}"]
    for key, value in image.items():
        if value != default.get(key):
            problems.append(
                f"Dockerfile: ENV changes the default of serve's {key}: {value!r}, not {default[key]!r}"
            )
    ports = {image["grpc_port"], image["http_port"]}
    if dockerfile_exposed(text) != ports:
        problems.append(
            f"Dockerfile: EXPOSE {sorted(dockerfile_exposed(text))}, serve listens on {sorted(ports)}"
        )
    health = [rest for word, rest in dockerfile_instructions(text) if word == "HEALTHCHECK"]
    if len(health) != 1 or "/healthz" not in health[0]:
        problems.append("Dockerfile: one HEALTHCHECK against /healthz expected")
    return problems


# -- the proxy's config -------------------------------------------------------------------------


@dataclass
class Server:
    """One ``server`` line of an HAProxy backend."""

    name: str
    host: str
    port: int
    options: list[str]

    def check_port(self) -> int:
        """The port its health check goes to: ``port N`` when given, else the server's own."""
        if "port" in self.options:
            return int(self.options[self.options.index("port") + 1])
        return self.port


@dataclass
class HAProxy:
    """The parts of an HAProxy config the check reads: frontends and backends."""

    binds: dict[str, list[list[str]]] = field(default_factory=dict)  # frontend -> its bind lines
    default_backend: dict[str, str] = field(default_factory=dict)  # frontend -> backend
    servers: dict[str, list[Server]] = field(default_factory=dict)  # backend -> servers


def compose_view(text: str) -> str:
    """The config as the compose proxy reads it: ``"${NAME-default}"`` (HAProxy's environment
    expansion, which lets the loopback topology test run the same file) as its default, since
    compose sets none of these; a ``${NAME}`` without a default is left for the parser to refuse."""
    expanded = re.sub(r"\$\{([A-Za-z_][A-Za-z0-9_]*)-([^}]*)\}", lambda m: m.group(2), text)
    return expanded.replace('"', "")


def parse_haproxy(text: str) -> HAProxy:
    """Sections and the lines of them that route traffic (other lines are HAProxy's to check).

    ValueError on a server or bind line whose port is not a number.
    """
    config = HAProxy()
    kind = name = ""
    for raw in compose_view(text).splitlines():
        line = raw.split("#", 1)[0].rstrip()
        if not line.strip():
            continue
        words = line.split()
        if not raw[0].isspace():
            kind, name = words[0], (words[1] if len(words) > 1 else "")
            if kind == "frontend":
                config.binds[name] = []
            elif kind == "backend":
                config.servers[name] = []
            continue
        if kind == "frontend" and words[0] == "bind":
            config.binds[name].append(words[1:])
        elif kind == "frontend" and words[0] == "default_backend":
            config.default_backend[name] = words[1]
        elif kind == "backend" and words[0] == "server":
            host, _, port = words[2].rpartition(":")
            config.servers[name].append(Server(words[1], host, int(port), words[3:]))
    return config


def check_haproxy(
    text: str, where: str, listening: Mapping[str, set[int]], replicas: Sequence[str], grpc_port: int
) -> tuple[list[str], set[int]]:
    """Problems with an HAProxy config in front of ``replicas``, and the ports it binds.

    ``listening`` is each compose service's known listening ports. Every backend must name every
    replica on a port it listens on; traffic to the gRPC port must be HTTP/2 on both sides.
    """
    try:
        config = parse_haproxy(text)
    except ValueError as err:
        return [f"{where}: a port that is not a number once expanded: {err}"], set()
    problems: list[str] = []
    bound: set[int] = set()
    for frontend, binds in config.binds.items():
        backend = config.default_backend.get(frontend)
        if backend not in config.servers:
            problems.append(f"{where}: frontend {frontend} has no default_backend among the backends")
        for bind in binds:
            bound.add(int(bind[0].rpartition(":")[2]))
            grpc = backend in config.servers and any(s.port == grpc_port for s in config.servers[backend])
            if grpc and "h2" not in " ".join(bind[1:]):
                problems.append(f"{where}: frontend {frontend} sends gRPC on but does not bind with proto h2")
    if not config.servers:
        problems.append(f"{where}: no backend")
    for backend, servers in config.servers.items():
        named = {s.host for s in servers}
        for replica in replicas:
            if replica not in named:
                problems.append(f"{where}: backend {backend} does not name replica {replica}")
        for s in servers:
            if s.host not in listening:
                problems.append(f"{where}: server {s.name}: {s.host} is not a compose service")
                continue
            for port in {s.port, s.check_port()}:
                if port not in listening[s.host]:
                    problems.append(f"{where}: server {s.name}: {s.host} does not listen on {port}")
            if s.port == grpc_port and "h2" not in s.options:
                problems.append(f"{where}: server {s.name} is the gRPC port without proto h2")
    return problems, bound


# -- compose.yaml -------------------------------------------------------------------------------


def _listify(value: Any) -> list[Any]:
    """A compose list-or-mapping (depends_on, networks) as the list of its names."""
    if value is None:
        return []
    return list(value)


def _environment(value: Any) -> dict[str, str]:
    """A service's ``environment`` (mapping or list of ``k=v``) as a mapping of strings."""
    if isinstance(value, dict):
        return {str(k): "" if v is None else str(v) for k, v in value.items()}
    return {k: v for k, _, v in (str(item).partition("=") for item in value or [])}


def _container_port(spec: Any) -> int:
    """The container side of a ``ports``/``expose`` entry: "8080", "8080:80", "127.0.0.1:8080:80"."""
    if isinstance(spec, dict):
        return int(spec["target"])
    return int(str(spec).split(":")[-1].split("/")[0])


def check_compose(compose: Mapping[str, Any], base: Path) -> list[str]:
    """Problems with a parsed compose file whose directory is ``base``."""
    problems: list[str] = []
    for key in compose:
        if key not in COMPOSE_KEYS and not str(key).startswith("x-"):
            problems.append(f"compose: unknown top-level key {key}")
    services: Mapping[str, Any] = compose.get("services") or {}
    volumes = set(compose.get("volumes") or {})
    networks = set(compose.get("networks") or {})
    if not services:
        return [*problems, "compose: no services"]

    # Which services run our image, and on which ports each service listens where that is known.
    dockerfile_text: dict[str, str] = {}
    listening: dict[str, set[int]] = {}
    for name, svc in services.items():
        if "image" not in svc and "build" not in svc:
            problems.append(f"compose: {name}: neither image nor build")
        build = svc.get("build")
        if build is not None:
            context = base / (build if isinstance(build, str) else build.get("context", "."))
            dockerfile = context / (
                "Dockerfile" if isinstance(build, str) else build.get("dockerfile", "Dockerfile")
            )
            if not context.is_dir():
                problems.append(f"compose: {name}: build context {context} is not a directory")
            elif not dockerfile.is_file():
                problems.append(f"compose: {name}: {dockerfile} does not exist")
            else:
                dockerfile_text[name] = dockerfile.read_text()
                listening[name] = dockerfile_exposed(dockerfile_text[name])
    if not dockerfile_text:
        problems.append("compose: no service is built from a Dockerfile of this repository")

    settings: dict[str, Any] = {}
    proxies: list[tuple[str, Path]] = []
    for name, svc in services.items():
        where = f"compose: {name}"
        for dep in _listify(svc.get("depends_on")):
            if dep not in services or dep == name:
                problems.append(f"{where}: depends_on {dep}, not another service")
            elif isinstance(svc["depends_on"], dict):
                condition = svc["depends_on"][dep].get("condition")
                if condition == "service_healthy" and "healthcheck" not in services[dep]:
                    problems.append(f"{where}: waits for {dep} to be healthy, which has no healthcheck")
        for net in _listify(svc.get("networks")):
            if net not in networks:
                problems.append(f"{where}: network {net} is not declared")
        mounted = ""  # the files mounted into it, which may read LAWSPEAKER_* variables of their own
        for spec in svc.get("volumes") or []:
            source = spec.get("source", "") if isinstance(spec, dict) else str(spec).split(":")[0]
            if source.startswith((".", "/")):
                path = (base / source).resolve()
                if not path.exists():
                    problems.append(f"{where}: bind mount {source} does not exist")
                    continue
                if path.is_file():
                    mounted += path.read_text()
                if path.parent == DEPLOY / "proxy":
                    proxies.append((name, path))
            elif source not in volumes:
                problems.append(f"{where}: volume {source} is not declared")
        env = _environment(svc.get("environment"))
        for var in cli_env.unknown(set(env)):
            if name in dockerfile_text or "${" + var not in mounted:
                problems.append(f"{where}: {var} is not a variable of lawspeaker serve")
        if name in dockerfile_text:
            try:
                settings[name] = cli_env.serve_settings({**dockerfile_env(dockerfile_text[name]), **env})
            except ValueError as err:
                problems.append(f"{where}: lawspeaker serve refuses its environment: {err}")
                continue
            ports = {settings[name].grpc_port, settings[name].http_port}
            if ports != listening[name]:
                problems.append(
                    f"{where}: serves on {sorted(ports)}, the image EXPOSEs {sorted(listening[name])}"
                )
            listening[name] = ports
            redis = settings[name].redis_url
            if redis and urlsplit(redis).hostname not in services:
                problems.append(
                    f"{where}: LAWSPEAKER_REDIS_URL names {urlsplit(redis).hostname}, not a service"
                )
    for name in services:
        if name.startswith("redis") or "redis" in str(services[name].get("image", "")):
            listening.setdefault(name, {6379})
    if not any(s.redis_url for s in settings.values()) and len(settings) > 1:
        problems.append("compose: several replicas without LAWSPEAKER_REDIS_URL would not share sessions")

    replicas = sorted(settings)
    grpc_port = next(iter(settings.values())).grpc_port if settings else 50051
    for name, path in proxies:
        if path.suffix != ".cfg":
            problems.append(f"compose: {name}: {path.name}: only HAProxy configs (.cfg) are checked here")
            continue
        found, bound = check_haproxy(path.read_text(), f"proxy/{path.name}", listening, replicas, grpc_port)
        problems += found
        listening[name] = bound
    if not proxies and len(replicas) > 1:
        problems.append("compose: several replicas and no proxy config from deploy/proxy/ in front of them")

    for name, svc in services.items():
        for key in ("ports", "expose"):
            for spec in svc.get(key) or []:
                port = _container_port(spec)
                if name not in listening:
                    problems.append(f"compose: {name}: {key} {spec}, but what it listens on is unknown here")
                elif port not in listening[name]:
                    problems.append(
                        f"compose: {name}: {key} {spec}, but it listens on {sorted(listening[name])}"
                    )
    return problems


def main(argv: Sequence[str] | None = None) -> int:
    """Check the compose file (default deploy/compose.yaml) and the Dockerfile; 1 on any problem."""
    args = list(sys.argv[1:] if argv is None else argv)
    path = Path(args[0]) if args else DEPLOY / "compose.yaml"
    compose = yaml.safe_load(path.read_text())
    problems = check_dockerfile((DEPLOY / "Dockerfile").read_text()) + check_compose(compose, path.parent)
    for problem in problems:
        print(problem, file=sys.stderr)
    if problems:
        return 1
    services = compose["services"]
    print(
        f"{path.name}: {len(services)} services ({', '.join(services)}), their ports, volumes, networks,"
        f" dependencies and LAWSPEAKER_* variables exist; Dockerfile ENV: the"
        f" {len(cli_env.serve_env_names())} variables of lawspeaker serve less those given at run time,"
        " at its defaults"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
