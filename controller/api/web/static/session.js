// The club session's totals on the table's tab, as `mjtable session show` prints them (op
// session_show): for the roles that may read them, asked again when a game starts or ends.
import { op } from "./api.js";
import { t } from "./i18n.js";
import { esc, signed } from "./words.js";

// session_show's least role in the op table (controller/api/ops.py) and the roles above it
export const READ_BY = ["operator"];

const panel = document.querySelector("#session-totals");
let asked = null; // what the totals on screen were asked for: the role, the session, its games

function who(total) {
  const ids = [["ema_id", "EMA"], ["club_id", t("session.club")]].filter(([key]) => total[key]).map(([key, label]) =>
    `${label} ${total[key]}`);
  return esc(total.name) + (ids.length ? ` (${esc(ids.join(", "))})` : "");
}

export function totalsHtml(report) {
  const s = report.session;
  const title = `<h3>${esc(t("session.title", { id: s.id, name: s.name ? ` (${s.name})` : "", games: s.games }))}</h3>`;
  if (!report.totals.length) return `${title}<p class="idle">${esc(t("session.none"))}</p>`;
  const rows = report.totals.map((t, i) => `<tr><td>${i + 1}</td><th>${who(t)}</th><td class="seat">${t.games}</td>
    <td class="seat">${signed(t.table_points)}</td><td class="seat">${t.score}</td>
    <td class="seat">${t.average_rank.toFixed(2)}</td></tr>`).join("");
  const heads = [t("session.place"), t("session.player")].map((h) => `<th>${esc(h)}</th>`).join("") +
    [t("session.games"), t("session.table_points"), t("session.score"), t("session.average_rank")]
      .map((h) => `<th class="seat">${esc(h)}</th>`).join("");
  return `${title}<div class="scroll"><table class="journal totals"><thead><tr>${heads}</tr></thead>
    <tbody>${rows}</tbody></table></div>`;
}

const AGAIN_MS = 1000; // a game's end is stored a moment after the status says it is over

async function show(status, role) {
  const session = status.session;
  const key = session && READ_BY.includes(role) ? `${role} ${session.id} ${session.games} ${status.finished}` : null;
  if (key === asked) return;
  asked = key;
  if (key === null) {
    panel.hidden = true;
    panel.innerHTML = "";
    return;
  }
  try {
    const report = await op("session_show");
    if (asked !== key) return;
    [panel.innerHTML, panel.hidden] = [totalsHtml(report), false];
    if (status.finished && report.games.some((g) => g.status === "active")) again(key, status, role);
  } catch {
    asked = null; // asked again with the next status
  }
}

function again(key, status, role) {
  setTimeout(() => {
    if (asked !== key) return; // a newer status asked meanwhile
    asked = null;
    show(status, role);
  }, AGAIN_MS);
}

// app.js tells every status it draws, with the page's role
window.addEventListener("mjtable:status", (e) => show(e.detail.status, e.detail.role));
