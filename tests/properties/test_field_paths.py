"""Every field path an error names is a real field of the request as it was written (issue 33):
JSON names for a JSON body, proto names for a binary protobuf one, in ``fieldViolations`` and in
the problem's ``detail``.

For every game, states along a seeded game, the moves listed there and the game's options are
corrupted field by field, every field the contract has (set where it was absent, changed where it
was present, a list shortened and lengthened), and sent to the REST app in-process, as JSON and as
binary protobuf. Each refusal's paths must resolve against the body sent: each name a field of the
message there (in the spelling the body used), each index within the list the body holds.

About 8,000 requests in all, in-process (no sockets): a few seconds per game, spread over the
suite's workers by game.
"""

from __future__ import annotations

import copy
import random
import re
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from google.protobuf import json_format
from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.message import Message
from litestar.testing import TestClient

from lawspeaker.http.app import create_app
from lawspeaker.v1 import game_pb2
from lawspeaker.v1 import rules_service_pb2 as pb
from lawspeaker.wire.registry import REGISTRY

FD = FieldDescriptor
GAMES = sorted(REGISTRY)
PROTOBUF = "application/x-protobuf"
SEGMENT = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)((?:\[\d+\])*)")
PATHS_IN_WORDS = re.compile(r"\b(?:state|move|options)(?:\.[A-Za-z_][A-Za-z0-9_]*(?:\[\d+\])*)+")
"""A field path inside a sentence: the problem's detail names fields this way."""
INDEX = re.compile(r"\[\d+\]")


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient[Any]]:
    with TestClient(create_app()) as c:
        yield c


# --------------------------------------------------------------------------- resolving a path


def resolves(path: str, desc: Descriptor, body: Any, json_names: bool) -> bool:
    """Whether ``path`` names a field of ``body`` (a JSON object of message ``desc``): every name a
    field of the message it is read in, spelled as the body is (JSON or proto names), every index
    within the list the body holds there. A field the body leaves out is at its default: it is
    there, with no entries when repeated."""
    value: Any = body
    current: Descriptor | None = desc
    for part in path.split("."):
        match = SEGMENT.fullmatch(part)
        if match is None or current is None:
            return False
        name, brackets = match.groups()
        fields = {(f.json_name if json_names else f.name): f for f in current.fields}
        f = fields.get(name)
        if f is None:
            return False
        value = value.get(f.json_name) if isinstance(value, dict) else None
        indexes = [int(i) for i in re.findall(r"\[(\d+)\]", brackets)]
        if indexes and not f.is_repeated:
            return False
        for i in indexes:
            if not isinstance(value, list) or i >= len(value):
                return False
            value = value[i]
            if f.message_type is None:
                break
        current = f.message_type if (not f.is_repeated or indexes) else None
        if f.is_repeated and not indexes:
            current = None  # a path goes into a list through an index only
    return True


def check_refusal(
    answer: Any, desc: Descriptor, body: dict[str, Any], json_names: bool, what: str, wrong: dict[str, str]
) -> tuple[str, ...]:
    """The paths a refusal names; each that does not resolve is added to ``wrong`` (the path with
    its indexes as ``[i]``, and an example: ``what`` and the problem)."""
    if answer.status_code < 400:
        return ()
    problem = answer.json()
    paths = [v["field"] for v in problem.get("fieldViolations", ())]
    paths += PATHS_IN_WORDS.findall(problem["detail"])
    for path in paths:
        if not resolves(path, desc, body, json_names):
            kind = "JSON" if json_names else "protobuf"
            pattern = INDEX.sub("[i]", path)
            wrong.setdefault(f"{kind} {problem['reason']} {pattern}", f"{what}: {problem['detail']}")
    return tuple(paths)


def assert_resolved(wrong: dict[str, str]) -> None:
    """Fail naming every path (and an example request) that did not resolve."""
    assert not wrong, "\n".join(f"{k}\n    e.g. {v}" for k, v in sorted(wrong.items()))


# --------------------------------------------------------------------------- corrupting a body


Corruption = tuple[str, Callable[[dict[str, Any]], None]]


def _other_enum(f: FieldDescriptor, current: Any) -> str:
    assert f.enum_type is not None
    names = [v.name for v in f.enum_type.values]
    return next((n for n in reversed(names) if n != current), names[0])


