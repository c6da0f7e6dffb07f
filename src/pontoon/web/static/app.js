// The Pontoon table page: plain JavaScript, no build step, no CDN (served by the app).
"use strict";

const $ = (sel) => document.querySelector(sel);
// The login session is an HttpOnly cookie the page never sees; only the table watched is remembered.
const S = {
  name: null, guest: false,
  tableId: sessionStorage.getItem("table_id"),
  ws: null, state: null, boxSel: {}, hints: null, hintsAsked: -1, leaving: false, lobbyTimer: null,
};
const CASINO_KEYS = { hit: "h", stand: "s", double: "d", split: "p", rescue: "r", surrender: "u", insure: "i",
  decline: "c", bet: "b", deal: "Enter", clear_bets: "x" };
const BRITISH_KEYS = { stake: "k", twist: "t", buy: "b", stick: "s", split: "p", burn: "u", shoot: "o",
  pass: "n", double: "d", kitty: "y" };
const SUITS = { S: ["♠", "#111"], C: ["♣", "#111"], H: ["♥", "#c62828"], D: ["♦", "#c62828"] };

function notice(text) {
  $("#notice").textContent = text || "";
}

async function api(method, path, body) {
  const headers = { "Content-Type": "application/json" };
  const r = await fetch(path, { method, headers, credentials: "same-origin",
    body: body === undefined ? undefined : JSON.stringify(body) });
  const data = await r.json().catch(() => ({}));
  if (!r.ok) throw new Error(data.detail || r.statusText);
  return data;
}

// ---------------------------------------------------------------- cards as SVG
function cardSVG(code) {
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

function cardsEl(codes) {
  const div = document.createElement("div");
  div.className = "cards";
  for (const c of codes || []) div.appendChild(cardSVG(c));
  return div;
}

function el(tag, text, cls) {
  const e = document.createElement(tag);
  if (text !== undefined && text !== null) e.textContent = text;
  if (cls) e.className = cls;
  return e;
}

// ---------------------------------------------------------------- account and lobby
function showAccount() {
  $("#account-form").hidden = !!S.name;
  $("#account-info").hidden = !S.name;
  $("#account-guest").hidden = !S.guest;
  $("#claim-form").hidden = !S.guest;
  if (S.name) $("#account-label").textContent = S.name;
}

function signedIn(a) {
  S.name = a ? a.name : null; S.guest = a ? a.guest : false;
  if (a) $("#account-balance").textContent = a.balance;
  $("#account-password").value = ""; $("#claim-password").value = "";
  showAccount();
}

async function refreshAccount() {  // the session's own account (the cookie): 401 when logged out
  try { signedIn(await api("GET", "/api/auth/session")); } catch (e) { signedIn(null); }
}

async function account(path, withPassword) {
  const body = { name: $("#account-name").value.trim() };
  if (withPassword) body.password = $("#account-password").value;
  try { signedIn(await api("POST", path, body)); notice(""); } catch (e) { notice(e.message); }
}

$("#account-form").addEventListener("submit", (ev) => {  // Enter: log in when a password is typed, else a guest
  ev.preventDefault();
  if ($("#account-password").value && ev.submitter !== $("#account-create")) account("/api/auth/login", true);
  else account("/api/accounts", false);
});
$("#account-register").addEventListener("click", () => account("/api/auth/register", true));
$("#account-login").addEventListener("click", () => account("/api/auth/login", true));
$("#logout").addEventListener("click", async () => {
  try { await api("POST", "/api/auth/logout"); } catch (e) { /* the cookie is cleared either way */ }
  if (S.tableId) backToLobby();
  signedIn(null); notice("logged out");
});
$("#claim-form").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  try {
    signedIn(await api("POST", "/api/auth/claim", { password: $("#claim-password").value }));
    notice("this account is yours now: log in with its name and password from any device");
  } catch (e) { notice(e.message); }
});

