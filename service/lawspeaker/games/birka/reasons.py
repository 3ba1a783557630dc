"""Every reason Birka refuses a move for, with the rule it enforces (DescribeGame's ``reasons``).

One row per reason code that ``Birka.explain`` can return, in the order of ``docs/rules/birka.md``:
what the refusal means for a client, and the rulebook sentence the rule enforces as that document
quotes it, or the engine's reading where the rulebook is silent (the chance steps, the numbering of
resources and buildings, and the numbers and Calendar Cards the rulebook lost, which are data and
assumptions). Each reason's anchor in the document (``not-built`` for ``NOT_BUILT``) is served with a
refused move, so a frontend can link "see the rule". ``tests/games/test_reasons.py`` keeps this
table, the engine's refusals and the document in step.
"""

from __future__ import annotations

from lawspeaker.games.core import rule_reasons

REASONS = rule_reasons(
    "birka",
    (
        "NOT_A_CHANCE_STEP",
        "A Draw or DrawCard is sent while the game waits for a player's decision, not for a die, a "
        "seat or a card to be drawn.",
        "Not in the rulebook: the engine makes every roll, shuffle and card drawn a chance step of its "
        "own, the only steps that take a Draw or a DrawCard.",
    ),
    (
        "WRONG_DRAW",
        "A Draw is sent for a chance step that draws a secret Runestone Card (it takes DrawCard), or a "
        "DrawCard for a die roll, the Starting Player or a Calendar Card (they take Draw).",
        "Not in the rulebook: the engine draws a player's secret Runestone Cards with DrawCard, a "
        "position in their own deck that names no card, and every public outcome with Draw.",
    ),
    (
        "NO_SUCH_OUTCOME",
        "An explicit Draw or DrawCard names an outcome the chance step cannot have: a die face outside "
        "1 to 6, a seat that does not exist, a Calendar Card already revealed or a position beyond the "
        "drawer's deck.",
        "Not in the rulebook: each draw is uniform over what is left, a deck's order being nothing but "
        "the RNG (assumptions SETUP_ORDER, RUNESTONE_DECKS, CALENDAR_CARDS).",
    ),
    (
        "NO_SUCH_RESOURCE",
        "A Discard or a trade names a resource number that does not exist (DescribeGame data.indices), "
        "or a levy is paid with a resource the player does not hold or of another kind than the "
        "Calendar Card takes.",
        "Not in the rulebook: the engine numbers the resources of its data (assumption REFERENCE_DATA), "
        "and the levy is a Calendar Card of that data, Kungens skatt (assumption CALENDAR_CARDS).",
    ),
    (
        "NO_SUCH_BUILDING",
        "Craft or Build names a building number that does not exist (DescribeGame data.indices).",
        "Not in the rulebook: the engine numbers the buildings of its data (assumption REFERENCE_DATA).",
    ),
    (
        "NO_SUCH_PLOT",
        "Upgrade names a Resource Plot number that does not exist (DescribeGame data.indices).",
        "Not in the rulebook: the engine numbers the Resource Plots of its data, one per Raw Resource "
        "(assumption RESOURCE_PLOTS).",
    ),
    (
        "NO_SUCH_GOOD",
        "Upgrade names an upgrade good number that does not exist (Träl, Verktyg and Häst are 0 to 2).",
        "Not in the rulebook: the engine numbers the upgrade goods of its data, each with a slot of its "
        "own on every plot (assumption UPGRADES).",
    ),
    (
        "NO_SUCH_TOKEN",
        "PlaceToken names a dice token value outside 1 to 6.",
        "Not in the rulebook: the engine's dice tokens show the faces of a die, 1 to 6, and any of them "
        "may be placed (assumptions UPGRADES, MJODHALLEN).",
    ),
    (
        "WRONG_STEP",
        "A move of another kind than the step waits for (State.phase) is sent, e.g. a Build during the "
        "collection or anything but PayRation while a Ration is due; the message names the step.",
        "Not in the rulebook: the engine plays the rulebook's Turn (roll, collection, actions) and the "
        "Rations as a chain of steps, each taking only its own kinds of move (assumptions TURN_ORDER, "
        "RATIONS).",
    ),
    (
        "NOT_A_LEGAL_MOVE",
        "A move of the step the game waits for is not among the legal moves for a reason no other code "
        "names; no known position reaches this fallback.",
        "Not in the rulebook: a fallback of the engine, which refuses every move not among the legal "
        "moves and names the rule it breaks with one of the other codes wherever it can.",
    ),
    (
        "NO_ICON_TOKENS",
        "Build is sent by a player who already owns as many buildings as they have icon tokens (10; "
        "with the reference data's 9 ownable buildings this never happens).",
        '"1. Player icon: Each Player selects a Player icon , and picks up: • 1 Byn Board • 10 Icon '
        'Tokens • 5 random Runestone Cards (keep hidden from other players)"',
    ),
    (
        "NOT_DUE",
        "Collect names a resource the roll does not give the player this Turn.",
        '"All Players collect the Raw Resource matching the Dice result plus any Dice Tokens \u2013 on their '
        'Resource Plot ."',
    ),
    (
        "NO_ACTIONS_LEFT",
        "An action is sent by a player who has used all their actions this Turn (one per Skepp); only "
        "Discard and EndActions remain.",
        '"3. Player Actions: In clockwise order, you can perform as many actions as you own Skepp (each '
        'player starts with 1):"',
    ),
    (
        "SAME_RESOURCE",
        "A MarketTrade or OutlawTrade gives and takes the same resource.",
        '"Trade: Exchange Resources at the Market or with The Outlaw Trader."',
    ),
    (
        "SKEPP_LIMIT",
        "BuySkepp is sent by a player who already owns the most Skepp a Byn holds (4).",
        "Not in the rulebook: the engine assumes a Byn holds at most 4 Skepp, which keeps every Turn "
        "short (assumption SKEPP).",
    ),
    (
        "BUILDING_OWNED",
        "Build names a building that a player, the builder or another, already owns.",
        '"Build: Spend Resources to construct a Building. Place your Player icon on the Building to mark '
        'ownership."',
    ),
    (
        "NOTHING_TO_DISCARD",
        "Discard names a resource the player's Visthus does not hold.",
        '"4. Discard Resources: Remove Resources from your Visthus to free up Slots."',
    ),
    (
        "BAD_RATION",
        "PayRation mixes food and Bröd, or its food counts do not add up to the Ration's cost (3 Korn / "
        "Fisk, 4 in Hård vinter's round) with one count per food resource.",
        '"After the 12th Turn, feed your By: • Cost: • 3 Korn / Fisk (any combination) or • 1 Bröd"',
    ),
    (
        "CANNOT_PAY_RATION",
        "PayRation names a way to pay the Ration that the player's Visthus does not hold.",
        '"After the 12th Turn, feed your By: • Cost: • 3 Korn / Fisk (any combination) or • 1 Bröd"',
    ),
    (
        "STARVING",
        "A player who could not pay the last Ration (restricted until the Turn after they pay it) sends "
        "an action starvation rules out: a Skepp, an upgrade, a building, the extension, a Runestone "
        "Card, or crafting anything but Bröd.",
        '"Starvation: If you cannot pay the Ration cost, you are restricted next Calendar Round to only: '
        "• Collect food (Korn or Fisk ) • Craft Bröd • Trade • Receive Payment (also non-food Resources) "
        'from Birka Buildings • All other actions are unavailable until the Ration cost is paid"',
    ),
    (
        "MARKET_CLOSED",
        "A MarketTrade is sent while the Calendar Card in effect closes the Market (Stormflod).",
        "Not in the rulebook: the Calendar Cards' texts were lost; the engine's Stormflod closes the "
        "Market, and not the Outlaw Trader, while it is in effect (assumptions CALENDAR_CARDS, "
        "MARKET_CARDS).",
    ),
    (
        "OUTLAW_CLOSED",
        "An OutlawTrade is sent while the Calendar Card in effect closes the Outlaw Trader (Fredlös).",
        "Not in the rulebook: the Calendar Cards' texts were lost; the engine's Fredlös names the Outlaw "
        "Trader and closes him while it is in effect (assumptions CALENDAR_CARDS, MARKET_CARDS).",
    ),
    (
        "NO_EMPTY_SLOT",
        "Collect names a due resource that the player's Visthus has no empty slot for (a safeguard: the "
        "collection step ends once the Visthus is full).",
        '"Items can only be collected if there is an empty Slot."',
    ),
    (
        "DISCARD_ONLY_IN_ACTIONS",
        "Discard is sent while the game waits for anything but the player's own actions, e.g. during "
        "the collection.",
        '"You cannot discard Resources during the collection phase; this must be done during your '
        'previous Action phase."',
    ),
    (
        "EXTENSION_OWNED",
        "BuildExtension is sent by a player whose Visthus already has its extension.",
        "Not in the rulebook: the engine assumes one extension per Byn, adding 4 slots (assumption VISTHUS).",
    ),
    (
        "SLOT_TAKEN",
        "Upgrade names a plot slot (the good's slot on that plot) that already holds a dice token.",
        '"Once placed, dice cannot be changed."',
    ),
    (
        "CANNOT_AFFORD",
        "The player's Visthus does not hold the price of the move, with the owner's payment when "
        "another player owns the building: a craft, a Skepp, an upgrade, a building, the extension, a "
        "Runestone Card or what a trade gives.",
        '"Constructing: Spend Resources matching the price at the top of the Building icon, e.g. the '
        'Kolmila costs 2 Lera and 1 Malm ."',
    ),
    (
        "NOT_BUILT",
        "Craft, or an Upgrade with Verktyg or Häst, names a building nobody owns yet.",
        '"A Building cannot be used until purchased by any Player in Birka."',
    ),
    (
        "NOT_FOR_SALE",
        "Build names Trältorget or Tinget, which nobody can own.",
        '"Trältorget (purchase Träl ) and Tinget (purchase Runestone ) are not owned always available."',
    ),
    (
        "NO_SUCH_RAW_RESOURCE",
        "PayTribute names a Raw Resource the roller does not hold (or a resource that is not raw), or "
        "TakeTribute one the chosen player does not hold.",
        '"If the rolled Dice matches this, the roller must pay the owner 1 Raw Resource. \u2013 If the owner '
        'rolls it, they take 1 Raw Resource from any Player."',
    ),
    (
        "NOT_ANOTHER_PLAYER",
        "TakeTribute names the Mjödhallen's owner themself or a seat that does not exist.",
        "Not in the rulebook: the engine reads 'they take 1 Raw Resource from any Player' as from any "
        "other player (assumption MJODHALLEN).",
    ),
    (
        "MUST_COLLECT",
        "StopCollecting is sent by anyone but the Mjödhallen's owner in a Turn its number was rolled.",
        '"The payment is part of the collection phase. In case the Owner has limited empty Slots, the '
        'Owner can choose to collect only parts of the regular collection to have room for the payment."',
    ),
    (
        "MARKET_ROW_FULL",
        "A MarketTrade gives a resource whose Market row has no free slot.",
        '"Limited Slots: 5 Raw and 3 Crafted per Resource type. \u2013 You may not exceed available Slots."',
    ),
    (
        "NOT_IN_MARKET",
        "A MarketTrade takes a resource that is not in its Market row.",
        '"You may not trade for a Resource that is not present."',
    ),
    (
        "DIFFERENT_MARKETS",
        "A MarketTrade gives a Raw Resource for a Crafted one or a Crafted one for a Raw one.",
        "Not in the rulebook: the trading ratios were printed on the board; the engine's Raw Market "
        "exchanges 1 Raw Resource for 1 other Raw Resource and its Crafted Market 1 Crafted for 1 other "
        "Crafted (assumption MARKET).",
    ),
    (
        "SUPPLY_EMPTY",
        "A craft or an OutlawTrade would take a resource the supply has run out of.",
        '"In rare cases, if the Supply pile runs out of a Resource, the Resource cannot be replaced by '
        'another Resource."',
    ),
    (
        "NOT_A_CRAFTING_BUILDING",
        "Craft names a building that crafts nothing (Trältorget, Smedjan, Stallet, Tinget, Mjödhallen).",
        '"Raw Resources may be crafted into specific Crafted Resources in designated Buildings."',
    ),
    (
        "NO_SUCH_CARD",
        "KeepCard names a position other than 0 or 1, the two Runestone Cards drawn at Tinget.",
        '"When purchasing a Runestone Card, the Player acquires two new cards, and keeps one, and '
        'discards the other."',
    ),
    (
        "DECK_EMPTY",
        "AcquireRunestone is sent by a player whose Runestone deck has no card left.",
        "Not in the rulebook: the engine assumes Tinget sells nothing to a player whose deck is empty, "
        "and sells the last card alone (assumption TINGET).",
    ),
    (
        "NO_TINGET",
        "AcquireRunestone is sent in a game whose data option has no building that sells Runestone Cards.",
        "Not in the rulebook: the buildings are data (assumption REFERENCE_DATA); a data set without "
        "Tinget sells no Runestone Card.",
    ),
)
