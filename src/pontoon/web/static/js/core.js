// Shared by the page's modules: the page's state, DOM helpers, the REST client, cards as SVG.
export const $ = (sel) => document.querySelector(sel);
// The login session is an HttpOnly cookie the page never sees; only the table watched is remembered.
export const S = {
  name: null, guest: false,
  // an invite link (/t/{id}) opens its table; else the table this tab watched
  tableId: (location.pathname.match(/^\/t\/([0-9a-f]{8})$/) || [])[1] || sessionStorage.getItem("table_id"),
  ws: null, state: null, boxSel: {}, hints: null, hintsAsked: -1, hintPending: 0, leaving: false, lobbyTimer: null,
  waiting: false, wasSeated: false, lostAt: null, retries: 0,
  muted: new Set(JSON.parse(localStorage.getItem("muted") || "[]")),  // chat: people this browser mutes
};
export const CASINO_KEYS = { hit: "h", stand: "s", double: "d", split: "p", rescue: "r", surrender: "u", insure: "i",
  decline: "c", bet: "b", deal: "Enter", clear_bets: "x" };
export const BRITISH_KEYS = { stake: "k", twist: "t", buy: "b", stick: "s", split: "p", burn: "u", shoot: "o",
  pass: "n", double: "d", kitty: "y" };
export const SUITS = { S: ["♠", "#111"], C: ["♣", "#111"], H: ["♥", "#c62828"], D: ["♦", "#c62828"] };

export function notice(text) {
  $("#notice").textContent = text || "";
}

export async function api(method, path, body) {
  const headers = { "Content-Type": "application/json" };
  const r = await fetch(path, { method, headers, credentials: "same-origin",
    body: body === undefined ? undefined : JSON.stringify(body) });
  const data = await r.json().catch(() => ({}));
  if (!r.ok) throw new Error(data.detail || r.statusText);
  return data;
}

// ---------------------------------------------------------------- cards as SVG
export function cardSVG(code) {
  const ns = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(ns, "svg");
  svg.setAttribute("width", "52"); svg.setAttribute("height", "74"); svg.setAttribute("viewBox", "0 0 52 74");
  svg.setAttribute("class", "card"); svg.setAttribute("data-card", code);
  const rect = document.createElementNS(ns, "rect");
  rect.setAttribute("x", "1"); rect.setAttribute("y", "1"); rect.setAttribute("width", "50"); rect.setAttribute("height", "72");
  rect.setAttribute("rx", "6"); rect.setAttribute("stroke", "#333");
  svg.appendChild(rect);
  if (!/^[2-9TJQKA][SHDC]$/.test(code)) {  // face down
    rect.setAttribute("fill", "#7b1f2e");
    const inner = document.createElementNS(ns, "rect");
    inner.setAttribute("x", "6"); inner.setAttribute("y", "6"); inner.setAttribute("width", "40"); inner.setAttribute("height", "62");
    inner.setAttribute("rx", "4"); inner.setAttribute("fill", "none"); inner.setAttribute("stroke", "#e8c9a0");
    inner.setAttribute("stroke-dasharray", "3 2");
    svg.appendChild(inner);
    return svg;
  }
  rect.setAttribute("fill", "#fff");
  const [sym, colour] = SUITS[code[1]];
  const rank = code[0] === "T" ? "10" : code[0];
  const add = (x, y, size, text, anchor) => {
    const t = document.createElementNS(ns, "text");
    t.setAttribute("x", x); t.setAttribute("y", y); t.setAttribute("font-size", size); t.setAttribute("fill", colour);
    t.setAttribute("font-family", "sans-serif"); t.setAttribute("text-anchor", anchor || "start");
    t.setAttribute("font-weight", "700"); t.textContent = text; svg.appendChild(t);
  };
  add(5, 17, 14, rank); add(5, 31, 13, sym); add(26, 55, 28, sym, "middle");
  return svg;
}

export function cardsEl(codes) {
  const div = document.createElement("div");
  div.className = "cards";
  for (const c of codes || []) div.appendChild(cardSVG(c));
  return div;
}

export function el(tag, text, cls) {
  const e = document.createElement(tag);
  if (text !== undefined && text !== null) e.textContent = text;
  if (cls) e.className = cls;
  return e;
}

