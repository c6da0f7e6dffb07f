// The session panel (issue 26 item 3): the table's ledger (GET /api/tables/{id}/ledger: each
// person's buy-ins, rounds, net and leave) and the export links (JSON, replayable with
// `pontoon replay --export FILE`; CSV, one row per wager): docs/export.md. It follows the page's
// "pontoon:state" event (app.js) and re-reads the ledger when a round is booked while it is open.
"use strict";
(() => {
  const panel = document.getElementById("session");
  if (!panel) return;
  const tbody = panel.querySelector("#ledger tbody");
  const note = panel.querySelector("#ledger-note");
  let table = null;
  let mark = null;

  function cell(text) {
    const td = document.createElement("td");
    td.textContent = text;
    return td;
  }

  async function load() {
    if (!table || !panel.open) return;
    const want = table;
    try {
      const r = await fetch(`/api/tables/${want}/ledger`, { credentials: "same-origin" });
      const data = await r.json().catch(() => ({}));
      if (want !== table) return;
      if (!r.ok) { tbody.replaceChildren(); note.textContent = data.detail || r.statusText; return; }
      note.textContent = Object.keys(data.people).length ? "" : "no round finished yet";
      tbody.replaceChildren(...Object.entries(data.people).map(([name, p]) => {
        const tr = document.createElement("tr");
        tr.append(cell(name), cell(p.buy_ins.join(" + ") || "–"), cell(String(p.rounds)),
          cell(p.net), cell(p.left === null ? "seated" : p.left));
        return tr;
      }));
      panel.dataset.loaded = String(Object.keys(data.people).length);
    } catch (e) { note.textContent = "the ledger could not be read: " + e.message; }
  }

  panel.addEventListener("toggle", load);
  document.addEventListener("pontoon:state", (ev) => {
    const st = ev.detail || {};
    if (st.table !== table) {
      table = st.table;
      mark = null;
      panel.querySelector("#export-json").href = `/api/tables/${table}/export.json`;
      panel.querySelector("#export-csv").href = `/api/tables/${table}/export.csv`;
    }
    if (st.history_mark !== mark) { mark = st.history_mark; load(); }
  });
})();