def _scalar_values(f: FieldDescriptor, current: Any) -> list[Any]:
    """A few values a field of ``f``'s type may hold, other than ``current``."""
    if f.type == FD.TYPE_ENUM:
        assert f.enum_type is not None
        return [_other_enum(f, current), f.enum_type.values[0].name]
    if f.type == FD.TYPE_BOOL:
        return [not current]
    if f.type in (FD.TYPE_STRING,):
        return ["x", "{}"]
    if f.type == FD.TYPE_BYTES:
        return ["AAAA"]
    if f.type in (FD.TYPE_DOUBLE, FD.TYPE_FLOAT):
        return [-1.5]
    unsigned = f.type in (FD.TYPE_UINT32, FD.TYPE_UINT64, FD.TYPE_FIXED32, FD.TYPE_FIXED64)
    values: list[Any] = [999, 7] if unsigned else [999, -7, 7]
    if f.type in (FD.TYPE_INT64, FD.TYPE_UINT64, FD.TYPE_SINT64, FD.TYPE_FIXED64, FD.TYPE_SFIXED64):
        values = [str(v) for v in values]
    return [v for v in values if v != current]


def corruptions(desc: Descriptor, obj: dict[str, Any], at: str = "", depth: int = 0) -> Iterator[Corruption]:
    """Every way of changing one field of ``obj`` (a JSON object of message ``desc``), each with a
    name and a function making the change on a copy's object at the same place."""
    for f in desc.fields:
        key = f.json_name
        here = f"{at}.{key}" if at else key
        present = obj.get(key)

        def setter(value: Any, key: str = key) -> Callable[[dict[str, Any]], None]:
            def put(target: dict[str, Any]) -> None:
                target[key] = copy.deepcopy(value)

            return put

        if f.message_type is not None and f.message_type.GetOptions().map_entry:
            continue
        if f.message_type is not None and f.message_type.full_name.startswith("google.protobuf."):
            continue
        if f.is_repeated:
            items = present if isinstance(present, list) else []
            if items:
                yield f"{here}: one entry fewer", setter(items[:-1])
                yield f"{here}: one entry more", setter([*items, items[-1]])
            elif f.message_type is not None:
                yield f"{here}: an empty entry", setter([{}])
            else:
                for value in _scalar_values(f, None)[:1]:
                    yield f"{here}: [{value!r}]", setter([value])
            if f.message_type is not None:
                for i, item in enumerate(items[:2]):
                    for name, change in corruptions(f.message_type, item, f"{here}[{i}]", depth + 1):
                        yield name, _inside(key, i, change)
            else:
                for i in range(min(len(items), 2)):
                    for value in _scalar_values(f, items[i])[:2]:
                        changed = list(items)
                        changed[i] = value
                        yield f"{here}[{i}] = {value!r}", setter(changed)
            continue
        if f.message_type is not None:
            if isinstance(present, dict):
                if depth < 6:
                    for name, change in corruptions(f.message_type, present, here, depth + 1):
                        yield name, _inside(key, None, change)
            elif f.containing_oneof is None or f.containing_oneof.name.startswith("_"):
                yield f"{here}: an empty message", setter({})
            continue
        for value in _scalar_values(f, present):
            yield f"{here} = {value!r}", setter(value)


def _inside(
    key: str, index: int | None, change: Callable[[dict[str, Any]], None]
) -> Callable[[dict[str, Any]], None]:
    def apply(target: dict[str, Any]) -> None:
        inner = target[key] if index is None else target[key][index]
        change(inner)

    return apply


