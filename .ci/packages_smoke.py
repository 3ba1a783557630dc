"""The Python half of `.ci/packages.sh`: what must be in the wheels, and a smoke check of the installed ones.

``contents WHEELS SRC`` runs before anything is installed: every file of the ``lawspeaker`` and
``lawspeaker_client`` packages in the source tree SRC (data files included: game components, the
descriptor set, .pyi stubs, the API reference's assets) must be in its wheel in WHEELS, since a file
left out works in a checkout and fails only once installed; so must every rules document of
``docs/rules``, which ``lawspeaker/http/rulebooks`` links in the checkout and the service serves.

``smoke --grpc-port N --http-port M`` runs with the fresh venv's interpreter, outside the checkout,
against the installed ``lawspeaker serve``: the packages import from that venv, ``/healthz`` and
``/schema`` answer, ``/play`` serves the web frontend, each game's rules page holds the anchor of
every rule a refusal links, and every game the server lists is described,
started and asked for its legal moves through the installed ``lawspeaker_client``, over gRPC and REST.
"""

from __future__ import annotations

import argparse
import re
import sys
import zipfile
from pathlib import Path

# package name -> its directory in the source tree
PACKAGES = {"lawspeaker": "service/lawspeaker", "lawspeaker_client": "clients/python/src/lawspeaker_client"}
RULEBOOKS = "http/rulebooks"  # docs/rules, as the lawspeaker package holds it


def contents(wheels: Path, src: Path) -> list[str]:
    """The problems with the wheels' contents: missing wheels and files left out of them."""
    problems: list[str] = []
    for package, directory in PACKAGES.items():
        found = [w for w in wheels.glob("*.whl") if _top_level(w) == package]
        if len(found) != 1:
            problems.append(f"expected one wheel holding {package} in {wheels}, found {len(found)}")
            continue
        with zipfile.ZipFile(found[0]) as wheel:
            shipped = set(wheel.namelist())
        root = src / directory
        for path in sorted(root.rglob("*")):
            if path.is_dir() or "__pycache__" in path.parts or path.suffix == ".pyc":
                continue
            name = f"{package}/{path.relative_to(root).as_posix()}"
            if name not in shipped:
                problems.append(f"{found[0].name} lacks {name} (add it to package-data in pyproject.toml)")
        if package == "lawspeaker":  # a link in the checkout: rglob does not follow it
            for doc in sorted((src / "docs" / "rules").glob("*.md")):
                if f"{package}/{RULEBOOKS}/{doc.name}" not in shipped:
                    problems.append(f"{found[0].name} lacks the rules document {doc.name} ({RULEBOOKS})")
    return problems


def _top_level(wheel: Path) -> str:
    """The package a wheel installs, read from its file names (``lawspeaker/...``)."""
    with zipfile.ZipFile(wheel) as archive:
        tops = {n.split("/", 1)[0] for n in archive.namelist() if "/" in n and ".dist-info/" not in n}
    return tops.pop() if len(tops) == 1 else ",".join(sorted(tops))


def smoke(grpc_port: int, http_port: int) -> str:
    """Checks the installed packages against the installed server; returns a one-line summary."""
    import httpx

    import lawspeaker
    import lawspeaker.wire.registry
    import lawspeaker_client
    from lawspeaker_client import Client

    prefix = Path(sys.prefix).resolve()
    for module in (lawspeaker, lawspeaker_client):
        where = Path(str(module.__file__)).resolve()
        if prefix not in where.parents:
            raise SystemExit(f"{module.__name__} was imported from {where}, not from the venv at {prefix}")

    base = f"http://127.0.0.1:{http_port}"
    health = httpx.get(f"{base}/healthz")
    if health.status_code != 200 or health.json() != {"status": "SERVING"}:
        raise SystemExit(f"/healthz answered {health.status_code}: {health.text}")
    schema = httpx.get(f"{base}/schema")
    if schema.status_code != 200 or "openapi" not in schema.json():
        raise SystemExit(f"/schema answered {schema.status_code}: {schema.text[:200]}")
    page = httpx.get(f"{base}/play")  # the web frontend's bundle is package data of the wheel
    scripts = re.findall(r'src="(/play/[^"]+[.]js)"', page.text)
    if page.status_code != 200 or not scripts or httpx.get(base + scripts[0]).status_code != 200:
        raise SystemExit(f"/play answered {page.status_code} or its script is missing: {page.text[:200]}")

    for game_id, entry in lawspeaker.wire.registry.REGISTRY.items():  # the rules pages read package data
        rules = httpx.get(f"{base}/rules/{game_id}")
        anchors = {r.rule.partition("#")[2] for r in entry.game.reasons.values()}
        missing = sorted(a for a in anchors if f'id="{a}"' not in rules.text)
        if rules.status_code != 200 or missing:
            raise SystemExit(f"/rules/{game_id} answered {rules.status_code}, lacking anchors {missing}")

    with Client.grpc(f"127.0.0.1:{grpc_port}") as over_grpc, Client.rest(base) as over_rest:
        games = list(over_grpc.list_games().games)
        if not games:
            raise SystemExit("ListGames listed no game")
        for info in games:
            described = over_grpc.describe_game(info.id)
            if described.info.id != info.id or not described.data.fields:
                raise SystemExit(f"DescribeGame({info.id}) lacks its id or its board data")
            for client in (over_grpc, over_rest):
                state = client.new_game(info.id, players=info.min_players, seed=1).state
                if not client.legal_moves(info.id, state).moves:
                    raise SystemExit(f"a new {info.id} game has no legal move over {client.transport}")
    names = ", ".join(g.id for g in games)
    return f"installed wheels: {len(games)} games described and started over gRPC and REST ({names})"


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    commands = parser.add_subparsers(dest="command", required=True)
    check = commands.add_parser("contents", help="every package file is in its wheel")
    check.add_argument("wheels", type=Path)
    check.add_argument("src", type=Path)
    run = commands.add_parser("smoke", help="the installed packages against the installed server")
    run.add_argument("--grpc-port", type=int, required=True)
    run.add_argument("--http-port", type=int, required=True)
    args = parser.parse_args()
    if args.command == "contents":
        problems = contents(args.wheels, args.src)
        if problems:
            raise SystemExit("\n".join(problems))
        print(f"wheels hold every file of {', '.join(PACKAGES)}")
    else:
        print(smoke(args.grpc_port, args.http_port))


if __name__ == "__main__":
    main()
