"""A whole game of every rule-set preset through `mjtable run` on the C core in QEMU, each
on the table profile the suite plays it on, its journal replayed by the rules engine. The
hands are those of the simulator's end-to-end games (tests/e2e)."""
import pytest

from controller import rules as R

from ..e2e import test_e2e_ema, test_e2e_mcr, test_e2e_mleague, test_e2e_sanma, test_e2e_wrc, test_e2e_zung_jung
from ..e2e.e2e_harness import TableSession, check_against_engine, play_game
from ..e2e.test_e2e_commands import PLAYABLE
from ..support.processes import Processes
from .conftest import powered

HANDS = {"ema-2016": test_e2e_ema.HANDS, "wrc": test_e2e_wrc.HANDS, "mleague": test_e2e_mleague.HANDS,
         "sanma": test_e2e_sanma.HANDS, "mcr": [hand for hand, _ in test_e2e_mcr.PLAY],
         "zung-jung": [hand for hand, _ in test_e2e_zung_jung.PLAY]}


@pytest.mark.parametrize("ruleset", sorted(PLAYABLE))
def test_a_whole_game_of_every_preset(profile_image, ruleset):
    profile = PLAYABLE[ruleset]
    with powered(profile_image(profile)) as board:
        procs = Processes(board.monitor.parent)
        try:
            game = play_game(TableSession(procs, board.port, profile, ruleset), HANDS[ruleset])
        finally:
            procs.stop_all()
    check_against_engine(R.load_ruleset(ruleset), game.journal)
