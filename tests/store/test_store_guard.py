"""What guards the state database beyond SQLite's transactions: one controller at a time
(the lock), a file nobody else can read, and hands acknowledged but lost afterwards
(a damaged write-ahead log) refused at the next start."""
import os
import shutil
import stat

import pytest

from controller.store.database import Store, StoreError

STATE = {"scores": [25000, 25000, 25000, 25000]}
HANDS = 6


@pytest.fixture
def umask_022():
    old = os.umask(0o022)  # as outside systemd: files world-readable unless made otherwise
    yield
    os.umask(old)


def mode(path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_a_new_database_and_its_companions_are_not_world_readable(tmp_path, umask_022):
    path = tmp_path / "state.db"
    with Store(path, exclusive=True) as store:
        store.new_game("ema-2016", {}, STATE)
        companions = [path, tmp_path / "state.db-wal", tmp_path / "state.db-shm", tmp_path / "state.db.lock"]
        assert {p.name: mode(p) for p in companions} == {p.name: 0o640 for p in companions}


def test_a_second_exclusive_opening_is_refused_naming_the_holder_while_readers_go_on(tmp_path):
    path = tmp_path / "state.db"
    with Store(path, exclusive=True) as controller:
        game = controller.new_game("ema-2016", {}, STATE)
        with pytest.raises(StoreError, match=rf"in use by another controller \(pid {os.getpid()}, lock "):
            Store(path, exclusive=True)
        with Store(path, create=False) as reader:  # mjtable journal, check-store
            assert reader.active_game().id == game
        controller.commit_hand(game, 1, {"hand": "E1"}, STATE)  # the refused one changed nothing
    with Store(path, exclusive=True) as next_controller:  # closed (or killed): free again
        assert next_controller.hands(game) == [{"hand": "E1"}]


def _acknowledged_then_killed(folder):
    """HANDS hands committed (acknowledged), then the files as a kill leaves them: the
    WAL not checkpointed, the lock file saying what was acknowledged."""
    path = folder / "live" / "state.db"
    path.parent.mkdir()
    kept = folder / "after-kill"
    with Store(path, exclusive=True) as store:
        game = store.new_game("ema-2016", {}, STATE)
        for seq in range(1, HANDS + 1):
            store.commit_hand(game, seq, {"hand": seq, "pad": "x" * 300}, STATE)
        shutil.copytree(path.parent, kept)
    return kept / "state.db", game


def test_hands_acknowledged_then_lost_from_the_log_are_refused(tmp_path):
    path, game = _acknowledged_then_killed(tmp_path)
    wal = path.with_name("state.db-wal")
    data = bytearray(wal.read_bytes())
    data[-100] ^= 0x01  # one flipped bit in the last hand's frames: SQLite drops that commit silently
    wal.write_bytes(bytes(data))
    with pytest.raises(StoreError, match=rf"lost stored hands: game {game} has {HANDS - 1} hand\(s\), "
                                         rf"but {HANDS} were stored and acknowledged"):
        Store(path, exclusive=True)
    with Store(path, create=False) as reader:  # what SQLite alone would have served
        assert len(reader.hands(game)) == HANDS - 1


def test_an_intact_log_after_a_kill_resumes(tmp_path):
    path, game = _acknowledged_then_killed(tmp_path)
    with Store(path, exclusive=True) as store:
        assert len(store.hands(game)) == HANDS
