#!/usr/bin/env bash
# The second device run of issue 23: only the splits the first run left (mbs, rws-plus and
# rws-pandemonium share one main wager and so one measure per split: their family's splits are
# worked out once, as rws-plus's, and copied to the others by bench/merge_splits.py --family),
# the likeliest to finish first: 6-6 against a 4, the 4-4s, federal optimal play's own three-hand
# 3-3 against a 2, 2-2 against a 3 and a 2, 3-3 and 2-2 against an 8 (its chart's are shipped), then
# the 3-3s, then the 2-2s.
# Run from the folder holding src/ and bench/:  JOBS=16 BUDGET_S=200 OUT=/tmp/out bench/device_splits2.sh
set -euo pipefail
: "${JOBS:?JOBS (cores) not set}" "${BUDGET_S:?BUDGET_S (wall seconds) not set}" "${OUT:?OUT (folder) not set}"
MEM_GB="${MEM_GB:-100}"  # memory of all the jobs together (each split is given up past its share)
export PYTHONPATH="src${PYTHONPATH:+:$PYTHONPATH}"
export NUMBA_CACHE_DIR="${NUMBA_CACHE_DIR:-/tmp/pontoon-numba-cache}"
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1
PY="${PYTHON:-python3}"
mkdir -p "$OUT"
"$PY" -c 'import numba, numpy, sys; print("python", sys.version.split()[0], "numpy", numpy.__version__, "numba", numba.__version__)'
# value indices (0 Ace .. 9 ten-value): "preset:up:pair"
CELLS=(
    rws-plus:3:5 rws-plus:5:3 blackjack:5:3 blackjack:4:3
    federal:1:2 federal:2:1 federal:1:1 federal:7:2 federal:7:1
    rws-plus:7:2 rws-plus:6:2 rws-plus:5:2 rws-plus:4:2 rws-plus:3:2 rws-plus:2:2 rws-plus:1:2
    blackjack:6:2 blackjack:5:2 blackjack:4:2 blackjack:3:2 blackjack:2:2 blackjack:1:2
    rws-plus:7:1 rws-plus:6:1 rws-plus:5:1 rws-plus:4:1 rws-plus:3:1 rws-plus:2:1 rws-plus:1:1
    blackjack:6:1 blackjack:5:1 blackjack:4:1 blackjack:3:1 blackjack:2:1 blackjack:1:1
)
exec "$PY" bench/precompute_splits.py rws-plus blackjack federal --cells "${CELLS[@]}" \
    --jobs "$JOBS" --budget-s "$BUDGET_S" --mem-gb "$MEM_GB" --out-dir "$OUT"
