"""Rule-scenario tests for the Pax Penning engine: one test per rule of the rulebook.

Every test quotes, in its docstring, the rulebook sentence it enforces
(``shared/rulebooks/pax-penning.txt``); a test of a reading the rulebook leaves open also names the
engine's assumption id (``lawspeaker.games.pax_penning.ASSUMPTIONS``). ``docs/rules/pax-penning.md``
maps each rule to these tests.

Positions start from a seeded game played to its first turn (:func:`started`) and are then changed
with :func:`at`, which keeps every stone accounted for and checks the state is valid.

Reference map indices used below: road spaces f1=13, f2=14, f3=15 (difficult), f4=16, f5=17 lead
from the south star (star 3) over the ford crossroads (3) and the south crossroads (4) to Sigtuna;
the bowls are 0-3 (values 4, 3, 2, 1), 4 (0, printed Pawn) and 5 (0, printed King).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from lawspeaker.api.rules import RulesApi
from lawspeaker.games import core
from lawspeaker.games.core import Event, LawspeakerError, Rng
from lawspeaker.games.pax_penning import (
    ASSUMPTIONS,
    BISHOP,
    COIN,
    EVERYONE_LOSES,
    GAME,
    JARL,
    KING,
    KNIGHT,
    PAWN,
    REFERENCE,
    ROOK,
    THEGN,
    AnnounceLoyalty,
    AskBlessing,
    Bless,
    BoardError,
    ChangeStanding,
    ChooseBowl,
    ChooseHeir,
    Draw,
    Gather,
    MovePawn,
    Options,
    Phase,
    PlaceDie,
    PlaceRunestone,
    PlaceStone,
    RemoveDie,
    Resolve,
    ReturnPawn,
    Roll,
    SendStone,
    State,
    Vote,
    blocked_coin,
    load_board,
    pennings,
    silvers,
    view_event,
)
from lawspeaker.v1 import rules_service_pb2 as pb
from lawspeaker.wire.codec.pax_penning import CODEC

F1, F2, F3, F4, F5 = 13, 14, 15, 16, 17
FORD, SOUTH_CROSSROADS = 3, 4
SOUTH_STAR = REFERENCE.star_node(3)
KING_BOWL, PAWN_BOWL = 5, 4
IDS = {a.id for a in ASSUMPTIONS}

# --------------------------------------------------------------------------- helpers


def started(players: int = 4, seed: int = 1) -> State:
    """A game played (first listed move each time) up to its first gathering."""
    state = GAME.new_game(players, Options(), Rng.from_seed(seed))
    while state.phase is not Phase.GATHER:
        state, _ = GAME.apply(state, GAME.legal_moves(state)[0])
    return state


def at(state: State, houses: dict[int, list[int]] | None = None, **fields: Any) -> State:
    """``state`` with ``fields`` replaced; House rows given in ``houses`` trade stones with Sigtuna so
    that every stone stays accounted for. The result must be a valid state."""
    sigtuna = list(fields.pop("sigtuna", state.sigtuna))
    if "runestones" in fields:  # raised or removed runestones trade their stones with Sigtuna too
        for old, new in zip(state.runestones, fields["runestones"], strict=True):
            if old >= 0:
                sigtuna[old] += 1
            if new >= 0:
                sigtuna[new] -= 1
    if houses:
        rows = list(state.houses)
        for h, row in houses.items():
            for c, k in enumerate(row):
                sigtuna[c] -= k - rows[h][c]
            rows[h] = tuple(row)
        fields["houses"] = tuple(rows)
        fields["sizes"] = tuple(sum(r) for r in rows)
    assert min(sigtuna) >= 0, "not enough stones in Sigtuna for these Houses"
    new = state._replace(sigtuna=tuple(sigtuna), **fields)
    assert GAME.check_state(new) == [], GAME.check_state(new)
    return new


def play(state: State, *moves: Any) -> tuple[State, list[Event]]:
    """Apply legal moves through the shared core; every state on the way must be valid."""
    events: list[Event] = []
    for move in moves:
        assert core.validate(GAME, state, move) is None, (move, core.validate(GAME, state, move))
        state, more = core.apply(GAME, state, move)
        assert GAME.check_state(state) == [], GAME.check_state(state)
        events += more
    return state, events


def refused(state: State, move: Any, reason: str) -> None:
    assert move not in GAME.legal_moves(state)
    violation = core.validate(GAME, state, move)
    assert violation is not None and violation.reason == reason, violation
    assert violation.message[0].isupper()


def kinds(events: list[Event]) -> list[str]:
    return [e.kind for e in events]


def coins(state: State, **sides: tuple[bool, ...]) -> tuple[tuple[bool, ...], ...]:
    """Coins per seat; ``s0=(True, False)`` sets seat 0's coins (True = Penning)."""
    rows = list(state.coins)
    for key, row in sides.items():
        rows[int(key[1:])] = row
    return tuple(rows)


def empty_roads() -> tuple[int, ...]:
    return (0,) * REFERENCE.spaces


def resolving(state: State, piece: int, x: int, **fields: Any) -> State:
    """The turn player resolving a printed/market ``piece`` with a die of value ``x``."""
    phase = {
        KING: Phase.KING_RUNESTONE,
        ROOK: Phase.ROOK_PLACE,
        KNIGHT: Phase.KNIGHT_REMOVE,
        BISHOP: Phase.BISHOP_SEND,
        PAWN: Phase.PAWN_CHOOSE,
    }[piece]
    return at(state, phase=phase, piece=piece, x=x, dice=(1,), **fields)


# --------------------------------------------------------------------------- setup


def test_setup_places_the_king_in_sigtuna_and_pawns_on_the_lower_three_stars() -> None:
    """Unfold the map. Place the King/Queen in Sigtuna, and the 3 matching pawns on the lower 3
    starting stars."""
    state = GAME.new_game(4, Options(), Rng.from_seed(3))
    assert state.king == 0
    assert state.pawns == tuple(REFERENCE.star_node(s) for s in REFERENCE.royal_stars)
    assert len(state.pawns) == 3


def test_setup_market_pieces_go_randomly_into_the_top_four_bowls() -> None:
    """Place the Knight, Bishop, Rook, and last Pawn randomly in the top 4 market bowls (1 per bowl).
    (Assumption RANDOM_SETUP_STEPS.)"""
    state = GAME.new_game(3, Options(), Rng.from_seed(3))
    chance = GAME.chance(state)
    assert chance is not None and GAME.to_act(state).chance
    assert [o.probability for o in chance.outcomes] == [0.25] * 4
    state, _ = play(state, Draw(2), Draw(0), Draw(1), Draw(0))
    assert [len(b) for b in state.bowls] == [1, 1, 1, 1, 0, 0]
    assert sorted(p for b in state.bowls for p in b) == [KNIGHT, BISHOP, ROOK, PAWN]
    assert "RANDOM_SETUP_STEPS" in IDS


