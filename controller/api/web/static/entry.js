// Result entry for players: the kind, the seats by tapping them, the hand's value with only
// the values the rule set allows, the payments the rules engine computes (op `preview`),
// then the confirmation, which carries the hand's seq so that a resend is applied once.
import { Refused, op } from "./api.js";
import { TileHand, breakdownHtml } from "./tiles.js";
import { t } from "./i18n.js";
import { esc, handWords, seatLabel, seatsOf, signed, yakumanWords } from "./words.js";

// Each kind's words are kind.<kind> in the catalogs.
const KINDS = ["ron", "tsumo", "draw", "abortive", "chombo"];
// Where each seat's button sits in the little table the seats are tapped on.
const AREA = { 0: "bottom", 1: "right", 2: "top", 3: "left" };
const MAX_HAN = 13;

// Which han, fu and points the rule set allows (status `rules`, docs/API.md).
export function fuOptions(hanFu, han, tsumo) {
  if (han >= hanFu.limit_han) return [null];
  const out = [];
  if (tsumo && han >= 2) out.push(20);
  if (han >= (tsumo ? 3 : 2)) out.push(hanFu.seven_pairs_fu);
  for (let fu = 30; fu <= hanFu.max_fu; fu += 10) out.push(fu);
  return out.sort((a, b) => a - b);
}

function hanOptions(hanFu) {
  const out = [];
  for (let han = 1; han <= MAX_HAN; han++) out.push([`${han}`, t("value.han", { han })]);
  for (let n = 1; n <= hanFu.max_yakuman; n++) out.push([`y${n}`, yakumanWords(n)]);
  return out;
}

const options = (pairs, chosen) =>
  pairs.map(([value, text]) => `<option value="${value}"${value === chosen ? " selected" : ""}>${esc(text)}</option>`).join("");

// An engine message names winners by their place in the list; say whose hand it is.
function inWords(message, winners, status) {
  return message.replace(/winners\[(\d+)\]/g, (all, i) =>
    winners[i] === undefined ? all : t("entry.whose_hand", { seat: seatLabel(status, winners[i].seat) }));
}

export class ResultEntry {
  constructor(root) {
    this.root = root;
    this.status = null;
    this.seq = undefined;
    this.notice = "";
    this.reset();
    root.addEventListener("click", (e) => this.click(e));
    root.addEventListener("change", (e) => this.edit(e));
    root.addEventListener("input", (e) => this.type(e));
  }

  reset() {
    this.form = { kind: null, discarder: null, winners: [], tenpai: [], offender: null };
    this.preview = null; // {json, reply} or {json, error}
    this.busy = false;
  }

  show(status) {
    const seq = status.hand_in_play?.seq;
    if (seq !== this.seq) {
      this.seq = seq;
      this.reset();
    }
    this.status = status;
    this.render();
  }

  get rules() {
    return this.status.rules ?? {};
  }

  // ------------------------------------------------------------------ the result object

  win(w, tsumo) {
    if (w.tiles) {  // scored by its tiles (tiles.js): the engine gives han and fu
      const hand = w.tiles.request();
      return hand && { seat: w.seat, tiles: hand };
    }
    if (this.rules.scheme === "riichi") {
      if (w.yakuman) return { seat: w.seat, yakuman: w.yakuman };
      return w.fu == null ? { seat: w.seat, han: w.han } : { seat: w.seat, han: w.han, fu: w.fu };
    }
    const out = { seat: w.seat, points: w.points };
    if (!tsumo && w.responsible !== "discarder") out.responsible = w.responsible;
    return out;
  }

  result() {
    const f = this.form;
    switch (f.kind) {
      case "ron":
        if (f.discarder == null || !f.winners.length) return null;
        return this.whole({ kind: "ron", discarder: f.discarder, winners: f.winners.map((w) => this.win(w, false)) });
      case "tsumo":
        return f.winners.length ? this.whole({ kind: "tsumo", winners: [this.win(f.winners[0], true)] }) : null;
      case "draw":
        return { kind: "draw", tenpai: [...f.tenpai].sort() };
      case "abortive":
        return { kind: "draw", abortive: true };
      case "chombo":
        return f.offender == null ? null : { kind: "chombo", offender: f.offender };
      default:
        return null;
    }
  }

  // A win with a hand still being tapped is not a result yet.
  whole(result) {
    return result.winners.every(Boolean) ? result : null;
  }

