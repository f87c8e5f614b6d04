// The journal: this game's hands (dealer, dice, result, payments, scores) and past games,
// from the op `journal`, with the same CSV and JSON lines downloads as `mjtable journal`.
import { Refused, op } from "./api.js";
import { t } from "./i18n.js";
import { esc, handWords, resultWords, rulesetName, signed } from "./words.js";

function seatName(header, record) {
  return (seat) => record.players?.[seat] ?? header?.players?.[seat]?.name ?? t("seat.n", { seat });
}

// A tournament chombo pays nothing at the table: what it costs at the end is said beside.
function penaltyWords(penalties, s) {
  return penalties?.[s] ? `<br><span class="penalty">${esc(t("journal.penalty_later", { points: penalties[s] }))}</span>` : "";
}

// One column per seat: the hand's payment over the score after it; the counters and the
// sticks on the table at the hand's start beside its label. The dealer, dice and result go
// on a line of their own below, across the row, so that a phone keeps every score on screen.
function handRows(record, header) {
  const name = seatName(header, record);
  const cells = record.payments.map((paid, s) =>
    `<td class="seat"><b>${signed(paid)}</b><br>${record.scores[s]}${penaltyWords(record.penalties, s)}</td>`).join("");
  return `<tr class="hand" data-hand="${esc(record.hand)}"><th>${esc(handWords(record.hand))}</th>
    <td class="count">${record.honba}</td><td class="count">${record.riichi_sticks}</td>${cells}</tr>
    <tr class="what" data-hand="${esc(record.hand)}"><td colspan="${3 + record.payments.length}">${esc(t("journal.what", {
    dealer: name(record.dealer), dice: record.dice.join(" + "), result: resultWords(record.result, name) }))}</td></tr>`;
}

function finalRow(record, seats) {
  const cells = seats.map((s) => `<td class="seat"><b>${signed(record.final_scores[s])}</b><br>${esc(t("card.rank", { rank: record.ranks[s] }))}${
    record.penalties?.[s] ? `<br><span class="penalty">${esc(t("journal.penalty_in", { points: record.penalties[s] }))}</span>` : ""}</td>`).join("");
  const after = esc(t(record.penalties ? "journal.final_penalties" : "journal.final"));
  return `<tr class="final"><th colspan="3">${after}</th>${cells}</tr>`;
}

export function journalHtml(records) {
  const header = records.find((r) => r.seating);
  const hands = records.filter((r) => r.hand !== undefined && r.payments);
  const final = records.find((r) => r.final);
  if (!hands.length) return `<p class="idle">${esc(t("journal.none"))}</p>`;
  const name = seatName(header, hands[0]);
  const seats = hands[0].payments.map((_, s) => s);
  const heads = seats.map((s) => `<th class="seat">${esc(name(s))}</th>`).join("");
  return `<div class="scroll"><table class="journal"><thead><tr><th>${esc(t("journal.hand"))}</th>
    <th class="count" title="${esc(t("journal.honba_title"))}">${esc(t("journal.honba"))}</th>
    <th class="count" title="${esc(t("journal.riichi_title"))}">${esc(t("journal.riichi"))}</th>${heads}</tr></thead>
    <tbody>${hands.map((r) => handRows(r, header)).join("")}${final ? finalRow(final, seats) : ""}</tbody></table></div>`;
}

function gameLabel(game) {
  const day = (game.started_at ?? "").slice(0, 16).replace("T", " ");
  return `${t("journal.game_n", { game: game.id })} · ${rulesetName(game.ruleset)} · ${day} · ${t(`game.${game.status}`)}`;
}

export class Journal {
  constructor(root) {
    this.root = root;
    this.game = null; // null: the game in play or the latest
    root.addEventListener("change", (e) => {
      if (e.target.name === "game") this.load(e.target.value === "" ? null : Number(e.target.value));
    });
  }

  async load(game = this.game) {
    this.game = game;
    let reply;
    try {
      reply = await op("journal", game == null ? {} : { game });
    } catch (e) {
      this.root.innerHTML = `<p class="refused">${esc(e instanceof Refused ? e.message : t("error.no_answer"))}</p>`;
      return;
    }
    const shown = reply.game?.id;
    const games = (reply.games ?? []).map((g) =>
      `<option value="${g.id}"${g.id === shown ? " selected" : ""}>${esc(gameLabel(g))}</option>`).join("");
    const query = shown == null ? "" : `?game=${shown}`;
    this.root.innerHTML = `<p class="games"><label>${esc(t("journal.game"))} <select name="game">${games}</select></label></p>
      <p class="downloads">${esc(t("journal.download"))} <a href="/api/journal.csv${query}" download>CSV</a>
      · <a href="/api/journal.jsonl${query}" download>${esc(t("journal.jsonl"))}</a></p>
      ${journalHtml(reply.records ?? [])}`;
  }
}
