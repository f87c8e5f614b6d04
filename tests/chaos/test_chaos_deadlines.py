"""Deadlines: a noisy line or a table that acknowledges but never answers never leaves the
controller waiting for ever. Each game is seeded and runs in virtual time; it must end with
the clean run's journal, whatever it met on the way (an operator presses retry on faults).
At 10 % corrupted bytes the host keeps its link (no reconnect) and needs no operator."""
from __future__ import annotations

import logging

import pytest

from controller.table.line_quality import POOR
from controller.app.simulation import run_game
from controller.table.facade import Overdue
from firmware_protocol.codes import Code
from firmware_protocol.transport import Impairment

from .harness import COUNTS, assert_same_game, clean_game, count_link, operator

NOISY = Impairment(corrupt=0.05, drop=0.01)  # most 50-byte frames are hit
BURSTS = Impairment(noise_every=12.0, noise_for=4.0, noise_corrupt=0.3)
VERY_NOISY = Impairment(corrupt=0.10, drop=0.01)  # a status passes once in 14, the identity once in 240


def _faults_seen(runs: list):
    """An `on_controller` that keeps the operator and records every fault shown."""
    return operator(on_fault=lambda e: runs.append((e["code"], e["message"])))


def _play(seed: int, **kwargs):
    faults: list = []
    run = run_game("ema-2016", seed=seed, on_controller=_faults_seen(faults), **kwargs)
    count_link(run.controller.table.stats)
    assert_same_game(run.hands, run.standings, clean_game("ema-2016", seed))
    return run, faults


@pytest.mark.parametrize("seed", [1, 2])
def test_a_game_on_a_line_with_5_percent_corrupted_bytes_ends_with_the_clean_journal(seed, caplog):
    caplog.set_level(logging.WARNING)
    run, _ = _play(seed, impairment=NOISY)
    COUNTS["5 % noise games"] += 1
    # The line's state is shown: in status and, once in a while, in the log.
    link = run.controller.snapshot()["link"]
    assert set(link) >= {"error_rate", "retransmit_rate", "retransmits", "crc_errors"}
    assert any("poor serial line" in r.getMessage() for r in caplog.records)


def test_a_game_on_a_line_with_10_percent_corrupted_bytes_keeps_its_link_and_ends_with_the_clean_journal(caplog):
    caplog.set_level(logging.WARNING)
    run, faults = _play(1, impairment=VERY_NOISY, limit=7200.0)  # two simulated hours; the clean run takes 1000 s
    COUNTS["10 % noise games"] += 1
    # Never a reconnect (each would cost an identify) and nothing for the operator: the
    # table's watchdog may stop it behind a long frame, and the controller resumes it.
    assert [r.name for r in run.trace if r.dir == "cmd"].count("identify") == 1
    assert {code for code, _ in faults} <= {Code.WATCHDOG}
    assert run.controller.snapshot()["link"]["error_rate"] >= POOR
    assert any("poor serial line" in r.getMessage() for r in caplog.records)


@pytest.mark.parametrize("seed", [3, 4])
def test_a_game_through_noise_bursts_of_4_s_every_12_s_ends_with_the_clean_journal(seed):
    _play(seed, impairment=BURSTS)
    COUNTS["noise burst games"] += 1


def _swallow(table, direction: str, wanted) -> list:
    """Make the simulated table drop the first message `wanted(msg, last command)` picks,
    after acknowledging what it answers: a table that acks but never answers."""
    firmware, swallowed = table.firmware, []
    emit = firmware._emit

    def filtered(to: str, msg) -> None:
        last = next((r.name for r in reversed(firmware.trace.records) if r.dir == "cmd"), None)
        if to == direction and not swallowed and wanted(msg, last):
            swallowed.append(msg.name)
            return
        emit(to, msg)
    firmware._emit = filtered
    return swallowed


def _play_swallowing(seed: int, direction: str, wanted, also=None) -> list:
    """A whole game on a table that drops one message; returns the faults shown.
    `also(controller)` may disturb the controller further."""
    faults, swallowed = [], []
    retry = _faults_seen(faults)

    def attach(controller, table) -> None:
        retry(controller, table)
        swallowed.append(_swallow(table, direction, wanted))
        if also:
            also(controller)
    run = run_game("ema-2016", seed=seed, on_controller=attach)
    assert swallowed[0], "the table swallowed nothing"
    assert_same_game(run.hands, run.standings, clean_game("ema-2016", seed))
    return faults


def test_an_operation_whose_end_is_never_reported_faults_with_operation_timeout_and_retry_recovers():
    faults = _play_swallowing(5, "event", lambda msg, _: msg.name == "walls_raised")
    assert faults[0][0] == Code.OPERATION_TIMEOUT
    assert "raise_walls ended without reporting its end" in faults[0][1]


def test_a_fault_display_never_answered_is_one_more_fault_for_retry_not_a_dead_game():
    def show_error_unanswered_once(controller) -> None:
        show_error, unanswered = controller.table.show_error, []

        async def once(code: int, seats: int = 0) -> None:
            if code and not unanswered:  # the table acknowledged it, then said nothing for a minute
                unanswered.append(code)
                raise Overdue(Code.OPERATION_TIMEOUT, "host_link", "the table acknowledged show_error but did not answer it")
            await show_error(code, seats)
        controller.table.show_error = once

    faults = _play_swallowing(5, "event", lambda msg, _: msg.name == "walls_raised", also=show_error_unanswered_once)
    assert [code for code, _ in faults[:2]] == [Code.OPERATION_TIMEOUT, Code.OPERATION_TIMEOUT]
    assert "did not answer" in faults[1][1]


def test_a_status_request_never_answered_faults_with_operation_timeout_and_retry_recovers():
    statuses = iter(range(1, 10_000))
    # The fifth status is asked for during the first hand's setup (the self-test's come first).
    faults = _play_swallowing(6, "reply", lambda msg, _: msg.name == "status" and next(statuses) == 5)
    assert faults[0][0] == Code.OPERATION_TIMEOUT
    assert "answered later commands but not get_status" in faults[0][1]


def test_an_identify_never_answered_at_start_is_tried_again():
    faults = _play_swallowing(7, "reply", lambda msg, _: msg.name in ("identity", "identity_1_1"))
    assert faults == []  # connecting again is enough: nothing for the operator
