// The page's shell: the session's role, the tabs, and the live status drawn on every page.
import { Refused, follow, login, logout, session } from "./api.js";
import { LANGUAGES, choose, language, setScheme, t, translatePage } from "./i18n.js";
import { ResultEntry } from "./entry.js";
import { Journal } from "./journal.js";
import { Operator } from "./operator.js";
import { lastHandWords, seatCards, tableSvg } from "./table.js";
import { esc, faultSaid, rulesetName, stateWords, tableReachable } from "./words.js";

const $ = (selector) => document.querySelector(selector);
const TABS = ["table", "result", "journal", "operator"];
const ENTERS = new Set(["player", "operator"]);

let role = "spectator";
let latest = null;

const entry = new ResultEntry($("#entry"));
const journal = new Journal($("#journal-view"));
const operator = new Operator($("#operator-view"));

// "live" is the page's stream AND the controller's link to the table: a page that follows a
// controller which cannot reach its table is not live.
let streamLive = false;

function showLink() {
  const link = $("#link");
  link.dataset.live = String(streamLive);
  const reachable = !latest || tableReachable(latest);
  link.dataset.table = reachable ? "up" : "down";
  link.textContent = t(!streamLive ? "link.reconnecting" : reachable ? "link.live" : "link.unreachable");
}

function draw(status) {
  latest = status;
  setScheme(status.rules?.scheme);
  showLink();
  $("#ruleset").textContent = rulesetName(status.ruleset);
  $("#walls").innerHTML = tableSvg(status);
  $("#cards").innerHTML = seatCards(status);
  $("#last").innerHTML = lastHandWords(status);
  const fault = $("#fault");
  const problem = status.fault ?? status.connection?.problem;  // a table that cannot be connected says why
  fault.hidden = !problem;
  const said = faultSaid(status);  // the reader's words, the controller's English beside them
  const text = said ? `${esc(said)} <small class="detail" lang="en">${esc(problem)}</small>` : esc(problem);
  fault.innerHTML = problem ? `<b>${esc(stateWords(status))}:</b> ${text}` : "";
  document.body.dataset.state = status.state;
  if (ENTERS.has(role)) entry.show(status);
  if (role === "operator") operator.show(status);
  window.dispatchEvent(new CustomEvent("mjtable:status", { detail: { status, role } })); // for session.js
}

function showRole(s) {
  role = s.role ?? "spectator";
  $("#role").dataset.role = role;
  $("#role").textContent = t(`role.${role}`);
  $("#logout").hidden = role === "spectator";
  $("#pin-login").hidden = ENTERS.has(role);
  $("#entry").hidden = !ENTERS.has(role);
  $("#operator-login").hidden = role === "operator";
  $("#operator-view").hidden = role !== "operator";
  if (role !== "operator") $("#operator-view").innerHTML = "";
  if (!ENTERS.has(role)) $("#entry").innerHTML = "";
  if (latest) draw(latest);
  if (role === "operator") operator.refresh();
}

function openTab() {
  const name = TABS.includes(location.hash.slice(1)) ? location.hash.slice(1) : "table";
  for (const tab of TABS) {
    $(`#tab-${tab}`).hidden = tab !== name;
    document.querySelector(`nav [data-tab="${tab}"]`).setAttribute("aria-current", tab === name ? "page" : "false");
  }
  if (name === "journal") journal.load();
}

function loginForm(form, args) {
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const problem = form.querySelector(".refused");
    try {
      await login(args(form));
      problem.textContent = "";
      form.reset();
      showRole(await session());
      followTable();
    } catch (e) {
      problem.textContent = e instanceof Refused ? e.message : t("error.no_answer");
    }
  });
}

loginForm($("#pin-login"), (form) => ({ role: "player", pin: form.elements.pin.value.trim() }));
loginForm($("#operator-login"), (form) => ({ role: "operator", secret: form.elements.secret.value }));
$("#logout").addEventListener("click", async () => {
  await logout().catch(() => {});
  showRole(await session());
});
window.addEventListener("hashchange", openTab);
window.addEventListener("mjtable:session", async () => showRole(await session().catch(() => ({ role: "spectator" }))));

let lastHands = null;
let following = false;
let wasLive = false;

// The table is followed once the role may read it (web.spectators may ask for a login).
function followTable() {
  if (following) return;
  following = true;
  follow({
    onStatus(status) {
      draw(status);
      // a hand ended: the journal on screen gets it
      if (status.hands_played !== lastHands && !$("#tab-journal").hidden) journal.load();
      lastHands = status.hands_played;
    },
    onEvent() {},
    async onLink(live) {
      streamLive = live;
      showLink();
      // a restarted controller has forgotten every session
      if (live && wasLive) showRole(await session().catch(() => ({ role: "spectator" })));
      wasLive = wasLive || live;
    },
  });
}

const MAY_READ = { open: () => true, pin: (role) => ENTERS.has(role), operator: (role) => role === "operator" };

async function begin() {
  let s;
  try {
    s = await session();
  } catch {
    s = { role: "spectator", spectators: "open" };
  }
  showRole(s);
  if ((MAY_READ[s.spectators] ?? MAY_READ.open)(role)) followTable();
  else {
    $("#link").textContent = t(s.spectators === "pin" ? "link.watch_pin" : "link.watch_operator");
    location.hash = s.spectators === "pin" ? "#result" : "#operator";
  }
}

// The language switch: every language the page speaks, each named in itself.
function languageSwitch() {
  const select = $("#language");
  select.innerHTML = Object.entries(LANGUAGES).map(([lang, name]) =>
    `<option value="${lang}"${lang === language ? " selected" : ""}>${esc(name)}</option>`).join("");
  select.addEventListener("change", () => choose(select.value));
}

translatePage();
languageSwitch();
openTab();
begin();