async function loadPresets() {
  const ps = await api("GET", "/api/presets");
  const sel = $("#preset");
  for (const p of ps) {
    const o = el("option", `${p.name} (${p.id})`);
    o.value = p.id; o.dataset.game = p.game; sel.appendChild(o);
  }
  const sync = () => document.body.classList.toggle("show-british", sel.selectedOptions[0].dataset.game === "british");
  sel.addEventListener("change", sync); sync();
}

$("#create-form").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const body = {};
  const toml = $("#rules-toml").value.trim();
  if (toml) body.rules_toml = toml; else body.preset = $("#preset").value;
  const opt = $("#preset").selectedOptions[0];
  if (!toml && opt.dataset.game === "british") body.seats = parseInt($("#seats").value, 10);
  if ($("#seed").value !== "") body.seed = parseInt($("#seed").value, 10);
  try { await api("POST", "/api/tables", body); notice(""); refreshTables(); } catch (e) { notice(e.message); }
});

async function refreshTables() {
  let tables = [];
  try { tables = await api("GET", "/api/tables"); } catch (e) { return; }
  const body = $("#table-list tbody");
  body.replaceChildren();
  for (const t of tables) {
    const tr = document.createElement("tr");
    tr.dataset.table = t.id;
    if (t.served_here === false) {  // another process's table (several processes on one store)
      tr.className = "remote";
      const rt = el("td", t.title || t.id);
      if (marksText(t.marks)) rt.appendChild(el("div", marksText(t.marks), "mark"));
      tr.append(rt, el("td", t.preset || ""), el("td", ""),
        el("td", (t.members || []).map((m) => m.name).join(", ")),
        el("td", `served by ${t.owner || "another process"}` + (t.lease_live ? "" : " (its lease expired: taken over soon)")));
      body.appendChild(tr);
      continue;
    }
    const title = el("td", t.title);
    const tag = marksText(t.marks);
    if (tag) title.appendChild(el("div", tag, "mark"));
    tr.appendChild(title);
    tr.appendChild(el("td", `${t.name} (${t.preset})`));
    tr.appendChild(el("td", t.game === "casino" ? `${t.table_min}–${t.table_max}` : `stakes ${t.stake_min}–${t.stake_max}`));
    tr.appendChild(el("td", t.members.map((m) => m.name + (m.box ? ` @${m.box}` : "")).join(", ") +
      (t.game === "british" ? ` (${t.members.length}/${t.seats})` : "")));
    const td = document.createElement("td");
    if (t.game === "casino") {
      const box = document.createElement("select");
      box.className = "box-select"; box.setAttribute("aria-label", `box at ${t.title}`);
      for (let b = 1; b <= t.boxes; b++) { const o = el("option", "box " + b); o.value = b; box.appendChild(o); }
      const free = t.free_boxes.length ? t.free_boxes[0] : 1;
      box.value = S.boxSel[t.id] || String(free);
      box.onchange = () => { S.boxSel[t.id] = box.value; };
      const sit = el("button", "Sit"); sit.className = "join-sit";
      sit.onclick = () => join(t.id, { box: parseInt(box.value, 10) });
      const stand = el("button", "Stand behind"); stand.className = "join-stand";
      stand.onclick = () => join(t.id, { stand_on: parseInt(box.value, 10) });
      td.append(box, sit, stand);
    } else if (t.members.filter((m) => !m.leaving).length < t.seats) {  // a running game: dealt in next round
      const b = el("button", t.started ? "Join the game" : "Take a seat"); b.className = "join-seat";
      b.onclick = () => join(t.id, {});
      td.appendChild(b);
    } else {
      td.textContent = "playing";
    }
    const watch = el("button", "Watch"); watch.className = "watch";
    watch.onclick = () => enterTable(t.id, null);
    td.appendChild(watch);
    tr.appendChild(td);
    body.appendChild(tr);
  }
}

