// The floor view: one tile per table, kept live over the WebSocket (/ws).
// The server sends the whole floor at connect ("floor"), then each change ("tile",
// "gone", "broker"). Table data is only ever set as text, never as HTML; the server checks
// each status against the schema (a bad one comes as "bad status" with its problem), and a
// tile that still cannot be drawn shows so, never taking the other tiles with it.
"use strict";

const tiles = new Map();        // table id -> the tile's element
const faulted = new Map();      // table id -> the fault code shown (to beep once per new fault)
let clockOffset = 0;            // the server's clock minus this browser's, in seconds
let audio = null;
window.floorBeeps = 0;          // how many times a fault sounded (read by the browser tests)

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

function beep() {
  window.floorBeeps += 1;
  if (!audio || audio.state !== "running") return;
  const osc = audio.createOscillator(), gain = audio.createGain();
  osc.frequency.value = 880;
  gain.gain.setValueAtTime(0.2, audio.currentTime);
  gain.gain.exponentialRampToValueAtTime(0.001, audio.currentTime + 0.6);
  osc.connect(gain).connect(audio.destination);
  osc.start();
  osc.stop(audio.currentTime + 0.6);
}

document.getElementById("sound").addEventListener("click", (event) => {
  audio = audio || new AudioContext();
  audio.resume();
  event.target.textContent = "sound on";
  event.target.classList.add("on");
});

function age(since) {
  const s = Math.max(0, Math.round(Date.now() / 1000 + clockOffset - since));
  return s < 60 ? `${s} s` : s < 3600 ? `${Math.floor(s / 60)} min ${s % 60} s` : `${Math.floor(s / 3600)} h ${Math.floor(s % 3600 / 60)} min`;
}

function players(t) {
  const names = new Map((t.seat_players || []).map((p) => [p.seat, p.name]));
  return (t.seats || []).map((seat) => names.get(seat) || `seat ${seat}`).join(" · ");
}

function scores(t) {
  const row = el("div", "scores");
  (t.scores || []).forEach((score, i) => {
    const cell = el("span", "score", String(score));
    if (i === t.dealer) cell.title = "dealer";
    row.append(cell);
  });
  return row;
}

function lastHand(t) {
  const h = t.last_hand;
  const honba = h && h.honba ? ` (honba ${h.honba})` : "";
  return h ? `last ${h.hand}${honba}: ${h.kind || "?"} ${(h.payments || []).map((p) => (p > 0 ? "+" : "") + p).join(" ")}` : "";
}

function due(t) {
  return (t.maintenance_due || []).map((d) => `${d.due ? "due" : "soon"}: ${d.task} (${d.since} of ${d.every} ${d.counter})`)
    .join("; ");
}

function faultText(t) {
  if (t.fault_code == null) return "";
  const text = t.fault || "";
  return text.startsWith(`E${t.fault_code}`) ? text : `E${t.fault_code} ${text}`;
}

function safeUrl(url) {
  try {
    const parsed = new URL(url);
    return ["http:", "https:"].includes(parsed.protocol) ? parsed.href : null;
  } catch {
    return null;
  }
}

function render(t) {
  let tile;
  try {
    tile = drawn(t);
  } catch (error) {
    tile = el("div", "tile bad");
    tile.append(el("span", "id", String(t.table_id)), el("div", "problem", "bad status"));
  }
  tile.id = `tile-${t.table_id}`;
  tile.dataset.table = t.table_id;
  const old = tiles.get(t.table_id);
  if (old) old.replaceWith(tile); else place(tile, t.table_id);
  tiles.set(t.table_id, tile);
}