  // The op that previews it: a win by tiles is scored first.
  previewOp(result) {
    return result.winners?.some((w) => w.tiles) ? "score_tiles" : "preview";
  }

  newWinner(seat) {
    if (this.rules.scheme === "riichi") return { seat, han: 1, fu: 30, yakuman: 0 };
    return { seat, points: this.rules.points?.min ?? 1, responsible: "discarder" };
  }

  // Keep each winner's fu among those its han allows.
  settleFu() {
    const hanFu = this.rules.han_fu;
    if (!hanFu) return;
    for (const w of this.form.winners) {
      const allowed = fuOptions(hanFu, w.han, this.form.kind === "tsumo");
      if (!allowed.includes(w.fu)) w.fu = allowed.includes(30) ? 30 : allowed[0];
    }
  }

  // ------------------------------------------------------------------ input

  pick(role, seat) {
    const f = this.form;
    const multiple = f.kind === "ron" && this.rules.multiple_ron === "allowed";
    if (role === "discarder") {
      f.discarder = seat;
      f.winners = f.winners.filter((w) => w.seat !== seat);
    } else if (role === "winner") {
      const had = f.winners.find((w) => w.seat === seat);
      if (had) f.winners = f.winners.filter((w) => w !== had);
      else f.winners = multiple ? [...f.winners, this.newWinner(seat)].sort((a, b) => a.seat - b.seat) : [this.newWinner(seat)];
      if (f.discarder === seat) f.discarder = null;
    } else if (role === "tenpai") {
      f.tenpai = f.tenpai.includes(seat) ? f.tenpai.filter((s) => s !== seat) : [...f.tenpai, seat];
    } else if (role === "offender") {
      f.offender = seat;
    }
  }

  click(event) {
    const button = event.target.closest("button");
    if (!button || button.disabled) return;
    const { action, kind, pick, seat } = button.dataset;
    if (button.dataset.tilesWinner !== undefined) {
      this.form.winners[Number(button.dataset.tilesWinner)]?.tiles?.click(button.dataset);
    } else if (action === "by-tiles") {
      const w = this.form.winners[Number(button.dataset.winner)];
      w.tiles = w.tiles ? null : new TileHand();
    } else if (kind) {
      this.form = { ...this.form, kind, winners: [], discarder: null, offender: null,
                    tenpai: kind === "draw" ? [...(this.status.hand_in_play?.riichi ?? [])] : [] };
    } else if (pick) {
      this.pick(pick, Number(seat));
    } else if (action === "riichi") {
      return this.act("riichi", { seat: Number(seat) }, t("entry.riichi_done", { seat: seatLabel(this.status, Number(seat)) }));
    } else if (action === "kan") {
      return this.act("kan", {}, t("entry.kan_done"));
    } else if (action === "confirm") {
      return this.confirm();
    } else if (action === "clear") {
      this.reset();
    } else {
      return;
    }
    this.changed();
  }

  edit(event) {
    const field = event.target;
    const w = this.form.winners[Number(field.dataset.winner)];
    // typed points were taken as they were typed; a redraw now would swallow the next tap
    if (!w || field.name === "points") return;
    if (field.name === "han") {
      const yakuman = field.value.startsWith("y");
      w.yakuman = yakuman ? Number(field.value.slice(1)) : 0;
      w.han = yakuman ? w.han : Number(field.value);
    } else if (field.name === "fu") {
      w.fu = field.value === "" ? null : Number(field.value);
    } else if (field.name === "responsible") {
      w.responsible = field.value === "discarder" ? "discarder" : field.value === "none" ? null : Number(field.value);
    }
    this.changed();
  }

  // Points are typed: the form stays as it is, the preview follows.
  type(event) {
    const field = event.target;
    const w = this.form.winners[Number(field.dataset.winner)];
    if (!w || field.name !== "points") return;
    w.points = field.value === "" ? null : Number(field.value);
    this.askPreview();
  }

  changed() {
    this.settleFu();
    this.render();
    this.askPreview();
  }

  // ------------------------------------------------------------------ the server

  async askPreview() {
    const result = this.result();
    this.preview = null;
    if (!result) return this.renderPreview();
    const json = JSON.stringify(result);
    this.preview = { json, pending: true };
    this.renderPreview();
    let answer;
    try {
      answer = { json, reply: await op(this.previewOp(result), { hand: this.seq, result }) };
    } catch (e) {
      answer = { json, error: this.words(e) };
    }
    if (this.preview?.json === json) {
      this.preview = answer;
      this.renderPreview();
    }
  }

