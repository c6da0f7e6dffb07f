// The table: its socket, the felt, the actions and keys, the people, the shoe and the hints.
import { $, S, BRITISH_KEYS, CASINO_KEYS, api, cardsEl, el, notice } from "./core.js";
import { renderHistory } from "./history.js";
import { join, refreshAccount, refreshTables, signedIn } from "./lobby.js";
import { memberTools, renderHost } from "./host.js";
import { chatLine, renderChat } from "./chat.js";
import { follower } from "./delta.js";

// ---------------------------------------------------------------- the table
// What the page offers belongs to the table on screen only. Leaving a table's view (to the lobby, to
// another table's link, its end) closes its socket first (its frames drew the old table over the new
// one: a move between two tables' links never closed it) and clears its buttons and the amount box
// (they stayed in the page: hidden in the lobby, yet pressed by the keys on the next table, and shown
// on the next table until its first state came; a click there went to the new table's socket).
function closeSocket() {
  const ws = S.ws;
  S.ws = null;  // (its handlers check that they are still the page's socket: nothing more is drawn)
  if (ws) { ws.outbox.splice(0); ws.close(); }  // (a click kept while it connected was for that table)
}

export function clearActions() {
  const div = $("#actions");
  div.replaceChildren();
  delete div.dataset.sig;  // the next state draws its buttons afresh
  $("#amount-label").hidden = true;
  $("#keys-help").textContent = "";
  $("#hint-values").textContent = "";
}

export function enterTable(tid) {  // the socket is a seat when the session's account sits here, else a spectator
  closeSocket(); clearActions();
  S.tableId = tid; S.leaving = false; S.state = null; S.hints = null; S.wasSeated = false; S.lostAt = null;
  S.hintsAsked = -1; S.retries = 0;  // (S.waiting: set by join just before, for this table)
  sessionStorage.setItem("table_id", tid);
  if (location.pathname !== `/t/${tid}`) history.pushState({ table: tid }, "", `/t/${tid}`);  // the invite link
  $("#lobby").hidden = true; $("#table").hidden = false; $("#end-panel").hidden = true;
  $("#chat-log").replaceChildren();
  const link = `${location.origin}/t/${tid}`;
  $("#invite-url").value = link;
  $("#invite-qr").src = `/api/tables/${tid}/qr.svg`;
  connect();
}

export function backToLobby(push = true) {
  S.leaving = true; S.waiting = false;
  closeSocket(); clearActions();
  S.tableId = null; S.state = null;
  sessionStorage.removeItem("table_id");
  if (push && location.pathname !== "/") history.pushState({}, "", "/");
  $("#table").hidden = true; $("#lobby").hidden = false; $("#end-panel").hidden = true;
  refreshTables(); refreshAccount();
}

// the end of a table for this person: closed, removed by the host, gone past the grace period; the
// reason stays on the page with a way back to the lobby (no reconnecting forever)
export function endTable(reason) {
  S.leaving = true;
  closeSocket(); clearActions();  // (the felt stays as it was; nothing can be done on it any more)
  sessionStorage.removeItem("table_id");
  $("#end-reason").textContent = reason;
  $("#end-panel").hidden = false;
  notice(reason);
}

export function reconnect() {
  closeSocket();
  S.leaving = false;
  connect();
}

