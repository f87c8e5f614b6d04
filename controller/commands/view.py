"""The live terminal view of a table (rich); its one-line plain form is controller/commands/plain_view.py.

Both are pure functions of the controller's status snapshot, a dict in which a missing
key means "not known yet" (before the first game, before the dice, ...). The table is
drawn from above: seat 0 at the bottom, then counter-clockwise seat 1 on the right,
seat 2 at the top, seat 3 on the left. Each wall is drawn stack by stack,
one character per stack; stack 1 is the owner's rightmost, so seat 0's wall reads
17..1 from left to right and seat 2's (facing it) 1..17. Only the seats in play (the
snapshot's ``seats``) have a wind, a score and differences; sanma's fourth side, whose
wall the table still builds, is drawn as an empty side.
"""
from __future__ import annotations

import logging
from collections.abc import Callable
from itertools import groupby
from typing import IO

from rich.console import Console, Group, RenderableType
from rich.live import Live
from rich.panel import Panel
from rich.style import Style
from rich.table import Table
from rich.text import Text

from controller.commands.plain_view import SEATS, PlainView, Snapshot, View, dice_text, ms, per_seat, seats_in_play

Position = tuple[int, int]
Cell = tuple[str, str | Style]  # (character, style)

WINDS = ("East", "South", "West", "North")
SEAT_LETTERS = "ESWN"

# ASCII on purpose: terminals with East Asian fonts draw box and geometric characters
# two cells wide, which would break the square.
STACK_CELLS: dict[str, Cell] = {
    "live": ("#", "green"),
    "dead": ("=", "yellow"),
    "dora": ("D", "bold black on yellow"),
}
BREAK_STYLE = "bold red"
BREAK_ACROSS_ROW, BREAK_ACROSS_COLUMN, BREAK_IN_CORNER = "|", "-", "+"
BLANK: Cell = (" ", "")
LEGEND = (Text.assemble(("#", STACK_CELLS["live"][1]), " live   ", ("=", STACK_CELLS["dead"][1]), " dead wall"),
          Text.assemble(("D", STACK_CELLS["dora"][1]), " dora   ", ("|-+", BREAK_STYLE), " break"))

# Walls drawn from the right of the screen (bottom, left) list their stacks n..1 in screen
# order (left to right, top to bottom), the others 1..n.
REVERSED_ON_SCREEN = {0: True, 1: False, 2: False, 3: True}
# The corner cell (row, column) between a seat's last stack and stack 1 of seat s-1.
CORNER_AFTER = {2: (0, -1), 1: (-1, -1), 0: (-1, 0), 3: (0, 0)}


# -- the walls ----------------------------------------------------------------------------


def _clockwise(sizes: list[int], pos: Position) -> Position:
    seat, stack = pos
    return (seat, stack + 1) if stack < sizes[seat] else ((seat - 1) % SEATS, 1)


def _break(walls: Snapshot, sizes: list[int]) -> frozenset[Position] | None:
    """The two stacks either side of the break: the dead wall's first and the live wall's first."""
    after = walls.get("break_after")
    if not after:
        return None
    start = walls.get("live_start") or _clockwise(sizes, tuple(after))
    return frozenset({tuple(after), tuple(start)})


def _stack_kinds(walls: Snapshot) -> dict[Position, str]:
    kinds = {tuple(p): "dead" for p in walls.get("dead_wall") or ()}
    kinds.update({tuple(p): "dora" for p in walls.get("dora_indicators") or ()})
    return kinds


def _wall_strip(seat: int, size: int, kinds: dict, brk: frozenset | None, across_row: bool) -> list[Cell]:
    """One wall's cells in screen order; walls along a row get a blank between stacks so
    that the square looks square, and the break takes the place of that blank."""
    order = range(size, 0, -1) if REVERSED_ON_SCREEN[seat] else range(1, size + 1)
    cells: list[Cell] = []
    prev = None
    for k in order:
        if prev is not None and brk == {(seat, k), (seat, prev)}:
            cells.append((BREAK_ACROSS_ROW if across_row else BREAK_ACROSS_COLUMN, BREAK_STYLE))
        elif prev is not None and across_row:
            cells.append(BLANK)
        cells.append(STACK_CELLS[kinds.get((seat, k), "live")])
        prev = k
    return cells