async function join(tid, body) {
  if (!S.name) { notice("play as a guest, register or log in first"); return; }
  try {
    await api("POST", `/api/tables/${tid}/join`, body);
    notice("");
    refreshAccount();
    enterTable(tid);
  } catch (e) { notice(e.message); }
}

// ---------------------------------------------------------------- the table
function enterTable(tid) {  // the socket is a seat when the session's account sits here, else a spectator
  S.tableId = tid; S.leaving = false; S.state = null; S.hints = null;
  sessionStorage.setItem("table_id", tid);
  $("#lobby").hidden = true; $("#table").hidden = false;
  connect();
}

function backToLobby() {
  S.leaving = true;
  if (S.ws) S.ws.close();
  S.ws = null; S.tableId = null; S.state = null;
  sessionStorage.removeItem("table_id");
  $("#table").hidden = true; $("#lobby").hidden = false;
  refreshTables(); refreshAccount();
}

function connect() {
  const proto = location.protocol === "https:" ? "wss" : "ws";
  const ws = new WebSocket(`${proto}://${location.host}/ws/tables/${S.tableId}`);  // the cookie says who
  S.ws = ws;
  ws.onmessage = (ev) => {
    const m = JSON.parse(ev.data);
    if (m.type === "state") {
      if (m.history === undefined) m.history = S.state ? S.state.history : [];  // sent only when it changes
      S.state = m; if (m.notice) notice(m.notice); render(m); }
    else if (m.type === "error") notice(m.error);
    else if (m.type === "hints") { S.hints = m; renderHints(); }
  };
  ws.onclose = (ev) => {
    if (S.ws !== ws || S.leaving) return;
    if (ev.code >= 4400 && ev.code < 4500) { notice(ev.reason || "the table refused this seat"); backToLobby(); return; }
    notice("connection lost: reconnecting…");
    setTimeout(() => { if (S.ws === ws && !S.leaving) connect(); }, 1000);
  };
  ws.onopen = () => notice("");
}

function send(obj) {
  if (S.ws && S.ws.readyState === WebSocket.OPEN) S.ws.send(JSON.stringify(obj));
  else notice("not connected yet");
}

$("#leave").addEventListener("click", async () => {
  if (!S.state || !S.state.you) { backToLobby(); return; }
  try {
    const r = await api("POST", `/api/tables/${S.tableId}/leave`);
    notice(r.left ? `left the table with ${r.returned}` : r.note);
  } catch (e) { notice(e.message); }
  backToLobby();
});

// a test table (a fixed seed: a predictable shuffle, ruling 36) and custom rules, said to everyone
function marksText(m) {
  if (!m) return "";
  const out = [];
  if (m.test_mode) out.push("TEST TABLE: fixed seed, the shuffle is predictable");
  if (m.custom) {
    const d = Object.entries(m.custom.differs).map(([k, v]) => `${k}=${typeof v === "object" ? JSON.stringify(v) : v}`);
    const edge = m.custom.house_edge === null ? (m.custom.note || "house edge not computed here") : `house edge ${(m.custom.house_edge * 100).toFixed(3)}%`;
    out.push(`CUSTOM RULES (${m.custom.based_on} with ${d.join(", ")}): ${edge}`);
  }
  return out.join(" · ");
}

function render(st) {
  $("#table-title").textContent = st.title;
  $("#table-marks").textContent = marksText(st.marks);
  $("#table-marks").hidden = !marksText(st.marks);
  $("#phase").textContent = st.phase === "betting" ? `betting for round ${st.round_no + 1}` :
    st.phase + (st.round_no ? ` · round ${st.round_no}` : "");
  $("#to-act").textContent = st.to_act ? "to act: " + st.to_act : "";
  $("#to-act").hidden = !st.to_act;
  $("#timer").textContent = st.timer_s !== null ? `${Math.ceil(st.timer_s)} s` : "";
  $("#timer").hidden = st.timer_s === null;
  if (st.game === "casino") renderCasino(st); else renderBritish(st);
  renderActions(st);
  renderMembers(st);
  renderHistory(st);
  renderShoe(st);
  maybeAskHints(st);
  document.dispatchEvent(new CustomEvent("pontoon:state", { detail: st }));  // motion.js, session.js
}