def test_setup_each_house_gets_all_its_stones_and_two_random_coins() -> None:
    """Each player seats themselves around the board and takes the following: a screen, all stones
    in the matching color and 2 coins. Place the stones behind your screen and your coins in front of
    your screen with a random side up. This is your House."""
    state = GAME.new_game(4, Options(), Rng.from_seed(3))
    assert state.houses[2] == (0, 0, 21, 0)
    state, _ = play(state, *[Draw(0)] * 4)
    assert state.phase is Phase.SETUP_COINS
    chance = GAME.chance(state)
    assert chance is not None and {o.move for o in chance.outcomes} == {Draw(0), Draw(1)}
    state, _ = play(state, *[Draw(1), Draw(0)] * 4)
    assert state.coins == ((True, False),) * 4


def test_setup_fills_the_hierarchy_in_random_order_with_the_silver_coin_at_the_bottom() -> None:
    """Fill the Hierarchy with 1 stone from each player in a random order. Place 1 coin at the bottom
    with the Silver side up."""
    state = GAME.new_game(4, Options(), Rng.from_seed(3))
    state, _ = play(state, *[Draw(0)] * 4, *[Draw(0)] * 8)
    assert state.phase is Phase.SETUP_HIERARCHY
    chance = GAME.chance(state)
    assert chance is not None and len(chance.outcomes) == 4
    state, _ = play(state, Draw(3), Draw(0), Draw(1), Draw(0))
    assert state.hierarchy == (3, 0, 2, 1, COIN)
    assert state.hierarchy_penning is False
    assert state.sizes == (20, 20, 20, 20)


def test_setup_the_last_player_in_the_hierarchy_places_the_first_roadblock() -> None:
    """The last player in the Hierarchy order rolls 1 die and places it on an empty Road Space as a
    Roadblock."""
    state = GAME.new_game(4, Options(), Rng.from_seed(3))
    state, _ = play(state, *[Draw(0)] * 12, Draw(3), Draw(0), Draw(1), Draw(0))
    assert state.phase is Phase.SETUP_ROADBLOCK_ROLL and GAME.to_act(state).players == (1,)
    state, _ = play(state, Draw(5))
    assert GAME.to_act(state).players == (1,)
    state, _ = play(state, PlaceDie(F2))
    assert state.roads[F2] == 5


def test_setup_in_hierarchy_order_each_player_places_stones_a_runestone_and_a_die() -> None:
    """In Hierarchy Order (top to bottom), each player places 4 stones in Sigtuna, 2 stones in every
    other player's House, 1 stone at an empty Crossroads as a Runestone, and rolls and places 1 die
    on an empty Road. (Assumptions SETUP_STONES, EMPTY_ROAD.)"""
    state = GAME.new_game(4, Options(), Rng.from_seed(3))
    state, _ = play(state, *[Draw(0)] * 12, Draw(3), Draw(0), Draw(1), Draw(0), Draw(5), PlaceDie(F2))
    assert state.phase is Phase.SETUP_SIGTUNA and state.actor == 3
    state, _ = play(state, *[PlaceStone(3)] * 4)
    assert state.sigtuna == (0, 0, 0, 4)
    assert state.phase is Phase.SETUP_SEND and state.target == 0
    state, events = play(state, *[SendStone(3, state.target)] * 2)
    assert state.target == 1 and "STONE_SENT" in kinds(events)
    state, _ = play(state, SendStone(3, 1), SendStone(3, 1), SendStone(3, 2), SendStone(3, 2))
    assert state.phase is Phase.SETUP_RUNESTONE
    state, _ = play(state, PlaceRunestone(0, 3), Draw(4))
    refused(state, PlaceDie(F2), "SPACE_NOT_EMPTY")
    state, _ = play(state, PlaceDie(F4))
    assert state.houses[3] == (0, 0, 0, 20 - 4 - 6 - 1)
    assert state.houses[0] == (20, 0, 0, 2) and state.runestones[0] == 3 and state.roads[F4] == 4
    assert state.phase is Phase.SETUP_SIGTUNA and state.actor == 0
    assert {"SETUP_STONES", "EMPTY_ROAD"} <= IDS


def test_setup_stones_may_be_any_colour_in_the_house() -> None:
    """You can always place and give stones of any color from your House."""
    state = started(4, 5)
    order = [s for s in state.hierarchy if s != COIN]
    assert all(state.sigtuna[s] >= 0 for s in order)
    game = GAME.new_game(4, Options(), Rng.from_seed(5))
    while game.phase is not Phase.SETUP_SIGTUNA or game.step < 1:
        game, _ = GAME.apply(game, GAME.legal_moves(game)[0])
    colours = {m.colour for m in GAME.legal_moves(game) if isinstance(m, PlaceStone)}
    assert len(colours) == 2  # own stones and those the player above sent


def test_three_players_get_one_more_coin_more_house_stones_and_a_second_runestone() -> None:
    """At 3 players: Start with 1 more coin. Place 2 more stones in the other players' Houses and 1
    more stone at an empty Crossroads. (Assumption THREE_PLAYER_EXTRAS.)"""
    assert "THREE_PLAYER_EXTRAS" in IDS
    state = started(3, 2)
    assert all(len(row) == 3 for row in state.coins)
    assert sum(1 for r in state.runestones if r >= 0) == 6
    assert sum(state.sizes) == 3 * (21 - 1 - 4 - 2)
    assert sum(state.sigtuna) == 12


def test_play_begins_at_the_top_of_the_hierarchy_and_continues_clockwise() -> None:
    """Begin play, starting with the player at the top of the Hierarchy Order. Then continue
    Clockwise."""
    state = started(5, 4)
    assert state.turn == state.hierarchy[0] and state.phase is Phase.GATHER
    first = state.turn
    while state.turn == first:
        state, _ = GAME.apply(
            state, GAME.legal_moves(state)[-1] if state.phase is Phase.GATHER else GAME.legal_moves(state)[0]
        )
    assert state.turn == (first + 1) % 5


# --------------------------------------------------------------------------- gathering


def test_gathering_rolls_a_die_per_silver_and_per_stone_moved_from_sigtuna() -> None:
    """Roll 1 die per Silver you have plus 1 die per stone you choose to move from Sigtuna to your
    House. (Assumption DICE_SUPPLY.)"""
    state = started(4, 1)
    seat = state.turn
    state = at(state, coins=coins(state, **{f"s{seat}": (False, False)}), roads=(1,) + (0,) * 22)
    assert silvers(state, seat) == 2
    before = state.houses[seat][seat]
    state, _ = play(state, Gather(seat, 3), Roll())
    assert state.to_roll == 5 and state.phase is Phase.ROLL
    assert state.houses[seat][seat] == before + 3
    assert "DICE_SUPPLY" in IDS