def _place(line: list[Cell], cells: list[Cell], start: int, end: int) -> None:
    """Centre ``cells`` in ``line[start:end]``."""
    offset = start + (end - start - len(cells)) // 2
    line[offset:offset + len(cells)] = cells


def _table_canvas(walls: Snapshot, top: list[Text], middle: list[Text], bottom: list[Text]) -> Text:
    """The square of walls; inside it ``top`` lines under the top wall, ``bottom`` lines over
    the bottom wall and ``middle`` in the centre (alone before the walls are up)."""
    sizes = list(walls.get("stacks_per_side") or [0] * SEATS)
    kinds, brk = _stack_kinds(walls), _break(walls, sizes)
    strips = [_wall_strip(s, sizes[s], kinds, brk, across_row=s in (0, 2)) for s in range(SEATS)]
    inside = [*top, *middle, *bottom]
    inner_width = max(len(strips[0]), len(strips[2]), *(len(t) for t in inside))
    inner_height = max(len(strips[1]), len(strips[3]), len(inside))
    # Rows: top wall, the inside, bottom wall; columns: left wall, a gap, the inside, a gap, right wall.
    grid = [[BLANK] * (inner_width + 4) for _ in range(inner_height + 2)]
    _place(grid[0], strips[2], 2, inner_width + 2)
    _place(grid[-1], strips[0], 2, inner_width + 2)
    for column, seat in ((0, 3), (-1, 1)):
        column_cells = [BLANK] * (inner_height + 2)
        _place(column_cells, strips[seat], 1, inner_height + 1)
        for row, cell in zip(grid, column_cells):
            row[column] = cell
    for seat, (row, column) in CORNER_AFTER.items():
        if sizes[seat] and brk == {(seat, sizes[seat]), ((seat - 1) % SEATS, 1)}:
            grid[row][column] = (BREAK_IN_CORNER, BREAK_STYLE)
    middle_row = 1 + len(top) + (inner_height - len(inside)) // 2
    rows = [*enumerate(top, 1), *enumerate(middle, middle_row), *enumerate(bottom, inner_height + 1 - len(bottom))]
    for row, line in rows:
        _place(grid[row], _cells(line), 2, inner_width + 2)
    canvas = Text("\n").join(_row_text(row) for row in grid)
    canvas.justify = "left"  # centring would strip each row's blanks and shear the square
    return canvas


def _cells(text: Text) -> list[Cell]:
    styles = [text.style] * len(text.plain)
    for span in text.spans:
        styles[span.start:span.end] = [span.style] * (span.end - span.start)
    return list(zip(text.plain, styles))


def _row_text(row: list[Cell]) -> Text:
    # One span per run of a style keeps the renderable small.
    return Text.assemble(*(("".join(ch for ch, _ in run), style) for style, run in groupby(row, key=lambda c: c[1])))


# -- the seats -------------------------------------------------------------------------------


def _seat_wind(snap: Snapshot, seat: int) -> int | None:
    """Winds go counter-clockwise from the dealer over the seats in play."""
    seats, dealer = seats_in_play(snap), snap.get("dealer")
    if dealer not in seats or seat not in seats:
        return None
    return (seats.index(seat) - seats.index(dealer)) % len(seats)


def _score(snap: Snapshot, seat: int) -> int | None:
    scores = snap.get("scores") or ()
    return scores[seat] if seat < len(scores) else None


def _signed(points: int) -> str:
    return f"{points:+d}" if points else "0"


def _differences(snap: Snapshot, seat: int) -> list[tuple[int, str]]:
    """(other seat, this seat's lead over it), the player's right first."""
    mine, seats = _score(snap, seat), seats_in_play(snap)
    others = [(seat + k) % SEATS for k in range(1, SEATS) if (seat + k) % SEATS in seats]
    return [(o, _signed(mine - _score(snap, o))) for o in others]


def _rank(snap: Snapshot, seat: int) -> str:
    """1 for the highest score; equal scores share a rank."""
    mine = _score(snap, seat)
    return f"rank {1 + sum(_score(snap, s) > mine for s in seats_in_play(snap))}"