def corrupted(body: dict[str, Any], root: str, change: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
    out = copy.deepcopy(body)
    change(out[root] if root else out)
    return out


# --------------------------------------------------------------------------- the requests


def seeded_states(client: TestClient[Any], game: str) -> list[dict[str, Any]]:
    """The state of a new game and two states further along a seeded game (JSON)."""
    entry = REGISTRY[game]
    players = entry.game.min_players + (1 if entry.game.max_players > entry.game.min_players else 0)
    state = client.post(f"/v1/games/{game}:new", json={"players": players, "seed": "11"}).json()["state"]
    pick, out = random.Random(3), [state]
    for ply in range(1, 61):
        legal = client.post(f"/v1/games/{game}:legalMoves", json={"state": state}).json()
        if legal.get("gameOver") or not legal.get("moves"):
            break
        answer = client.post(
            f"/v1/games/{game}:applyMove", json={"state": state, "move": pick.choice(legal["moves"])}
        )
        state = answer.json()["state"]
        if ply in (12, 40):
            out.append(state)
    return out


def send(client: TestClient[Any], url: str, body: dict[str, Any], cls: type[Message], as_json: bool) -> Any:
    """``body`` to ``url`` as JSON, or as binary protobuf (None when protobuf cannot hold it)."""
    if as_json:
        return client.post(url, json=body)
    try:
        message = json_format.ParseDict(body, cls())
    except (json_format.ParseError, ValueError, TypeError):
        return None
    return client.post(url, content=message.SerializeToString(), headers={"content-type": PROTOBUF})


def exercise(
    client: TestClient[Any],
    url: str,
    body: dict[str, Any],
    cls: type[Message],
    root: str,
    root_desc: Descriptor,
    wrong: dict[str, str],
    sample: int | None = None,
) -> tuple[int, int]:
    """Send every corruption of ``body[root]`` (the body itself for "") as JSON and as protobuf;
    check every refusal. The number of requests sent and of refusals that named fields."""
    target = body[root] if root else body
    changes = list(corruptions(root_desc, target, root))
    if sample is not None and len(changes) > sample:
        changes = random.Random(len(changes)).sample(changes, sample)
    sent = named = 0
    for name, change in changes:
        bad = corrupted(body, root, change)
        for as_json in (True, False):
            answer = send(client, url, bad, cls, as_json)
            if answer is None:
                continue
            sent += 1
            assert answer.status_code < 500, (name, answer.text)
            named += bool(check_refusal(answer, cls.DESCRIPTOR, bad, as_json, f"{url} with {name}", wrong))
    return sent, named


@pytest.mark.parametrize("game", GAMES)
def test_every_path_a_refused_state_names_is_a_field_of_the_request(
    client: TestClient[Any], game: str
) -> None:
    url = f"/v1/games/{game}:legalMoves"
    total = refused = 0
    wrong: dict[str, str] = {}
    for state in seeded_states(client, game):
        desc = game_pb2.GameState.DESCRIPTOR
        sent, named = exercise(client, url, {"state": state}, pb.LegalMovesRequest, "state", desc, wrong)
        total, refused = total + sent, refused + named
    assert_resolved(wrong)
    assert refused > total // 10, (total, refused)  # most corruptions break an invariant the game names


@pytest.mark.parametrize("game", GAMES)
def test_every_path_a_refused_move_names_is_a_field_of_the_request(
    client: TestClient[Any], game: str
) -> None:
    url = f"/v1/games/{game}:applyMove"
    total = refused = 0
    wrong: dict[str, str] = {}
    for state in seeded_states(client, game):
        legal = client.post(f"/v1/games/{game}:legalMoves", json={"state": state}).json()
        for move in (legal.get("moves") or [])[:4]:
            sent, named = exercise(
                client,
                url,
                {"state": state, "move": move},
                pb.ApplyMoveRequest,
                "move",
                game_pb2.Move.DESCRIPTOR,
                wrong,
            )
            total, refused = total + sent, refused + named
    assert_resolved(wrong)
    assert total and refused, (total, refused)


@pytest.mark.parametrize("game", GAMES)
def test_every_path_refused_options_name_is_a_field_of_the_request(
    client: TestClient[Any], game: str
) -> None:
    entry = REGISTRY[game]
    member = entry.codec.field
    json_member = game_pb2.GameOptions.DESCRIPTOR.fields_by_name[member].json_name
    options_desc = game_pb2.GameOptions.DESCRIPTOR.fields_by_name[member].message_type
    assert options_desc is not None
    defaults = json_format.MessageToDict(
        entry.codec.options_to_proto(entry.game.default_options()), preserving_proto_field_name=False
    )
    wrong: dict[str, str] = {}
    for players in (entry.game.min_players, entry.game.max_players):
        body = {"players": players, "options": {json_member: defaults}}
        url = f"/v1/games/{game}:new"
        sent, _ = exercise(
            client, url, body, pb.NewGameRequest, "options", game_pb2.GameOptions.DESCRIPTOR, wrong
        )
        assert sent
    assert_resolved(wrong)


def test_the_resolver_refuses_what_is_not_a_field() -> None:
    desc = pb.LegalMovesRequest.DESCRIPTOR
    body = {"state": {"paxVikingJunior": {"seats": [{"ship": 3}, {}], "regions": [{"friendSeat": 1}]}}}
    assert resolves("state.paxVikingJunior.seats[1].ship", desc, body, True)
    assert resolves("state.paxVikingJunior.regions[0].friendSeat", desc, body, True)
    assert resolves("state.pax_viking_junior.regions[0].friend_seat", desc, body, False)
    assert resolves("state.paxVikingJunior.winner", desc, body, True)  # absent: at its default
    assert not resolves("state.paxVikingJunior.players[0]", desc, body, True)  # players is a number
    assert not resolves("state.paxVikingJunior.seats[2]", desc, body, True)  # two seats
    assert not resolves("state.paxVikingJunior.regions[0].friend", desc, body, True)
    assert not resolves("state.pax_viking_junior.seats[0]", desc, body, True)  # proto name in JSON
    assert not resolves("state.paxVikingJunior.kittens", desc, body, True)
    assert not resolves(
        "move.valhalla.action", pb.ApplyMoveRequest.DESCRIPTOR, {"move": {"valhalla": {}}}, True
    )
