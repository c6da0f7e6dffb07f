#!/usr/bin/env bash
# The device run of issue 23 (docs/report-agreement.md): mbs's, rws-plus's, rws-pandemonium's and
# blackjack's four-hand splits worked out exactly over $JOBS processes within $BUDGET_S seconds,
# written to $OUT/splits-<preset>.json as each ends (bench/device_pool.py), with $OUT/summary.json.
# Run from the folder holding src/ and bench/:  JOBS=12 BUDGET_S=480 OUT=/tmp/out bench/device_splits.sh
set -euo pipefail
: "${JOBS:?JOBS (cores) not set}" "${BUDGET_S:?BUDGET_S (wall seconds) not set}" "${OUT:?OUT (folder) not set}"
MEM_GB="${MEM_GB:-96}"  # memory of all the jobs together (each split is given up past its share)
export PYTHONPATH="src${PYTHONPATH:+:$PYTHONPATH}"
export NUMBA_CACHE_DIR="${NUMBA_CACHE_DIR:-/tmp/pontoon-numba-cache}"
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1
PY="${PYTHON:-python3}"
mkdir -p "$OUT"
"$PY" -c 'import numba, numpy, sys; print("python", sys.version.split()[0], "numpy", numpy.__version__, "numba", numba.__version__)'
exec "$PY" bench/precompute_splits.py mbs rws-plus rws-pandemonium blackjack \
    --jobs "$JOBS" --budget-s "$BUDGET_S" --mem-gb "$MEM_GB" --out-dir "$OUT"