function drawn(t) {
  const url = t.web_url ? safeUrl(t.web_url) : null;
  const tile = el(url ? "a" : "div", "tile");
  if (url) tile.href = url;
  tile.dataset.state = t.state || "";
  tile.dataset.handsPlayed = t.hands_played ?? "";
  const top = el("div", "top");
  top.append(el("span", "id", t.table_id), el("span", "state", t.state || "no status"));
  const hand = t.hand ? `${t.hand} · honba ${t.honba ?? 0} · sticks ${t.riichi_sticks ?? 0} · ${t.hands_played ?? 0} played`
                      : t.ruleset || "";
  const fault = el("div", "fault", faultText(t));
  const faultAge = el("span", "age");
  fault.append(" · ", faultAge);
  tile.append(top, el("div", "problem", t.problem || ""), el("div", "players", players(t)), el("div", "hand", hand), scores(t), fault,
              el("div", "waiting", `waiting for ${t.waiting_for}`), el("div", "due", due(t)), el("div", "last", lastHand(t)));
  tile.classList.toggle("offline", t.online === false);
  tile.classList.toggle("waiting", t.waiting_for === "shuffle");
  const isFault = t.fault_code != null;
  tile.classList.toggle("fault", isFault);
  if (isFault) {
    tile.dataset.faultSince = t.fault_since;
    faultAge.textContent = age(t.fault_since);
    if (faulted.get(t.table_id) !== t.fault_code) {
      tile.classList.add("fresh");
      beep();
    }
    faulted.set(t.table_id, t.fault_code);
  } else {
    faulted.delete(t.table_id);
  }
  return tile;
}

function place(tile, id) {
  const after = [...tiles.keys()].filter((k) => k > id).sort()[0];
  document.getElementById("tiles").insertBefore(tile, after ? tiles.get(after) : null);
}

function remove(id) {
  tiles.get(id)?.remove();
  tiles.delete(id);
  faulted.delete(id);
}

function summary() {
  const all = [...tiles.values()];
  const count = (cls) => all.filter((t) => t.classList.contains(cls)).length;
  document.getElementById("summary").textContent =
    `${all.length} tables · ${count("fault")} in fault · ${count("offline")} offline`;
  document.getElementById("empty").hidden = all.length > 0;
}

function broker(b) {
  const c = document.getElementById("connection");
  c.textContent = b.up ? "broker connected" : `broker unreachable, retrying (${b.why || ""})`;
  c.className = b.up ? "up" : "down";
}

function onMessage(m) {
  if (m.type === "floor") {
    clockOffset = m.server_time - Date.now() / 1000;
    const present = new Set(m.tiles.map((t) => t.table_id));
    [...tiles.keys()].filter((id) => !present.has(id)).forEach(remove);
    m.tiles.forEach(render);  // a fault already shown before a reconnect does not sound again
    broker(m.broker);
  } else if (m.type === "tile") {
    render(m.tile);
  } else if (m.type === "gone") {
    remove(m.table_id);
  } else if (m.type === "broker") {
    broker(m);
  }
  summary();
}

function connect() {
  const ws = new WebSocket(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws`);
  ws.onmessage = (event) => onMessage(JSON.parse(event.data));
  ws.onclose = () => {
    const c = document.getElementById("connection");
    c.textContent = "floor view unreachable, reconnecting…";
    c.className = "down";
    setTimeout(connect, 1000);
  };
}

setInterval(() => {
  for (const tile of tiles.values()) {
    if (tile.classList.contains("fault")) tile.querySelector(".age").textContent = age(Number(tile.dataset.faultSince));
  }
}, 1000);

// With `mjtable floor --secret-file`, the floor shows once logged in with the operator secret.
async function start() {
  const session = await (await fetch("/session")).json();
  const form = document.getElementById("login");
  if (!session.login || session.in) {
    connect();
    return;
  }
  form.hidden = false;
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const reply = await fetch("/login", {method: "POST", headers: {"Content-Type": "application/json"},
                                         body: JSON.stringify({secret: form.elements.secret.value})});
    const body = await reply.json();
    if (!reply.ok) {
      document.getElementById("login-error").textContent = body.error.message;
      return;
    }
    form.hidden = true;
    connect();
  });
}

start();
