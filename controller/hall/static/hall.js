// The standings, the tables not yet reported and each table's time left: fetched once, then
// pushed on the floor's WebSocket (floor.js draws the tiles from the same stream on a
// connection of its own).
"use strict";

function standings(m) {
  document.getElementById("results").textContent = `· ${m.results} results`;
  const body = document.querySelector("#standings tbody");
  body.replaceChildren(...m.standings.map((r) => {
    const tr = document.createElement("tr");
    tr.dataset.number = r.number;
    const name = `${r.first_name} ${r.last_name}` + (r.disqualified === "yes" ? " (disqualified)" : "");
    for (const v of [r.position, name, r.country, r.games, r.table_points, r.score]) {
      const td = document.createElement("td");
      td.textContent = v;
      tr.append(td);
    }
    return tr;
  }));
  const waiting = Object.entries(m.unreported).filter(([, t]) => t.length)
    .map(([round, t]) => `round ${round}: tables ${t.join(", ")}`);
  document.getElementById("unreported").textContent = waiting.length ? `not reported · ${waiting.join(" · ")}` : "";
}

// Each table's time left, from its clock's end (the tile's time_limit.ends_at), every second.
const clocks = new Map();

function clock(tile) {
  if (tile) clocks.set(tile.table_id, (tile.time_limit || {}).ends_at || null);
}

function showTimes() {
  for (const [id, endsAt] of clocks) {
    const tile = document.getElementById(`tile-${id}`);
    if (!tile) continue;
    let left = tile.querySelector(".time-left");
    if (!left) {
      left = document.createElement("div");
      left.className = "time-left";
      tile.append(left);
    }
    const seconds = endsAt ? Math.max(0, Math.round((Date.parse(endsAt) - Date.now()) / 1000)) : null;
    left.textContent = seconds === null ? "" :
      `time left ${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}`;
  }
}

setInterval(showTimes, 1000);

function follow() {
  const ws = new WebSocket(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws`);
  ws.onopen = () => fetch("/standings").then((r) => r.json()).then(standings);
  ws.onmessage = (event) => {
    const m = JSON.parse(event.data);
    if (m.type === "standings") standings(m);
    else if (m.type === "floor") m.tiles.forEach(clock);
    else if (m.type === "tile") clock(m.tile);
    showTimes();
  };
  ws.onclose = () => setTimeout(follow, 1000);
}

// The director's actions: each needs the hall's operator secret, sent as a bearer token.
async function director(path, body) {
  const secret = document.getElementById("secret").value;
  const headers = {"Content-Type": "application/json", ...(secret ? {"Authorization": `Bearer ${secret}`} : {})};
  const reply = await fetch(path, {method: "POST", body: JSON.stringify(body), headers});
  const answer = await reply.json();
  document.getElementById("answers").textContent = answer.ok || answer.tables
    ? (answer.tables || [`correction ${answer.correction.id} recorded`]).join("\n")
    : `refused: ${answer.error.message}`;
}

document.querySelectorAll("#director button[data-order]").forEach((button) => {
  button.addEventListener("click", () => director("/api/tables", {
    order: button.dataset.order, signal: button.dataset.signal,
    round: Number(document.getElementById("round").value)}));
});

document.getElementById("correction").addEventListener("submit", (event) => {
  event.preventDefault();
  const form = new FormData(event.target);
  director("/api/correct", {player: Number(form.get("player")), points: Number(form.get("points")),
    who: form.get("who"), why: form.get("why")});
});

follow();
