// The table page: the walls seen from above as SVG, drawn from the status snapshot alone.
// Seat 0 sits at the bottom, then counter-clockwise seat 1 on the right, seat 2 at the top
// and seat 3 on the left (docs/GEOMETRY.md). Stack 1 is the wall's right end as its owner
// sees it, so seat 0's wall reads n..1 from left to right and seat 2's, facing it, 1..n.
import { t } from "./i18n.js";
import { esc, handWords, nameOf, resultWords, seatLabel, seatsOf, signed, stateWords, windMark, windOf, windWord } from "./words.js";

const SIZE = 1000;
const MID = SIZE / 2;
const STEP = 36; // one stack along the wall, with its gap
const LONG = 33; // a stack's length along the wall
const DEEP = 40; // and across it
const REACH = 345; // from the centre to a wall's inner edge

// Where stack k of a seat's wall of n stacks lies: its rectangle [x, y, width, height].
export function stackRect(seat, k, n) {
  const start = MID - (n * STEP) / 2;
  const along = (index) => start + index * STEP;
  switch (seat) {
    case 0: return [along(n - k), MID + REACH, LONG, DEEP];
    case 1: return [MID + REACH, along(k - 1), DEEP, LONG];
    case 2: return [along(k - 1), MID - REACH - DEEP, LONG, DEEP];
    default: return [MID - REACH - DEEP, along(n - k), DEEP, LONG];
  }
}

const key = (p) => `${p[0]}:${p[1]}`;
const centre = ([x, y, w, h]) => [x + w / 2, y + h / 2];

function wallsSvg(walls) {
  const dead = new Set((walls.dead_wall ?? []).map(key));
  const dora = new Set((walls.dora_indicators ?? []).map(key));
  const out = [];
  walls.stacks_per_side.forEach((n, seat) => {
    for (let k = 1; k <= n; k++) {
      const [x, y, w, h] = stackRect(seat, k, n);
      const p = key([seat, k]);
      const kind = dora.has(p) ? "dora" : dead.has(p) ? "dead" : "live";
      out.push(`<rect class="stack ${kind}" data-stack="${p}" x="${x}" y="${y}" width="${w}" height="${h}" rx="4"/>`);
      if (kind === "dora") out.push(`<text class="dora-mark" x="${x + w / 2}" y="${y + h / 2 + 8}">D</text>`);
    }
  });
  if (walls.break_after && walls.live_start) out.push(breakSvg(walls));
  return out.join("");
}

// The break: a red bar between the dead wall's first stack and the live wall's first.
function breakSvg(walls) {
  const sizes = walls.stacks_per_side;
  const [a, b] = [walls.break_after, walls.live_start].map((p) => centre(stackRect(p[0], p[1], sizes[p[0]])));
  const [mx, my] = [(a[0] + b[0]) / 2, (a[1] + b[1]) / 2];
  if (walls.break_after[0] !== walls.live_start[0]) {
    return `<circle class="break" cx="${mx}" cy="${my}" r="14"/>`;
  }
  const across = walls.break_after[0] % 2 === 0; // walls 0 and 2 run along the screen's rows
  const [dx, dy] = across ? [0, DEEP / 2 + 12] : [DEEP / 2 + 12, 0];
  return `<line class="break" x1="${mx - dx}" y1="${my - dy}" x2="${mx + dx}" y2="${my + dy}"/>`;
}

// Each seat's label inside the walls: wind, name, score; where its riichi stick lies.
const LABELS = {
  0: { x: MID, y: 790, anchor: "middle", stick: [MID - 80, 700] },
  1: { x: 815, y: 500, anchor: "end", stick: [655, 540] },
  2: { x: MID, y: 235, anchor: "middle", stick: [MID - 80, 290] },
  3: { x: 185, y: 500, anchor: "start", stick: [185, 540] },
};

const short = (name) => (name.length > 10 ? `${name.slice(0, 9)}\u2026` : name);

function seatSvg(status, seat) {
  const { x, y, anchor, stick } = LABELS[seat];
  const wind = windOf(status, seat);
  const name = nameOf(status, seat);
  const declared = status.hand_in_play?.riichi?.includes(seat);
  const dealer = status.dealer === seat;
  const head = `${wind == null ? "" : windMark(wind)} ${name ? short(name) : t("seat.n", { seat })}`.trim();
  return `<g class="seat${dealer ? " dealer" : ""}" data-seat="${seat}">
    <text class="seat-head" x="${x}" y="${y - 40}" text-anchor="${anchor}">${esc(head)}${dealer ? " \u25CF" : ""}</text>
    <text class="seat-score" x="${x}" y="${y}" text-anchor="${anchor}">${status.scores?.[seat] ?? ""}</text>
    ${declared ? `<rect class="riichi-stick" x="${stick[0]}" y="${stick[1]}" width="160" height="12" rx="6"/>
      <circle class="riichi-dot" cx="${stick[0] + 80}" cy="${stick[1] + 6}" r="4"/>` : ""}
  </g>`;
}

