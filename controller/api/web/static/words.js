// What the pages say about a status snapshot: seats, winds, states and results in words.

export const WINDS = ["East", "South", "West", "North"];

const STATES = {
  boot: "starting",
  connecting: "connecting to the table",
  self_test: "the table's self test",
  idle: "no game: waiting for a start",
  preparing: "preparing the hand",
  collecting: "collecting the tiles",
  waiting_shuffle: "waiting for the shuffle",
  raising: "raising the walls",
  rolling: "rolling the dice",
  separating: "separating the dead wall",
  revealing_dora: "revealing the dora indicator",
  playing: "playing",
  settling: "settling the hand",
  game_over: "game over",
  paused: "paused",
  fault: "stopped on a fault",
  reconnecting: "reconnecting to the table",
};

export function stateWords(status) {
  if (status.waiting_for === "shuffle") return "waiting for the shuffle";
  return STATES[status.state] ?? status.state;
}

// A rule set of the config's folder is reported by its file: its name is the file's.
export const rulesetName = (ruleset) => (ruleset ?? "").replace(/^.*\//, "").replace(/\.yaml$/, "");

export function esc(text) {
  return String(text).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

// The seats in play, in turn order; sanma's empty side is left out.
export const seatsOf = (status) => status.seats ?? [0, 1, 2, 3];

// Winds go round the seats in play from the dealer.
export function windOf(status, seat) {
  const seats = seatsOf(status);
  if (status.dealer == null || !seats.includes(seat)) return null;
  return (seats.indexOf(seat) - seats.indexOf(status.dealer) + seats.length) % seats.length;
}

export function nameOf(status, seat) {
  const player = (status.seat_players ?? []).find((p) => p && p.seat === seat);
  return player ? player.name : null;
}

// "East · Ann" or "East · seat 2": how a seat is named to people.
export function seatLabel(status, seat) {
  const wind = windOf(status, seat);
  const who = nameOf(status, seat) ?? `seat ${seat}`;
  return wind == null ? who : `${WINDS[wind]} · ${who}`;
}

export const signed = (n) => (n > 0 ? `+${n}` : n < 0 ? `\u2212${-n}` : "0");

function winWords(win) {
  if (win.yakuman) return win.yakuman > 1 ? `${win.yakuman}× yakuman` : "yakuman";
  if (win.points !== undefined) return `${win.points} points`;
  return win.fu == null ? `${win.han} han` : `${win.han} han ${win.fu} fu`;
}

// A result object in words, with ``name(seat)`` naming seats.
export function resultWords(result, name) {
  const list = (seats) => (seats.length ? seats.map(name).join(", ") : "nobody");
  switch (result.kind) {
    case "ron":
      return `ron on ${name(result.discarder)}'s discard: ` +
        result.winners.map((w) => `${name(w.seat)} ${winWords(w)}`).join("; ");
    case "tsumo":
      return `tsumo: ${name(result.winners[0].seat)} ${winWords(result.winners[0])}`;
    case "draw":
      return result.abortive ? "abortive draw" : `exhaustive draw, tenpai: ${list(result.tenpai ?? [])}`;
    case "chombo":
      return `chombo by ${name(result.offender)}`;
    default:
      return result.kind;
  }
}

// The controller reaches its table (a page may follow a controller that does not).
export function tableReachable(status) {
  return status.state !== "reconnecting" && (status.connection?.state ?? "up") === "up";
}