function spot(title, mine, toAct) {
  const d = el("div", null, "spot" + (mine ? " mine" : "") + (toAct ? " to-act" : ""));
  d.appendChild(el("div", title, "label"));
  return d;
}

function renderCasino(st) {
  const rnd = st.round;
  $("#dealer-label").textContent = "Dealer";
  $("#dealer-cards").replaceChildren(...cardsEl(rnd ? rnd.dealer : []).childNodes);
  const spots = $("#spots");
  spots.replaceChildren();
  const boxes = new Map();
  for (const m of st.members) if (m.box) boxes.set(m.box, boxes.get(m.box) || []);
  if (rnd) for (const b of rnd.boxes) boxes.set(b.box, boxes.get(b.box) || []);
  const you = st.you;
  for (const n of [...boxes.keys()].sort((a, b) => a - b)) {
    const rb = rnd ? rnd.boxes.find((b) => b.box === n) : null;
    const seatedM = st.members.find((m) => m.box === n && m.role === "seated");
    const seated = (rb && st.phase === "play") ? rb.seated : (seatedM ? seatedM.name : (rb ? rb.seated : "?"));
    const hta = rnd && rnd.hand_to_act;
    const people = st.members.filter((m) => m.box === n).map((m) => m.name);
    const d = spot(`Box ${n}: ${seated}`, people.includes(you), !!(hta && hta.box === n && st.phase === "play"));
    d.dataset.box = n;
    for (const who of people) {
      const bet = st.bets[who];
      if (bet) d.appendChild(el("div", `${who} bets ${Object.entries(bet).map(([k, v]) => `${k} ${v}`).join(", ")}`, "wager"));
    }
    if (rb) {
      for (const h of rb.hands) {
        const hd = el("div", null, "hand" + (hta && hta.box === n && hta.hand === h.hand && st.phase === "play" ? " to-act" : ""));
        hd.appendChild(cardsEl(h.cards));
        const stakes = Object.entries(h.stakes).map(([p, v]) => `${p} ${v}` + (h.doubles[p] ? ` +${h.doubles[p]}` : "")).join(", ");
        hd.appendChild(el("div", `${h.soft ? "soft " : ""}${h.total} · ${stakes}`, "wager"));
        const out = Object.entries(h.outcome || {}).map(([p, o]) => `${p}: ${o}`).join(", ");
        if (out) hd.appendChild(el("div", out, "outcome"));
        d.appendChild(hd);
      }
      if (rnd.net && st.phase !== "play") {
        for (const [p, v] of Object.entries(rnd.net)) if (people.includes(p)) d.appendChild(el("div", `${p} net ${v.total}`, "outcome"));
      }
    }
    spots.appendChild(d);
  }
}