def test_moving_stones_is_not_limited_by_the_dice_left_unless_the_option_says_so() -> None:
    """Roll 1 die per Silver you have plus 1 die per stone you choose to move from Sigtuna to your
    House. — the rulebook never limits the stones moved; the 12 dice cap only the pool. (Assumption
    DICE_SUPPLY, option gathering_limited_by_dice.)"""
    state = started(4, 1)
    seat = state.turn
    roads = (1,) * 10 + (0,) * (len(state.roads) - 10)
    state = at(state, coins=coins(state, **{f"s{seat}": (False, False)}), roads=roads)
    assert silvers(state, seat) == 2 and state.sigtuna[seat] >= 3
    gathers = [m for m in GAME.legal_moves(state) if isinstance(m, Gather)]
    assert Gather(seat, state.sigtuna[seat]) in gathers  # every stone in Sigtuna may move
    moved, _ = play(state, Gather(seat, 3), Roll())
    assert moved.to_roll == 2  # but only the 2 dice left in the supply are rolled
    limited = state._replace(options=Options(gathering_limited_by_dice=True))
    assert not [m for m in GAME.legal_moves(limited) if isinstance(m, Gather)]
    refused = core.validate(GAME, limited, Gather(seat, 1))
    assert refused is not None and refused.reason == "TOO_MANY_STONES"
    assert refused.message.startswith("No more stones can be moved from Sigtuna")
    beyond = core.validate(GAME, state, Gather(seat, state.sigtuna[seat] + 1))
    assert beyond is not None and beyond.reason == "TOO_MANY_STONES"
    assert f"Between 1 and {state.sigtuna[seat]} stones" in beyond.message


def test_gathering_without_dice_still_rolls_one() -> None:
    """If you cannot get any dice, you still roll 1 die."""
    state = started(4, 1)
    seat = state.turn
    state = at(state, coins=coins(state, **{f"s{seat}": (True, True)}))
    state, _ = play(state, Roll())
    assert state.to_roll == 1


def test_gathering_the_coin_under_the_king_gives_no_die() -> None:
    """Additionally, the coin that the King is standing on is blocked (it gives no bonus dice nor
    does it increase your market reach)."""
    state = started(4, 1)
    seat = state.turn
    king = sum(len(r) for r in state.coins[:seat]) + 1  # the seat's first coin
    state = at(state, coins=coins(state, **{f"s{seat}": (False, False)}), king=king)
    assert silvers(state, seat) == 1
    state, _ = play(state, Roll())
    assert state.to_roll == 1


def test_gathering_other_stones_need_that_players_blessing() -> None:
    """With another player's blessing, you may move their stones to your House. (Assumption
    BLESSING.)"""
    state = started(4, 1)
    seat = state.turn
    other = (seat + 1) % 4
    refused(state, Gather(other, 1), "BLESSING_NEEDED")
    asked, _ = play(state, AskBlessing(other))
    assert GAME.to_act(asked).players == (other,) and asked.phase is Phase.BLESSING
    refused(asked, AskBlessing(other), "WRONG_STEP")
    blessed, events = play(asked, Bless(True))
    assert "BLESSING_GIVEN" in kinds(events) and GAME.to_act(blessed).players == (seat,)
    blessed, _ = play(blessed, Gather(other, 2))
    assert blessed.houses[seat][other] == state.houses[seat][other] + 2 and blessed.moved == 2
    refusal, _ = play(asked, Bless(False))
    assert refusal.phase is Phase.GATHER
    refused(refusal, AskBlessing(other), "CANNOT_ASK")
    refused(refusal, Gather(other, 1), "BLESSING_NEEDED")


def test_the_roll_is_a_chance_step_die_by_die() -> None:
    """Roll 1 die per Silver you have plus 1 die per stone you choose to move from Sigtuna to your
    House. (Assumption RANDOM_SETUP_STEPS: every die is a chance step.)"""
    state = started(4, 1)
    state, _ = play(state, Gather(state.turn, 2), Roll())
    chance = GAME.chance(state)
    assert chance is not None and len(chance.outcomes) == 6
    assert all(abs(o.probability - 1 / 6) < 1e-12 for o in chance.outcomes)
    assert GAME.legal_moves(state) == (Draw(),)
    refused(state, Draw(7), "NO_SUCH_OUTCOME")
    wrong = core.validate(GAME, state, Draw(7))
    assert wrong is not None and wrong.message.endswith("the possible outcomes are 1, 2, 3, 4, 5, 6.")
    n = state.to_roll
    for value in range(1, n + 1):
        state, _ = play(state, Draw(value))
    assert state.phase is not Phase.ROLL


# --------------------------------------------------------------------------- feast


def _rolled(values: tuple[int, ...], players: int = 4, seed: int = 1) -> tuple[State, list[Event]]:
    state = started(players, seed)
    state = at(state, phase=Phase.ROLL, dice=values[:-1], to_roll=1)
    return play(state, Draw(values[-1]))


@pytest.mark.parametrize(
    ("dice", "pairs"),
    [((1, 2, 3), 0), ((2, 2, 5), 1), ((4, 4, 4), 1), ((6, 6, 6, 6), 2), ((1, 1, 3, 3), 2), ((5,) * 5, 2)],
)
def test_feast_counts_pairs_three_of_a_kind_as_one_and_four_as_two(dice: tuple[int, ...], pairs: int) -> None:
    """For each set of pairs rolled ... 3 of a kind counts as 1 pair. 4 of a kind counts as 2 pairs.
    (Assumption PAIRS.)"""
    state, events = _rolled(dice)
    feast = next(e for e in events if e.kind == "FEAST")
    assert feast.detail.value == pairs
    assert (state.phase is Phase.FEAST_SEND) == (pairs > 0)
    assert state.pairs == pairs


def test_feast_each_pair_moves_a_stone_and_changes_standing_or_announces_loyalty() -> None:
    """For each set of pairs rolled, move 1 stone from your House to another player's House and choose
    one: - Change Standing — Swap 2 adjacent pieces in the Hierarchy. - Announce Loyalty — Flip any
    player coin to its other side. (Assumptions FEAST_ORDER, CHANGE_STANDING, ANNOUNCE_LOYALTY.)"""
    state, _ = _rolled((3, 3, 5, 5))
    seat = state.turn
    other = (seat + 1) % 4
    refused(state, SendStone(0, seat), "NOT_ANOTHER_HOUSE")
    state, _ = play(state, SendStone(seat, other))
    assert state.phase is Phase.FEAST_FAVOUR
    moves = GAME.legal_moves(state)
    assert ChangeStanding(3) in moves and AnnounceLoyalty(other, 1) in moves
    hierarchy = state.hierarchy
    state, _ = play(state, ChangeStanding(3))  # the Hierarchy coin may be swapped too
    assert state.hierarchy == (*hierarchy[:3], hierarchy[4], hierarchy[3])
    state, _ = play(state, SendStone(seat, other))
    side = state.coins[other][1]
    state, _ = play(state, AnnounceLoyalty(other, 1))
    assert state.coins[other][1] is not side
    assert state.phase is Phase.LEVERAGE_CHOOSE