export function connect() {
  const proto = location.protocol === "https:" ? "wss" : "ws";
  // the cookie says who; split deltas: after the first full state only what changed, the public part and
  // this seat's own part apart (web/frames.py, js/delta.js ``splitOf``)
  const ws = new WebSocket(`${proto}://${location.host}/ws/tables/${S.tableId}?deltas=2`);
  S.ws = ws; S.hintPending = 0;  // (a hint asked on a socket gone is never answered)
  const outbox = [];  // what was sent while this socket was still connecting: sent once it is open
  ws.outbox = outbox;
  // the state this connection brought (its deltas apply to it); at a gap the full state is asked for,
  // again every 2 s till it comes, and the deltas till then are dropped (js/delta.js ``follower``)
  const follow = follower(() => {
    if (S.ws !== ws || ws.readyState !== WebSocket.OPEN) return false;
    ws.send(JSON.stringify({ type: "resync" }));
    return true;
  });
  ws.onmessage = (ev) => {
    if (S.ws !== ws) return;  // a socket the page has left (another table, the lobby, a reconnect)
    const m = JSON.parse(ev.data);
    if (m.type === "state" || m.type === "delta") {
      const st = follow(m);
      if (st === null) return;
      // (app.js counts S.state.timer_s down on this copy: the deltas' base stays as sent)
      S.state = Object.assign({}, st); if (m.notice) notice(m.notice); render(S.state); afterState(S.state, m.notice); }
    else if (m.type === "error") {
      notice(m.error);
      if (/^hints\b/.test(m.error)) { S.hintPending = 0; $("#hint-values").textContent = ""; }  // (asked at the next change)
    }
    else if (m.type === "hints") {  // the answer to the one hint asked at a time; asked again if the table moved
      S.hintPending = 0; S.hints = m; renderHints();
      if (S.state) maybeAskHints(S.state);
    }
    else if (m.type === "chat") chatLine(m);
  };
  ws.onclose = (ev) => {
    if (S.ws !== ws || S.leaving) return;
    if (ev.code >= 4400 && ev.code < 4500) { endTable(ev.reason || "the table refused this seat"); return; }
    const grace = (S.state && S.state.grace_s) || 60;
    if (S.lostAt === null) S.lostAt = Date.now();
    if (Date.now() - S.lostAt > grace * 1000) {  // past the grace period the seat is given up: stop trying
      endTable(`the connection was lost for more than ${grace} s (the grace period): your seat was given up`);
      return;
    }
    const unsent = ws.outbox.splice(0).length;  // (this socket never opened: what was kept is not sent)
    S.retries += 1;
    const wait = Math.min(8000, 500 * 2 ** Math.min(S.retries, 4));
    notice(`connection lost: trying again in ${Math.round(wait / 1000)} s` + (unsent ? " (your last click was not sent)" : ""));
    setTimeout(() => { if (S.ws === ws && !S.leaving) connect(); }, wait);
  };
  ws.onopen = () => {
    notice(""); S.lostAt = null; S.retries = 0;
    for (const text of outbox.splice(0)) ws.send(text);  // in the order clicked, after the connect
  };
}

// what a state means for this person beyond the felt: approval answered, a seat given up (the notice
// of his last frame says why: "the host removed you: ...", sent before the socket's close)
function afterState(st, note) {
  const member = st.members.some((m) => m.name === S.name);
  if (S.waiting && member) { S.waiting = false; notice("the host let you sit down"); reconnect(); return; }
  if (S.waiting && !st.requests.includes(S.name)) { S.waiting = false; notice("the host declined your request for a seat"); }
  if (st.you) S.wasSeated = true;
  else if (S.wasSeated && !member) {
    S.wasSeated = false;
    const removed = note && note.startsWith("the host removed you") ? note : null;
    endTable(removed || "you are no longer at this table (away past the grace period, or removed)");
  }
}

// A message to the table. Sent at once on an open socket; while the socket is still connecting (the
// page's first connect, a reconnect) it is kept and sent once the socket opens, in order (at most
// OUTBOX_MAX): it was dropped with a "not connected yet" notice that the socket's opening erased at
// once, so a bet or a move clicked then was lost without a word.
const OUTBOX_MAX = 8;
export function send(obj) {
  const ws = S.ws;
  if (ws && ws.readyState === WebSocket.OPEN) { ws.send(JSON.stringify(obj)); return; }
  if (ws && ws.readyState === WebSocket.CONNECTING && ws.outbox.length < OUTBOX_MAX) {
    ws.outbox.push(JSON.stringify(obj));
    notice("connecting: sent once the connection is open");
    return;
  }
  notice("not connected: this was not sent; try again once connected");
}

$("#leave").addEventListener("click", async () => {
  if (!S.state || !S.state.you) { backToLobby(); return; }
  try {
    const r = await api("POST", `/api/tables/${S.tableId}/leave`);
    notice(r.left ? `left the table with ${r.returned}` : r.note);
  } catch (e) { notice(e.message); }
  backToLobby();
});
$("#end-back").addEventListener("click", () => backToLobby());
$("#copy-link").addEventListener("click", async () => {
  const input = $("#invite-url");
  try { await navigator.clipboard.writeText(input.value); notice("invite link copied"); }
  catch (e) { input.select(); notice("select and copy the link: the browser refused the clipboard"); }
});
window.addEventListener("popstate", () => {  // back and forward between the lobby and a table's link
  const m = location.pathname.match(/^\/t\/([0-9a-f]{8})$/);
  if (m) { if (m[1] !== S.tableId) { S.waiting = false; enterTable(m[1]); } } else if (S.tableId) backToLobby(false);
});

