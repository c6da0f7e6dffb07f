VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: install run test test-slow bench lint typecheck clean

install: $(STAMP)

$(STAMP): pyproject.toml
	python3 -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

run: install
	$(VENV)/bin/pontoon play

lint: install
	$(VENV)/bin/ruff check src tests bench
	$(VENV)/bin/lint-imports

typecheck: install
	$(VENV)/bin/mypy src

test: install lint typecheck
	$(VENV)/bin/pytest -q -n 2

test-slow: install
	$(VENV)/bin/pytest -q -m slow

bench: install
	for f in bench/bench_*.py; do echo "== $$f"; $(PY) $$f || exit 1; done

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .mypy_cache .ruff_cache
