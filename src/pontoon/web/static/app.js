// The Pontoon table page: plain JavaScript modules, no build step, no CDN (served by the app).
// js/core.js (state, helpers), js/lobby.js (accounts, lobby), js/table.js (the table), js/history.js.
import { $, S, notice } from "./js/core.js";
import { loadPresets, refreshAccount, refreshTables, showAccount } from "./js/lobby.js";
import { enterTable } from "./js/table.js";


// ---------------------------------------------------------------- start
showAccount();
refreshAccount();
loadPresets().catch((e) => notice(e.message));
if (S.tableId) enterTable(S.tableId); else refreshTables();  // an invite link (/t/{id}) opens its table
setInterval(() => { if (!$("#lobby").hidden) refreshTables(); }, 3000);
setInterval(() => {  // the turn timer counts down between states
  if (S.state && S.state.timer_s !== null) { S.state.timer_s = Math.max(0, S.state.timer_s - 1); $("#timer").textContent = `${Math.ceil(S.state.timer_s)} s`; }
}, 1000);

