"""A whole game of every rule-set preset through `mjtable run` on the C core in QEMU, each
on the table profile the suite plays it on, its journal replayed by the rules engine. The
hands are those of the simulator's end-to-end games (tests/e2e)."""
import pytest

from controller import rules as R

from ..e2e.e2e_harness import TableSession, check_against_engine, play_game
from ..e2e.test_e2e_commands import PLAYABLE
from ..firmware.presets import HANDS
from ..support.processes import Processes
from .conftest import powered


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