const PIPS = { 1: [4], 2: [0, 8], 3: [0, 4, 8], 4: [0, 2, 6, 8], 5: [0, 2, 4, 6, 8], 6: [0, 2, 3, 5, 6, 8] };

function diceSvg(dice) {
  const side = 48;
  const left = MID - (dice.length * (side + 12) - 12) / 2;
  return dice.map((value, i) => {
    const x = left + i * (side + 12);
    const y = 520;
    const pips = (PIPS[value] ?? []).map((cell) =>
      `<circle cx="${x + 10 + (cell % 3) * 14}" cy="${y + 10 + Math.floor(cell / 3) * 14}" r="4.5"/>`).join("");
    return `<g class="die" data-value="${value}"><rect x="${x}" y="${y}" width="${side}" height="${side}" rx="8"/>${pips}</g>`;
  }).join("");
}

// The wind marker sits outside the starting dealer's wall, at its owner's right.
const MARKER = { 0: [880, 905], 1: [905, 120], 2: [120, 95], 3: [95, 880] };

function markerSvg(marker) {
  const [x, y] = MARKER[marker.seat];
  return `<g class="wind-marker"><rect x="${x - 30}" y="${y - 30}" width="60" height="60" rx="8"/>
    <text x="${x}" y="${y + 12}">${windMark(marker.wind)}</text></g>`;
}

function centreSvg(status) {
  const lines = [];
  if (status.hand) {
    const hand = t("table.hand", { hand: handWords(status.hand) });
    const round = status.round_wind == null ? hand : `${t("table.round", { wind: windWord(status.round_wind) })} · ${hand}`;
    lines.push(`<text class="round" x="${MID}" y="360">${esc(round)}</text>`);
    const counters = t("table.counters", { honba: status.honba, sticks: status.riichi_sticks });
    lines.push(`<text class="counters" x="${MID}" y="410">${esc(counters)}</text>`);
  }
  const state = status.fault_code ? t("table.fault", { code: `E${status.fault_code}` }) : stateWords(status);
  lines.push(`<text class="state${status.fault_code ? " fault" : ""}" x="${MID}" y="${status.hand ? 470 : MID}">${esc(state)}</text>`);
  const dice = status.hand_in_play?.dice ?? [];
  if (dice.length) lines.push(diceSvg(dice));
  return lines.join("");
}

export function tableSvg(status) {
  const parts = [`<rect class="felt" x="0" y="0" width="${SIZE}" height="${SIZE}" rx="40"/>`];
  if (status.walls) parts.push(wallsSvg(status.walls));
  if (status.wind_marker && status.scores) parts.push(markerSvg(status.wind_marker));
  if (status.scores) for (const seat of seatsOf(status)) parts.push(seatSvg(status, seat));
  parts.push(centreSvg(status));
  return `<svg viewBox="0 0 ${SIZE} ${SIZE}" role="img" aria-label="${esc(t("table.svg"))}">${parts.join("")}</svg>`;
}

// Each seat in words: wind, player, score and the difference to every other seat.
export function seatCards(status) {
  if (!status.scores) return "";
  const seats = seatsOf(status);
  return seats.map((seat) => {
    const score = status.scores[seat];
    const diffs = seats.filter((other) => other !== seat).map((other) =>
      `<li>${esc(t("card.to", { seat: seatLabel(status, other) }))} <b>${signed(score - status.scores[other])}</b></li>`).join("");
    const badges = [
      status.dealer === seat ? `<span class="badge dealer">${esc(t("card.dealer"))}</span>` : "",
      status.hand_in_play?.riichi?.includes(seat) ? `<span class="badge riichi">${esc(t("card.riichi"))}</span>` : "",
      status.ranks ? `<span class="badge rank">${esc(t("card.rank", { rank: status.ranks[seat] }))}</span>` : "",
    ].join("");
    const penalty = status.penalties?.[seat] ? ` <span class="penalty">${esc(t("card.penalty", { points: status.penalties[seat] }))}</span>` : "";
    const final = status.final_scores ? `<p class="final">${esc(t("card.final", { score: signed(status.final_scores[seat]) }))}${penalty}</p>` : "";
    return `<section class="card" data-seat="${seat}">
      <h3>${esc(seatLabel(status, seat))} ${badges}</h3>
      <p class="score">${score}</p>${final}<ul class="diffs">${diffs}</ul></section>`;
  }).join("");
}

export function lastHandWords(status) {
  const record = status.last_result;
  if (!record?.result) return "";
  const name = (seat) => record.players?.[seat] ?? nameOf(status, seat) ?? t("seat.n", { seat });
  const pays = seatsOf(status).map((s) => `${esc(name(s))} ${signed(record.payments[s])}`).join(" · ");
  return `${esc(t("table.last_hand", { hand: handWords(record.hand), result: resultWords(record.result, name) }))} — ${pays}`;
}
