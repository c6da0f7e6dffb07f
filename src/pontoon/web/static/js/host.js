// The host's panel (docs/server.md "Hosts"): seat approval, the turn timer and result pause, pause and
// resume, bots, closing the table; per person: remove (with a reason he is shown) or remove a bot.
// Every action is a REST call; the server answers others 403 with one line.
import { $, S, api, el, notice } from "./core.js";

async function host(msg) {
  try {
    const r = await api("POST", `/api/tables/${S.tableId}/host`, { msg });
    notice(r.done === "bots added" ? `bots added: ${r.bots.join(", ")}` : r.done);
    return r;
  } catch (e) { notice(e.message); return null; }
}

function lone(st) {  // the only person at the table (bots aside) may add and remove bots
  const people = st.members.filter((m) => !m.bot).map((m) => m.name);
  return people.length === 1 && people[0] === st.you;
}

export function renderHost(st) {
  const mine = !!S.name && st.host === S.name;
  $("#host-panel").hidden = !mine && !lone(st);
  $("#host-only").hidden = !mine;
  if ($("#host-panel").hidden) return;
  $("#host-pause").textContent = st.paused ? "Resume" : "Pause";
  const lv = $("#host-bot-level"), levels = st.bot_levels || ["simple"];
  if (lv.dataset.key !== levels.join()) {  // the solved bots where the British analysis ships a solution
    lv.dataset.key = levels.join();
    lv.replaceChildren(...levels.map((l) => { const o = el("option", l); o.value = l; return o; }));
    lv.value = levels.includes("solved") ? "solved" : levels[0];
  }
  $("#host-bot-level-label").hidden = levels.length < 2;
  if (document.activeElement !== $("#host-approval")) $("#host-approval").checked = st.approval;
  if (document.activeElement !== $("#host-timer")) $("#host-timer").value = String(st.turn_timeout_s);
  if (document.activeElement !== $("#host-result")) $("#host-result").value = String(st.result_pause_s);
  const reqs = $("#host-requests");
  const key = st.requests.join("\n");
  if (reqs.dataset.key !== key) {
    reqs.dataset.key = key;
    reqs.replaceChildren();
    for (const name of st.requests) {
      const li = el("li", `${name} asks to sit `);
      li.dataset.name = name;
      const yes = el("button", "Approve", "approve"); yes.onclick = () => host({ action: "approve", name, allow: true });
      const no = el("button", "Decline", "decline"); no.onclick = () => host({ action: "approve", name, allow: false });
      li.append(yes, no);
      reqs.appendChild(li);
    }
  }
}

// the tools cell of a person's row: the host removes people (asking the reason), bots go with a click
export function memberTools(st, m) {
  const td = document.createElement("td");
  if (m.name === st.you) return td;
  if (m.bot && (st.host === S.name || lone(st))) {
    const b = el("button", "Remove bot", "remove-bot");
    b.onclick = () => host({ action: "remove_bot", name: m.name });
    td.appendChild(b);
  } else if (!m.bot && st.host === S.name) {
    const b = el("button", "Remove…", "kick");
    b.onclick = () => {
      const reason = prompt(`Remove ${m.name} from the table: the reason (${m.name} sees it)`, "");
      if (reason !== null) host({ action: "kick", name: m.name, reason: reason.slice(0, 200) });
    };
    td.appendChild(b);
  }
  return td;
}

const botLevel = () => $("#host-bot-level").value || "simple";  // British: simple, house, solved
$("#host-add-bot").addEventListener("click", () => host({ action: "add_bot", level: botLevel() }));
$("#host-fill-bots").addEventListener("click", () => host({ action: "fill_bots", level: botLevel() }));
$("#host-pause").addEventListener("click", () => host({ action: S.state && S.state.paused ? "resume" : "pause" }));
$("#host-close").addEventListener("click", () => {
  if (confirm("Close this table? Everyone's money goes back to their accounts.")) host({ action: "close" });
});
$("#host-approval").addEventListener("change", (ev) => host({ action: "settings", approval: ev.target.checked }));
$("#host-settings").addEventListener("submit", (ev) => {
  ev.preventDefault();
  host({ action: "settings", turn_timeout_s: parseFloat($("#host-timer").value),
    result_pause_s: parseFloat($("#host-result").value) });
});
