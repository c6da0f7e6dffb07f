// A state delta (docs/server.md "State frames and deltas"; web/delta.py makes them): each operation is
// [path, value] (set: replace, add a key at the end, or append at a list's end) or [path] (delete the key,
// or cut the list from that index); the containers on each path are copied, the old state is not changed.
export function applyDelta(ops, value) {
  const root = [value];
  const copied = new Set();
  for (const op of ops) {
    const path = op[0];
    let node = root, key = 0;
    for (const step of path) {
      let child = node[key];
      if (child === null || typeof child !== "object") throw new Error(`delta path ${JSON.stringify(path)} does not fit`);
      if (!copied.has(child)) {
        child = Array.isArray(child) ? child.slice() : Object.assign({}, child);
        node[key] = child; copied.add(child);
      }
      node = child; key = step;
    }
    if (op.length === 1) {
      if (Array.isArray(node)) node.length = key; else delete node[key];
    } else node[key] = op[1];
  }
  return root[0];
}

// The state a frame brings, given the state held: a full state as it is, a delta applied to the state it
// is based on; null when the delta is not based on the state held (a gap: ask for the full state).
export function stateOf(m, held) {
  if (m.type === "state") { const st = Object.assign({}, m); delete st.notice; return st; }
  if (!held || held.seq !== m.base) return null;
  const st = applyDelta(m.ops, held);
  return st === held ? Object.assign({}, held, { seq: m.seq }) : Object.assign(st, { seq: m.seq });
}

// Split frames (``?deltas=2``, web/frames.py): the public state (the same for every seat and spectator)
// and this socket's own part apart: ``own`` is a list of operations that turn the public state into this
// seat's (its ``you``, its ``legal``, its seat's legal actions, its own hidden cards); a full state
// brings it whole, a delta what changed in it (operations on that list; none: unchanged). The held
// value is { pub, own, state }: the state drawn is the public one with the own operations applied.
// A frame without ``own`` (a spectator's, or ``?deltas=1``'s) leaves the public state as the state.
export function splitOf(m, held) {
  let pub, own;
  if (m.type === "state") {
    pub = Object.assign({}, m); delete pub.notice; delete pub.own;
    own = m.own || [];
  } else {
    if (!held || held.pub.seq !== m.base) return null;
    pub = stateOf(m, held.pub);
    own = m.own ? applyDelta(m.own, held.own) : held.own;
  }
  const state = own.length ? applyDelta(own, pub) : Object.assign({}, pub);
  return { pub, own, state };
}

// One socket's frames in order (js/table.js ``connect``; split frames or plain deltas alike: ``splitOf``):
// the state each frame brings, or null where it
// brings none (a gap, or a delta that does not fit the state held: both ask for the full state). The
// full state is asked for once at a gap, and again every ``everyMs`` while none has come (a resync
// that got no answer left the page showing a stale table for good: every later delta was dropped and
// never asked again). ``ask()`` sends the resync; it returns false once the socket is gone (no more asks).
export const RESYNC_MS = 2000;
export function follower(ask, everyMs = RESYNC_MS) {
  let held = null, gap = false, timer = null;
  const again = () => { timer = null; if (gap && ask() !== false) timer = setTimeout(again, everyMs); };
  return (m) => {
    let got = null;
    try { got = splitOf(m, held); } catch (e) { got = null; }  // (a delta path that does not fit: a gap)
    if (got === null) {
      if (!gap) { gap = true; if (ask() !== false) timer = setTimeout(again, everyMs); }
      return null;
    }
    gap = false; if (timer !== null) { clearTimeout(timer); timer = null; }
    held = got;
    return got.state;
  };
}
