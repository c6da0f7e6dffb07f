"""What changed between two JSON values, as a list of operations, and its application (docs/server.md,
"Deltas"); ``static/js/delta.js`` is the page's ``apply``.

An operation is ``[path, value]`` (set the value at ``path``: replace it, or add a key at the end of its
object) or ``[path]`` (delete the key or the list's tail from index ``path[-1]`` on); ``path`` is a list
of object keys and list indices from the root; the empty path replaces the whole value. ``diff`` goes
into objects whose keys keep their order and into lists (common length element by element, then the
longer list's tail appended or the shorter's cut), and replaces anything else whole, so that
``apply(diff(a, b), a)`` equals ``b`` with the same key order (the page draws objects in key order).
"""

from __future__ import annotations

import marshal
from typing import Any

import orjson

Op = list[Any]
_MISSING = object()
DEPTH = 2  # below the state's top two levels a changed value is sent whole (bench/bench_fanout.py)


_OPT = orjson.OPT_NON_STR_KEYS  # (web/frames.py ``dumps``'s)


def _exact(a: Any, b: Any) -> bool:
    """Two objects or lists already ``==`` that are also the same JSON text: ``==`` takes ``True`` for
    ``1``, ``1.0`` for ``1`` and ``-0.0`` for ``0.0``, and ignores key order. Compared as the texts the
    frames are made of (orjson's: about three times faster than ``marshal``), or by ``marshal`` for
    what orjson refuses (an integer past 64 bits)."""
    try:
        return orjson.dumps(a, option=_OPT) == orjson.dumps(b, option=_OPT)
    except TypeError:
        return marshal.dumps(a, 2) == marshal.dumps(b, 2)


def _empty(t: type, v: Any) -> bool:
    """An empty object or list: equal to another of its type is the same JSON text (``{}``, ``[]``),
    no ``_exact`` needed (about half of the equal containers a change's public diff meets)."""
    return (t is list or t is dict) and not v


def _same(a: Any, b: Any) -> bool:
    """Equal as JSON text: the same type (``True`` is not ``1``, ``1.0`` is not ``1``), and a float's
    sign (``-0.0`` is not ``0.0``)."""
    return a is b or (type(a) is type(b) and a == b and (type(a) is not float or repr(a) == repr(b)))


def diff(
    a: Any,
    b: Any,
    path: list[Any] | None = None,
    out: list[Op] | None = None,
    depth: int = DEPTH,
) -> list[Op]:
    """The operations that turn ``a`` into ``b`` (JSON values: dict, list, str, int, float, bool, None);
    an object or list ``depth`` levels down that changed is sent whole (the walk costs more than the
    bytes it saves)."""
    p: list[Any] = [] if path is None else path
    ops: list[Op] = [] if out is None else out
    if a is b:
        return ops
    ta, tb = type(a), type(b)
    if (ta is dict or ta is list) and a == b and (not a or _exact(a, b)):
        return ops  # equal at C speed, and as JSON text (``_exact``)
    if depth <= 0:
        ops.append([p, b])
        return ops
    depth -= 1
    if ta is dict and tb is dict:
        ka, kb = list(a), list(b)
        if ka != kb:
            kept = [k for k in ka if k in b]
            if kb[: len(kept)] != kept:  # the order changed: the object is replaced whole
                ops.append([p, b])
                return ops
            ops.extend([[*p, k]] for k in ka if k not in b)
        for k, v in b.items():
            old = a.get(k, _MISSING)
            if old is v:
                continue
            tv = type(v)
            if tv is type(old):
                if old == v and (tv is str or tv is int or tv is bool or _empty(tv, v) or _exact(old, v)):
                    continue  # (inline: most keys are unchanged; ``_exact`` tells 1.0 from 1 inside)
                if depth and (tv is dict or tv is list):
                    diff(old, v, [*p, k], ops, depth)
                    continue
            ops.append([[*p, k], v])
        return ops
    elif ta is list and tb is list:
        n = min(len(a), len(b))
        for i in range(n):
            old, v = a[i], b[i]
            if old is v:
                continue
            tv = type(v)
            if tv is type(old):
                if old == v and (tv is str or tv is int or tv is bool or _empty(tv, v) or _exact(old, v)):
                    continue
                if depth and (tv is dict or tv is list):
                    diff(old, v, [*p, i], ops, depth)
                    continue
            ops.append([[*p, i], v])
        if len(a) > n:
            ops.append([[*p, n]])
        for i in range(n, len(b)):
            ops.append([[*p, i], b[i]])
        return ops
    elif _same(a, b):
        return ops
    ops.append([p, b])
    return ops


def apply(ops: list[Op], value: Any) -> Any:
    """``value`` with ``ops`` applied; ``value`` itself is not changed (the containers on each path are
    copied). Raises ``ValueError`` on an operation that does not fit ``value``."""
    root: list[Any] = [value]
    copied: set[int] = set()
    for op in ops:
        if not isinstance(op, list) or len(op) not in (1, 2) or not isinstance(op[0], list):
            raise ValueError(f"a delta operation is [path, value] or [path], not {op!r:.80}")
        path = op[0]
        node: Any = root
        key: Any = 0
        for step in path:
            child = node[key]
            if id(child) not in copied:
                child = dict(child) if type(child) is dict else list(child) if type(child) is list else child
                if type(child) not in (dict, list):
                    raise ValueError(f"a delta path {path!r:.80} goes into a {type(child).__name__}")
                node[key] = child
                copied.add(id(child))
            node, key = child, step
        if type(node) is list and not (type(key) is int and 0 <= key <= len(node)):
            raise ValueError(f"a delta path {path!r:.80} has a bad list index")
        if len(op) == 1:
            if type(node) is list:
                del node[key:]
            elif key in node:
                del node[key]
            else:
                raise ValueError(f"a delta deletes {path!r:.80}, which is not there")
        elif type(node) is list and key == len(node):
            node.append(op[1])
        else:
            node[key] = op[1]
    return root[0]


__all__ = ["Op", "apply", "diff"]
