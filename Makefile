VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: install sysdeps run test test-slow bench lint typecheck clean

install: $(STAMP)

$(STAMP): pyproject.toml
	python3 -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

# System packages the real-part tests use: Debian's chromium (browser tests through Playwright) and
# postgresql (the history store on a real server). Installed when missing and we are root with apt-get;
# otherwise the script says what to install and those tests are skipped with that reason.
sysdeps:
	@bash scripts/sysdeps.sh

run: install
	$(VENV)/bin/pontoon play

lint: install
	$(VENV)/bin/ruff check src tests bench
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
	rm -rf $(VENV) build *.egg-info .pytest_cache .mypy_cache .ruff_cache