function renderBritish(st) {
  const rnd = st.round;
  const offer = st.bank_offer ? ` · bank offered${st.bank_offer.buyer ? " to " + st.bank_offer.buyer : ""} for ${st.bank_offer.price}` +
    (st.bank_offer.accepted ? ` (bought by ${st.bank_offer.accepted}: passes after this round)` : "") : "";
  const topUp = st.top_up ? ` · top-up ${st.top_up} before the next deal` : "";
  $("#dealer-label").textContent = st.banker ? `Bank: ${st.banker}` + (st.kitty !== null ? ` · kitty ${st.kitty}` : "") + offer + topUp : "Waiting for players";
  $("#dealer-cards").replaceChildren(...cardsEl(rnd ? rnd.banker_cards : []).childNodes);
  const spots = $("#spots");
  spots.replaceChildren();
  if (!rnd) {
    for (const m of st.members) spots.appendChild(spot(m.name, m.name === st.you, st.to_act === m.name));
    return;
  }
  const cur = rnd.current_hand;
  for (const h of rnd.hands) {
    const toAct = cur && cur.owner === h.owner && cur.hand === h.hand;
    const d = spot(h.owner + (h.split ? ` #${h.hand}` : ""), h.owner === st.you, toAct || (rnd.to_act === h.owner && !cur));
    d.dataset.owner = h.owner;
    d.appendChild(cardsEl(h.cards));
    let line = `stake ${h.stake}` + (h.shoot !== undefined ? ` · shoot ${h.shoot}` : "") + ` · ${h.status}`;
    if (h.burned && h.burned.length) line += ` · burned ${h.burned.join(" ")}`;
    d.appendChild(el("div", line, "wager"));
    if (h.outcome || h.result) d.appendChild(el("div", [h.outcome, h.result].filter(Boolean).join(" – "), "outcome"));
    spots.appendChild(d);
  }
}

function actionLabel(a) {
  if (a.verb === "bet") return a.kind === "main" ? "Bet" : `Side bet: ${a.kind}`;
  if (a.verb === "clear_bets") return "Take bets back";
  if (a.verb === "deal") return "Deal";
  if (a.verb === "insure") return `Insure ${a.player}`;
  if (a.verb === "decline") return `Decline ${a.what} (box ${a.box})`;
  if (a.verb === "kitty") return "Put up kitty";
  if (a.verb === "top_up") return "Top up kitty";
  if (a.verb === "sell_bank") return a.buyer ? `Offer the bank to ${a.buyer}` : "Offer the bank to anyone";
  if (a.verb === "buy_bank") return `Buy the bank for ${a.price}`;
  return a.verb[0].toUpperCase() + a.verb.slice(1) + (a.box && S.state.game === "casino" ? ` (box ${a.box})` : "");
}

function renderActions(st) {
  const div = $("#actions");
  div.replaceChildren();
  const keys = st.game === "casino" ? CASINO_KEYS : BRITISH_KEYS;
  const used = new Set();
  const input = $("#amount");
  let ranged = null;
  const listed = [];
  for (const a of st.legal) {  // the bank for sale: one button for any buyer and one per buyer (003 The New Deal)
    if (a.verb === "sell_bank") {
      listed.push({ verb: "sell_bank", low: a.low, high: a.high });
      for (const b of a.buyers || []) listed.push({ verb: "sell_bank", low: a.low, high: a.high, buyer: b });
    } else listed.push(a);
  }
  for (const a of listed) {
    const b = el("button", actionLabel(a));
    b.className = "action-btn"; b.dataset.verb = a.verb;
    if (a.kind) b.dataset.kind = a.kind;
    const key = keys[a.verb];
    if (key && !used.has(key)) { used.add(key); b.dataset.key = key; b.appendChild(el("kbd", key === "Enter" ? "⏎" : key)); }
    if (a.low !== undefined) { b.title = `amount ${a.low} to ${a.high}`; if (!ranged || a.verb === "bet" && a.kind === "main") ranged = a; }
    b.onclick = () => doAction(a);
    div.appendChild(b);
  }
  $("#amount-label").hidden = !ranged;
  if (ranged) {
    input.min = ranged.low; input.max = ranged.high;
    const v = parseFloat(input.value);
    if (!(v >= parseFloat(ranged.low) && v <= parseFloat(ranged.high))) input.value = ranged.low;
  }
  $("#keys-help").textContent = st.legal.length ? "keys: " + [...used].join(" ") : "";
  $("#hints-toggle").hidden = !st.hints_available;
}

function amountFor(a) {
  const raw = $("#amount").value.trim();
  const v = parseFloat(raw);
  if (!(v >= parseFloat(a.low) && v <= parseFloat(a.high))) {
    notice(`${a.verb}: the amount must be from ${a.low} to ${a.high}`);
    return null;
  }
  return (Math.round(v * 100) / 100).toString();
}

