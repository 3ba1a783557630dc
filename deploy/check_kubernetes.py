"""CI check of deploy/kubernetes/: the base and every overlay, rendered by kustomize and validated
offline against the Kubernetes API schemas (the ``kubernetes-validate`` package, newest version it
ships, strict: an unknown field is an error), then cross-checked where schemas cannot see.

Schemas check each object alone. What ties objects together is checked here: Services, the
PodDisruptionBudget and NetworkPolicies select pods that exist and name their ports; the HPA scales a
Deployment that exists; probes go to the container's gRPC port and ask for services the server
answers for; the grace period outlasts preStop plus the server's drain; every container runs
non-root on a read-only root filesystem; the ConfigMap holds only variables ``lawspeaker serve``
reads, with values it accepts, and its Redis URL names a Service; Redis keeps an AOF on its claim.

    .venv/bin/python deploy/check_kubernetes.py [--kustomize PATH]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import cli_env
import kubernetes_validate  # type: ignore[import-untyped]  # no type information shipped
import yaml

from lawspeaker.grpc.server import SERVICE_NAME, SESSION_SERVICE_NAME
from lawspeaker.server.cli import GRACE_SECONDS

KUBERNETES = Path(__file__).resolve().parent / "kubernetes"
HEALTH_SERVICES = frozenset({"", SERVICE_NAME, SESSION_SERVICE_NAME})  # what grpc_server.py sets SERVING

Obj = dict[str, Any]


def render(kustomize: str, directory: Path) -> list[Obj]:
    """``kustomize build directory`` as a list of objects (CalledProcessError when it fails)."""
    out = subprocess.run([kustomize, "build", str(directory)], check=True, capture_output=True, text=True)
    return [doc for doc in yaml.safe_load_all(out.stdout) if doc]


def validate(objects: Sequence[Obj], version: str) -> list[str]:
    """Each object against the schema of its kind in Kubernetes ``version``, strictly."""
    problems: list[str] = []
    for obj in objects:
        try:
            kubernetes_validate.validate(obj, version, strict=True)
        except (kubernetes_validate.ValidationError, kubernetes_validate.SchemaNotFoundError) as err:
            problems.append(f"{_name(obj)}: {getattr(err, 'message', err)}")
    return problems


def _name(obj: Mapping[str, Any]) -> str:
    return f"{obj.get('kind')}/{obj.get('metadata', {}).get('name')}"


def _of(objects: Sequence[Obj], kind: str) -> Iterator[Obj]:
    return (o for o in objects if o.get("kind") == kind)


def _selects(selector: Mapping[str, str], labels: Mapping[str, str]) -> bool:
    return bool(selector) and all(labels.get(k) == v for k, v in selector.items())


def _workloads(objects: Sequence[Obj]) -> list[Obj]:
    return [o for o in objects if o.get("kind") in ("Deployment", "StatefulSet")]


def _pods(objects: Sequence[Obj], selector: Mapping[str, str]) -> list[Obj]:
    """The pod specs (with their labels) of the workloads whose pods ``selector`` selects."""
    return [
        w["spec"]["template"]
        for w in _workloads(objects)
        if _selects(selector, w["spec"]["template"]["metadata"].get("labels", {}))
    ]


def _ports(template: Obj) -> dict[str | int, int]:
    """A pod template's container ports, by name and by number."""
    ports: dict[str | int, int] = {}
    for container in template["spec"]["containers"]:
        for port in container.get("ports", []):
            ports[port["containerPort"]] = port["containerPort"]
            if "name" in port:
                ports[port["name"]] = port["containerPort"]
    return ports


