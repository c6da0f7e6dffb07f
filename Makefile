VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: install compile sysdeps run test test-slow bench lint typecheck clean

install: $(STAMP)

# the engine modules setup.py compiles with mypyc (its COMPILED list) and the analysis and simulator
# kernels it compiles with numba.pycc (its AOT_SOURCES, SIM_AOT_SOURCES): editing one re-runs the
# install, which compiles them again (PONTOON_PURE=1 make install: the pure-Python engine and numba's
# JIT kernels, nothing compiled)
ENGINE_SRC := $(shell sed -n 's/^    "\(src\/pontoon\/.*\.py\)",$$/\1/p' setup.py)

$(STAMP): pyproject.toml setup.py $(ENGINE_SRC)
	python3 -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	$(PY) -m pontoon.compiled
	touch $(STAMP)

# rebuild the compiled engine and the analysis kernels in place after editing their sources (quicker
# than make install; uses the venv's mypy and numba): the extensions land beside the .py files, where
# the editable install imports them
compile:
	$(PY) setup.py build_ext --inplace
	$(PY) -m pontoon.compiled

# System packages the real-part tests use: Debian's chromium (browser tests through Playwright) and
# postgresql (the history store on a real server). Installed when missing and we are root with apt-get;
# otherwise the script says what to install and those tests are skipped with that reason.
sysdeps:
	@bash scripts/sysdeps.sh

run: install
	$(VENV)/bin/pontoon play

lint: install
	$(VENV)/bin/ruff check src tests bench setup.py
	$(VENV)/bin/ruff format --check src tests bench setup.py
	$(VENV)/bin/lint-imports

typecheck: install
	$(VENV)/bin/mypy src

test: install sysdeps lint typecheck
	$(VENV)/bin/pytest -q -n 2

test-slow: install sysdeps
	$(VENV)/bin/pytest -q -m slow

bench: install
	for f in bench/bench_*.py; do echo "== $$f"; $(PY) $$f || exit 1; done

clean:
	rm -rf $(VENV) build *.egg-info src/*.egg-info .pytest_cache .mypy_cache .ruff_cache
	find src -name '*.so' -delete
	rm -f src/pontoon/analysis/_aot_cpu.txt src/pontoon/sim/_aot_cpu.txt
