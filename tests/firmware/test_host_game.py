"""A whole EMA hanchan through `mjtable run` and the CLI on the C core's host build: the
same game as tests/e2e/test_e2e_ema.py (the controller restarted mid-hand included), its
journal replayed by the rules engine."""
from controller import rules as R

from ..e2e.e2e_harness import SPEED, TableSession, check_against_engine, play_game
from ..e2e.test_e2e_ema import FINAL, HANDS
from ..support.folders import short_folder
from ..support.processes import Processes
from .tables import start_host_table


def test_a_whole_game_runs_on_the_c_core(host_build):
    with short_folder("mjfw") as folder:  # the control socket's path must stay short
        procs = Processes(folder)
        try:
            _, port = start_host_table(procs, host_build, "--profile", "four-port", "--speed", str(SPEED))
            game = play_game(TableSession(procs, port, "four-port", "ema-2016"), HANDS)
        finally:
            procs.stop_all()
    check_against_engine(R.load_ruleset("ema-2016"), game.journal)
    assert game.journal[-1] == FINAL