def _lamps(snap: Snapshot, seat: int) -> list[Text]:
    riichi = (snap.get("hand_in_play") or {}).get("riichi") or ()
    marker = snap.get("wind_marker") or {}
    lamps = [("DEALER", "bold black on yellow") if snap.get("dealer") == seat else None,
             ("RIICHI", "bold white on red") if seat in riichi else None,
             (f"[{SEAT_LETTERS[marker['wind']]} marker]", "cyan")
             if marker.get("seat") == seat and marker.get("wind") is not None else None]
    return [Text(*lamp) for lamp in lamps if lamp]


def _seat_display(snap: Snapshot, seat: int, narrow: bool) -> list[Text]:
    """What the seat's display shows: score, then the difference to each other player or
    the rank, then its lamps; ``narrow`` (beside a side wall) puts each on its own line."""
    if seat not in seats_in_play(snap):
        return [Text(f"seat {seat}", style="dim"), Text("empty side", style="dim")]
    wind = _seat_wind(snap, seat)
    head = Text(f"seat {seat}" + (f" {WINDS[wind]}" if wind is not None else ""), style="bold")
    name = [Text(_player_name(snap, seat), style="bold magenta")] if _player_name(snap, seat) else []
    if _score(snap, seat) is None:
        return [head, *name]
    score = Text(str(_score(snap, seat)), style="bold cyan")
    rank_mode = snap.get("display_mode") == "rank"
    if narrow:
        shown = [_rank(snap, seat)] if rank_mode else [f"to {o}: {d}" for o, d in _differences(snap, seat)]
        return [head, *name, score, *map(Text, shown), *_lamps(snap, seat)]
    shown = _rank(snap, seat) if rank_mode else "diff " + "  ".join(f"{o}:{d}" for o, d in _differences(snap, seat))
    return [Text("  ").join([head, *name, score]), Text(shown), Text(" ").join(_lamps(snap, seat))]


def _player_name(snap: Snapshot, seat: int) -> str | None:
    """The name of the seat's player, when the game has named players."""
    return next((p["name"] for p in snap.get("seat_players") or () if p["seat"] == seat), None)


def _side_display(snap: Snapshot, seat: int, justify: str) -> Text:
    block = Text("\n").join(_seat_display(snap, seat, narrow=True))
    block.justify = justify
    return block


# -- the rest ---------------------------------------------------------------------------------


def _centre_lines(snap: Snapshot) -> list[Text]:
    """The table's centre display: round and hand, counters, dice; then the legend."""
    hand, wind = snap.get("hand"), snap.get("round_wind")
    lines = [" ".join(filter(None, [WINDS[wind] + " round" if wind is not None else None,
                                    f"hand {hand}" if hand else None]))]
    if snap.get("honba") is not None or snap.get("riichi_sticks") is not None:
        lines.append(f"honba {snap.get('honba', 0)}  sticks {snap.get('riichi_sticks', 0)}")
    lines += [f"dice {dice_text(snap)}" if dice_text(snap) else "", "game over" if snap.get("finished") else ""]
    centre = [Text(line, style="bold") for line in lines if line] or [Text("walls down", style="dim")]
    return centre + [Text(""), *LEGEND] if snap.get("walls") else centre


LINK_COUNTERS = {"frames_sent": "sent", "retransmits": "retx", "crc_errors": "crc", "resyncs": "resync",
                 "duplicates": "dup"}


def _link_line(link: Snapshot) -> Text:
    srtt = link.get("srtt")
    parts = [f"rtt {ms(srtt)}" if srtt is not None else "rtt -"]
    parts += [f"{label} {link[name]}" for name, label in LINK_COUNTERS.items() if name in link]
    return Text("link  " + " · ".join(parts), style="dim")


def _progress(snap: Snapshot) -> str:
    progress = snap.get("progress") or {}
    hands = progress.get("hands_played", snap.get("hands_played"))
    parts = [f"hands played {hands}" if hands is not None else None]
    if progress.get("elapsed") is not None:
        minutes, seconds = divmod(int(progress["elapsed"]), 60)
        parts.append(f"elapsed {minutes}:{seconds:02d}")
    return " · ".join(filter(None, parts))