function doAction(a) {
  notice("");
  if (a.verb === "bet") { const amt = amountFor(a); if (amt !== null) send({ type: "bet", kind: a.kind, amount: amt }); return; }
  if (a.verb === "deal" || a.verb === "clear_bets") { send({ type: a.verb }); return; }
  if (a.verb === "kitty") { const amt = amountFor(a); if (amt !== null) send({ type: "kitty", amount: amt }); return; }
  if (a.verb === "top_up") { const amt = amountFor(a); if (amt !== null) send({ type: "top_up", amount: amt }); return; }
  if (a.verb === "sell_bank") {  // the price from the amount box; done between rounds once a player accepts
    const amt = amountFor(a); if (amt === null) return;
    const msg = { type: "sell_bank", price: amt }; if (a.buyer) msg.buyer = a.buyer; send(msg); return;
  }
  if (a.verb === "buy_bank") { send({ type: "buy_bank", price: a.price }); return; }
  const act = {};
  for (const [k, v] of Object.entries(a)) if (k !== "low" && k !== "high") act[k] = v;
  if (a.low !== undefined) { const amt = amountFor(a); if (amt === null) return; act.amount = amt; }
  send({ type: "act", action: act });
}

document.addEventListener("keydown", (ev) => {
  if (!S.state || ev.target.tagName === "INPUT" || ev.target.tagName === "TEXTAREA") return;
  const key = ev.key === "Enter" ? "Enter" : ev.key.toLowerCase();
  const b = document.querySelector(`#actions button[data-key="${CSS.escape(key)}"]`);
  if (b) { ev.preventDefault(); b.click(); }
});

function renderMembers(st) {
  const body = $("#members tbody");
  body.replaceChildren();
  for (const m of st.members) {
    const tr = document.createElement("tr");
    tr.dataset.name = m.name;
    const place = st.game === "casino" ? `${m.role} box ${m.box}` : (st.banker === m.name ? "banker" : "seat");
    const state = m.pending ? "dealt in next round" : m.leaving ? "leaving" : m.absent ? "absent" : (m.connected ? "" : "away");
    tr.append(el("td", m.name + (m.name === st.you ? " (you)" : "")), el("td", place), el("td", m.balance, "balance"), el("td", state));
    body.appendChild(tr);
  }
}

// The last rounds: read from the history store's REST endpoints (they survive a page reload and a
// server restart), re-read when the server says a round was booked (history_mark); a round's steps
// are fetched when it is opened. Without a store (--memory) the WebSocket's history is shown.
function renderHistory(st) {
  const key = `${st.table}:${st.history_mark}`;
  if (S.histKey === key) { if (!S.histRows) renderWsHistory(st); return; }
  S.histKey = key;
  api("GET", `/api/tables/${st.table}/rounds?last=10`).then((rows) => {
    if (S.histKey !== key) return;
    S.histRows = rows.filter((r) => r.status !== "open");
    renderStoreHistory(st);
  }).catch(() => { S.histRows = null; renderWsHistory(st); });
}

function renderStoreHistory(st) {
  const div = $("#history");
  div.replaceChildren();
  div.dataset.source = "store";
  for (const r of [...S.histRows].reverse()) {
    const d = document.createElement("details");
    d.className = "round"; d.dataset.round = r.round; d.dataset.rid = r.id;
    const mine = st.you && r.net && r.net[st.you] !== undefined ? ` · you ${r.net[st.you]}` : "";
    d.appendChild(el("summary", `Round ${r.round}: ${r.status}${mine}`));
    const ol = document.createElement("ol");
    d.appendChild(ol);
    d.addEventListener("toggle", () => {
      if (!d.open || d.dataset.loaded) return;
      d.dataset.loaded = "1";
      api("GET", `/api/rounds/${r.id}`).then((det) => {
        for (const w of det.words || []) ol.appendChild(el("li", w));  // the round in words (history/words.py)
        d.dataset.steps = String(ol.children.length);
      }).catch((e) => ol.appendChild(el("li", e.message)));
    });
    div.appendChild(d);
  }
}

