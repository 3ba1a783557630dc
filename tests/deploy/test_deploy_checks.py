"""The checks CI runs over deploy/ (check_compose.py, check_kubernetes.py) pass on the files as they
are and refuse each kind of mistake they exist for: a name that exists nowhere, a variable
``lawspeaker serve`` does not read, a port nothing listens on, an image that changes a default.

No container engine or cluster is needed: the checks read files. The Kubernetes cross-checks run on
the base's manifests as written (the base has no transformation they depend on); rendering with
kustomize and the schema validation run in CI's deploy step.
"""

from __future__ import annotations

import copy
import importlib
import pathlib
import sys
from types import ModuleType
from typing import Any

import pytest
import yaml

ROOT = pathlib.Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
BASE = DEPLOY / "kubernetes" / "base"


def _deploy_module(name: str) -> ModuleType:
    """A script of deploy/, imported as CI runs it (from its own directory)."""
    if str(DEPLOY) not in sys.path:
        sys.path.insert(0, str(DEPLOY))
    return importlib.import_module(name)


@pytest.fixture(scope="module")
def check_compose() -> ModuleType:
    return _deploy_module("check_compose")


@pytest.fixture(scope="module")
def check_kubernetes() -> ModuleType:
    return _deploy_module("check_kubernetes")


@pytest.fixture
def compose() -> dict[str, Any]:
    """The compose file, each service its own copy (the replicas share their YAML-merged parts)."""
    loaded: dict[str, Any] = yaml.safe_load((DEPLOY / "compose.yaml").read_text())
    loaded["services"] = {name: copy.deepcopy(svc) for name, svc in loaded["services"].items()}
    return loaded


@pytest.fixture
def base_objects() -> list[dict[str, Any]]:
    kustomization = yaml.safe_load((BASE / "kustomization.yaml").read_text())
    return [
        doc
        for resource in kustomization["resources"]
        for doc in yaml.safe_load_all((BASE / resource).read_text())
        if doc
    ]


def test_the_files_as_they_are_pass(check_compose: ModuleType, compose: dict[str, Any]) -> None:
    assert check_compose.check_dockerfile((DEPLOY / "Dockerfile").read_text()) == []
    assert check_compose.check_compose(compose, DEPLOY) == []


def test_the_image_env_is_the_commands_variables_at_their_defaults(check_compose: ModuleType) -> None:
    text = (DEPLOY / "Dockerfile").read_text()
    assert "LAWSPEAKER_WORKERS=1 \\\n" in text and 'LAWSPEAKER_SESSION_TTL="" \\\n' in text
    unknown = text.replace("LAWSPEAKER_WORKERS=1", "LAWSPEAKER_WORKERS=1 LAWSPEAKER_NO_SUCH=1")
    assert check_compose.check_dockerfile(unknown) == [
        "Dockerfile: ENV LAWSPEAKER_NO_SUCH: not a variable of lawspeaker serve"
    ]
    secret = text.replace("LAWSPEAKER_WORKERS=1", "LAWSPEAKER_WORKERS=1 LAWSPEAKER_TLS_CERT=/run/cert.pem")
    assert check_compose.check_dockerfile(secret) == [
        "Dockerfile: ENV LAWSPEAKER_TLS_CERT: given at run time, not baked in",
        "Dockerfile: ENV changes the default of serve's tls_cert: '/run/cert.pem', not None",
    ]
    missing = text.replace("    LAWSPEAKER_WORKERS=1 \\\n", "")
    assert check_compose.check_dockerfile(missing) == [
        "Dockerfile: ENV lacks LAWSPEAKER_WORKERS, a variable of lawspeaker serve"
    ]
    changed = text.replace('LAWSPEAKER_SESSION_TTL=""', "LAWSPEAKER_SESSION_TTL=60")
    assert check_compose.check_dockerfile(changed) == [
        "Dockerfile: ENV changes the default of serve's session_ttl: 60, not 86400"
    ]
    refused = text.replace('LAWSPEAKER_SESSION_TTL=""', "LAWSPEAKER_SESSION_TTL=a-day")
    assert check_compose.check_dockerfile(refused)[0].startswith(
        "Dockerfile: lawspeaker serve refuses its ENV: a value the command cannot read"
    )
    exposed = text.replace("EXPOSE 50051 8080", "EXPOSE 50051 9090")
    assert check_compose.check_dockerfile(exposed) == [
        "Dockerfile: EXPOSE [9090, 50051], serve listens on [8080, 50051]"
    ]


def test_compose_names_only_what_exists(check_compose: ModuleType, compose: dict[str, Any]) -> None:
    services = compose["services"]
    services["lawspeaker-1"]["depends_on"]["cache"] = {"condition": "service_started"}
    services["lawspeaker-1"]["environment"]["LAWSPEAKER_NO_SUCH"] = "1"
    services["lawspeaker-2"]["environment"]["LAWSPEAKER_REDIS_URL"] = "redis://cache:6379/0"
    services["redis"]["volumes"] = ["redis-state:/data"]
    services["proxy"]["ports"].append("8443:8443")
    services["proxy"]["depends_on"].append("proxy")
    problems = check_compose.check_compose(compose, DEPLOY)
    assert problems == [
        "compose: lawspeaker-1: depends_on cache, not another service",
        "compose: lawspeaker-1: LAWSPEAKER_NO_SUCH is not a variable of lawspeaker serve",
        "compose: lawspeaker-2: LAWSPEAKER_REDIS_URL names cache, not a service",
        "compose: redis: volume redis-state is not declared",
        "compose: proxy: depends_on proxy, not another service",
        "compose: proxy: ports 8443:8443, but it listens on [8080, 50051]",
    ]


