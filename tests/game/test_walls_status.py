"""The status `walls` object and the journal name the same places: `breaker` is the seat
the first throw names, `broken_wall` the seat whose wall holds the break; docs/API.md lists
exactly the keys both have."""
from pathlib import Path

from controller.club.journal import HAND_KEYS
from controller.app.simulation import run_game

API_DOC = Path(__file__).resolve().parents[2] / "docs" / "API.md"


def documented_keys(heading: str) -> list[str]:
    """The keys of the first table after ``heading`` in docs/API.md."""
    rows = API_DOC.read_text().split(f"\n{heading}\n", 1)[1].split("| key | meaning |", 1)[1].split("\n\n", 1)[0]
    return [line.split("`")[1] for line in rows.splitlines()[2:]]


def test_status_walls_name_the_breaker_and_the_broken_wall():
    seen = []

    def attach(controller, table):
        def on_event(event):
            if event["event"] == "hand_started":
                seen.append(controller.snapshot()["walls"])
        controller.subscribe(on_event)

    run = run_game("zung-jung", seed=2, on_controller=attach)  # a game with counts past 17
    assert len(seen) == len(run.hands)
    for walls, record in zip(seen, run.hands):
        assert (walls["breaker"], walls["broken_wall"]) == (record["breaker"], record["broken_wall"])
        assert walls["broken_wall"] == walls["break_after"][0]
    assert any(w["breaker"] != w["broken_wall"] for w in seen)
    assert all(list(w) == documented_keys("## Wall positions") for w in seen)


def test_docs_list_exactly_the_journal_keys():
    assert documented_keys("## JSON lines") == list(HAND_KEYS)