function renderWsHistory(st) {
  const div = $("#history");
  div.replaceChildren();
  div.dataset.source = "live";
  for (const h of [...st.history].reverse()) {
    const d = document.createElement("details");
    d.className = "round"; d.dataset.round = h.round;
    const mine = st.you && h.net && h.net[st.you] ? ` · you ${h.net[st.you].total}` : "";
    d.appendChild(el("summary", `Round ${h.round}: ${h.status}${h.banker ? " · bank " + h.banker : ""}${mine}`));
    const ol = document.createElement("ol");
    for (const s of h.steps) ol.appendChild(el("li", s));
    d.appendChild(ol);
    d.dataset.steps = String(h.steps.length);
    div.appendChild(d);
  }
}

function renderShoe(st) {
  $("#shoe-info").textContent = st.shoe ? `shoe ${st.shoe.number}: ${st.shoe.cards_left} cards left` +
    (st.shoe.needs_shuffle ? " (cut card out: a new shoe next round)" : "") : (st.game === "british" ? "the pack stays on the table between rounds (003)" : "");
  const fair = $("#fair-info");
  fair.replaceChildren();
  if (!st.fair) { fair.textContent = "provably fair shuffle: not enabled on this server"; return; }
  fair.appendChild(el("div", `shoe ${st.fair.nonce ?? st.fair.shoe}: commitment ${st.fair.commitment}`, "commitment"));
  fair.appendChild(el("div", `client seed ${st.fair.client_seed} · next shoe's commitment ${st.fair.next_commitment}`));
  if (st.fair.secret === false) fair.appendChild(el("div", "test mode: this table's seeds follow from its seed (not secret)"));
  for (const r of st.fair.revealed || []) {
    fair.appendChild(el("div", `shoe ${r.nonce} retired: server seed ${r.server_seed} (commitment ${r.commitment})`, "revealed"));
  }
}

function maybeAskHints(st) {
  if (!$("#hints").checked || !st.hints_available) { $("#hint-values").textContent = ""; return; }
  if (st.phase === "play" && st.to_act === st.you && S.hintsAsked !== st.version) {
    S.hintsAsked = st.version;
    $("#hint-values").textContent = "hints: working…";
    send({ type: "hints" });
  } else if (st.to_act !== st.you) {
    $("#hint-values").textContent = "";
  }
}

function renderHints() {
  const div = $("#hint-values");
  div.replaceChildren();
  if (!S.hints || !$("#hints").checked) return;
  const vals = Object.entries(S.hints.values).filter(([, v]) => v !== null);
  const best = vals.reduce((b, x) => (b === null || x[1] > b[1] ? x : b), null);
  div.appendChild(el("span", "EV: "));
  for (const [k, v] of vals) div.appendChild(el("span", `${k} ${v >= 0 ? "+" : ""}${v.toFixed(4)}  `, best && k === best[0] ? "best" : ""));
}

$("#hints").addEventListener("change", () => { S.hintsAsked = -1; if (S.state) maybeAskHints(S.state); });

// ---------------------------------------------------------------- start
showAccount();
refreshAccount();
loadPresets().catch((e) => notice(e.message));
if (S.tableId) enterTable(S.tableId); else refreshTables();
setInterval(() => { if (!$("#lobby").hidden) refreshTables(); }, 3000);
setInterval(() => {  // the turn timer counts down between states
  if (S.state && S.state.timer_s !== null) { S.state.timer_s = Math.max(0, S.state.timer_s - 1); $("#timer").textContent = `${Math.ceil(S.state.timer_s)} s`; }
}, 1000);
