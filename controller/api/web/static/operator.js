// The operator's page: the fault with its code and what to do, retry / pause / resume /
// abandon, a new game with a rule set and players, and the players' PIN with a QR code
// of the page's address.
import { Refused, op, session } from "./api.js";
import { t } from "./i18n.js";
import { esc, faultSaid, tableReachable } from "./words.js";

const SEAT_FIELDS = [0, 1, 2, 3];

export class Operator {
  constructor(root) {
    this.root = root;
    this.notice = "";
    this.armed = false; // abandon asks twice
    this.secrets = null; // the operator's own session fields: the PIN, the page's address
    this.hand = undefined; // the hand in play when the PIN was last asked for
    root.addEventListener("click", (e) => this.click(e));
  }

  show(status) {
    // A new hand, or a new game's first: the PIN may be new. (The page may not see every
    // state in between, so the hand's number tells.)
    const hand = status.hand_in_play?.seq ?? null;
    const next = hand !== this.hand;
    this.hand = hand;
    this.status = status;
    if (next) this.refresh();
    else this.render();
  }

  // The PIN, the page's address and the rule sets come with the operator's session.
  async refresh() {
    try {
      const mine = await session();
      this.secrets = { pin: mine.pin, url: mine.url };
      this.rulesets = mine.rulesets ?? null;
      // the server draws the address's QR code (op qr), once per address
      if (mine.role === "operator" && mine.url && this.qr?.url !== mine.url) this.qr = await op("qr").catch(() => null);
    } catch {
      this.secrets = null;
    }
    this.render();
  }

  async click(event) {
    const button = event.target.closest("button");
    if (!button || button.disabled) return;
    const action = button.dataset.action;
    if (action === "abandon" && !this.armed) {
      this.armed = true;
      return this.render();
    }
    this.armed = false;
    if (action === "start") return this.send("start", this.startArgs(), t("operator.started"));
    if (["retry", "pause", "resume", "abandon"].includes(action)) return this.send(action, {}, t("operator.done", { action: t(`operator.${action}`) }));
  }

  startArgs() {
    const form = this.root.querySelector(".start");
    const args = {};
    const ruleset = form.querySelector("[name=ruleset]").value;
    if (ruleset) args.ruleset = ruleset;
    if (form.querySelector("[name=length]").value === "east") args.east_only = true;
    const dealer = form.querySelector("[name=dealer]").value;
    if (dealer !== "") args.dealer = dealer === "draw" ? "draw" : Number(dealer);
    const names = [...form.querySelectorAll("[name=player]")].map((f) => f.value.trim()).filter(Boolean);
    if (names.length) {
      args.players = names.map((name) => ({ name }));
      args.seating = form.querySelector("[name=seating]").value;
    }
    return args;
  }

  async send(name, args, done) {
    try {
      await op(name, args);
      this.notice = done;
    } catch (e) {
      this.notice = e instanceof Refused ? e.message : t("error.no_answer");
    }
    await this.refresh();
  }

  faultHtml() {
    const s = this.status;
    if (!s.fault && !tableReachable(s)) {
      const why = s.connection?.problem ?? t("operator.restoring");
      return `<div class="fault unreachable" role="alert"><p>${esc(t("operator.unreachable", { why }))}</p></div>`;
    }
    if (!s.fault) return `<p class="ok">${esc(t("operator.no_fault"))}</p>`;
    // the code is shown on its own line: the text is its description, without the code again
    const code = `E${s.fault_code}`;
    const text = s.fault.startsWith(`${code} `) ? s.fault.slice(code.length + 1) : s.fault;
    const said = faultSaid(s);
    const words = said ? `<p>${esc(said)}</p><p class="detail" lang="en">${esc(text)}</p>` : `<p>${esc(text)}</p>`;
    return `<div class="fault" role="alert"><p class="code">${code}</p>${words}</div>`;
  }

  pinHtml() {
    if (!this.secrets) return "";
    const pin = this.secrets.pin ? `<p class="pin" aria-label="${esc(t("operator.pin"))}">${esc(this.secrets.pin)}</p>` : "";
    const address = this.secrets.url ? `<p class="url">${esc(this.secrets.url)}</p>` : "";
    const qr = this.secrets.url && this.qr?.url === this.secrets.url ? this.qr.svg : "";
    return `<section class="players-pin"><h3>${esc(t("operator.for_players"))}</h3>${pin}${qr}${address}</section>`;
  }

  startHtml() {
    const rulesets = (this.rulesets ?? [this.status.ruleset]).map((r) =>
      `<option${r === this.status.ruleset ? " selected" : ""}>${esc(r)}</option>`).join("");
    const players = SEAT_FIELDS.map((seat) =>
      `<input name="player" aria-label="${esc(t("operator.player_at", { seat }))}" placeholder="${esc(t("seat.n", { seat }))}" maxlength="16">`).join("");
    const w = (key) => esc(t(key));
    return `<fieldset class="start"><legend>${w("operator.new_game")}</legend>
      <label>${w("operator.ruleset")} <select name="ruleset">${rulesets}</select></label>
      <label>${w("operator.length")} <select name="length"><option value="">${w("operator.whole_game")}</option>
        <option value="east">${w("operator.east_only")}</option></select></label>
      <label>${w("operator.dealer")} <select name="dealer"><option value="">${w("operator.as_configured")}</option><option value="draw">${w("operator.drawn")}</option>
        ${SEAT_FIELDS.map((s) => `<option value="${s}">${esc(t("seat.n", { seat: s }))}</option>`).join("")}</select></label>
      <p>${w("operator.players")}</p><div class="names">${players}</div>
      <label>${w("operator.seating")} <select name="seating"><option value="as-given">${w("operator.as_given")}</option><option value="draw">${w("operator.drawn")}</option></select></label>
      <button type="button" data-action="start">${w("operator.start")}</button></fieldset>`;
  }

  // The start form keeps what was typed and chosen through a redraw.
  typed() {
    return [...this.root.querySelectorAll(".start [name]")].map((field) => field.value);
  }

  render() {
    if (!this.status) return;
    const kept = this.typed();
    const focused = [...this.root.querySelectorAll(".start [name]")].indexOf(document.activeElement);
    const notice = this.notice ? `<p class="notice" role="status">${esc(this.notice)}</p>` : "";
    const abandon = esc(t(this.armed ? "operator.abandon_really" : "operator.abandon"));
    this.root.innerHTML = `${notice}${this.faultHtml()}
      <p class="controls"><button type="button" data-action="retry">${esc(t("operator.retry"))}</button>
      <button type="button" data-action="pause">${esc(t("operator.pause"))}</button>
      <button type="button" data-action="resume">${esc(t("operator.resume"))}</button>
      <button type="button" data-action="abandon" class="danger">${abandon}</button></p>
      ${this.pinHtml()}${this.startHtml()}`;
    const fields = [...this.root.querySelectorAll(".start [name]")];
    kept.forEach((value, i) => { if (fields[i]) fields[i].value = value; });
    if (focused >= 0) fields[focused]?.focus();
  }
}
