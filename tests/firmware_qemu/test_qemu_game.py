"""A whole EMA hanchan through `mjtable run` on the C core in QEMU, the MCU reset by the
monitor while the next hand's set shuffles: the controller reconciles and the game ends
by its rules, its journal replayed by the rules engine."""
from controller import rules as R

from ..e2e.e2e_harness import TableSession, check_against_engine, play_hand, wait_for
from ..e2e.test_e2e_ema import FINAL, HANDS
from ..support.processes import Processes

RESET_IN_HAND = 3  # the set of hand 5 shuffles while hand 4 is played


def reset_mid_shuffle(board, session: TableSession, seq: int) -> None:
    """Reset the MCU and wait for the controller to have reconnected (a new link session)
    with the same hand in play again."""
    sessions = session.polled_status()["link"]["sessions"]
    board.reset()

    def reconciled():
        status = session.polled_status()
        return status["link"]["sessions"] > sessions and status["state"] == "playing" and status
    assert wait_for(reconciled, "the controller to reconnect after the MCU reset")["hand_in_play"]["seq"] == seq


def test_a_whole_game_survives_an_mcu_reset_mid_shuffle(board):
    procs = Processes(board.monitor.parent)
    try:
        session = TableSession(procs, board.port, "four-port-sticks", "ema-2016")
        session.ok("start", where="--config")
        seq = 0
        for number, hand in enumerate(HANDS):
            seq = session.wait_hand_after(seq)["hand_in_play"]["seq"]
            if number == RESET_IN_HAND:
                reset_mid_shuffle(board, session, seq)
            play_hand(session, hand, seq)
        session.wait_game_over()
        journal = session.journal()
    finally:
        procs.stop_all()
    check_against_engine(R.load_ruleset("ema-2016"), journal)
    assert journal[-1] == FINAL