  words(error) {
    if (!(error instanceof Refused)) return t("error.no_answer_why", { why: error.message });
    return inWords(error.message, this.form.winners, this.status);
  }

  async confirm() {
    const asked = this.result();
    if (!asked || this.busy) return;
    // a win by tiles goes in as the han/fu result the engine made of it
    const result = this.preview?.reply?.hands ? this.preview.reply.result : asked;
    this.busy = true;
    this.render();
    const label = this.status.hand_in_play?.label ?? "";
    try {
      const reply = await op("result", { hand: this.seq, result });
      this.notice = t(reply.duplicate ? "entry.recorded_already" : "entry.recorded", { hand: handWords(label) });
      this.reset();
    } catch (e) {
      this.notice = "";
      this.preview = { json: JSON.stringify(asked), error: this.words(e) };
      this.busy = false;
    }
    this.render();
  }

  async act(name, args, done) {
    try {
      await op(name, args);
      this.notice = done;
    } catch (e) {
      this.notice = this.words(e);
    }
    this.render();
  }

  // ------------------------------------------------------------------ drawing

  seatPicker(role, question, chosen, allowed = () => true) {
    const buttons = seatsOf(this.status).map((seat) =>
      `<button type="button" class="seat-pick ${AREA[seat]}" data-pick="${role}" data-seat="${seat}"
        aria-pressed="${chosen(seat)}"${allowed(seat) ? "" : " disabled"}>${esc(seatLabel(this.status, seat))}</button>`);
    return `<fieldset class="picker" data-role="${role}"><legend>${esc(question)}</legend>
      <div class="compass">${buttons.join("")}</div></fieldset>`;
  }

  winnerFields(w, i) {
    const tsumo = this.form.kind === "tsumo";
    const who = `<span class="who">${esc(seatLabel(this.status, w.seat))}</span>`;
    if (this.rules.scheme === "riichi") {
      const toggle = `<button type="button" class="by-tiles" data-action="by-tiles" data-winner="${i}">${
        esc(t(w.tiles ? "entry.by_han_fu" : "entry.by_tiles"))}</button>`;
      if (w.tiles) {
        const shown = this.status.walls?.dora_indicators?.length ?? 0;
        return `<div class="winner" data-seat="${w.seat}">${who} ${toggle}${w.tiles.html(i, this.rules, shown)}</div>`;
      }
      const hanFu = this.rules.han_fu;
      const fu = fuOptions(hanFu, w.han, tsumo).map((v) => [v == null ? "" : `${v}`, v == null ? t("entry.no_fu") : t("value.fu", { fu: v })]);
      const han = w.yakuman ? `y${w.yakuman}` : `${w.han}`;
      const fuSelect = w.yakuman ? "" :
        `<select name="fu" data-winner="${i}" aria-label="fu">${options(fu, w.fu == null ? "" : `${w.fu}`)}</select>`;
      return `<div class="winner" data-seat="${w.seat}">${who}
        <select name="han" data-winner="${i}" aria-label="han">${options(hanOptions(hanFu), han)}</select>${fuSelect} ${toggle}</div>`;
    }
    const { min = 1, max = null } = this.rules.points ?? {};
    let responsible = "";
    if (!tsumo && this.rules.scheme === "zung_jung") {
      const others = seatsOf(this.status).filter((s) => s !== w.seat && s !== this.form.discarder)
        .map((s) => [`${s}`, t("entry.pays", { seat: seatLabel(this.status, s) })]);
      const chosen = w.responsible === "discarder" ? "discarder" : w.responsible == null ? "none" : `${w.responsible}`;
      responsible = `<select name="responsible" data-winner="${i}" aria-label="${esc(t("entry.who_pays"))}">${options(
        [["discarder", t("entry.discarder_pays")], ["none", t("entry.nobody_pays")], ...others], chosen)}</select>`;
    }
    return `<div class="winner" data-seat="${w.seat}">${who}
      <input name="points" type="number" inputmode="numeric" data-winner="${i}" aria-label="${esc(t("entry.points"))}"
        min="${min}"${max == null ? "" : ` max="${max}"`} step="1" value="${w.points ?? ""}"> ${esc(t("entry.points"))} ${responsible}</div>`;
  }

