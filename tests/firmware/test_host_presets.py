"""A whole game of every rule-set preset through `mjtable run` on the C core's host build,
each on the table profile the suite plays it on, its journal replayed by the rules engine
(the hands of the simulator's end-to-end games). Run by `make firmware-check`, beside the
same games on QEMU; `make test` plays the EMA game alone (test_host_game.py)."""
import os

import pytest

from controller import rules as R

from ..e2e.e2e_harness import SPEED, TableSession, check_against_engine, play_game
from ..e2e.test_e2e_commands import PLAYABLE
from ..support.folders import short_folder
from ..support.processes import Processes
from .presets import HANDS
from .tables import start_host_table

pytestmark = pytest.mark.skipif(not os.environ.get("MJT_FIRMWARE_CHECK"), reason="run by make firmware-check")


@pytest.mark.parametrize("ruleset", sorted(PLAYABLE))
def test_a_whole_game_of_every_preset_on_the_host_build(host_build, ruleset):
    profile = PLAYABLE[ruleset]
    with short_folder("mjfw") as folder:
        procs = Processes(folder)
        try:
            _, port = start_host_table(procs, host_build, "--profile", profile, "--speed", str(SPEED))
            game = play_game(TableSession(procs, port, profile, ruleset), HANDS[ruleset])
        finally:
            procs.stop_all()
    check_against_engine(R.load_ruleset(ruleset), game.journal)
