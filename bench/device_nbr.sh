#!/bin/sh
# The lent machine's run (issue 27 item 3; /work/wt/DEVICE-british-nbr.md): JOBS workers, BUDGET_S seconds,
# files in OUT. Run from the folder holding src/ and bench/, with PYTHONPATH=src (plus pydantic's path).
set -e
exec python3 bench/device_nbr.py run --jobs "${JOBS:-4}" --budget "${BUDGET_S:-480}" --out "${OUT:-nbr-out}"
