// The table's server: ops over HTTP (JSON) with the session's CSRF token, and the live
// event stream over a WebSocket that reconnects by itself (docs/API.md, "HTTP and WebSocket").

export class Refused extends Error {
  constructor(code, message, reply) {
    super(message);
    this.code = code;
    this.reply = reply;
  }
}

let csrf = null;

async function reply(response) {
  let body;
  try {
    body = await response.json();
  } catch {
    throw new Refused("http", `the table answered HTTP ${response.status}`, null);
  }
  if (body.ok === false) {
    // the session ended (a new game's PIN, a restarted controller): the page asks again
    if (body.error.code === "unauthorized") window.dispatchEvent(new Event("mjtable:session"));
    throw new Refused(body.error.code, body.error.message, body);
  }
  return body;
}

async function post(path, args) {
  const headers = { "Content-Type": "application/json" };
  if (csrf) headers["X-CSRF-Token"] = csrf;
  return reply(await fetch(path, { method: "POST", headers, body: JSON.stringify(args), credentials: "same-origin" }));
}

export async function session() {
  const s = await reply(await fetch("/api/session", { credentials: "same-origin" }));
  csrf = s.csrf ?? null;
  return s;
}

export async function login(args) {
  const s = await post("/api/login", args);
  csrf = s.csrf ?? csrf;
  return s;
}

export async function logout() {
  await post("/api/logout", {});
  csrf = null;
}

export const op = (name, args = {}) => post(`/api/op/${name}`, args);

export async function status() {
  return reply(await fetch("/api/status", { credentials: "same-origin" }));
}

// The stream's messages are the status snapshot first, then events; an event without a
// snapshot of its own is followed by one fetched here (coalesced: one fetch at a time).
export function follow({ onStatus, onEvent, onLink }) {
  let delay = 250;
  let fetching = false;
  let again = false;

  async function refresh() {
    if (fetching) {
      again = true;
      return;
    }
    fetching = true;
    try {
      do {
        again = false;
        onStatus(await status());
      } while (again);
    } catch {
      // the stream's close or the next event fetches again
    } finally {
      fetching = false;
    }
  }

  function open() {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    const socket = new WebSocket(`${scheme}://${location.host}/api/events`);
    socket.onopen = () => {
      delay = 250;
      onLink(true);
    };
    socket.onmessage = (message) => {
      const data = JSON.parse(message.data);
      if (data.status && typeof data.status === "object") onStatus(data.status);
      else if (data.event === undefined) onStatus(data);
      else refresh();
      if (data.event !== undefined && data.event !== "status") onEvent(data);
    };
    socket.onclose = () => {
      onLink(false);
      setTimeout(open, delay);
      delay = Math.min(delay * 2, 2000);
    };
  }
  open();
}
