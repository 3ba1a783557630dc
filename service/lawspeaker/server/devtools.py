"""Developer commands: generate the protobuf code and the OpenAPI document, or check they are current.

``lawspeaker gen-proto [--check]``, ``lawspeaker openapi [--check]`` and ``lawspeaker errors-doc
[--check]`` call into this module.
grpcio-tools is a dev dependency: it is imported only here.
"""

from __future__ import annotations

import filecmp
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
PROTO_DIR = ROOT / "proto"
OUT_DIR = ROOT / "service"
GENERATED = OUT_DIR / "lawspeaker" / "v1"
OPENAPI_PATH = ROOT / "clients" / "openapi.json"
ERRORS_DOC_PATH = ROOT / "docs" / "errors.md"
DESCRIPTOR_SET = "lawspeaker.binpb"  # with source info: the proto comments, for the OpenAPI document


def _protoc(out: Path) -> None:
    try:
        import grpc_tools
        from grpc_tools import protoc
    except ImportError:  # pragma: no cover - depends on the environment
        sys.exit("grpcio-tools is not installed: pip install -e '.[dev]'")
    wkt = Path(grpc_tools.__file__).parent / "_proto"
    sources = sorted(str(p.relative_to(PROTO_DIR)) for p in (PROTO_DIR / "lawspeaker").rglob("*.proto"))
    args = [
        "grpc_tools.protoc",
        f"-I{PROTO_DIR}",
        f"-I{wkt}",
        f"--python_out={out}",
        f"--pyi_out={out}",
        f"--grpc_python_out={out}",
        f"--descriptor_set_out={out / 'lawspeaker' / 'v1' / DESCRIPTOR_SET}",
        "--include_source_info",
        *sources,
    ]
    code = protoc.main(args)
    if code != 0:
        sys.exit(f"protoc failed with exit code {code}")
    (out / "lawspeaker" / "v1" / "__init__.py").write_text(
        '"""Generated from proto/lawspeaker/v1 by `lawspeaker gen-proto`: do not edit."""\n'
    )


def gen_proto(check: bool = False) -> int:
    """Regenerate service/lawspeaker/v1 from proto/, or (check) fail if it is stale."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        (out / "lawspeaker" / "v1").mkdir(parents=True)
        _protoc(out)
        fresh = out / "lawspeaker" / "v1"
        if check:
            stale = _diff(fresh, GENERATED)
            if stale:
                print("generated protobuf code is stale; run `lawspeaker gen-proto`:", *stale, sep="\n  ")
                return 1
            print("generated protobuf code is current")
            return 0
        GENERATED.mkdir(parents=True, exist_ok=True)
        for old in GENERATED.glob("*_pb2*.py*"):
            old.unlink()
        for new in fresh.iterdir():
            if new.is_file():
                shutil.copy2(new, GENERATED / new.name)
        print(f"wrote {GENERATED.relative_to(ROOT)}")
        return 0


def _diff(fresh: Path, current: Path) -> list[str]:
    names = {p.name for p in fresh.iterdir() if p.is_file()}
    if current.exists():
        names |= {p.name for p in current.iterdir() if p.is_file()}
    stale = []
    for name in sorted(names):
        a, b = fresh / name, current / name
        if not a.exists() or not b.exists() or not filecmp.cmp(a, b, shallow=False):
            stale.append(name)
    return stale


def openapi(check: bool = False) -> int:
    """Write clients/openapi.json from the running app's schema, or (check) fail if stale."""
    import json

    from lawspeaker.http.openapi import openapi_document

    text = json.dumps(openapi_document(), indent=2, sort_keys=True) + "\n"
    if check:
        if not OPENAPI_PATH.exists() or OPENAPI_PATH.read_text() != text:
            print("clients/openapi.json is stale; run `lawspeaker openapi`")
            return 1
        print("clients/openapi.json is current")
        return 0
    OPENAPI_PATH.parent.mkdir(parents=True, exist_ok=True)
    OPENAPI_PATH.write_text(text)
    print(f"wrote {OPENAPI_PATH.relative_to(ROOT)}")
    return 0


def errors_doc(check: bool = False) -> int:
    """Write docs/errors.md from the reason catalogue, or (check) fail if it is stale."""
    from lawspeaker.api.errors_doc import render

    text = render()
    if check:
        if not ERRORS_DOC_PATH.exists() or ERRORS_DOC_PATH.read_text() != text:
            print("docs/errors.md is stale; run `lawspeaker errors-doc`")
            return 1
        print("docs/errors.md is current")
        return 0
    ERRORS_DOC_PATH.write_text(text)
    print(f"wrote {ERRORS_DOC_PATH.relative_to(ROOT)}")
    return 0