def test_feast_with_an_empty_house_still_gives_the_choice() -> None:
    """For each set of pairs rolled, move 1 stone from your House to another player's House and choose
    one (Assumption FEAST_ORDER: with an empty House no stone moves.)"""
    state = started(4, 1)
    seat = state.turn
    state = at(state, houses={seat: [0, 0, 0, 0]}, phase=Phase.ROLL, dice=(2,), to_roll=1)
    state, _ = play(state, Draw(2))
    assert state.phase is Phase.FEAST_FAVOUR


# --------------------------------------------------------------------------- leverage


def _leveraging(state: State, penning: int, dice: tuple[int, ...] = (2, 5)) -> State:
    seat = state.turn
    row = tuple(i < penning for i in range(len(state.coins[seat])))
    return at(state, phase=Phase.LEVERAGE_CHOOSE, dice=dice, coins=coins(state, **{f"s{seat}": row}))


def test_leverage_bowls_above_your_pennings_cannot_be_chosen() -> None:
    """Choose 2 market bowls. You cannot choose market bowls whose value exceeds the amount of Pennings
    you have."""
    state = _leveraging(started(4, 1), penning=1)
    bowls = {m.bowl for m in GAME.legal_moves(state) if isinstance(m, ChooseBowl)}
    assert bowls == {3, PAWN_BOWL, KING_BOWL}
    piece = state.bowls[0][0]
    refused(state, ChooseBowl(0, piece), "BOWL_TOO_EXPENSIVE")
    rich = _leveraging(started(4, 1), penning=2)
    seat = rich.turn
    rich = at(rich, king=sum(len(r) for r in rich.coins[:seat]) + 1)  # the King blocks a Penning
    assert pennings(rich, seat) == 1
    assert {m.bowl for m in GAME.legal_moves(rich) if isinstance(m, ChooseBowl)} == {3, PAWN_BOWL, KING_BOWL}


def test_leverage_may_choose_both_zero_cost_bowls_and_empty_bowls_give_the_printed_piece() -> None:
    """If a bowl is empty, resolve the printed chess piece instead (King or Pawn). You may choose both
    zero-cost bowls. (Assumption LEVERAGE_ORDER.)"""
    state = _leveraging(started(4, 1), penning=0)
    state, _ = play(state, ChooseBowl(PAWN_BOWL, PAWN))
    assert state.bowls[PAWN_BOWL] == () and state.taken == ()
    refused(state, ChooseBowl(PAWN_BOWL, PAWN), "BOWL_ALREADY_CHOSEN")
    state, _ = play(state, ChooseBowl(KING_BOWL, KING))
    assert state.phase is Phase.LEVERAGE_ASSIGN
    assert state.chosen == ((PAWN_BOWL, PAWN), (KING_BOWL, KING))
    assert Resolve(1, 5) in GAME.legal_moves(state) and Resolve(0, 2) in GAME.legal_moves(state)


def test_leverage_with_one_die_chooses_one_bowl() -> None:
    """Take 1 chess piece from each, assign them 1 die you rolled, and resolve them (if you only have
    1 die, choose 1)."""
    state = _leveraging(started(4, 1), penning=0, dice=(4,))
    state, _ = play(state, ChooseBowl(KING_BOWL, KING))
    assert state.phase is Phase.LEVERAGE_ASSIGN and GAME.legal_moves(state) == [Resolve(0, 4)]


def test_leverage_a_bowl_piece_is_taken_and_used_pieces_go_to_the_top_at_clean_up() -> None:
    """Move all chess pieces 1 bowl down (they gather in the zero value King bowl), then place the
    chess pieces you used in the top bowl. Return remaining dice to the general supply. (Assumption
    CLEAN_UP.)"""
    state = started(4, 1)
    bowls = ((KNIGHT,), (ROOK,), (), (BISHOP,), (), (PAWN,))
    roads = list(empty_roads())
    for space in (8, 13, 18):  # a die in front of every starting star: no pawn can walk
        roads[space] = 1
    state = _leveraging(at(state, bowls=bowls, roads=tuple(roads)), penning=2, dice=(1, 1))
    refused(state, ChooseBowl(KING_BOWL, KING), "NO_SUCH_PIECE")
    state, _ = play(state, ChooseBowl(KING_BOWL, PAWN), ChooseBowl(3, BISHOP))
    assert state.taken == (BISHOP, PAWN)
    state = at(state, houses={state.turn: [0] * 4})
    state, events = play(state, Resolve(1, 1), Resolve(0, 1), MovePawn(0))
    assert "CLEAN_UP" in kinds(events)
    assert state.bowls == ((BISHOP, PAWN), (KNIGHT,), (ROOK,), (), (), ())
    assert state.dice == ()


def test_the_king_raises_a_runestone_and_walks_x_coins_clockwise() -> None:
    """Place a stone from your House on an empty Crossroads as a Runestone, then move the King X
    player coins clockwise. (Assumption KING_RUNESTONE.)"""
    state = started(4, 1)
    seat = state.turn
    free = state.runestones.index(-1)
    state = resolving(state, KING, 3)
    colours = {m.colour for m in GAME.legal_moves(state) if isinstance(m, PlaceRunestone)}
    assert colours == {c for c in range(4) if state.houses[seat][c]}
    state, events = play(state, PlaceRunestone(free, (seat + 1) % 4))
    assert state.runestones[free] == (seat + 1) % 4 and state.king == 3
    assert {"RUNESTONE_RAISED", "KING_MOVED"} <= set(kinds(events))


def test_the_kings_action_only_once_per_turn() -> None:
    """You can only take the King's action once per turn. (Assumption KING_ONCE.)"""
    state = _leveraging(started(4, 1), penning=0)
    state = at(state, king_used=True)
    refused(state, ChooseBowl(KING_BOWL, KING), "KING_ONCE")


def test_the_king_returns_to_sigtuna_stops_there_and_the_thing_is_held_at_the_end_of_the_turn() -> None:
    """Each coin takes 1 step and when the King has walked all the way around he returns to Sigtuna to
    Hold the Thing. The King stops when he reaches Sigtuna, regardless of how many steps he has left.
    ... When the King returns to Sigtuna, hold the Thing at the end of the player's turn."""
    state = started(4, 1)
    total = sum(len(r) for r in state.coins)
    state = at(
        state,
        phase=Phase.LEVERAGE_ASSIGN,
        chosen=((KING_BOWL, KING),),
        dice=(6,),
        king=total - 1,
        houses={state.turn: [0] * 4},
    )
    state, events = play(state, Resolve(0, 6))
    assert state.king == 0 and "KING_HOME" in kinds(events)
    assert state.phase is Phase.THING_VOTE and "THING_HELD" in kinds(events)
    order = [s for s in state.hierarchy if s != COIN]
    assert GAME.to_act(state).players == (order[0],)


