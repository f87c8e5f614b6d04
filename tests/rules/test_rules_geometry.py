"""Setup geometry against the conventions of docs/API.md ("Wall positions") and the rule texts.

Expected positions are built independently of the engine's step-by-step walk: the table is
laid out as one clockwise ring (seat 0's stacks 1..L, then seat 3's, seat 2's, seat 1's)
and positions are found by index arithmetic on it.
"""
import itertools

import pytest

from controller.rules import SetupError, breaker_seat, load_ruleset, setup_hand

EMA = load_ruleset("ema-2016")
ZJ = load_ruleset("zung-jung")
SANMA = load_ruleset("sanma")
MCR = load_ruleset("mcr")


def ring(rules):
    """Every stack in clockwise (drawing) order."""
    return [(s, k) for s in (0, 3, 2, 1) for k in range(1, rules.stacks_per_side[s] + 1)]


def ring_step(rules, pos, steps):
    r = ring(rules)
    return r[(r.index(pos) + steps) % len(r)]


def dealt_tiles(setup):
    tiles = []
    for takes in setup.deal:
        for seat, stack, part in takes:
            tiles += [(seat, stack, "top"), (seat, stack, "bottom")] if part == "both" else [(seat, stack, part)]
    return tiles


def check_common(rules, setup, dealer):
    """What holds for every rule set: dead wall, dora, deal and live wall fit together."""
    r = ring(rules)
    at = r.index(setup.break_after)
    assert list(setup.dead_wall) == [r[(at - i) % len(r)] for i in range(rules.dead_wall_stacks)]
    if rules.dora:
        first = rules.dora.indicator_stack - 1
        assert setup.dora_indicators[0] == setup.dead_wall[first]
        # then one per kan, further counter-clockwise (past the dead wall's stacks into the
        # live wall's end, which the kans take into the dead wall)
        assert list(setup.dora_indicators) == [r[(at - first - i) % len(r)] for i in range(rules.dora.max_indicators)]
    else:
        assert setup.dora_indicators == ()
    tiles = dealt_tiles(setup)
    assert len(tiles) == len(set(tiles)) == rules.players * rules.hand_tiles + rules.deal.dealer_extra
    # the deal takes the live wall from the stack clockwise of the break, without gaps
    expected = [(s, k, part) for i in range(len(tiles) // 2 + 1) for (s, k) in [r[(at + 1 + i) % len(r)]]
                for part in ("top", "bottom")][:len(tiles)]
    assert sorted(tiles) == sorted(expected)
    assert not {(s, k) for s, k, _ in tiles} & set(setup.dead_wall)
    for seat in range(4):
        count = sum(2 if part == "both" else 1 for _, _, part in setup.deal[seat])
        want = 0 if seat not in rules.seats else rules.hand_tiles + (rules.deal.dealer_extra if seat == dealer else 0)
        assert count == want


def test_seed_example_dice_12_north_breaks():
    # EMA setup example: East rolls 12, North breaks; dora = top of the 3rd dead-wall stack from the break
    setup = setup_hand(EMA, 0, [[6, 6]])
    assert setup.breaker == 3  # North of dealer 0
    assert setup.break_after == (3, 12)
    assert setup.dead_wall == ((3, 12), (3, 11), (3, 10), (3, 9), (3, 8), (3, 7), (3, 6))
    assert setup.dora_indicators[0] == (3, 10) and setup.dora_tile == "top"
    assert setup.deal[0][:2] == ((3, 13, "both"), (3, 14, "both"))  # East takes the first 4 tiles
    # the jump: East's last two tiles are the tops of the 1st and 3rd stacks after the 4-4-4
    assert [t[2] for t in setup.deal[0][-2:]] == ["top", "top"]
    assert ring_step(EMA, setup.deal[0][-2][:2], 2) == setup.deal[0][-1][:2]


# who breaks, by the dealer's sum: 5/9 the dealer, 2/6/10 the right, 3/7/11 across, 4/8/12 the left
WIND_OF_SUM = {n: (n - 1) % 4 for n in range(2, 13)}


@pytest.mark.parametrize("dealer", range(4))
@pytest.mark.parametrize("total", range(2, 13))
def test_ema_every_sum_every_dealer(dealer, total):
    die = [min(6, total - 1), total - min(6, total - 1)]
    setup = setup_hand(EMA, dealer, [die])
    assert (setup.breaker - dealer) % 4 == WIND_OF_SUM[total]
    assert setup.break_after == (setup.breaker, total)
    assert setup.broken_wall == setup.breaker  # 2-12 never runs past a 17-stack wall
    if total < 7:  # the dead wall goes round the corner into the right-hand neighbour's wall
        tail = [(setup.breaker + 1) % 4] * (7 - total)
        assert [s for s, _ in setup.dead_wall[total:]] == tail
        assert setup.dead_wall[total][1] == 17
    check_common(EMA, setup, dealer)
    assert len(setup.dora_indicators) == 5  # the first and one per kan


def test_ema_small_sum_wraps_the_dead_wall():
    setup = setup_hand(EMA, 0, [[1, 2]])  # 3: West (seat 2) breaks after its stack 3
    assert setup.dead_wall == ((2, 3), (2, 2), (2, 1), (3, 17), (3, 16), (3, 15), (3, 14))
    assert setup.dora_indicators[:2] == ((2, 1), (3, 17))


@pytest.mark.parametrize("dealer", range(4))
@pytest.mark.parametrize("n1,n2", list(itertools.product(range(2, 13), repeat=2)))
def test_zung_jung_every_pair(dealer, n1, n2):
    throws = [[n1 // 2, n1 - n1 // 2], [n2 // 2, n2 - n2 // 2]]
    setup = setup_hand(ZJ, dealer, throws)
    breaker = (dealer + n1 - 1) % 4
    count = n1 + n2
    assert setup.breaker == breaker == breaker_seat(ZJ, dealer, n1)
    assert setup.break_count == count
    # past 17 the count continues into the upper (left-hand) seat's wall: its stack 1 is the 18th
    assert setup.break_after == ((breaker, count) if count <= 17 else ((breaker - 1) % 4, count - 17))
    assert setup.broken_wall == (breaker if count <= 17 else (breaker - 1) % 4)
    assert len(setup.dead_wall) == 7 and setup.dora_indicators == ()
    check_common(ZJ, setup, dealer)


def test_zung_jung_count_18_is_stack_1_of_the_upper_seat():
    setup = setup_hand(ZJ, 0, [[1, 1], [6, 6]])  # n1 = 2: seat 1 breaks, count 14 stays in its wall
    assert setup.break_after == (1, 14)
    setup = setup_hand(ZJ, 0, [[3, 3], [6, 6]])  # n1 = 6: seat 1 breaks, count 18
    assert setup.break_after == (0, 1)
    assert setup.dead_wall[:3] == ((0, 1), (1, 17), (1, 16))


def test_sanma_uneven_walls():
    assert SANMA.stacks_per_side == (13, 14, 13, 14) and SANMA.seats == (0, 1, 2)
    # dealer 0, sum 12: counting over the four walls reaches seat 3, the empty side
    setup = setup_hand(SANMA, 0, [[6, 6]])
    assert setup.breaker == 3 and setup.break_after == (3, 12)
    assert setup.dead_wall == ((3, 12), (3, 11), (3, 10), (3, 9), (3, 8), (3, 7), (3, 6))
    # the 5th dead-wall stack, then one per kan; the 4th and 5th lie on the live wall's last two
    # stacks, (3, 5) and (3, 4), which the 3rd and 4th kans take into the dead wall
    assert setup.dora_indicators == ((3, 8), (3, 7), (3, 6), (3, 5), (3, 4))
    assert [ring_step(SANMA, setup.dead_wall[-1], -k) for k in (1, 2)] == [(3, 5), (3, 4)]  # drawn last
    assert setup.deal[3] == ()  # nobody sits there
    # the live wall crosses from seat 3's 14th stack into seat 2's wall
    assert setup.deal[0][0] == (3, 13, "both") and setup.deal[0][1] == (3, 14, "both")
    assert setup.deal[1][0] == (2, 1, "both")
    check_common(SANMA, setup, 0)


@pytest.mark.parametrize("dealer", (0, 1, 2))
@pytest.mark.parametrize("total", range(2, 13))
def test_sanma_every_sum(dealer, total):
    setup = setup_hand(SANMA, dealer, [[1, total - 1] if total <= 7 else [6, total - 6]])
    assert setup.breaker == (dealer + total - 1) % 4
    check_common(SANMA, setup, dealer)


def test_sanma_wraps_13_and_14_stack_walls():
    setup = setup_hand(SANMA, 1, [[1, 1]])  # seat 2 breaks after its stack 2
    assert setup.dead_wall == ((2, 2), (2, 1), (3, 14), (3, 13), (3, 12), (3, 11), (3, 10))
    setup = setup_hand(SANMA, 0, [[6, 6]])
    assert setup.dead_wall[-1] == (3, 6)


@pytest.mark.parametrize("dealer,dice,dead_wall,indicators", [
    # seat 2 breaks after its stack 2; round the corner into the empty side's 14-stack wall
    (1, [1, 1], ((2, 2), (2, 1), (3, 14), (3, 13), (3, 12), (3, 11), (3, 10)),
     ((3, 12), (3, 11), (3, 10), (3, 9), (3, 8))),
    # seat 2 breaks after its stack 5: the first indicator is its stack 1
    (2, [2, 3], ((2, 5), (2, 4), (2, 3), (2, 2), (2, 1), (3, 14), (3, 13)),
     ((2, 1), (3, 14), (3, 13), (3, 12), (3, 11))),
    # seat 1 breaks after its stack 4: on into seat 2's 13-stack wall
    (2, [1, 3], ((1, 4), (1, 3), (1, 2), (1, 1), (2, 13), (2, 12), (2, 11)),
     ((2, 13), (2, 12), (2, 11), (2, 10), (2, 9))),
    # seat 0 breaks after its stack 5: on into seat 1's 14-stack wall
    (0, [1, 4], ((0, 5), (0, 4), (0, 3), (0, 2), (0, 1), (1, 14), (1, 13)),
     ((0, 1), (1, 14), (1, 13), (1, 12), (1, 11))),
])
def test_sanma_indicators_for_four_kans(dealer, dice, dead_wall, indicators):
    setup = setup_hand(SANMA, dealer, [dice])
    assert setup.dead_wall == dead_wall
    assert setup.dora_indicators == indicators
    check_common(SANMA, setup, dealer)


@pytest.mark.parametrize("dice,indicators", [
    ([6, 6], ((3, 10), (3, 9), (3, 8), (3, 7), (3, 6))),  # North breaks after its stack 12
    ([1, 2], ((2, 1), (3, 17), (3, 16), (3, 15), (3, 14))),  # West after its stack 3: round the corner
])
def test_four_player_indicators_for_four_kans(dice, indicators):
    # the 3rd dead-wall stack from the break, then one stack further per kan, all inside the dead wall
    for name in ("ema-2016", "wrc", "mleague"):
        setup = setup_hand(load_ruleset(name), 0, [dice])
        assert setup.dora_indicators == indicators
        assert set(indicators) <= set(setup.dead_wall)


@pytest.mark.parametrize("name", ["ema-2016", "wrc", "mleague", "sanma"])
def test_every_riichi_preset_has_an_indicator_for_each_of_four_kans(name):
    rules = load_ruleset(name)
    setup = setup_hand(rules, rules.seats[0], [[3, 4]])
    assert len(setup.dora_indicators) == 1 + 4
    assert len(set(setup.dora_indicators)) == 5


@pytest.mark.parametrize("dealer", range(4))
@pytest.mark.parametrize("n1,n2", [(2, 2), (5, 12), (12, 6), (12, 7), (12, 12), (7, 11)])
def test_mcr_18_stack_walls(dealer, n1, n2):
    setup = setup_hand(MCR, dealer, [[1, n1 - 1] if n1 <= 7 else [6, n1 - 6], [1, n2 - 1] if n2 <= 7 else [6, n2 - 6]])
    breaker = (dealer + n1 - 1) % 4
    count = n1 + n2
    assert setup.break_after == ((breaker, count) if count <= 18 else ((breaker - 1) % 4, count - 18))
    assert (setup.breaker, setup.broken_wall) == (breaker, breaker if count <= 18 else (breaker - 1) % 4)
    assert setup.dead_wall == () and setup.dora_indicators == ()
    check_common(MCR, setup, dealer)


@pytest.mark.parametrize("rules,throws", [
    (EMA, [[7, 1]]), (EMA, [[0, 3]]), (EMA, [[3]]), (EMA, [[3, 4], [1, 1]]), (EMA, [[True, 2]]), (EMA, "66"),
    (EMA, [[3.0, 4]]), (ZJ, [[6, 6]]),  # Zung Jung needs the breaker's second throw
])
def test_bad_dice_are_rejected(rules, throws):
    with pytest.raises(SetupError, match="allowed"):
        setup_hand(rules, 0, throws)


def test_sanma_dealer_must_sit_at_the_table():
    with pytest.raises(SetupError, match="not in play"):
        setup_hand(SANMA, 3, [[3, 4]])


def test_dora_successor_rule():
    dora = EMA.dora
    assert [dora.dora_of(t) for t in ("6s", "9m", "red", "white", "green", "north", "east")] == \
        ["7s", "1m", "white", "green", "red", "east", "south"]
    assert SANMA.dora.dora_of("1m") == "9m" and SANMA.dora.dora_of("9m") == "1m"
