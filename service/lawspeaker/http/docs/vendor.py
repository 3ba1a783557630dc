"""Vendor the API reference's browser assets from npm at pinned versions, or check they are current.

``python -m lawspeaker.http.docs.vendor`` rewrites ``static/`` beside this module from the npm
packages pinned in :data:`PACKAGES`; ``--check`` fetches them again and fails if any vendored file,
or the manifest, differs. The files are copied byte for byte from the packages (npm verifies each
tarball against the registry's integrity hash, recorded in the manifest), with their licence files,
so the service serves the released code and nothing edited by hand.

``static/vendored.json`` is the manifest the service reads: per package its version, the tarball's
integrity and the SHA-256 of each file, which :func:`verify` checks without the network.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

STATIC = Path(__file__).resolve().parent / "static"
MANIFEST = STATIC / "vendored.json"


@dataclass(frozen=True)
class Package:
    """One npm package: the files the pages load (``assets``) and the licence texts kept with them,
    as paths inside the package; each is written flat into ``static/<name>/``."""

    name: str
    version: str
    assets: tuple[str, ...]
    licences: tuple[str, ...]

    @property
    def files(self) -> tuple[str, ...]:
        return (*self.assets, *self.licences)


PACKAGES = (
    # Swagger UI: the bundle, its CSS and the standalone preset Litestar's SwaggerRenderPlugin loads.
    Package(
        "swagger-ui-dist",
        "5.35.0",
        ("swagger-ui-bundle.js", "swagger-ui-standalone-preset.js", "swagger-ui.css"),
        (
            "LICENSE",
            "NOTICE",
            "swagger-ui-bundle.js.LICENSE.txt",
            "swagger-ui-standalone-preset.js.LICENSE.txt",
        ),
    ),
    # ReDoc 2.x: its standalone bundle defines the global ``Redoc`` that RedocRenderPlugin calls
    # (3.x is an ES module without that global).
    Package(
        "redoc",
        "2.5.2",
        ("bundles/redoc.standalone.js",),
        ("LICENSE", "bundles/redoc.standalone.js.LICENSE.txt"),
    ),
)


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _pack(package: Package, into: Path) -> tuple[str, dict[str, bytes]]:
    """The package's integrity and its chosen files (by base name), from ``npm pack``."""
    npm = shutil.which("npm")
    if npm is None:
        sys.exit("npm is not on PATH: it fetches the pinned packages")
    spec = f"{package.name}@{package.version}"
    done = subprocess.run(
        [npm, "pack", spec, "--json", "--pack-destination", str(into)],
        check=True,
        capture_output=True,
        text=True,
    )
    (packed,) = json.loads(done.stdout)
    found: dict[str, bytes] = {}
    with tarfile.open(into / packed["filename"], "r:gz") as tar:
        names = set(tar.getnames())
        for path in package.files:
            member = tar.extractfile(f"package/{path}") if f"package/{path}" in names else None
            if member is None:
                sys.exit(f"{spec} has no file {path}")
            found[Path(path).name] = member.read()
    return str(packed["integrity"]), found


def fetch() -> tuple[dict[str, object], dict[Path, bytes]]:
    """The manifest and every vendored file (by path under ``static/``), fresh from npm."""
    manifest: dict[str, object] = {}
    files: dict[Path, bytes] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for package in PACKAGES:
            integrity, found = _pack(package, Path(tmp))
            manifest[package.name] = {
                "version": package.version,
                "integrity": integrity,
                "assets": [Path(p).name for p in package.assets],
                "files": {name: _sha256(data) for name, data in sorted(found.items())},
            }
            files.update({Path(package.name) / name: data for name, data in found.items()})
    return manifest, files


def _manifest_bytes(manifest: Mapping[str, object]) -> bytes:
    return (json.dumps(manifest, indent=2, sort_keys=True) + "\n").encode()


def _on_disk() -> set[Path]:
    return {p.relative_to(STATIC) for p in STATIC.rglob("*") if p.is_file()} if STATIC.exists() else set()


def verify() -> list[str]:
    """What is wrong with ``static/`` against its own manifest (no network): a file missing, edited
    or unlisted, or a package at another version than pinned. Empty when all is well."""
    if not MANIFEST.exists():
        return [f"{MANIFEST} is missing"]
    manifest = json.loads(MANIFEST.read_text())
    problems: list[str] = []
    listed = {MANIFEST.relative_to(STATIC)}
    for package in PACKAGES:
        entry = manifest.get(package.name)
        if entry is None or entry["version"] != package.version:
            problems.append(f"{package.name}: manifest does not pin {package.version}")
            continue
        for name, digest in entry["files"].items():
            path = Path(package.name) / name
            listed.add(path)
            if not (STATIC / path).is_file() or _sha256((STATIC / path).read_bytes()) != digest:
                problems.append(f"{path}: missing or not as vendored")
    problems.extend(f"{path}: not in the manifest" for path in sorted(_on_disk() - listed))
    return problems


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m lawspeaker.http.docs.vendor", description=__doc__)
    parser.add_argument("--check", action="store_true", help="fail if static/ differs from the npm packages")
    args = parser.parse_args(argv)
    manifest, files = fetch()
    files[MANIFEST.relative_to(STATIC)] = _manifest_bytes(manifest)
    if args.check:
        stale = sorted(
            str(path)
            for path in _on_disk() | set(files)
            if path not in files
            or not (STATIC / path).is_file()
            or (STATIC / path).read_bytes() != files[path]
        )
        if stale:
            print(
                "vendored API docs assets are stale; run `python -m lawspeaker.http.docs.vendor`:",
                *stale,
                sep="\n  ",
            )
            return 1
        print(f"vendored API docs assets are current ({len(files)} files)")
        return 0
    if STATIC.exists():
        shutil.rmtree(STATIC)
    for path, data in files.items():
        (STATIC / path).parent.mkdir(parents=True, exist_ok=True)
        (STATIC / path).write_bytes(data)
    print(f"wrote {len(files)} files to {STATIC}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