def test_the_rook_places_its_die_on_an_empty_road_space() -> None:
    """Place the die on an empty Road space."""
    state = resolving(started(4, 1), ROOK, 4)
    refused(state, PlaceDie(next(i for i, v in enumerate(state.roads) if v)), "SPACE_NOT_EMPTY")
    state, _ = play(state, PlaceDie(F1))
    assert state.roads[F1] == 4


def test_the_rook_placing_the_last_die_ends_the_game_and_everyone_loses() -> None:
    """If you place the last die, the game ends and everyone loses. (Assumption ROOK_LAST_DIE.)"""
    roads = (3,) * 11 + (0,) * 12
    start = started(4, 1)
    # 11 dice on roads: the player rolled the 12th and assigned it to the Rook (no die left in hand)
    state = at(start, phase=Phase.ROOK_PLACE, piece=ROOK, x=4, dice=(), roads=roads)
    state, events = play(state, PlaceDie(F5))
    assert "LAST_DIE_PLACED" in kinds(events) and state.victory == EVERYONE_LOSES
    outcome = GAME.outcome(state)
    assert outcome is not None and outcome.result is core.Result.ALL_LOSE and outcome.winners == ()
    # the die the Rook holds is one of the 12: 11 on roads, 1 more in hand and the Rook's die is 13
    assert GAME.check_state(start._replace(phase=Phase.ROOK_PLACE, piece=ROOK, x=4, dice=(1,), roads=roads))


def test_the_die_waiting_to_be_placed_counts_among_the_twelve_dice() -> None:
    """12 Dice ... Place the die on an empty Road space. If you place the last die, the game ends and
    everyone loses. (A position with the Rook's die in hand, 11 dice on roads and another rolled die
    would hold 13 dice: it is refused as invalid.)"""
    start = started(4, 1)
    roads = (3,) * 11 + (0,) * 12
    ok = start._replace(phase=Phase.ROOK_PLACE, piece=ROOK, x=4, dice=(), roads=roads)
    assert GAME.check_state(ok) == []
    too_many = ok._replace(dice=(1,))
    assert any("12 dice" in p.description for p in GAME.check_state(too_many))


def test_the_knight_removes_a_die_of_value_x_or_less() -> None:
    """Remove a die with value X or less from a Road space."""
    roads = list(empty_roads())
    roads[F1], roads[F2] = 2, 5
    state = resolving(started(4, 1), KNIGHT, 3, roads=tuple(roads))
    assert GAME.legal_moves(state) == [RemoveDie(F1)]
    refused(state, RemoveDie(F2), "NO_SUCH_DIE")
    state, _ = play(state, RemoveDie(F1))
    assert state.roads[F1] == 0


def test_the_bishop_moves_x_stones_to_another_house_unless_the_house_runs_out() -> None:
    """Move X stones from your House to another player's House. ... You must resolve the full value
    unless a piece cannot walk any further or you have no more stones in your House. (Assumption
    BISHOP_ONE_HOUSE.)"""
    state = started(4, 1)
    seat, other = state.turn, (state.turn + 2) % 4
    row = [0] * 4
    row[seat] = 2
    state = resolving(state, BISHOP, 5, houses={seat: row})
    state, _ = play(state, SendStone(seat, other))
    assert state.target == other
    refused(state, SendStone(seat, (seat + 1) % 4), "SAME_HOUSE")
    state, _ = play(state, SendStone(seat, other))
    assert state.sizes[seat] == 0 and state.phase is not Phase.BISHOP_SEND


def test_the_pawn_walks_x_spaces_and_difficult_spaces_count_two() -> None:
    """Move a pawn X Road spaces towards Sigtuna. Difficult Road spaces count as 2 steps (Assumption
    PAWN_WALK.)"""
    state = resolving(started(4, 1), PAWN, 4, roads=empty_roads())
    pawn = state.pawns.index(SOUTH_STAR)
    state, _ = play(state, MovePawn(pawn))
    assert state.pawns[pawn] == F3


def test_the_pawn_cannot_pass_a_die() -> None:
    """Difficult Road spaces count as 2 steps and dice cannot be passed."""
    roads = list(empty_roads())
    roads[F2] = 6
    state = resolving(started(4, 1), PAWN, 4, roads=tuple(roads))
    pawn = state.pawns.index(SOUTH_STAR)
    state, _ = play(state, MovePawn(pawn))
    assert state.pawns[pawn] == F1


def test_passing_a_runestone_makes_its_owner_place_a_stone_in_sigtuna() -> None:
    """For each runestone you pass, its owner places 1 stone from their House in Sigtuna. (Assumption
    RUNESTONE_OWNER.)"""
    start = started(4, 1)
    owner = (start.turn + 1) % 4
    runestones = tuple(owner if i == FORD else r for i, r in enumerate(start.runestones))
    pawns = (F3, *start.pawns[1:])
    state = resolving(start, PAWN, 1, roads=empty_roads(), pawns=pawns, runestones=runestones)
    state, _ = play(state, MovePawn(0))
    assert state.pawns[0] == F4 and state.phase is Phase.PAY_STONE
    assert GAME.to_act(state).players == (owner,)
    colour = next(c for c in range(4) if state.houses[owner][c])
    before = state.sigtuna[colour]
    state, _ = play(state, PlaceStone(colour))
    assert state.sigtuna[colour] == before + 1


def test_a_pawn_reaching_sigtuna_places_a_stone_and_returns_to_a_chosen_star() -> None:
    """If the pawn reaches Sigtuna or lands on another pawn, place 1 stone in Sigtuna, return the pawn
    to a starting star of your choice and stop moving. (Assumption PAWN_ARRIVES.)"""
    start = started(4, 1)
    runestones = tuple(-1 if i == SOUTH_CROSSROADS else r for i, r in enumerate(start.runestones))
    pawns = (F5, *start.pawns[1:])
    state = resolving(start, PAWN, 5, roads=empty_roads(), pawns=pawns, runestones=runestones)
    state, events = play(state, MovePawn(0))
    assert "PAWN_ARRIVED" in kinds(events)
    assert state.phase is Phase.PAY_STONE and GAME.to_act(state).players == (state.turn,)
    state, _ = play(state, PlaceStone(state.turn))
    assert state.phase is Phase.PAWN_RETURN
    assert len(GAME.legal_moves(state)) == len(REFERENCE.star_ids)
    state, _ = play(state, ReturnPawn(1))
    assert state.pawns[0] == REFERENCE.star_node(1)


