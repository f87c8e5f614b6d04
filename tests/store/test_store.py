import sqlite3

import pytest

from controller.store.database import SCHEMA_VERSION, Store, StoreError

STATE = {"scores": [25000, 25000, 25000, 25000], "riichi_sticks": 0}


@pytest.fixture
def store(tmp_path):
    with Store(tmp_path / "state.db") as s:
        yield s


def test_missing_file_is_created_and_game_resumes_after_reopen(tmp_path):
    path = tmp_path / "state.db"
    with Store(path) as s:
        gid = s.new_game("ema-2016", {"players": 4}, STATE)
        s.save_step(gid, "playing", {"seq": 0, "label": "E1", "dice": [3, 4]})
    with Store(path) as s:
        game = s.active_game()
    assert (game.id, game.ruleset, game.rules, game.state) == (gid, "ema-2016", {"players": 4}, STATE)
    assert (game.step, game.hand) == ("playing", {"seq": 0, "label": "E1", "dice": [3, 4]})


def test_database_is_wal_with_full_sync(store):
    assert store._db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert store._db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL


def test_duplicate_hand_is_applied_once(store):
    gid = store.new_game("ema-2016", {}, STATE)
    assert store.commit_hand(gid, 0, {"hand": "E1"}, {"scores": [1]})
    assert not store.commit_hand(gid, 0, {"hand": "E1 again"}, {"scores": [2]})
    assert store.hands(gid) == [{"hand": "E1"}]
    assert store.active_game().state == {"scores": [1]}


def test_commit_hand_moves_step_in_the_same_transaction(store):
    gid = store.new_game("ema-2016", {}, STATE)
    store.save_step(gid, "collecting", {"seq": 0})
    store.commit_hand(gid, 0, {"hand": "E1"}, STATE, step="between_hands", hand={"seq": 1})
    game = store.active_game()
    assert (game.step, game.hand) == ("between_hands", {"seq": 1})


def test_only_one_active_game(store):
    gid = store.new_game("ema-2016", {}, STATE)
    with pytest.raises(StoreError, match="still active"):
        store.new_game("wrc", {}, STATE)
    store.abandon_game(gid)
    assert store.active_game() is None
    second = store.new_game("wrc", {}, STATE)
    assert [(g.id, g.status) for g in store.games()] == [(gid, "abandoned"), (second, "active")]


def test_finished_game_keeps_final_and_refuses_changes(store):
    gid = store.new_game("ema-2016", {}, STATE)
    store.commit_hand(gid, 0, {"hand": "E1"}, STATE)
    store.finish_game(gid, {"final_scores": [40, 10, -10, -40]})
    game = store.game(gid)
    assert (game.status, game.final) == ("finished", {"final_scores": [40, 10, -10, -40]})
    for change in (lambda: store.commit_hand(gid, 1, {}, STATE), lambda: store.save_step(gid, "x", {}),
                   lambda: store.abandon_game(gid)):
        with pytest.raises(StoreError, match="finished"):
            change()
    assert store.hands(gid) == [{"hand": "E1"}]


def test_missing_folder_names_the_path(tmp_path):
    with pytest.raises(StoreError, match=f"create {tmp_path / 'nope'}"):
        Store(tmp_path / "nope" / "state.db")
    assert not (tmp_path / "nope").exists()


def test_missing_file_without_create_is_an_error(tmp_path):
    with pytest.raises(StoreError, match="no state database at"):
        Store(tmp_path / "state.db", create=False)
    assert not (tmp_path / "state.db").exists()


def test_file_that_is_not_a_database_is_left_alone(tmp_path):
    path = tmp_path / "state.db"
    path.write_text("scores: [25000, 25000]\n" * 200)
    with pytest.raises(StoreError, match=f"{path} is unreadable .*move it aside"):
        Store(path)
    assert path.read_text() == "scores: [25000, 25000]\n" * 200


def test_damaged_database_is_reported_at_open(tmp_path):
    path = tmp_path / "state.db"
    with Store(path) as s:
        gid = s.new_game("ema-2016", {}, STATE)
        for seq in range(200):
            s.commit_hand(gid, seq, {"pad": "x" * 500}, STATE)
    data = bytearray(path.read_bytes())
    data[4096 * 3 : 4096 * 6] = b"\xa5" * (4096 * 3)
    path.write_bytes(bytes(data))
    with pytest.raises(StoreError, match="damaged"):
        Store(path)