  formHtml() {
    const f = this.form;
    const kinds = KINDS.filter((k) => k !== "abortive" || this.rules.abortive_draw).map((k) =>
      `<button type="button" class="kind" data-kind="${k}" aria-pressed="${f.kind === k}">${esc(t(`kind.${k}`))}</button>`).join("");
    const parts = [`<div class="kinds">${kinds}</div>`];
    const multiple = this.rules.multiple_ron === "allowed";
    if (f.kind === "ron") {
      parts.push(this.seatPicker("discarder", t("entry.who_discarded"), (s) => s === f.discarder));
      parts.push(this.seatPicker("winner", t(multiple ? "entry.who_won_multiple" : "entry.who_won"),
        (s) => f.winners.some((w) => w.seat === s), (s) => s !== f.discarder));
    } else if (f.kind === "tsumo") {
      parts.push(this.seatPicker("winner", t("entry.who_tsumo"), (s) => f.winners.some((w) => w.seat === s)));
    } else if (f.kind === "draw") {
      parts.push(this.seatPicker("tenpai", t("entry.who_tenpai"), (s) => f.tenpai.includes(s)));
    } else if (f.kind === "chombo") {
      parts.push(this.seatPicker("offender", t("entry.who_chombo"), (s) => s === f.offender));
    }
    parts.push(f.winners.map((w, i) => this.winnerFields(w, i)).join(""));
    parts.push(`<div class="preview">${this.previewHtml()}</div>`);
    return parts.join("");
  }

  previewHtml() {
    const p = this.preview;
    const ready = p && p.reply && p.json === JSON.stringify(this.result());
    let body = "";
    if (p?.error) body = `<p class="refused" role="alert">${esc(p.error)}</p>`;
    else if (p?.pending) body = `<p class="pending">${esc(t("entry.asking"))}</p>`;
    else if (ready) {
      const rows = seatsOf(this.status).map((s) => `<tr data-seat="${s}"><td>${esc(seatLabel(this.status, s))}</td>
        <td class="pay">${signed(p.reply.from_shown[s])}</td><td>${p.reply.scores?.[s] ?? ""}</td></tr>`).join("");
      body = `${p.reply.hands ? breakdownHtml(p.reply.hands, this.status) : ""}<table class="payments"><thead><tr><th>${esc(t("entry.seat"))}</th><th>${esc(t("entry.pays_gets"))}</th><th>${esc(t("entry.score_after"))}</th></tr></thead>
        <tbody>${rows}</tbody></table>`;
    }
    return `<div id="preview" aria-live="polite">${body}</div>
      <p class="actions"><button type="button" id="confirm" data-action="confirm"${ready && !this.busy ? "" : " disabled"}>${esc(t("entry.confirm"))}</button>
      <button type="button" data-action="clear">${esc(t("entry.clear"))}</button></p>`;
  }

  renderPreview() {
    const place = this.root.querySelector(".preview");
    if (place) place.innerHTML = this.previewHtml();
  }

  duringHandHtml() {
    const inPlay = this.status.hand_in_play;
    const riichi = this.rules.riichi ? seatsOf(this.status).map((seat) => {
      const declared = inPlay.riichi.includes(seat);
      return `<button type="button" class="riichi" data-action="riichi" data-seat="${seat}"${declared ? " disabled" : ""}>
        ${esc(t(declared ? "entry.riichi_declared" : "entry.riichi", { seat: seatLabel(this.status, seat) }))}</button>`;
    }).join("") : "";
    return `<fieldset class="during"><legend>${esc(t("entry.during"))}</legend>${riichi}
      <button type="button" class="kan" data-action="kan">${esc(t("entry.kan", { kans: inPlay.kans }))}</button></fieldset>`;
  }

  render() {
    const focused = document.activeElement;
    const refocus = this.root.contains(focused) && focused.name ? [focused.name, focused.dataset.winner] : null;
    const s = this.status;
    const notice = this.notice ? `<p class="notice" role="status">${esc(this.notice)}</p>` : "";
    if (!s || s.waiting_for !== "result" || !s.hand_in_play) {
      this.root.innerHTML = `${notice}<p class="idle">${esc(t("entry.idle"))}</p>`;
      return;
    }
    this.root.innerHTML = `${notice}<h2>${esc(t("entry.hand", { hand: handWords(s.hand_in_play.label) }))}</h2>${this.duringHandHtml()}
      <div class="result">${this.formHtml()}</div>`;
    if (refocus) this.root.querySelector(`[name="${refocus[0]}"][data-winner="${refocus[1]}"]`)?.focus();
  }
}
