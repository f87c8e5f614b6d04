// What the pages say about a status snapshot: seats, winds, states and results in words.

import { language, t } from "./i18n.js";

export const WIND_KEYS = ["wind.east", "wind.south", "wind.west", "wind.north"];
export const windWord = (wind) => t(WIND_KEYS[wind]);
// The wind's one character on the table's drawing: E, S, W, N (東, 南, 西, 北).
export const windMark = (wind) => t(`${WIND_KEYS[wind]}.mark`);

// A hand's label as the server gives it ("E1": the round's wind and the hand in it) in words:
// "E1", 東1局.
export function handWords(label) {
  const m = /^([ESWN])(\d+)$/.exec(label ?? "");
  if (!m) return label ?? "";
  const wind = "ESWN".indexOf(m[1]);
  return t("hand.label", { mark: windMark(wind), n: m[2] });
}

// Every state the table machine has (controller/game/machine.py) has its words: state.<state>.
export function stateWords(status) {
  if (status.waiting_for === "shuffle") return t("state.waiting_shuffle");
  const key = `state.${status.state}`;
  const text = t(key);
  return text === key ? status.state : text;
}

// A fault in the reader's words (fault.<code>): what happened and what to do. The
// controller's own text says it in English with the details (the sensor, the step), so an
// English reader has that alone; others have both. null for a code the catalogs lack.
export function faultSaid(status) {
  if (language === "en" || !status.fault_code) return null;
  const key = `fault.${status.fault_code}`;
  const text = t(key);
  return text === key ? null : text;
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
  const who = nameOf(status, seat) ?? t("seat.n", { seat });
  return wind == null ? who : `${windWord(wind)} · ${who}`;
}

export const signed = (n) => (n > 0 ? `+${n}` : n < 0 ? `\u2212${-n}` : "0");

export const yakumanWords = (n) => (n > 1 ? t("value.yakuman_n", { n }) : t("value.yakuman"));

function winWords(win) {
  if (win.yakuman) return yakumanWords(win.yakuman);
  if (win.points !== undefined) return t("value.points", { points: win.points });
  return win.fu == null ? t("value.han", { han: win.han }) : t("value.han_fu", { han: win.han, fu: win.fu });
}

// A result object in words, with ``name(seat)`` naming seats.
export function resultWords(result, name) {
  const list = (seats) => (seats.length ? seats.map(name).join(t("list.and")) : t("list.nobody"));
  switch (result.kind) {
    case "ron":
      return t("result.ron", { discarder: name(result.discarder),
        winners: result.winners.map((w) => `${name(w.seat)} ${winWords(w)}`).join("; ") });
    case "tsumo":
      return t("result.tsumo", { winner: `${name(result.winners[0].seat)} ${winWords(result.winners[0])}` });
    case "draw":
      return result.abortive ? t("result.abortive") : t("result.draw", { tenpai: list(result.tenpai ?? []) });
    case "chombo":
      return t("result.chombo", { offender: name(result.offender) });
    default:
      return result.kind;
  }
}

// The controller reaches its table (a page may follow a controller that does not).
export function tableReachable(status) {
  return status.state !== "reconnecting" && (status.connection?.state ?? "up") === "up";
}
