// Scores by tiles: the winner taps the winning hand (the concealed tiles, the winning tile,
// the melds and kans, the dora indicators the table turned) and how it was won; the rules
// engine counts yaku, han and fu (op `score_tiles`, docs/API.md) and the form shows the
// breakdown beside the payments. Tiles are written as the op takes them: "5m", "0p" (a
// red five), "3z" (West).
import { esc, seatLabel } from "./words.js";

const HONOURS = ["East", "South", "West", "North", "White", "Green", "Red"];
const TARGETS = [
  ["hand", "in the hand"], ["win", "the winning tile"], ["chi", "chi"], ["pon", "pon"], ["kan", "open kan"],
  ["added_kan", "added kan"], ["closed_kan", "closed kan"], ["dora", "dora indicator"], ["ura", "ura dora indicator"],
];
const FLAGS = [
  ["ippatsu", "ippatsu"], ["double_riichi", "double riichi"], ["haitei", "haitei (last tile drawn)"],
  ["houtei", "houtei (last discard)"], ["rinshan", "rinshan (kan's replacement tile)"],
  ["chankan", "chankan (robbing a kan)"], ["tenhou", "tenhou"], ["chiihou", "chiihou"],
];
const MELD_SIZE = { chi: 3, pon: 3, kan: 4, added_kan: 4, closed_kan: 4 };
const HAND_SIZE = 14; // a kan counts as three
const ORDER = "mpsz";

// How a tile reads on its button: "5m", "red 5p", "East".
export function tileWords(tile) {
  if (tile[1] === "z") return HONOURS[Number(tile[0]) - 1];
  return tile[0] === "0" ? `red 5${tile[1]}` : tile;
}

const sortKey = (t) => ORDER.indexOf(t[1]) * 10 + (t[0] === "0" ? 5.5 : Number(t[0]));
const sorted = (tiles) => [...tiles].sort((a, b) => sortKey(a) - sortKey(b));

export class TileHand {
  constructor() {
    this.hand = [];
    this.win = null;
    this.melds = [];
    this.dora = [];
    this.ura = [];
    this.flags = new Set();
    this.target = "hand";
  }

  // Tiles counted towards the 14, a kan as three.
  get size() {
    return this.hand.length + (this.win ? 1 : 0) + this.melds.reduce((n, m) => n + Math.min(m.tiles.length, 3), 0);
  }

  tap(tile) {
    const t = this.target;
    if (t === "hand" || t === "dora" || t === "ura") this[t].push(tile);
    else if (t === "win") {
      this.win = tile;
      this.target = "hand";
    } else {
      let meld = this.melds.at(-1);
      if (!meld || meld.kind !== t || meld.tiles.length === MELD_SIZE[t]) this.melds.push(meld = { kind: t, tiles: [] });
      meld.tiles.push(tile);
    }
  }

  // Take back a tapped tile: the place ("hand", "win", "dora", "ura", "meld") and its index.
  untap(place, index) {
    if (place === "win") this.win = null;
    else if (place === "meld") this.melds.splice(index, 1);
    else this[place].splice(index, 1);
  }

  // What op score_tiles takes for this winner, or null while the hand is not whole.
  request() {
    const whole = this.win && this.size === HAND_SIZE && this.melds.every((m) => m.tiles.length === MELD_SIZE[m.kind]);
    if (!whole) return null;
    const out = { tiles: sorted([...this.hand, this.win]).join(""), win: this.win, dora: this.dora.join("") };
    if (this.melds.length) out.melds = this.melds.map((m) => ({ kind: m.kind, tiles: m.tiles.join("") }));
    if (this.flags.size) out.flags = FLAGS.map(([f]) => f).filter((f) => this.flags.has(f));
    if (this.ura.length) out.ura = this.ura.join("");
    return out;
  }

  // A tap inside this winner's picker (its buttons carry data-tiles-*); false if not one.
  click(data) {
    if (data.tilesTap) this.tap(data.tilesTap);
    else if (data.tilesTarget) this.target = data.tilesTarget;
    else if (data.tilesUntap) this.untap(data.tilesUntap, Number(data.tilesIndex));
    else if (data.tilesFlag) {
      const f = data.tilesFlag;
      if (this.flags.has(f)) this.flags.delete(f);
      else this.flags.add(f);
    } else return false;
    return true;
  }

