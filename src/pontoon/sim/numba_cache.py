"""Where numba keeps the compiled simulator kernels (issue 10 item 8).

The kernels are compiled with ``cache=True``, so a second ``pontoon simulate`` loads them instead
of compiling again (about 28 s on a fresh install). numba writes its cache beside the module
(``sim/__pycache__``); when the installed package is read-only, the cache goes to a user cache
directory (``$NUMBA_CACHE_DIR`` if set, else ``$XDG_CACHE_HOME/pontoon/numba`` or
``~/.cache/pontoon/numba``, else a per-user folder in the temporary directory). When none can be
written, caching is switched off: the kernels are compiled in memory and nothing fails.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent


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
    return ok