def _last_result_line(snap: Snapshot) -> Text:
    record = snap["last_result"]
    kind = (record.get("result") or {}).get("kind", "?")
    payments = per_seat(snap, record.get("payments") or (), _signed)
    return Text(f"last hand {record.get('hand', '?')}: {kind}" + (f" · payments {payments}" if payments else ""))


def _status_line(snap: Snapshot) -> Text:
    line = Text.assemble(("state ", "dim"), (snap.get("state") or "-", "bold"))
    if snap.get("waiting_for"):
        line.append(f"   waiting for {snap['waiting_for']}...", style="bold yellow")
    if snap.get("fault"):
        line.append(f"   FAULT {snap['fault']}", style="bold white on red")
    return line


def render(snapshot: Snapshot) -> RenderableType:
    """The whole view of one table; 24 rows and 80 columns for a 17-stack table."""
    table = Table.grid(padding=(0, 2))
    table.add_column(justify="right", vertical="middle")
    table.add_column()
    table.add_column(justify="left", vertical="middle")
    table.add_row(_side_display(snapshot, 3, "right"),
                  _table_canvas(snapshot.get("walls") or {}, _seat_display(snapshot, 2, narrow=False),
                                _centre_lines(snapshot), _seat_display(snapshot, 0, narrow=False)),
                  _side_display(snapshot, 1, "left"))
    parts: list[RenderableType] = [_status_line(snapshot), table]
    if snapshot.get("last_result"):
        parts.append(_last_result_line(snapshot))
    if snapshot.get("link"):
        parts.append(_link_line(snapshot["link"]))
    title = " · ".join(filter(None, ["mjtable", snapshot.get("ruleset"),
                                     f"{snapshot['players']} players" if snapshot.get("players") else None]))
    return Panel(Group(*parts), title=title, subtitle=_progress(snapshot) or None, expand=False)


# -- views ----------------------------------------------------------------------------------


class LiveView(View):
    """The table redrawn in place on a terminal, on each update (no refresh thread: the
    controller's loop is the only clock). While it is live, log lines meant for the
    terminal go through its console."""

    def __init__(self, console: Console | None = None) -> None:
        self._live = Live(console=console or Console(), auto_refresh=False)
        self._live.start()
        self._restore_logging = _log_through(self._live.console)

    def update(self, snapshot: Snapshot) -> None:
        self._live.update(render(snapshot), refresh=True)

    def close(self) -> None:
        self._restore_logging()
        self._live.stop()


class _ConsoleLogHandler(logging.Handler):
    """Prints log lines through a live console: rich puts each line above the frame and
    redraws the frame under it, where a write straight to the terminal would leave a
    stale copy of the frame on screen."""

    def __init__(self, console: Console, replaced: logging.Handler) -> None:
        super().__init__(replaced.level)
        self.setFormatter(replaced.formatter)
        self._console = console

    def emit(self, record: logging.LogRecord) -> None:
        try:
            self._console.print(Text(self.format(record)))  # Text: a message's brackets are not markup
        except Exception:
            self.handleError(record)


def _writes_to_terminal(handler: logging.Handler) -> bool:
    try:
        return isinstance(handler, logging.StreamHandler) and handler.stream.isatty()
    except (AttributeError, ValueError):  # no isatty, or a closed stream
        return False


def _log_through(console: Console) -> Callable[[], None]:
    """Swap the root logger's terminal handlers for ones printing through ``console``;
    returns what puts them back."""
    root = logging.getLogger()
    swap = {old: _ConsoleLogHandler(console, old) for old in root.handlers if _writes_to_terminal(old)}
    _replace_handlers(root, swap)
    return lambda: _replace_handlers(root, {new: old for old, new in swap.items()})


def _replace_handlers(logger: logging.Logger, replacements: dict[logging.Handler, logging.Handler]) -> None:
    # In place: the order of handlers, and any added meanwhile, stay as they are.
    logger.handlers = [replacements.get(h, h) for h in logger.handlers]


def make_view(stream: IO[str]) -> LiveView | PlainView:
    """The live view on a terminal, plain lines otherwise."""
    console = Console(file=stream)
    return LiveView(console) if console.is_terminal else PlainView(stream)
