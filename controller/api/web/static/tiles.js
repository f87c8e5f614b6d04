// Scores by tiles: the winner taps the winning hand (the concealed tiles, the winning tile,
// the melds and kans, the dora indicators the table turned) and how it was won; the rules
// engine counts yaku, han and fu (op `score_tiles`, docs/API.md) and the form shows the
// breakdown beside the payments. Tiles are written as the op takes them: "5m", "0p" (a
// red five), "3z" (West).
import { t } from "./i18n.js";
import { esc, seatLabel, yakumanWords } from "./words.js";

// Their words are tile.<tile>, target.<target> and flag.<flag> in the catalogs.
const HONOURS = 7;
const TARGETS = ["hand", "win", "chi", "pon", "kan", "added_kan", "closed_kan", "dora", "ura"];
const FLAGS = ["ippatsu", "double_riichi", "haitei", "houtei", "rinshan", "chankan", "tenhou", "chiihou"];
const MELD_SIZE = { chi: 3, pon: 3, kan: 4, added_kan: 4, closed_kan: 4 };
const HAND_SIZE = 14; // a kan counts as three
const ORDER = "mpsz";

// How a tile reads on its button: "5m", "red 5p", "East".
export function tileWords(tile) {
  if (tile[1] === "z") return t(`tile.${tile}`);
  return tile[0] === "0" ? t("tile.red", { tile: `5${tile[1]}` }) : tile;
}

const sortKey = (tile) => ORDER.indexOf(tile[1]) * 10 + (tile[0] === "0" ? 5.5 : Number(tile[0]));
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
    const target = this.target;
    if (target === "hand" || target === "dora" || target === "ura") this[target].push(tile);
    else if (target === "win") {
      this.win = tile;
      this.target = "hand";
    } else {
      let meld = this.melds.at(-1);
      if (!meld || meld.kind !== target || meld.tiles.length === MELD_SIZE[target]) this.melds.push(meld = { kind: target, tiles: [] });
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
    const row = (tiles, honours = false) => `<div class="tile-row${honours ? " honours" : ""}">${tiles.map((tile) =>
      `<button type="button" class="tile" data-tiles-winner="${i}" data-tiles-tap="${tile}">${esc(tileWords(tile))}</button>`).join("")}</div>`;
    const rows = ["m", "p", "s"].map((suit) => {
      const tiles = [1, 2, 3, 4, 5, 6, 7, 8, 9].map((n) => `${n}${suit}`);
      if (rules.red_fives) tiles.splice(5, 0, `0${suit}`);
      return row(tiles);
    });
    return rows.join("") + row(Array.from({ length: HONOURS }, (_, n) => `${n + 1}z`), true);
  }

  chips(i, place, tiles, from = 0) {
    return tiles.map((tile, n) => `<button type="button" class="tile chip" data-tiles-winner="${i}"
      data-tiles-untap="${place}" data-tiles-index="${n + from}" aria-label="${esc(t("tiles.take_back", { what: tileWords(tile) }))}">${esc(tileWords(tile))}</button>`).join("");
  }

  html(i, rules, doraShown) {
    const targets = TARGETS.filter((target) => target !== "ura" || rules.riichi).map((target) =>
      `<button type="button" class="target" data-tiles-winner="${i}" data-tiles-target="${target}"
        aria-pressed="${this.target === target}">${esc(t(`target.${target}`))}</button>`).join("");
    const melds = this.melds.map((m, n) => `<span class="meld">${esc(t(`meld.${m.kind}`))}:
      <button type="button" class="tile chip" data-tiles-winner="${i}" data-tiles-untap="meld" data-tiles-index="${n}"
        aria-label="${esc(t("tiles.take_back", { what: t(`meld.${m.kind}`) }))}">${m.tiles.map((tile) => esc(tileWords(tile))).join(" ")}</button></span>`).join("");
    const flags = FLAGS.map((f) => `<button type="button" class="flag" data-tiles-winner="${i}" data-tiles-flag="${f}"
      aria-pressed="${this.flags.has(f)}">${esc(t(`flag.${f}`))}</button>`).join("");
    const left = HAND_SIZE - this.size;
    const count = left > 1 ? t("tiles.more_n", { n: left }) : left === 1 ? t("tiles.more_1") :
      left < 0 ? t("tiles.too_many", { n: -left }) : t(this.win ? "tiles.whole" : "tiles.tap_win");
    return `<fieldset class="tiles" data-winner="${i}"><legend>${esc(t("tiles.legend", { count }))}</legend>
      <p class="tile-targets">${esc(t("tiles.tap_as"))} ${targets}</p>
      ${this.palette(i, rules)}
      <p class="tapped">${esc(t("tiles.hand"))} <span class="hand">${this.chips(i, "hand", this.hand)}</span>
        ${esc(t("tiles.winning"))} <span class="win">${this.win ? this.chips(i, "win", [this.win]) : "—"}</span>
        ${melds ? `${esc(t("tiles.melds"))} ${melds}` : ""}</p>
      <p class="tapped">${esc(t("tiles.dora", { n: doraShown }))} <span class="dora">${this.chips(i, "dora", this.dora)}</span>
        ${this.ura.length ? `${esc(t("tiles.ura"))} <span class="ura">${this.chips(i, "ura", this.ura)}</span>` : ""}</p>
      <p class="flags">${flags}</p></fieldset>`;
  }
}

// The engine's count of each hand scored by its tiles (the reply's `hands`).
export function breakdownHtml(hands, status) {
  return hands.map((h) => {
    const yaku = h.yaku.map((y) => `<li>${esc(y.name)} <span class="han">${esc(h.yakuman ? t("value.yakuman") : t("value.han", { han: y.han }))}</span></li>`).join("");
    const value = h.yakuman ? yakumanWords(h.yakuman) : t("value.han_fu", { han: h.han, fu: h.fu });
    const limit = h.limit && !h.yakuman ? ` (${esc(h.limit)})` : "";
    const fu = h.yakuman ? "" : `<p class="fu">${esc(t("tiles.fu"))} ${h.fu_parts.map((f) =>
      `${esc(f.reason.replace(/_/g, " "))} ${f.fu}`).join(", ")}${h.fu_parts.length > 1 ? ` → ${h.fu}` : ""}</p>`;
    return `<div class="breakdown" data-seat="${h.seat}"><p>${esc(seatLabel(status, h.seat))}: <strong>${esc(value)}</strong>${limit}</p>
      <ul>${yaku}</ul>${fu}</div>`;
  }).join("");
}
