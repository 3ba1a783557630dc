"""Generate the client's protobuf and gRPC modules from ../../proto into src/lawspeaker_client/v1.

    python clients/python/gen_proto.py          # regenerate
    python clients/python/gen_proto.py --check  # exit 1 if the committed modules are stale

protoc runs with ``-I proto`` exactly as for the server, so every module registers the same
``lawspeaker/v1/*.proto`` files with the same serialized descriptors (the server and the client can
share one process and one descriptor pool); only the Python imports ``from lawspeaker.v1 import``
are rewritten to ``from lawspeaker_client.v1 import``. Needs grpcio-tools (a dev dependency).
"""

from __future__ import annotations

import argparse
import filecmp
import re
import shutil
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
PROTO_DIR = ROOT / "proto"
TARGET = HERE / "src" / "lawspeaker_client" / "v1"
PACKAGE = "lawspeaker_client.v1"
INIT = '"""Generated from proto/lawspeaker/v1 by clients/python/gen_proto.py: do not edit."""\n'
_IMPORT = re.compile(r"^(\s*)from lawspeaker\.v1 import ", re.MULTILINE)


def generate(out: Path) -> None:
    import grpc_tools
    from grpc_tools import protoc

    wkt = Path(grpc_tools.__file__).parent / "_proto"
    raw = out / "raw"
    raw.mkdir()
    sources = sorted(str(p.relative_to(PROTO_DIR)) for p in (PROTO_DIR / "lawspeaker").rglob("*.proto"))
    args = [
        "grpc_tools.protoc",
        f"-I{PROTO_DIR}",
        f"-I{wkt}",
        f"--python_out={raw}",
        f"--pyi_out={raw}",
        f"--grpc_python_out={raw}",
        *sources,
    ]
    if protoc.main(args) != 0:
        sys.exit("protoc failed")
    final = out / "v1"
    final.mkdir()
    for path in sorted((raw / "lawspeaker" / "v1").iterdir()):
        text = _IMPORT.sub(rf"\1from {PACKAGE} import ", path.read_text())
        if "lawspeaker.v1 import" in text.replace(f"{PACKAGE} import", ""):
            sys.exit(f"{path.name}: an import of lawspeaker.v1 was not rewritten")
        (final / path.name).write_text(text)
    (final / "__init__.py").write_text(INIT)


def stale(fresh: Path, current: Path) -> list[str]:
    names = {p.name for p in fresh.iterdir()} | (
        {p.name for p in current.iterdir() if p.is_file() and p.suffix in (".py", ".pyi")}
        if current.exists()
        else set()
    )
    return sorted(
        n for n in names if not (current / n).exists() or not filecmp.cmp(fresh / n, current / n, False)
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--check", action="store_true", help="fail if the committed modules are stale")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        generate(Path(tmp))
        fresh = Path(tmp) / "v1"
        diff = stale(fresh, TARGET)
        if args.check:
            if diff:
                print("clients/python generated code is stale; run clients/python/gen_proto.py:")
                print(*(f"  {n}" for n in diff), sep="\n")
                return 1
            print("clients/python generated code is current")
            return 0
        if TARGET.exists():
            shutil.rmtree(TARGET)
        shutil.copytree(fresh, TARGET)
        print(f"wrote {TARGET.relative_to(ROOT)} ({len(diff)} changed)")
        return 0


if __name__ == "__main__":
    raise SystemExit(main())
