// The table's chat between the people at the table: lines are shown as text (textContent, never
// markup); each person may be muted in this browser (the list kept in localStorage).
import { $, S, el, notice } from "./core.js";
import { send } from "./table.js";

const MAX_LINES = 100;

export function renderChat(st) {
  $("#chat").hidden = !st.you;
}

export function chatLine(m) {
  const log = $("#chat-log");
  const li = el("li", null, "chat-line");
  li.dataset.from = m.from;
  li.hidden = S.muted.has(m.from);
  li.appendChild(el("b", m.from + ": "));
  li.appendChild(el("span", m.text, "chat-text"));
  if (m.from !== S.name) {
    const mute = el("button", S.muted.has(m.from) ? "unmute" : "mute", "mute");
    mute.onclick = () => toggleMute(m.from);
    li.appendChild(mute);
  }
  log.appendChild(li);
  while (log.children.length > MAX_LINES) log.firstElementChild.remove();
  log.scrollTop = log.scrollHeight;
}

function toggleMute(name) {
  if (S.muted.has(name)) S.muted.delete(name); else S.muted.add(name);
  localStorage.setItem("muted", JSON.stringify([...S.muted]));
  for (const li of $("#chat-log").children) {
    if (li.dataset.from !== name) continue;
    li.hidden = S.muted.has(name);
    const b = li.querySelector("button.mute");
    if (b) b.textContent = S.muted.has(name) ? "unmute" : "mute";
  }
  renderMuted();
}

function renderMuted() {
  const div = $("#chat-muted");
  div.replaceChildren();
  for (const name of S.muted) {
    const b = el("button", `unmute ${name}`, "unmute");
    b.onclick = () => toggleMute(name);
    div.appendChild(b);
  }
}

$("#chat-form").addEventListener("submit", (ev) => {
  ev.preventDefault();
  const text = $("#chat-text").value.trim();
  if (!text) return;
  if (text.length > 200) { notice("chat: at most 200 characters"); return; }
  send({ type: "chat", text });
  $("#chat-text").value = "";
});
renderMuted();
