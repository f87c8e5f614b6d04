// The standings and the tables not yet reported: fetched once, then pushed on the floor's
// WebSocket (floor.js draws the tiles from the same stream on a connection of its own).
"use strict";

function standings(m) {
  document.getElementById("results").textContent = `· ${m.results} results`;
  const body = document.querySelector("#standings tbody");
  body.replaceChildren(...m.standings.map((r) => {
    const tr = document.createElement("tr");
    tr.dataset.number = r.number;
    for (const v of [r.position, `${r.first_name} ${r.last_name}`, r.country, r.games, r.table_points, r.score]) {
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

function follow() {
  const ws = new WebSocket(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws`);
  ws.onopen = () => fetch("/standings").then((r) => r.json()).then(standings);
  ws.onmessage = (event) => {
    const m = JSON.parse(event.data);
    if (m.type === "standings") standings(m);
  };
  ws.onclose = () => setTimeout(follow, 1000);
}

follow();
