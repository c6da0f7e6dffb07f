"""The simulator's numba cache follows every kernel source, not only the file of each kernel."""

from __future__ import annotations

import shutil
from pathlib import Path

from pontoon.sim import numba_cache as NC


def _tree(tmp_path: Path) -> tuple[Path, Path]:
    pkg = tmp_path / "sim"
    pkg.mkdir()
    for name in NC.KERNEL_SOURCES:
        shutil.copy(NC.PACKAGE_DIR / name, pkg / name)
    cache = pkg / "__pycache__"
    cache.mkdir()
    return pkg, cache


def _cached(cache: Path) -> list[str]:
    names = [
        "_kernels.run_random-88.py311.nbi",
        "_kernels.run_random-88.py311.1.nbc",
        "_round._comp_code-9.py311.nbi",
    ]
    for n in names:
        (cache / n).write_bytes(b"x")
    (cache / "other.f-1.py311.nbi").write_bytes(b"x")  # not a simulator kernel: kept
    return names


def test_an_edit_to_an_inlined_source_drops_the_cached_kernels(tmp_path: Path) -> None:
    """Editing ``_round.py`` alone (``_kernels.py``, whose time stamp numba checks, unchanged)
    deletes the cached kernels; an unchanged tree keeps them."""
    pkg, cache = _tree(tmp_path)
    names = _cached(cache)
    assert NC.drop_stale(cache, pkg)  # no stamp yet: compiled from unknown sources
    assert not any((cache / n).exists() for n in names) and (cache / "other.f-1.py311.nbi").exists()
    names = _cached(cache)
    assert not NC.drop_stale(cache, pkg)  # same sources: kept
    assert all((cache / n).exists() for n in names)
    (pkg / "_round.py").write_text((pkg / "_round.py").read_text() + "\n# an edit\n")
    assert NC.drop_stale(cache, pkg)
    assert not any((cache / n).exists() for n in names)
    assert (cache / NC.STAMP).read_text().strip() == NC.sources_hash(pkg)


def test_kernel_cache_dir_is_numbas() -> None:
    """With a cache folder given, numba keeps a module's kernels in a sub-folder named after the
    module's folder and its path's SHA-1; ours matches numba's own locator."""
    from numba.core.caching import _CacheLocator

    want = _CacheLocator.get_suitable_cache_subpath(str(NC.PACKAGE_DIR / "_kernels.py"))
    assert NC.kernel_cache_dir("/some/where") == Path("/some/where") / want
    assert NC.kernel_cache_dir(None) == NC.PACKAGE_DIR / "__pycache__"
