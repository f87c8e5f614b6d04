// The floor view: one tile per table, kept live over the WebSocket (/ws).
// The server sends the whole floor at connect ("floor"), then each change ("tile",
// "gone", "broker"). Table data is only ever set as text, never as HTML; the server checks
// each status against the schema (a bad one comes as "bad status" with its problem), and a
// tile that still cannot be drawn shows so, never taking the other tiles with it.
"use strict";

// The floor's words in the reader's language (static/i18n/LANG.json), picked as the table's
// page picks them: the switch's choice (kept in localStorage), the browser's, else English.
const LANGUAGES = { en: "English", ja: "日本語", "zh-Hans": "简体中文", "zh-Hant": "繁體中文" };
const TAGS = [[/^ja/, "ja"], [/^zh-(hant|tw|hk|mo)/, "zh-Hant"], [/^zh/, "zh-Hans"], [/^en/, "en"]];
const picked = (tag) => TAGS.find(([pattern]) => pattern.test(tag.toLowerCase()))?.[1];
const language = LANGUAGES[localStorage.getItem("mjtable-language")] ? localStorage.getItem("mjtable-language")
  : navigator.languages.map(picked).find(Boolean) ?? "en";
let words = {};
const say = (key, params = {}) => (words[key] ?? key).replace(/\{(\w+)\}/g, (all, name) => (name in params ? params[name] : all));

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
  event.target.textContent = say("floor.sound_on");
  event.target.classList.add("on");
});

function age(since) {
  const s = Math.max(0, Math.round(Date.now() / 1000 + clockOffset - since));
  return s < 60 ? say("floor.seconds", { s }) : s < 3600 ? say("floor.minutes", { m: Math.floor(s / 60), s: s % 60 })
    : say("floor.hours", { h: Math.floor(s / 3600), m: Math.floor(s % 3600 / 60) });
}

function players(t) {
  const names = new Map((t.seat_players || []).map((p) => [p.seat, p.name]));
  return (t.seats || []).map((seat) => names.get(seat) || say("floor.seat", { seat })).join(" · ");
}

function scores(t) {
  const row = el("div", "scores");
  (t.scores || []).forEach((score, i) => {
    const cell = el("span", "score", String(score));
    if (i === t.dealer) cell.title = say("floor.dealer");
    row.append(cell);
  });
  return row;
}

function lastHand(t) {
  const h = t.last_hand;
  if (!h) return "";
  const pays = (h.payments || []).map((p) => (p > 0 ? "+" : "") + p).join(" ");
  const kind = h.kind ? words[`kind.${h.kind}`] ?? h.kind : "?";
  return say(h.honba ? "floor.last_honba" : "floor.last", { hand: h.hand, honba: h.honba, kind, pays });
}

function due(t) {
  return (t.maintenance_due || []).map((d) => say(d.due ? "floor.due" : "floor.soon", d)).join("; ");
}

// A state or what a table waits for, in words where the catalog has them (a newer
// controller's new state shows as it is named).
const stateWords = (state) => words[`state.${state}`] ?? state;
const waitingWords = (what) => words[`waiting.${what}`] ?? say("floor.waiting", { what });

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
    tile.append(el("span", "id", String(t.table_id)), el("div", "problem", say("floor.bad_status")));
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
  top.append(el("span", "id", t.table_id), el("span", "state", t.state ? stateWords(t.state) : say("floor.no_status")));
  const hand = t.hand ? say("floor.hand", { hand: t.hand, honba: t.honba ?? 0, sticks: t.riichi_sticks ?? 0,
                                            played: t.hands_played ?? 0 }) : t.ruleset || "";
  const fault = el("div", "fault", faultText(t));
  const faultAge = el("span", "age");
  fault.append(" · ", faultAge);
  tile.append(top, el("div", "problem", t.problem || ""), el("div", "players", players(t)), el("div", "hand", hand), scores(t), fault,
              el("div", "waiting", waitingWords(t.waiting_for)), el("div", "due", due(t)), el("div", "last", lastHand(t)));
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
    say("floor.summary", { tables: all.length, faults: count("fault"), offline: count("offline") });
  document.getElementById("empty").hidden = all.length > 0;
}

function broker(b) {
  const c = document.getElementById("connection");
  c.textContent = b.up ? say("floor.broker_up") : say("floor.broker_down", { why: b.why || "" });
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
    c.textContent = say("floor.unreachable");
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

// The fixed texts and the switch, once the catalog is read; then the floor.
async function begin() {
  words = await (await fetch(`/static/i18n/${language}.json`)).json();
  document.documentElement.lang = language;
  for (const e of document.querySelectorAll("[data-i18n]")) e.textContent = say(e.dataset.i18n);
  document.getElementById("sound").title = say("floor.sound_title");
  const select = document.getElementById("language");  // none on the hall's page, which embeds the floor
  if (select) {
    for (const [lang, name] of Object.entries(LANGUAGES)) select.append(new Option(name, lang, false, lang === language));
    select.addEventListener("change", () => {
      localStorage.setItem("mjtable-language", select.value);
      location.reload();
    });
  }
  start();
}

begin();
