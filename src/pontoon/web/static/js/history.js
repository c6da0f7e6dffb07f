// The last rounds panel (store rounds over REST, else the WebSocket's history).
import { $, S, api, el } from "./core.js";

// The last rounds: read from the history store's REST endpoints (they survive a page reload and a
// server restart), re-read when the server says a round was booked (history_mark); a round's steps
// are fetched when it is opened. Without a store (--memory) the WebSocket's history is shown.
export function renderHistory(st) {
  if (!st.history_store) { S.histRows = null; renderWsHistory(st); return; }  // --memory: no store to ask
  const key = `${st.table}:${st.history_mark}`;
  if (S.histKey === key) { if (!S.histRows) renderWsHistory(st); return; }
  S.histKey = key;
  api("GET", `/api/tables/${st.table}/rounds?last=10`).then((rows) => {
    if (S.histKey !== key) return;
    S.histRows = rows.filter((r) => r.status !== "open");
    renderStoreHistory(st);
  }).catch(() => { S.histRows = null; renderWsHistory(st); });
}

export function renderStoreHistory(st) {
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

export function renderWsHistory(st) {
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

