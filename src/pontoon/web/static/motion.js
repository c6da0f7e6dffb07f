// Card and chip movement and optional sounds (issue 26 item 6). It listens for the page's
// "pontoon:state" event (app.js, after each render): a card or a wager line that was not on the
// felt before gets a CSS animation class (style.css; none under prefers-reduced-motion), and, when
// the sound toggle is on, a short WebAudio tone. Sounds are off by default; the choice is kept in
// localStorage. No audio is made before the person turns it on (a click: browsers require one).
"use strict";
(() => {
  const KEY = "pontoon.sound";
  const body = document.body;
  const sound = { on: false, ctx: null, tones: 0 };
  try { sound.on = localStorage.getItem(KEY) === "on"; } catch (e) { sound.on = false; }

  function tone(freq, dur, delay) {
    if (!sound.on) return;
    sound.tones += 1;
    body.dataset.tones = String(sound.tones);  // read by the tests: a tone was asked for
    const Ctx = window.AudioContext || window.webkitAudioContext;
    if (!Ctx) return;
    try {
      sound.ctx = sound.ctx || new Ctx();
      const ctx = sound.ctx;
      const t = ctx.currentTime + (delay || 0);
      const osc = ctx.createOscillator();
      const gain = ctx.createGain();
      osc.type = "sine";
      osc.frequency.value = freq;
      gain.gain.setValueAtTime(0.0001, t);
      gain.gain.exponentialRampToValueAtTime(0.12, t + 0.01);
      gain.gain.exponentialRampToValueAtTime(0.0001, t + dur);
      osc.connect(gain).connect(ctx.destination);
      osc.start(t);
      osc.stop(t + dur + 0.02);
    } catch (e) { /* no audio device: silent */ }
  }

  function showToggle() {
    const b = document.getElementById("sound-toggle");
    if (!b) return;
    b.textContent = sound.on ? "Sound: on" : "Sound: off";
    b.setAttribute("aria-pressed", sound.on ? "true" : "false");
    body.dataset.sound = sound.on ? "on" : "off";
  }

  const toggle = document.getElementById("sound-toggle");
  if (toggle) {
    toggle.addEventListener("click", () => {
      sound.on = !sound.on;
      try { localStorage.setItem(KEY, sound.on ? "on" : "off"); } catch (e) { /* private mode */ }
      showToggle();
      tone(660, 0.08);
    });
  }
  showToggle();

  // where a card lies: the dealer's row, or a spot (box) and its hand, and its place in the row
  function cardKey(svg) {
    const row = svg.parentElement;
    const spotEl = svg.closest(".spot");
    let where = "d";
    if (spotEl) {
      const spots = [...document.querySelectorAll("#spots .spot")];
      const hands = [...spotEl.querySelectorAll(".cards")];
      where = `s${spotEl.dataset.box || spots.indexOf(spotEl)}h${hands.indexOf(row)}`;
    }
    return `${where}:${[...row.children].indexOf(svg)}:${svg.dataset.card}`;
  }

  let table = null;
  let seenCards = new Map();  // where a card lies -> when it first showed (ms)
  let seenChips = new Set();
  let mark = null;
  let dealt = 0;
  const DEAL_MS = 600;  // a redraw within this time continues the card's slide where it was
  document.addEventListener("pontoon:state", (ev) => {
    const st = ev.detail || {};
    const first = st.table !== table;
    if (first) { table = st.table; seenCards = new Map(); seenChips = new Set(); mark = st.history_mark; }
    const now = performance.now();
    const cards = new Map();
    let fresh = 0;
    for (const svg of document.querySelectorAll("#felt svg.card")) {
      const k = cardKey(svg);
      const since = seenCards.has(k) ? seenCards.get(k) : (first ? -Infinity : now + Math.min(fresh++, 6) * 70);
      cards.set(k, since);
      if (now - since < DEAL_MS) {  // new (one after another when several), or redrawn mid-slide
        svg.classList.add("deal-in");
        svg.style.animationDelay = `${Math.round(since - now)}ms`;
      }
    }
    dealt += fresh;
    body.dataset.dealt = String(dealt);  // read by the tests: cards that slid in
    const chips = new Set();
    for (const line of document.querySelectorAll("#felt .wager, #felt .outcome")) {
      const k = line.textContent;
      chips.add(k);
      if (!first && !seenChips.has(k)) line.classList.add(line.classList.contains("outcome") ? "result-in" : "chip-in");
    }
    seenCards = cards;
    seenChips = chips;
    if (fresh) tone(880, 0.05);
    if (!first && st.history_mark !== mark) {
      mark = st.history_mark;
      const past = st.history || [];
      const last = past[past.length - 1];
      const mine = last && st.you && last.net ? last.net[st.you] : undefined;
      const total = mine === undefined ? null : Number(typeof mine === "object" ? mine.total : mine);
      if (total > 0) { tone(523, 0.12); tone(784, 0.16, 0.12); }
      else if (total < 0) { tone(392, 0.12); tone(294, 0.18, 0.12); }
    }
  });
})();
