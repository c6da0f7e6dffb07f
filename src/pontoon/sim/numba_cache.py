"""Where numba keeps the compiled simulator kernels (issue 10 item 8).

The kernels are compiled with ``cache=True``, so a second ``pontoon simulate`` loads them instead
of compiling again (about 28 s on a fresh install). numba writes its cache beside the module
(``sim/__pycache__``); when the installed package is read-only, the cache goes to a user cache
directory (``$NUMBA_CACHE_DIR`` if set, else ``$XDG_CACHE_HOME/pontoon/numba`` or
``~/.cache/pontoon/numba``, else a per-user folder in the temporary directory). When none can be
written, caching is switched off: the kernels are compiled in memory and nothing fails.

numba checks a cached kernel against the source of its own file only, but the round is inlined
into ``_kernels.py``'s loops from ``_round.py``, ``_draws.py`` and ``_consts.py``: an edit there
left the old round in the cache (issue 15: a changed ``_round._comp_code`` ran in ``run_stacked``,
recompiled, while ``simulate`` kept loading the stale ``run_random``; the counter's ``run_count``
likewise). So a hash of all of them (and of the counter's and British kernels)
is kept beside the cache (``STAMP``), and when it changes the simulator's cached kernels are
deleted before numba looks at them (``drop_stale``).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import tempfile
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent
# inlined into one another (the counter's and British kernels inline the round and the draws too)
KERNEL_SOURCES = (
    "_consts.py",
    "_draws.py",
    "_round.py",
    "_kernels.py",
    "_count_kernel.py",
    "_british_kernel.py",
)
KERNEL_MODULES = ("_consts", "_draws", "_round", "_kernels", "_count_kernel", "_british_kernel")
STAMP = "pontoon-sim-kernels.sha256"


def sources_hash(package_dir: Path = PACKAGE_DIR) -> str:
    """SHA-256 of the kernel sources, in order."""
    h = hashlib.sha256()
    for name in KERNEL_SOURCES:
        with contextlib.suppress(OSError):
            h.update(name.encode() + b"\0" + (package_dir / name).read_bytes())
    return h.hexdigest()


def kernel_cache_dir(where: str | None, package_dir: Path = PACKAGE_DIR) -> Path:
    """Where numba puts this package's cached kernels: ``__pycache__`` beside the modules, or
    under ``where`` (``NUMBA_CACHE_DIR``) the sub-folder numba names after the source folder
    (``numba.core.caching._CacheLocator.get_suitable_cache_subpath``)."""
    if where is None:
        return package_dir / "__pycache__"
    src = os.path.abspath(str(package_dir))
    return Path(where) / "_".join([os.path.split(src)[-1], hashlib.sha1(src.encode()).hexdigest()])


def drop_stale(cache_dir: Path, package_dir: Path = PACKAGE_DIR) -> bool:
    """Delete the simulator's cached kernels in ``cache_dir`` unless they were compiled from the
    current sources (the stamp beside them says so); returns whether any were deleted."""
    want = sources_hash(package_dir)
    stamp = cache_dir / STAMP
    try:
        with stamp.open("rb") as fh:  # a hash and a newline: read no more (issue 29 item 5)
            if fh.read(256).decode("ascii", errors="replace").strip() == want:
                return False
    except OSError:
        pass
    dropped = False
    for mod in KERNEL_MODULES:
        for f in cache_dir.glob(f"{mod}.*.nb[ic]"):
            with contextlib.suppress(OSError):
                f.unlink()
                dropped = True
    with contextlib.suppress(OSError):
        cache_dir.mkdir(parents=True, exist_ok=True)
        tmp = cache_dir / f"{STAMP}.{os.getpid()}.tmp"
        tmp.write_text(want + "\n")
        os.replace(tmp, stamp)
    return dropped


def _writable(d: Path) -> bool:
    try:
        d.mkdir(parents=True, exist_ok=True)
        probe = d / f".pontoon-write-test-{os.getpid()}"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError:
        return False
    return True


def user_cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "pontoon" / "numba"


def choose_cache_dir(package_dir: Path = PACKAGE_DIR) -> tuple[bool, str | None]:
    """(caching on?, the directory to give numba, or None for numba's own place beside the module)."""
    given = os.environ.get("NUMBA_CACHE_DIR")
    if given:
        return (_writable(Path(given)), given)
    if _writable(package_dir / "__pycache__"):
        return (True, None)
    uid = os.getuid() if hasattr(os, "getuid") else 0
    for d in (user_cache_dir(), Path(tempfile.gettempdir()) / f"pontoon-numba-{uid}"):
        if _writable(d):
            return (True, str(d))
    return (False, None)


def configure() -> bool:
    """Point numba at a writable cache directory; returns whether the kernels may be cached.

    Called by ``_kernels`` before its functions are decorated. The chosen directory is also put in
    ``NUMBA_CACHE_DIR`` so that Dask worker processes started afterwards use the same one."""
    ok, where = choose_cache_dir()
    if ok and where is not None:
        import numba

        setattr(numba.config, "CACHE_DIR", where)  # noqa: B010 (numba.config has no stubs for it)
        os.environ["NUMBA_CACHE_DIR"] = where
    if ok:
        drop_stale(kernel_cache_dir(where))
    return ok