def test_compose_checks_health_conditions_and_bind_mounts(
    check_compose: ModuleType, compose: dict[str, Any]
) -> None:
    del compose["services"]["redis"]["healthcheck"]
    compose["services"]["proxy"]["volumes"] = ["./proxy/missing.cfg:/usr/local/etc/haproxy/haproxy.cfg:ro"]
    problems = check_compose.check_compose(compose, DEPLOY)
    assert problems == [
        "compose: lawspeaker-1: waits for redis to be healthy, which has no healthcheck",
        "compose: lawspeaker-2: waits for redis to be healthy, which has no healthcheck",
        "compose: proxy: bind mount ./proxy/missing.cfg does not exist",
        "compose: several replicas and no proxy config from deploy/proxy/ in front of them",
        "compose: proxy: ports 8080:8080, but what it listens on is unknown here",
        "compose: proxy: ports 50051:50051, but what it listens on is unknown here",
    ]


def test_the_proxy_config_names_every_replica_and_speaks_h2_for_grpc(check_compose: ModuleType) -> None:
    text = (DEPLOY / "proxy" / "haproxy.cfg").read_text()
    listening = {"lawspeaker-1": {8080, 50051}, "lawspeaker-2": {8080, 50051}}
    replicas = ["lawspeaker-1", "lawspeaker-2"]
    problems, bound = check_compose.check_haproxy(text, "cfg", listening, replicas, 50051)
    assert (problems, bound) == ([], {8080, 50051})
    grpc_server_2 = next(line for line in text.splitlines() if "server lawspeaker-2" in line and "h2" in line)
    broken = text.replace(grpc_server_2, "").replace(" proto h2\n", "\n")
    problems, _ = check_compose.check_haproxy(broken, "cfg", listening, replicas, 50051)
    assert problems == [
        "cfg: frontend grpc sends gRPC on but does not bind with proto h2",
        "cfg: backend lawspeaker_grpc does not name replica lawspeaker-2",
    ]
    elsewhere = text.replace("lawspeaker-1}:${LAWSPEAKER_REPLICA_1_GRPC_PORT-50051}", "lawspeaker-1}:50052")
    problems, _ = check_compose.check_haproxy(elsewhere, "cfg", listening, replicas, 50051)
    assert problems == ["cfg: server lawspeaker-1: lawspeaker-1 does not listen on 50052"]


def test_the_kubernetes_base_ties_together(
    check_kubernetes: ModuleType, base_objects: list[dict[str, Any]]
) -> None:
    assert check_kubernetes.cross_check(base_objects) == []


def _one(objects: list[dict[str, Any]], kind: str, name: str) -> dict[str, Any]:
    return next(o for o in objects if o["kind"] == kind and o["metadata"]["name"] == name)


def test_the_kubernetes_cross_checks_refuse_loose_ends(
    check_kubernetes: ModuleType, base_objects: list[dict[str, Any]]
) -> None:
    objects = copy.deepcopy(base_objects)
    _one(objects, "ConfigMap", "lawspeaker")["data"]["LAWSPEAKER_NO_SUCH"] = "1"
    _one(objects, "Service", "lawspeaker-http")["spec"]["ports"][0]["targetPort"] = "web"
    _one(objects, "HorizontalPodAutoscaler", "lawspeaker")["spec"]["scaleTargetRef"]["name"] = "rules"
    policy = _one(objects, "NetworkPolicy", "lawspeaker")
    policy["spec"]["egress"][0]["to"][0]["podSelector"]["matchLabels"] = {"app": "memcached"}
    container = _one(objects, "Deployment", "lawspeaker")["spec"]["template"]["spec"]["containers"][0]
    container["livenessProbe"]["grpc"]["service"] = "lawspeaker.v1.Rules"
    container["securityContext"]["readOnlyRootFilesystem"] = False
    assert check_kubernetes.cross_check(objects) == [
        "Deployment/lawspeaker: container lawspeaker has a writable root filesystem",
        "Deployment/lawspeaker: LAWSPEAKER_NO_SUCH (from its ConfigMap) is not a variable of"
        " lawspeaker serve",
        "Deployment/lawspeaker: livenessProbe asks for service 'lawspeaker.v1.Rules', not served",
        "Service/lawspeaker-http: targetPort web is not a port of its pods",
        "HorizontalPodAutoscaler/lawspeaker: scales Deployment/rules, which is not here",
        "NetworkPolicy/lawspeaker: egress to pods that are not here",
    ]


def test_redis_keeps_an_aof_on_its_claim(
    check_kubernetes: ModuleType, base_objects: list[dict[str, Any]]
) -> None:
    objects = copy.deepcopy(base_objects)
    redis = _one(objects, "StatefulSet", "lawspeaker-redis")
    args = redis["spec"]["template"]["spec"]["containers"][0]["args"]
    args[args.index("--appendonly") + 1] = "no"
    args[args.index("--dir") + 1] = "/var/lib/redis"
    assert check_kubernetes.cross_check(objects) == [
        "StatefulSet/lawspeaker-redis: Redis without --appendonly yes",
        "StatefulSet/lawspeaker-redis: Redis's --dir /var/lib/redis is not on a PersistentVolumeClaim",
    ]