def test_newer_schema_is_refused(tmp_path):
    path = tmp_path / "state.db"
    Store(path).close()
    with sqlite3.connect(path) as db:
        db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    with pytest.raises(StoreError, match="newer than this mjtable understands.*upgrade mjtable"):
        Store(path)


def test_other_sqlite_database_is_not_touched(tmp_path):
    path = tmp_path / "other.db"
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE accounts (name TEXT)")
    with pytest.raises(StoreError, match="not an mjtable state database"):
        Store(path)
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT name FROM sqlite_master").fetchall() == [("accounts",)]


# -- sessions, the tournament schedule, the faults log (schema version 3) -----------------

ROSTER = {1: {"name": "Ann", "ema_id": "04010001"}, 2: {"name": "Bo"}, 3: {"name": "Cy", "club_id": "17"},
          4: {"name": "Di"}, 5: {"name": "Ed"}}


def _game(store, **kw):
    return store.new_game("ema-2016", {}, {"scores": [30000] * 4}, **kw)


def test_games_started_in_an_open_session_belong_to_it(tmp_path):
    with Store(tmp_path / "s.db") as store:
        before = _game(store)
        store.abandon_game(before)
        session = store.start_session("Tuesday club", show_totals=True)
        assert store.open_session() == session and session.show_totals and session.ended_at is None
        inside = _game(store)
        store.abandon_game(inside)
        ended = store.end_session()
        assert ended.id == session.id and ended.ended_at is not None and store.open_session() is None
        after = _game(store)
        assert [g.session_id for g in store.games()] == [None, session.id, None]
        assert [g.id for g in store.games(session_id=session.id)] == [inside]
        assert after not in [g.id for g in store.games(session_id=session.id)]


def test_one_session_is_open_at_a_time_and_ending_needs_one(tmp_path):
    with Store(tmp_path / "s.db") as store:
        with pytest.raises(StoreError, match="no session is open"):
            store.end_session()
        first = store.start_session()
        with pytest.raises(StoreError, match=f"session {first.id} is still open"):
            store.start_session("again")
        assert store.sessions() == [first]
        with pytest.raises(StoreError, match="no session 9"):
            store.session(9)


def test_a_schedule_seats_a_table_for_a_round_and_a_game_keeps_its_round(tmp_path):
    seats = [(1, 1, 0, 1), (1, 1, 1, 2), (1, 1, 2, 3), (1, 1, 3, 4), (2, 1, 0, 5), (2, 1, 1, 4), (2, 1, 2, 3),
             (2, 1, 3, 2), (2, 2, 0, 1)]
    with Store(tmp_path / "s.db") as store:
        store.import_schedule(ROSTER, seats)
        assert store.roster() == ROSTER
        assert store.schedule(1, 1) == {s: {"number": n, **ROSTER[n]} for _, _, s, n in seats[:4]}
        assert store.schedule(2, 1)[0] == {"number": 5, "name": "Ed"}
        assert store.schedule(3, 1) == {} and store.schedule(1, 7) == {}
        assert store.schedule_rounds() == {1: [1], 2: [1, 2]}
        gid = _game(store, round=2)
        assert store.game(gid).round == 2 and [g.id for g in store.games(round=2)] == [gid]


def test_a_refused_schedule_import_keeps_the_previous_one(tmp_path):
    with Store(tmp_path / "s.db") as store:
        store.import_schedule(ROSTER, [(1, 1, 0, 1)])
        with pytest.raises(StoreError):
            store.import_schedule({1: {"name": "X"}}, [(1, 1, 0, 1), (1, 1, 1, 99)])  # 99 is nobody
        assert store.roster() == ROSTER and store.schedule(1, 1) == {0: {"number": 1, **ROSTER[1]}}


def test_faults_are_counted_by_code_and_subsystem(tmp_path):
    with Store(tmp_path / "s.db") as store:
        gid = _game(store)
        store.record_fault(201, "hopper", "tile_count", gid)
        store.record_fault(201, "hopper", "tile_count", gid)
        store.record_fault(301, "lift", "", None)
        assert store.fault_counts() == {(201, "hopper"): 2, (301, "lift"): 1}
        assert store.fault_counts(since="9999") == {}


def test_the_operators_pause_is_kept_until_resumed_across_reopens(tmp_path):
    path = tmp_path / "state.db"
    with Store(path) as s:
        assert s.paused_in() is None
        s.save_pause("raising")
    with Store(path) as s:
        assert s.paused_in() == "raising"
        s.save_pause(None)
    with Store(path) as s:
        assert s.paused_in() is None
