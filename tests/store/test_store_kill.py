"""A controller killed at any moment loses no committed hand and counts none twice."""
import random
import signal
import subprocess
import sys
import time

from controller.store.database import Store

# Plays hands forever, resuming from the stored state like a restarted controller, and
# prints each hand's seq once commit_hand has returned (= promised durable).
WRITER = r"""
import sys
from controller.store.database import Store
store = Store(sys.argv[1])
game = store.active_game()
gid = game.id if game else store.new_game("ema-2016", {}, {"next": 0, "total": 0})
state = store.active_game().state
while True:
    seq = state["next"]
    store.save_step(gid, "playing", {"seq": seq})
    record = {"seq": seq, "payment": seq * 100}
    state = {"next": seq + 1, "total": state["total"] + seq * 100}
    assert store.commit_hand(gid, seq, record, state, step="between_hands", hand={"seq": seq + 1})
    print(seq, flush=True)
"""


def test_sigkill_during_commits_loses_nothing(tmp_path):
    path = tmp_path / "state.db"
    rng = random.Random(6)
    promised = set()
    for _ in range(8):
        proc = subprocess.Popen([sys.executable, "-c", WRITER, str(path)], stdout=subprocess.PIPE, text=True)
        first = proc.stdout.readline()  # it is committing: now kill it at a random moment
        time.sleep(rng.uniform(0, 0.05))
        proc.send_signal(signal.SIGKILL)
        out, _ = proc.communicate()
        promised.update(int(line) for line in (first + out).split())

        with Store(path) as store:
            game = store.active_game()
            hands = store.hands(game.id)
        seqs = [h["seq"] for h in hands]
        assert seqs == list(range(len(seqs)))
        assert promised <= set(seqs)
        assert game.state == {"next": len(seqs), "total": sum(h["payment"] for h in hands)}
        assert game.hand == {"seq": len(seqs)}  # the step written with the last hand, or after it
