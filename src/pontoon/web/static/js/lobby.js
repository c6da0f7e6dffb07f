// The account box and the lobby: guest, register, log in, presets, creating and joining tables.
import { $, S, api, el, notice } from "./core.js";
import { backToLobby, enterTable, marksText, reconnect, render } from "./table.js";

// ---------------------------------------------------------------- account and lobby
export function showAccount() {
  $("#account-form").hidden = !!S.name;
  $("#account-info").hidden = !S.name;
  $("#account-guest").hidden = !S.guest;
  $("#claim-form").hidden = !S.guest;
  if (S.name) $("#account-label").textContent = S.name;
}

export function signedIn(a) {
  S.name = a ? a.name : null; S.guest = a ? a.guest : false;
  if (a) $("#account-balance").textContent = a.balance;
  $("#account-password").value = ""; $("#claim-password").value = "";
  showAccount();
  // the table drawn before the session was known (a reload): drawn again for this person (host tools)
  if (S.state && !$("#table").hidden) render(S.state);
}

export async function refreshAccount() {  // the session's own account (the cookie): 401 when logged out
  try { signedIn(await api("GET", "/api/auth/session")); } catch (e) { signedIn(null); }
}

export async function account(path, withPassword) {
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

export async function loadPresets() {
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

// The lobby's rows are updated in place (keyed by table id): a row is rebuilt only when what it shows
// changed, so a refresh never takes the focus or a box chosen in an untouched row.
function rowKey(t) {
  return JSON.stringify([t.title, t.name, t.preset, t.members, t.free_boxes, t.started, t.seats, t.marks,
    t.served_here, t.owner, t.lease_live, t.approval]);
}

function buildRow(t) {
  const tr = document.createElement("tr");
  tr.dataset.table = t.id;
  if (t.served_here === false) {  // another process's table (several processes on one store)
    tr.className = "remote";
    const rt = el("td", t.title || t.id);
    if (marksText(t.marks)) rt.appendChild(el("div", marksText(t.marks), "mark"));
    tr.append(rt, el("td", t.preset || ""), el("td", ""),
      el("td", (t.members || []).map((m) => m.name).join(", ")),
      el("td", `served by ${t.owner || "another process"}` + (t.lease_live ? "" : " (its lease expired: taken over soon)")));
    return tr;
  }
  const title = el("td", t.title);
  const tag = marksText(t.marks);
  if (tag) title.appendChild(el("div", tag, "mark"));
  tr.appendChild(title);
  tr.appendChild(el("td", `${t.name} (${t.preset})`));
  tr.appendChild(el("td", t.game === "casino" ? `${t.table_min}–${t.table_max}` : `stakes ${t.stake_min}–${t.stake_max}`));
  tr.appendChild(el("td", t.members.map((m) => m.name + (m.bot ? " (bot)" : "") + (m.box ? ` @${m.box}` : "")).join(", ") +
    (t.game === "british" ? ` (${t.members.length}/${t.seats})` : "") + (t.approval ? " · host approves seats" : "")));
  const td = document.createElement("td");
  td.className = "join-cell";
  if (t.game === "casino") {
    const box = document.createElement("select");
    box.className = "box-select";
    box.setAttribute("aria-label", "box");
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
    td.appendChild(el("span", "playing"));
  }
  const watch = el("button", "Watch"); watch.className = "watch";
  watch.onclick = () => enterTable(t.id);
  td.appendChild(watch);
  tr.appendChild(td);
  return tr;
}

export async function refreshTables() {
  let tables = [];
  try { tables = await api("GET", "/api/tables"); } catch (e) { return; }
  const body = $("#table-list tbody");
  const old = new Map([...body.children].map((tr) => [tr.dataset.table, tr]));
  let at = body.firstElementChild;
  for (const t of tables) {
    const key = rowKey(t);
    let tr = old.get(t.id);
    old.delete(t.id);
    if (!tr || tr.dataset.key !== key) {
      const fresh = buildRow(t);
      fresh.dataset.key = key;
      if (tr) tr.replaceWith(fresh);
      tr = fresh;
    }
    if (tr !== at) body.insertBefore(tr, at); else at = at.nextElementSibling;
  }
  for (const tr of old.values()) tr.remove();
}

// the buy-in chosen on joining (the lobby's box, or the table's join bar): never the whole account unasked
export function buyIn(src) {
  const v = ($(src || "#buy-in").value || "").trim();
  return v === "" ? undefined : v;
}

export async function join(tid, body, src) {
  if (!S.name) { notice("play as a guest, register or log in first"); return; }
  const b = Object.assign({}, body);
  const amount = buyIn(src);
  if (amount !== undefined) b.buy_in = amount;
  try {
    const r = await api("POST", `/api/tables/${tid}/join`, b);
    refreshAccount();
    if (r.waiting) {  // seat approval: watch the table until the host says yes (or no)
      S.waiting = true;
      notice(`asked the host (${r.note.replace(/^asked /, "").replace(/ for a seat$/, "")}) for a seat: waiting`);
    } else notice("");
    if (S.tableId === tid && S.ws) reconnect(); else enterTable(tid);
  } catch (e) { notice(e.message); }
}