def test_a_pawn_ending_its_move_on_another_pawn_lands_on_it_and_returns() -> None:
    """If the pawn reaches Sigtuna or lands on another pawn, place 1 stone in Sigtuna, return the pawn
    to a starting star of your choice and stop moving. (Assumption PAWN_ARRIVES: the pawn lands on
    another pawn when it ends its move on that pawn's space.)"""
    start = started(4, 1)
    state = resolving(start, PAWN, 1, roads=empty_roads(), pawns=(F1, F2, start.pawns[2]))
    state, events = play(state, MovePawn(0))
    assert state.pawns[0] == F2 and "PAWN_ARRIVED" in kinds(events)
    assert "landed on another pawn" in events[-1].text
    state, _ = play(state, PlaceStone(next(c for c in range(4) if state.houses[state.turn][c])))
    state, _ = play(state, ReturnPawn(4))
    assert state.pawns[0] == REFERENCE.star_node(4) and state.pawns[1] == F2
    # A die on f3 stops the pawn early on f2: it ends its move there, so it lands on the pawn too.
    roads = list(empty_roads())
    roads[F3] = 6
    state = resolving(start, PAWN, 3, roads=tuple(roads), pawns=(F1, F2, start.pawns[2]))
    state, events = play(state, MovePawn(0))
    assert state.pawns[0] == F2 and "PAWN_ARRIVED" in kinds(events) and state.pawn == 0


def test_a_pawn_passes_over_a_pawn_it_does_not_end_its_move_on() -> None:
    """If the pawn reaches Sigtuna or lands on another pawn, place 1 stone in Sigtuna, return the pawn
    to a starting star of your choice and stop moving. (Assumption PAWN_ARRIVES: a pawn walking past
    another pawn's space has not landed on it.)"""
    start = started(4, 1)
    assert not start.options.pawns_stop_at_pawns  # the default reading
    state = resolving(start, PAWN, 3, roads=empty_roads(), pawns=(F1, F2, start.pawns[2]))
    state, events = play(state, MovePawn(0))
    assert state.pawns[:2] == (F3, F2)  # f2 (1 step) and the difficult f3 (2 steps)
    assert "PAWN_ARRIVED" not in kinds(events) and state.pawn == -1


def test_with_the_option_a_pawn_stops_on_the_first_pawn_it_steps_onto() -> None:
    """If the pawn reaches Sigtuna or lands on another pawn, place 1 stone in Sigtuna, return the pawn
    to a starting star of your choice and stop moving. (Assumption PAWN_ARRIVES, option
    pawns_stop_at_pawns: stepping onto a pawn's space is landing on it; pawns never pass each other.)"""
    start = started(4, 1)
    stopping = at(start, options=Options(pawns_stop_at_pawns=True))
    state = resolving(stopping, PAWN, 3, roads=empty_roads(), pawns=(F1, F2, start.pawns[2]))
    state, events = play(state, MovePawn(0))
    assert state.pawns[0] == F2 and "PAWN_ARRIVED" in kinds(events)
    state, _ = play(state, PlaceStone(next(c for c in range(4) if state.houses[state.turn][c])))
    state, _ = play(state, ReturnPawn(4))
    assert state.pawns[0] == REFERENCE.star_node(4)


def test_two_pawns_share_a_road_space_only_while_one_waits_to_return() -> None:
    """If the pawn reaches Sigtuna or lands on another pawn, place 1 stone in Sigtuna, return the pawn
    to a starting star of your choice — so, under either reading of PAWN_ARRIVES, pawns resting on the
    roads stand on different spaces (check_state)."""
    start = started(4, 1)
    shared = start._replace(pawns=(F2, F2, start.pawns[2]))
    assert "pawns" in {p.field for p in GAME.check_state(shared)}
    waiting = resolving(start, PAWN, 1, roads=empty_roads(), pawns=(F1, F2, start.pawns[2]))
    waiting, _ = play(waiting, MovePawn(0))
    assert waiting.pawn == 0 and GAME.check_state(waiting) == []
    assert "pawn" in {p.field for p in GAME.check_state(waiting._replace(pawns=(F3, F2, start.pawns[2])))}


# --------------------------------------------------------------------------- the Thing


def _thing(state: State, **fields: Any) -> State:
    order = [s for s in state.hierarchy if s != COIN]
    return at(state, phase=Phase.THING_VOTE, thing_pending=True, step=0, actor=order[0], **fields)


def test_the_thing_flips_the_hierarchy_coin_when_the_highest_die_reaches_the_dice_on_roads() -> None:
    """In Hierarchy order, each player decides if they want to support Olof Skötkonung. If they do,
    they roll 1 die. If the highest rolled die is equal to or greater than the number of dice on roads,
    flip the Hierarchy Coin to the Penning side. (Assumption THING_VOTE.)"""
    state = _thing(started(4, 1))
    assert sum(1 for v in state.roads if v) == 5
    order = [s for s in state.hierarchy if s != COIN]
    assert GAME.to_act(state).players == (order[0],)
    after, _ = play(state, Vote(True), Draw(4), Vote(True), Draw(2), Vote(False), Vote(False))
    assert after.hierarchy_penning is False and after.phase is Phase.THING_COINS
    after, events = play(state, Vote(False), Vote(True), Draw(5), Vote(False), Vote(False))
    assert after.hierarchy_penning is True and "HIERARCHY_COIN_FLIPPED" in kinds(events)


def test_the_thing_ends_in_the_thegns_victory_if_the_coin_already_shows_penning() -> None:
    """If it's already on the Penning side, the game immediately ends in the Thegn's Victory."""
    state = _thing(started(4, 1), hierarchy_penning=True)
    state, events = play(state, Vote(True), Draw(6), Vote(False), Vote(False), Vote(False))
    while state.phase is Phase.HEIR:
        state, _ = play(state, GAME.legal_moves(state)[0])
    assert state.phase is Phase.OVER and state.victory == THEGN and "THEGN_VOTE" in kinds(events)


def test_welcoming_the_vikings_home_gives_every_player_a_random_coin() -> None:
    """Each player takes 1 coin from the supply and places it in front of their screen with a random
    side up. (Assumption VIKINGS_HOME.)"""
    state = _thing(started(4, 1))
    state, _ = play(state, *[Vote(False)] * 4)
    assert state.phase is Phase.THING_COINS and GAME.to_act(state).chance
    state, _ = play(state, Draw(1), Draw(0), Draw(1), Draw(1))
    assert all(len(r) == 3 for r in state.coins) and state.things == 1
    assert state.phase is Phase.GATHER


def _third_thing(state: State, **fields: Any) -> State:
    state = _thing(state, things=2, **fields)
    state, _ = play(state, *[Vote(False)] * state.players)
    while state.phase is Phase.THING_COINS:
        state, _ = play(state, Draw(0))
    return state