def cross_check(objects: Sequence[Obj]) -> list[str]:
    """What ties the rendered objects together (the module docstring lists it)."""
    problems: list[str] = []
    names = {(o["kind"], o["metadata"]["name"]) for o in objects}

    for w in _workloads(objects):
        spec = w["spec"]["template"]["spec"]
        pod_security = spec.get("securityContext", {})
        if not _selects(w["spec"]["selector"]["matchLabels"], w["spec"]["template"]["metadata"]["labels"]):
            problems.append(f"{_name(w)}: its selector does not select its own pods")
        for c in spec["containers"]:
            security = c.get("securityContext", {})
            if not security.get("runAsNonRoot", pod_security.get("runAsNonRoot")):
                problems.append(f"{_name(w)}: container {c['name']} may run as root")
            if not security.get("readOnlyRootFilesystem"):
                problems.append(f"{_name(w)}: container {c['name']} has a writable root filesystem")
            if "resources" not in c or not {"requests", "limits"} <= set(c["resources"]):
                problems.append(f"{_name(w)}: container {c['name']} lacks resource requests or limits")
            mounts = {m["name"] for m in c.get("volumeMounts", [])}
            claims = {t["metadata"]["name"] for t in w["spec"].get("volumeClaimTemplates", [])}
            for mount in mounts - claims - {v["name"] for v in spec.get("volumes", [])}:
                problems.append(f"{_name(w)}: container {c['name']} mounts {mount}, which is not a volume")

    servers = [
        (d, c)
        for d in _of(objects, "Deployment")
        for c in d["spec"]["template"]["spec"]["containers"]
        if c["name"] == "lawspeaker"
    ]
    if not servers:
        problems.append("no Deployment with a container named lawspeaker")
    for deployment, c in servers:
        where = f"{_name(deployment)}"
        ports = _ports(deployment["spec"]["template"])
        env: dict[str, str] = {}
        for source in c.get("envFrom", []):
            ref = source.get("configMapRef") or source.get("secretRef") or {}
            kind = "ConfigMap" if "configMapRef" in source else "Secret"
            found = [o for o in _of(objects, kind) if o["metadata"]["name"] == ref.get("name")]
            if not found and not ref.get("optional"):
                problems.append(f"{where}: envFrom names {kind} {ref.get('name')}, which is not here")
            for obj in found:
                env.update({str(k): str(v) for k, v in obj.get("data", {}).items()})
        for var in cli_env.unknown(set(env)):
            problems.append(f"{where}: {var} (from its ConfigMap) is not a variable of lawspeaker serve")
        try:
            settings = cli_env.serve_settings(env)
        except ValueError as err:
            problems.append(f"{where}: lawspeaker serve refuses its ConfigMap: {err}")
            continue
        if settings.grpc_port != ports.get("grpc") or settings.http_port != ports.get("http"):
            problems.append(f"{where}: the ports named grpc and http are not the ones serve listens on")
        redis_host = urlsplit(settings.redis_url or "").hostname
        if settings.redis_url is None:
            problems.append(f"{where}: no LAWSPEAKER_REDIS_URL: replicas would not share sessions")
        elif redis_host and "." not in redis_host and ("Service", redis_host) not in names:
            problems.append(f"{where}: LAWSPEAKER_REDIS_URL names {redis_host}, not a Service here")
        for probe in ("readinessProbe", "livenessProbe", "startupProbe"):
            grpc = c.get(probe, {}).get("grpc")
            if grpc is None:
                problems.append(f"{where}: {probe} is not a gRPC health check")
                continue
            if grpc["port"] != settings.grpc_port:
                problems.append(f"{where}: {probe} goes to port {grpc['port']}, not the gRPC port")
            if grpc.get("service", "") not in HEALTH_SERVICES:
                problems.append(f"{where}: {probe} asks for service {grpc['service']!r}, not served")
        pre_stop = c.get("lifecycle", {}).get("preStop", {}).get("sleep", {}).get("seconds", 0)
        grace = deployment["spec"]["template"]["spec"].get("terminationGracePeriodSeconds", 30)
        if grace <= pre_stop + GRACE_SECONDS:
            problems.append(
                f"{where}: terminationGracePeriodSeconds {grace} is not longer than preStop ({pre_stop} s)"
                f" plus the server's drain ({GRACE_SECONDS:g} s)"
            )

    for svc in _of(objects, "Service"):
        pods = _pods(objects, svc["spec"].get("selector", {}))
        if not pods:
            problems.append(f"{_name(svc)}: selects no pods")
        for port in svc["spec"]["ports"]:
            target = port.get("targetPort", port["port"])
            if any(target not in _ports(p) for p in pods):
                problems.append(f"{_name(svc)}: targetPort {target} is not a port of its pods")
    for sts in _of(objects, "StatefulSet"):
        if ("Service", sts["spec"]["serviceName"]) not in names:
            problems.append(f"{_name(sts)}: serviceName {sts['spec']['serviceName']} is not a Service here")
    for hpa in _of(objects, "HorizontalPodAutoscaler"):
        ref = hpa["spec"]["scaleTargetRef"]
        if (ref["kind"], ref["name"]) not in names:
            problems.append(f"{_name(hpa)}: scales {ref['kind']}/{ref['name']}, which is not here")
    for pdb in _of(objects, "PodDisruptionBudget"):
        if not _pods(objects, pdb["spec"]["selector"]["matchLabels"]):
            problems.append(f"{_name(pdb)}: selects no pods")
    for policy in _of(objects, "NetworkPolicy"):
        pods = _pods(objects, policy["spec"]["podSelector"]["matchLabels"])
        if not pods:
            problems.append(f"{_name(policy)}: selects no pods")
        for rule in policy["spec"].get("ingress", []):
            for port in rule.get("ports", []):
                if any(port["port"] not in _ports(p) for p in pods):
                    problems.append(f"{_name(policy)}: ingress port {port['port']} is not a port of its pods")
        for rule in policy["spec"].get("egress", []):
            for peer in rule.get("to", []):
                if "namespaceSelector" in peer:
                    continue  # another namespace's pods (DNS): not in these manifests
                targets = _pods(objects, peer.get("podSelector", {}).get("matchLabels", {}))
                if not targets:
                    problems.append(f"{_name(policy)}: egress to pods that are not here")
                for port in rule.get("ports", []):
                    if any(port["port"] not in _ports(t) for t in targets):
                        problems.append(
                            f"{_name(policy)}: egress port {port['port']} is not a port of its peers"
                        )

    redis = [s for s in _of(objects, "StatefulSet") if s["metadata"]["name"].endswith("redis")]
    for sts in redis:
        c = sts["spec"]["template"]["spec"]["containers"][0]
        args = [*c.get("command", []), *c.get("args", [])]
        appendonly = args[args.index("--appendonly") + 1] if "--appendonly" in args[:-1] else "no"
        if appendonly != "yes":
            problems.append(f"{_name(sts)}: Redis without --appendonly yes")
        data_dir = args[args.index("--dir") + 1] if "--dir" in args else "/data"
        claims = {t["metadata"]["name"] for t in sts["spec"].get("volumeClaimTemplates", [])}
        if not any(m["mountPath"] == data_dir and m["name"] in claims for m in c.get("volumeMounts", [])):
            problems.append(f"{_name(sts)}: Redis's --dir {data_dir} is not on a PersistentVolumeClaim")
    return problems


def main(argv: Sequence[str] | None = None) -> int:
    """Render, validate and cross-check the base and every overlay; 1 on any problem."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kustomize", default=os.environ.get("KUSTOMIZE") or shutil.which("kustomize"))
    args = parser.parse_args(argv)
    if not args.kustomize:
        print("no kustomize binary: pass --kustomize or set KUSTOMIZE", file=sys.stderr)
        return 1
    version = kubernetes_validate.latest_version()
    targets = [KUBERNETES / "base", *sorted(p for p in (KUBERNETES / "overlays").iterdir() if p.is_dir())]
    failed = False
    for target in targets:
        where = target.relative_to(KUBERNETES.parent.parent)
        try:
            objects = render(args.kustomize, target)
        except subprocess.CalledProcessError as err:
            print(f"{where}: kustomize build failed:\n{err.stderr}", file=sys.stderr)
            failed = True
            continue
        problems = validate(objects, version) + cross_check(objects)
        for problem in problems:
            print(f"{where}: {problem}", file=sys.stderr)
        failed = failed or bool(problems)
        kinds = ", ".join(sorted({o["kind"] for o in objects}))
        print(
            f"{where}: {len(objects)} objects ({kinds}) valid for Kubernetes {version}, strict; cross-checked"
        )
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