// a test table (a fixed seed: a predictable shuffle, ruling 36) and custom rules, said to everyone
export function marksText(m) {
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

export function render(st) {
  $("#table-title").textContent = st.title;
  $("#table-marks").textContent = marksText(st.marks);
  $("#table-marks").hidden = !marksText(st.marks);
  $("#phase").textContent = st.phase === "betting" ? `betting for round ${st.round_no + 1}` :
    st.phase === "result" ? `results of round ${st.round_no}` : st.phase + (st.round_no ? ` · round ${st.round_no}` : "");
  $("#paused").hidden = !st.paused;
  $("#table-note").textContent = st.note || "";
  $("#table-note").hidden = !st.note;
  renderJoinBar(st);
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
  renderHost(st);
  renderChat(st);
  document.dispatchEvent(new CustomEvent("pontoon:state", { detail: st }));  // motion.js, session.js
}

// the join bar on a table opened by its link: a name (a guest account) when needed, the buy-in, the box
function renderJoinBar(st) {
  const bar = $("#join-bar");
  const full = st.game === "british" && st.members.filter((m) => !m.leaving).length >= st.seats;
  bar.hidden = !!st.you || S.waiting || full;
  if (bar.hidden) return;
  $("#join-name").hidden = !!S.name;
  const sel = $("#join-box");
  sel.hidden = st.game !== "casino";
  if (st.game === "casino") {
    const taken = new Set(st.members.filter((m) => m.role === "seated").map((m) => m.box));
    const want = [];
    for (let b = 1; b <= st.limits.boxes; b++) if (!taken.has(b)) want.push(String(b));
    if ([...sel.options].map((o) => o.value).join() !== want.join()) {
      const keep = sel.value;
      sel.replaceChildren(...want.map((b) => { const o = el("option", "box " + b); o.value = b; return o; }));
      if (want.includes(keep)) sel.value = keep;
    }
  }
  $("#join-here").textContent = st.approval && st.host !== S.name ? "Ask to sit" : "Sit down";
}

$("#join-here").addEventListener("click", async () => {
  const st = S.state;
  if (!st) return;
  if (!S.name) {  // first click joins: a guest account with the name typed, then the seat
    const name = $("#join-name").value.trim();
    if (!name) { notice("type your name to sit down"); $("#join-name").focus(); return; }
    try { signedIn(await api("POST", "/api/accounts", { name })); } catch (e) { notice(e.message); return; }
  }
  const body = st.game === "casino" ? { box: parseInt($("#join-box").value, 10) } : {};
  await join(st.table, body, "#join-buy-in");
});

export function spot(title, mine, toAct) {
  const d = el("div", null, "spot" + (mine ? " mine" : "") + (toAct ? " to-act" : ""));
  d.appendChild(el("div", title, "label"));
  return d;
}

export function renderCasino(st) {
  const rnd = st.round;
  $("#dealer-label").textContent = "Dealer" + (st.dealer_total ? ` · ${st.dealer_total}` : "");
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

export function renderBritish(st) {
  const rnd = st.round;
  const offer = st.bank_offer ? ` · bank offered${st.bank_offer.buyer ? " to " + st.bank_offer.buyer : ""} for ${st.bank_offer.price}` +
    (st.bank_offer.accepted ? ` (bought by ${st.bank_offer.accepted}: passes after this round)` : "") : "";
  const topUp = st.top_up ? ` · top-up ${st.top_up} before the next deal` : "";
  const btotal = rnd && rnd.banker_total !== null && rnd.banker_total !== undefined ? ` · ${rnd.banker_total}` : "";
  $("#dealer-label").textContent = st.banker ? `Bank: ${st.banker}${btotal}` + (st.kitty !== null ? ` · kitty ${st.kitty}` : "") + offer + topUp :
    `Waiting for players (${st.members.length}/${st.seats} seats)`;
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
    let line = (h.total !== null && h.total !== undefined ? `${h.total} · ` : "") +
      `stake ${h.stake}` + (h.shoot !== undefined ? ` · shoot ${h.shoot}` : "") + ` · ${h.status}`;
    if (h.burned && h.burned.length) line += ` · burned ${h.burned.join(" ")}`;
    d.appendChild(el("div", line, "wager"));
    if (h.outcome || h.result) d.appendChild(el("div", [h.outcome, h.result].filter(Boolean).join(" – "), "outcome"));
    spots.appendChild(d);
  }
}

export function actionLabel(a) {
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

export function renderActions(st) {
  const div = $("#actions");
  $("#hints-toggle").hidden = !st.hints_available;
  if (S.leaving || st.table !== S.tableId || $("#table").hidden) { clearActions(); return; }  // not this view's
  const listed = [];
  for (const a of st.legal) {  // the bank for sale: one button for any buyer and one per buyer (003 The New Deal)
    if (a.verb === "sell_bank") {
      listed.push({ verb: "sell_bank", low: a.low, high: a.high });
      for (const b of a.buyers || []) listed.push({ verb: "sell_bank", low: a.low, high: a.high, buyer: b });
    } else listed.push(a);
  }
  // the same choices as on screen: keep the buttons (a tap or click on one never meets a replaced button
  // while other seats' moves and the timer bring new states)
  const sig = st.game + JSON.stringify(listed);
  if (div.dataset.sig === sig) return;
  div.dataset.sig = sig;
  div.replaceChildren();
  const keys = st.game === "casino" ? CASINO_KEYS : BRITISH_KEYS;
  const used = new Set();
  const input = $("#amount");
  let ranged = null;
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
}

export function amountFor(a) {
  const raw = $("#amount").value.trim();
  const v = parseFloat(raw);
  if (!(v >= parseFloat(a.low) && v <= parseFloat(a.high))) {
    notice(`${a.verb}: the amount must be from ${a.low} to ${a.high}`);
    return null;
  }
  return (Math.round(v * 100) / 100).toString();
}

export function doAction(a) {
  notice("");
  if (a.verb === "bet") {  // for the round shown open: refused (never placed on another) if it was dealt meanwhile
    const amt = amountFor(a); if (amt === null) return;
    const msg = { type: "bet", kind: a.kind, amount: amt };
    if (S.state && Number.isInteger(S.state.round_no)) msg.round = S.state.round_no + 1;
    send(msg); return;
  }
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

export function renderMembers(st) {
  const body = $("#members tbody");
  body.replaceChildren();
  for (const m of st.members) {
    const tr = document.createElement("tr");
    tr.dataset.name = m.name;
    const place = st.game === "casino" ? `${m.role} box ${m.box}` : (st.banker === m.name ? "banker" : "seat");
    const state = m.bot ? "bot" : m.pending ? "dealt in next round" : m.leaving ? "leaving" : m.absent ? "absent" : (m.connected ? "" : "away");
    const who = m.name + (m.name === st.you ? " (you)" : "") + (m.name === st.host ? " · host" : "");
    tr.append(el("td", who), el("td", place), el("td", m.balance, "balance"), el("td", state));
    tr.appendChild(memberTools(st, m));
    body.appendChild(tr);
  }
}

export function renderShoe(st) {
  $("#shoe-info").textContent = st.shoe ? (st.shoe.cards_left === null ? `a fresh shoe of ${st.shoe.size} cards is shuffled for round 1` :
    `shoe ${st.shoe.number}: ${st.shoe.cards_left} of ${st.shoe.size} cards left`) +
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

export function maybeAskHints(st) {
  if (!$("#hints").checked || !st.hints_available) { $("#hint-values").textContent = ""; return; }
  if (st.phase === "play" && st.to_act === st.you && S.hintsAsked !== st.version) {
    // one hint asked at a time (the server answers a second "busy"): asked again when it comes, or once
    // its answer is overdue (the server answers every hint within 120 s; a message may be rate-limited)
    if (S.hintPending && Date.now() - S.hintPending < 125_000) return;
    S.hintsAsked = st.version; S.hintPending = Date.now();
    $("#hint-values").textContent = "hints: working…";
    send({ type: "hints" });
  } else if (st.to_act !== st.you) {
    $("#hint-values").textContent = "";
  }
}

export function renderHints() {
  const div = $("#hint-values");
  div.replaceChildren();
  if (!S.hints || !$("#hints").checked) return;
  const vals = Object.entries(S.hints.values).filter(([, v]) => v !== null);
  const best = vals.reduce((b, x) => (b === null || x[1] > b[1] ? x : b), null);
  div.appendChild(el("span", "EV: "));
  for (const [k, v] of vals) div.appendChild(el("span", `${k} ${v >= 0 ? "+" : ""}${v.toFixed(4)}  `, best && k === best[0] ? "best" : ""));
}

$("#hints").addEventListener("change", () => { S.hintsAsked = -1; if (S.state) maybeAskHints(S.state); });

