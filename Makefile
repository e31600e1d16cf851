# Two commands: `make demo` brings the whole app up; `make test` runs every test.
PY := .venv/bin/python
PORT ?= 8000
PASSWORD ?=
export PATH := $(HOME)/.local/bin:$(PATH)

.PHONY: uv install demo serve test lint format bench

uv:
	@command -v uv >/dev/null 2>&1 || python3 -m pip install --quiet uv

install: uv
	uv sync --frozen

demo: install
	@# One Django start for migrate + suites + demo data: a no-op restart is one process
	@# start, not three (seed_demo installs the suites and skips what is already there).
	$(PY) manage.py seed_demo --migrate $(if $(PASSWORD),--password $(PASSWORD))
	$(PY) manage.py serve --port $(PORT)

test: install
	PAB_VAR_DIR=$(CURDIR)/var/test $(PY) -m pytest $(PYTEST_ARGS)
	.venv/bin/ruff check .

lint: install
	.venv/bin/ruff check .
	.venv/bin/ruff format --check .

format: install
	.venv/bin/ruff format .
	.venv/bin/ruff check --fix .

bench: install
	$(PY) benchmarks/metrics.py
	$(PY) benchmarks/pipeline.py
