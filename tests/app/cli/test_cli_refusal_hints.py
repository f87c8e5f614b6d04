"""The API refuses in words (tests/api/web/test_web_refusal_words.py); the console script adds
the command that does what the words say, through the installed `mjtable`."""
from .cli_harness import mjtable


def refused(table, *args: str) -> tuple[int, str]:
    done = mjtable(*args, "--config", str(table.config), cwd=table.folder, check=False)
    return done.returncode, done.stderr.strip()


def test_a_refusal_at_the_console_names_the_command_that_helps(table):
    assert refused(table, "session", "show") == (
        2, "mjtable session: no session yet: start one first (`mjtable session start`)")
    assert refused(table, "signal", "start") == (
        1, "mjtable signal: no game on the clock is in play; start a game with its time limit first "
           "(`mjtable start --time-limit`)")
    assert refused(table, "session", "start", "--name", "Friday club")[0] == 0
    code, said = refused(table, "session", "start", "--name", "Saturday")
    assert code == 2 and said.endswith("); end it first (`mjtable session end`)"), said