  palette(i, rules) {
    const row = (tiles, honours = false) => `<div class="tile-row${honours ? " honours" : ""}">${tiles.map((t) =>
      `<button type="button" class="tile" data-tiles-winner="${i}" data-tiles-tap="${t}">${esc(tileWords(t))}</button>`).join("")}</div>`;
    const rows = ["m", "p", "s"].map((suit) => {
      const tiles = [1, 2, 3, 4, 5, 6, 7, 8, 9].map((n) => `${n}${suit}`);
      if (rules.red_fives) tiles.splice(5, 0, `0${suit}`);
      return row(tiles);
    });
    return rows.join("") + row(HONOURS.map((_, n) => `${n + 1}z`), true);
  }

  chips(i, place, tiles, from = 0) {
    return tiles.map((t, n) => `<button type="button" class="tile chip" data-tiles-winner="${i}"
      data-tiles-untap="${place}" data-tiles-index="${n + from}" aria-label="take back ${esc(tileWords(t))}">${esc(tileWords(t))}</button>`).join("");
  }

  html(i, rules, doraShown) {
    const targets = TARGETS.filter(([t]) => t !== "ura" || rules.riichi).map(([t, text]) =>
      `<button type="button" class="target" data-tiles-winner="${i}" data-tiles-target="${t}"
        aria-pressed="${this.target === t}">${esc(text)}</button>`).join("");
    const melds = this.melds.map((m, n) => `<span class="meld">${esc(m.kind.replace("_", " "))}:
      <button type="button" class="tile chip" data-tiles-winner="${i}" data-tiles-untap="meld" data-tiles-index="${n}"
        aria-label="take back the ${esc(m.kind.replace("_", " "))}">${m.tiles.map((t) => esc(tileWords(t))).join(" ")}</button></span>`).join("");
    const flags = FLAGS.map(([f, text]) => `<button type="button" class="flag" data-tiles-winner="${i}" data-tiles-flag="${f}"
      aria-pressed="${this.flags.has(f)}">${esc(text)}</button>`).join("");
    const left = HAND_SIZE - this.size;
    const count = left > 0 ? `tap ${left} more tile${left > 1 ? "s" : ""}` : left < 0 ? `${-left} tile(s) too many` :
      this.win ? "the hand is whole" : "tap the winning tile";
    return `<fieldset class="tiles" data-winner="${i}"><legend>The winning hand, tile by tile (${esc(count)})</legend>
      <p class="tile-targets">Tap tiles as: ${targets}</p>
      ${this.palette(i, rules)}
      <p class="tapped">hand: <span class="hand">${this.chips(i, "hand", this.hand)}</span>
        winning tile: <span class="win">${this.win ? this.chips(i, "win", [this.win]) : "—"}</span>
        ${melds ? `melds: ${melds}` : ""}</p>
      <p class="tapped">dora indicators (the table shows ${doraShown}): <span class="dora">${this.chips(i, "dora", this.dora)}</span>
        ${this.ura.length ? `ura: <span class="ura">${this.chips(i, "ura", this.ura)}</span>` : ""}</p>
      <p class="flags">${flags}</p></fieldset>`;
  }
}

// The engine's count of each hand scored by its tiles (the reply's `hands`).
export function breakdownHtml(hands, status) {
  return hands.map((h) => {
    const yaku = h.yaku.map((y) => `<li>${esc(y.name)} <span class="han">${h.yakuman ? "yakuman" : `${y.han} han`}</span></li>`).join("");
    const value = h.yakuman ? `${h.yakuman > 1 ? `${h.yakuman}× ` : ""}yakuman` : `${h.han} han ${h.fu} fu`;
    const limit = h.limit && !h.yakuman ? ` (${esc(h.limit)})` : "";
    const fu = h.yakuman ? "" : `<p class="fu">fu: ${h.fu_parts.map((f) =>
      `${esc(f.reason.replace(/_/g, " "))} ${f.fu}`).join(", ")}${h.fu_parts.length > 1 ? ` → ${h.fu}` : ""}</p>`;
    return `<div class="breakdown" data-seat="${h.seat}"><p>${esc(seatLabel(status, h.seat))}: <strong>${esc(value)}</strong>${limit}</p>
      <ul>${yaku}</ul>${fu}</div>`;
  }).join("");
}