def test_the_third_thing_ends_in_the_thegns_victory_with_the_coin_on_top_or_the_jarls_otherwise() -> None:
    """If this is the third Thing, the game ends in the Thegn's Victory if the Coin is at the top of
    the Hierarchy, or the Jarl's Victory otherwise. (Assumption THIRD_THING.)"""
    state = started(4, 1)
    jarl = _third_thing(state)
    assert jarl.victory == JARL
    top = (COIN, *[s for s in state.hierarchy if s != COIN])
    thegn = _third_thing(state, hierarchy=top)
    assert thegn.victory == THEGN


def _no_heirs(state: State) -> State:
    """Every House holds only its owner's stones (nobody steals a victory)."""
    n = state.players
    return at(state, houses={h: [3 if c == h else 0 for c in range(n)] for h in range(n)})


def test_thegns_victory_goes_to_the_most_pennings_ties_in_hierarchy_order() -> None:
    """The player with the most Pennings wins. Ties are broken in Hierarchy Order. (Assumption
    THEGN_TIES.)"""
    state = _no_heirs(started(4, 1))
    order = [s for s in state.hierarchy if s != COIN]
    low, high1, high2 = order[0], order[1], order[2]
    sides = {f"s{s}": (False, False) for s in range(4)}
    sides[f"s{high1}"] = (True, True)
    sides[f"s{high2}"] = (True, True)
    state = _third_thing(at(state, coins=coins(state, **sides)), hierarchy=(COIN, *order))
    assert state.victory == THEGN and state.winners == (high1,)
    assert low != high1


def test_jarls_victory_goes_to_the_highest_in_the_hierarchy_without_the_most_pennings() -> None:
    """The player highest in Hierarchy Order wins, excluding the player(s) with the most Pennings.
    (Assumption JARL_ALL_TIED.)"""
    state = _no_heirs(started(4, 1))
    order = [s for s in state.hierarchy if s != COIN]
    sides = {f"s{s}": (False, False) for s in range(4)}
    sides[f"s{order[0]}"] = (True, False)
    state = _third_thing(at(state, coins=coins(state, **sides)))
    assert state.victory == JARL and state.winners == (order[1],)
    tied = _third_thing(_no_heirs(at(started(4, 1), coins=((False, False),) * 4)))
    assert tied.winners == (order[0],)


def _houses_for(state: State, most: dict[int, int]) -> State:
    """House h holds 3 of its owner's stones, plus 4 of colour most[h] when given."""
    n = state.players
    rows = {h: [3 if c == h else 0 for c in range(n)] for h in range(n)}
    for h, c in most.items():
        rows[h][c] += 4
    return at(state, houses=rows)


def test_an_heir_steals_the_victory_and_heirs_chain() -> None:
    """If you have the most stones in the winner's House, you steal their victory as their Heir. If
    another player then has the most stones in your House, they become your Heir and steal your
    victory (and so on). (Assumption HEIRS.)"""
    state = started(4, 1)
    order = [s for s in state.hierarchy if s != COIN]
    jarl, a, b = order[0], order[1], order[2]
    state = _houses_for(at(state, coins=((False, False),) * 4), {jarl: a, a: b})
    state = _third_thing(state, hierarchy=(*order, COIN))
    assert state.victory == JARL and state.chain[-1] == b and state.winners == (b,)


def test_a_complete_circle_of_heirs_forms_a_coalition_that_wins_the_thegns_victory() -> None:
    """If there's a complete circle of Heirs, those players form a Coalition. ... If the Thegn is in a
    Coalition, the entire Coalition wins. (Assumption COALITIONS.)"""
    state = started(4, 1)
    order = [s for s in state.hierarchy if s != COIN]
    x, y = order[0], order[1]
    state = _houses_for(at(state, coins=((False, False),) * 4), {x: y, y: x})
    state = _third_thing(state, hierarchy=(COIN, *order))
    assert state.victory == THEGN and state.winners == tuple(sorted((x, y)))
    outcome = GAME.outcome(state)
    assert outcome is not None and outcome.result is core.Result.WIN


def test_a_jarl_in_a_coalition_gives_the_victory_to_the_member_with_most_stones_at_home() -> None:
    """If the Jarl is in a Coalition, the player with the most stones in their House wins."""
    state = started(4, 1)
    order = [s for s in state.hierarchy if s != COIN]
    x, y = order[0], order[1]
    state = _houses_for(at(state, coins=((False, False),) * 4), {x: y, y: x})
    rows = [list(r) for r in state.houses]
    rows[y][y] += 2
    state = at(state, houses=dict(enumerate(rows)))
    state = _third_thing(state, hierarchy=(*order, COIN))
    assert state.victory == JARL and state.winners == (y,)


def test_the_house_owner_breaks_ties_in_their_house() -> None:
    """You break ties in your House as you wish."""
    state = started(4, 1)
    order = [s for s in state.hierarchy if s != COIN]
    jarl, a, b = order[0], order[1], order[2]
    n = 4
    rows = {h: [3 if c == h else 0 for c in range(n)] for h in range(n)}
    rows[jarl][a] = 5
    rows[jarl][b] = 5
    state = at(at(state, coins=((False, False),) * 4), houses=rows)
    state = _third_thing(state, hierarchy=(*order, COIN))
    assert state.phase is Phase.HEIR and GAME.to_act(state).players == (jarl,)
    assert {m.seat for m in GAME.legal_moves(state) if isinstance(m, ChooseHeir)} == {a, b}
    refused(state, ChooseHeir(jarl), "NOT_TIED")
    state, _ = play(state, ChooseHeir(b))
    assert state.winners == (b,)


# --------------------------------------------------------------------------- hidden information


def test_a_view_hides_other_houses_and_changing_hidden_stones_changes_no_other_view() -> None:
    """Place the stones behind your screen ... When sending stones to another House, keep them secret!
    (Assumption HIDDEN_HOUSES.)"""
    state = started(4, 1)
    mine = GAME.view(state, 0)
    assert mine.houses[0] == state.houses[0] and mine.houses[1] == ()
    assert mine.sizes == (state.sizes[0], -1, -1, -1)
    assert GAME.view(state, None).sizes == (-1,) * 4
    assert mine.rng != state.rng and GAME.check_state(mine) == []
    rows = [list(r) for r in state.houses]
    a, b = 2, 3  # swap one stone of colour a in House 2 with one of colour b in House 3
    rows[2][a] -= 1
    rows[2][b] += 1
    rows[3][b] -= 1
    rows[3][a] += 1
    changed = at(state, houses=dict(enumerate(rows)))
    for seat in (None, 0, 1):
        assert GAME.view(changed, seat) == GAME.view(state, seat)
    assert GAME.view(changed, 2) != GAME.view(state, 2)


def test_events_of_secret_sends_are_redacted_for_everyone_else() -> None:
    """When sending stones to another House, keep them secret!"""
    state, _ = _rolled((3, 3, 5))
    seat, other = state.turn, (state.turn + 1) % 4
    state, events = play(state, SendStone(seat, other))
    sent = next(e for e in events if e.kind == "STONE_SENT")
    assert view_event(sent, seat).detail.colours == (seat,)
    assert view_event(sent, other).detail.colours == (seat,)
    hidden = view_event(sent, (seat + 2) % 4)
    assert hidden.detail.colours == () and hidden.detail.secret
    assert "Player" in hidden.text and "stone" in hidden.text


