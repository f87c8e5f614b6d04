"""The displays speak the table config's `display.language`, through the console scripts:
`mjtable run` with `language: ja` on `mjtable sim`, each seat display greeting its player
with his wind in Japanese and the centre's texts (the break, the dora) in Japanese (the
simulator's trace); `mjtable status` and `mjtable result` in the reader's locale; a
language the product does not speak is refused by `mjtable check-config` and `mjtable run`,
naming the section and option and the languages allowed."""
from __future__ import annotations

import json
import os
import subprocess

import pytest

from ..support.folders import short_folder
from .e2e_harness import MJTABLE, PROFILES, SPEED, Processes, TableSession, draw, mjtable, start_sim, write_table_config

PLAYERS = ("Ann", "Bo", "Cy", "Di")
JAPANESE_WINDS = ("東", "南", "西", "北")


class JapaneseTable(TableSession):
    def __init__(self, procs, port, profile, ruleset) -> None:
        super().__init__(procs, port, profile, ruleset, extra="display: {mode: difference, language: ja}\n")


def read_in(session: TableSession, lang: str, *command: str) -> str:
    """`mjtable COMMAND` (default: status) as a reader whose locale is ``lang`` reads it."""
    env = {k: v for k, v in os.environ.items() if k not in ("LANGUAGE", "LC_ALL", "LC_MESSAGES")}
    done = subprocess.run([MJTABLE, *(command or ("status",)), "--socket", str(session.socket)],
                          env={**env, "LANG": lang}, capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    return done.stdout


def shown_texts(trace) -> list[tuple[int, str]]:
    """(seats mask, text) of every show_text the controller sent, in order."""
    records = [json.loads(line) for line in trace.read_text().splitlines()]
    return [(r["args"]["seats"], r["args"]["text"]) for r in records
            if r.get("dir") == "cmd" and r.get("name") == "show_text"]


@pytest.fixture(scope="module")
def played():
    """A basic table (no separator, no dora flipper: the centre says where to break and which
    stack holds the dora), its simulator tracing; a game with named players, one hand played."""
    with short_folder("mjja") as folder:
        procs = Processes(folder)
        trace = folder / "trace.jsonl"
        try:
            _, port = start_sim(procs, "--pty", "--profile", str(PROFILES / "basic.yaml"), "--speed", str(SPEED),
                                "--trace", str(trace))
            session = JapaneseTable(procs, port, "basic", "ema-2016")
            session.ok("start", "--players", *PLAYERS)
            playing = session.wait_hand_after(0)
            status = {lang: read_in(session, lang) for lang in ("ja_JP.UTF-8", "zh_TW.UTF-8", "C.UTF-8")}
            status["result"] = read_in(session, "ja_JP.UTF-8", "result", *draw())
            session.wait_hand_after(playing["hand_in_play"]["seq"])
            session.ok("abandon")
            yield playing, shown_texts(trace), status
        finally:
            procs.stop_all()


def test_each_seat_display_greets_its_player_with_his_wind_in_japanese(played):
    playing, texts, _ = played
    dealer = playing["starting_dealer"]
    greetings = {mask.bit_length() - 1: text for mask, text in texts if mask}
    assert greetings == {seat: f"{name} {JAPANESE_WINDS[(seat - dealer) % 4]}" for seat, name in enumerate(PLAYERS)}


def test_the_centre_speaks_japanese(played):
    _, texts, _ = played
    centre = [text for mask, text in texts if mask == 0]
    assert centre, "no centre text shown"
    assert all(len(text.encode()) <= 40 for text in centre)
    assert any(text.startswith("開門 ") for text in centre), centre    # where the players break the wall
    assert any(text.startswith("ドラ1: ") for text in centre), centre  # the stack of the dora indicator
    assert not any(word in text for text in centre for word in ("seat", "waiting", "dealer", "break", "dora")), centre


def test_the_status_and_the_result_a_player_reads_are_in_his_locale(played):
    playing, _, status = played
    dealer = playing["starting_dealer"]
    assert "場風: 東 · 局 E1 · 0本場" in status["ja_JP.UTF-8"], status["ja_JP.UTF-8"]
    assert f"  {dealer}番席  東" in status["ja_JP.UTF-8"] and "  親  " in status["ja_JP.UTF-8"]
    assert f"  {dealer}號座  東" in status["zh_TW.UTF-8"] and "  莊家  " in status["zh_TW.UTF-8"]
    assert f"  seat {dealer}  East" in status["C.UTF-8"] and "round: East · hand E1" in status["C.UTF-8"]
    assert status["result"] == "記録しました\n"  # `mjtable result`: the hand's result is recorded


@pytest.mark.parametrize("command", [("check-config",), ("run", "--config")])
def test_a_language_the_product_does_not_speak_is_refused_naming_section_and_option(short_tmp, command):
    config = write_table_config(short_tmp, "/dev/null", "four-port", "ema-2016", extra="display: {language: ko}\n")
    done = mjtable(*command, str(config))
    assert done.returncode != 0
    assert "display.language" in done.stderr and "'ko'" in done.stderr, done.stderr
    assert "en, ja, zh-Hans, zh-Hant" in done.stderr, done.stderr