def test_a_players_view_cannot_be_sent_back_as_a_state() -> None:
    """When sending stones to another House, keep them secret! (A view is for showing, not playing.)"""
    api = RulesApi()
    entry = api.entry("pax_penning")
    msg = api.encode_state(entry, GAME.view(started(4, 1), 0))
    msg.rng.seed = bytes(range(32))
    with pytest.raises(LawspeakerError) as err:
        api.decode_state(entry, msg)
    assert err.value.code is core.ErrorCode.INVALID_STATE


# --------------------------------------------------------------------------- the board


def test_the_board_is_data_validated_at_load_and_served_by_describe_game() -> None:
    """Map Legend - A. Printed chess piece - B. Market Bowl value - C. Starting Star - D. Road space -
    E. Difficult Road space - F. Top of the Hierarchy - G. Bottom of the Hierarchy - H. Sigtuna - I.
    The King's Path (Assumption REFERENCE_BOARD.)"""
    described = RulesApi().describe_game(pb.DescribeGameRequest(game="pax_penning"))
    board = described.data["board"]
    assert len(board["stars"]) == 5 and len(board["crossroads"]) == 8 and len(board["spaces"]) == 23
    assert all("x" in s and "y" in s for s in board["spaces"])
    assert {a.id for a in described.assumptions} == IDS
    data = json.loads(json.dumps(REFERENCE.data))
    data["spaces"][0]["next"] = "nowhere"
    with pytest.raises(BoardError, match="unknown node"):
        load_board(json.dumps(data))
    data = json.loads(json.dumps(REFERENCE.data))
    data["spaces"][6]["next"] = "a1"
    data["spaces"][0]["next"] = "c1"
    with pytest.raises(BoardError, match="circle"):
        load_board(json.dumps(data))
    data = json.loads(json.dumps(REFERENCE.data))
    data["bowls"][-1]["printed"] = None
    with pytest.raises(BoardError, match="King bowl"):
        load_board(json.dumps(data))


def test_a_different_board_can_be_passed_as_an_option() -> None:
    """Map Legend (Assumption REFERENCE_BOARD, option board.)"""
    data = json.loads(json.dumps(REFERENCE.data))
    data["name"] = "longer south road"
    data["spaces"].append({"id": "f0", "x": 50, "y": 99, "difficult": True, "next": "f1"})
    data["stars"][3]["next"] = "f0"
    text = json.dumps(data)
    options = CODEC.options_from_proto(CODEC.options_to_proto(Options(board=text)))
    state = GAME.new_game(3, options, Rng.from_seed(1))
    assert len(state.roads) == 24
    while state.phase is not Phase.GATHER:
        state, _ = GAME.apply(state, GAME.legal_moves(state)[0])
    assert GAME.check_state(state) == []
    bad = CODEC.options_to_proto(Options(board="{}"))
    with pytest.raises(LawspeakerError) as err:
        CODEC.options_from_proto(bad)
    assert err.value.reason == "INVALID_BOARD"


def test_assumptions_are_recorded_for_every_reading() -> None:
    """Every number you choose is an assumption (docs/rules/pax-penning.md)."""
    for assumption in ASSUMPTIONS:
        assert assumption.rulebook and assumption.decision and assumption.id.isupper()


def test_the_kings_path_runs_from_sigtuna_along_the_coins_clockwise_from_the_left_of_sigtuna() -> None:
    """The King's Path starts in Sigtuna and continues clockwise along the player coins (starting with
    the player sitting to the left of Sigtuna). (Assumption SEATING.)"""
    state = started(4, 1)
    assert blocked_coin(state) is None
    assert blocked_coin(at(state, king=1)) == (0, 0)
    assert blocked_coin(at(state, king=2)) == (0, 1)
    assert blocked_coin(at(state, king=3)) == (1, 0)
    assert blocked_coin(at(state, king=8)) == (3, 1)


def test_a_drawn_die_comes_from_the_rng_and_an_explicit_outcome_leaves_it_untouched() -> None:
    """Roll 1 die per Silver you have plus 1 die per stone you choose to move from Sigtuna to your
    House. (Assumption RANDOM_SETUP_STEPS.)"""
    state, _ = play(started(4, 1), Roll())
    drawn, _ = play(state, Draw())
    assert drawn.rng != state.rng and GAME.apply(state, Draw())[0] == drawn
    explicit, _ = play(state, Draw(6))
    assert explicit.rng == state.rng


def test_describe_game_lists_every_road_from_its_star_to_sigtuna() -> None:
    """Map Legend - C. Starting Star - D. Road space - H. Sigtuna (Assumption REFERENCE_BOARD.)"""
    roads = GAME.describe().data["roads"]
    south = next(r for r in roads if r["star"] == "star-south")
    assert south["path"] == ["f1", "f2", "f3", "crossroads-ford", "f4", "f5", "crossroads-south", "sigtuna"]
    assert all(r["path"][-1] == "sigtuna" for r in roads) and len(roads) == 5


def test_a_piece_with_nothing_to_act_on_is_resolved_without_effect() -> None:
    """Remove a die with value X or less from a Road space. (Assumption KNIGHT: with no such die the
    Knight does nothing.)"""
    roads = list(empty_roads())
    roads[F1] = 5
    state = at(
        started(4, 1),
        phase=Phase.LEVERAGE_ASSIGN,
        bowls=((ROOK,), (BISHOP,), (), (PAWN,), (), ()),
        taken=(KNIGHT,),
        chosen=((0, KNIGHT),),
        dice=(4,),
        roads=tuple(roads),
    )
    after, events = play(state, Resolve(0, 4))
    assert "NOTHING_TO_DO" in kinds(events) and after.roads[F1] == 5
    assert after.phase is Phase.GATHER and after.bowls[0] == (KNIGHT,)


def test_a_sent_stone_colour_is_hidden_in_other_players_move_logs_and_cannot_be_taken_back() -> None:
    """When sending stones to another House, keep them secret! (Assumption HIDDEN_HOUSES.)"""
    state, _ = _rolled((3, 3, 5))
    seat, other, third = state.turn, (state.turn + 1) % 4, (state.turn + 2) % 4
    move = SendStone(seat, other)
    assert GAME.view_move(move, seat, seat) == move and GAME.view_move(move, seat, other) == move
    assert GAME.view_move(move, seat, third) == SendStone(-1, other)
    assert GAME.view_move(move, seat, None) == SendStone(-1, other)
    after, _ = play(state, move)
    assert GAME.reveals(state, move, after)
    assert not GAME.reveals(after, ChangeStanding(0), play(after, ChangeStanding(0))[0])
