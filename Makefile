# Two commands: `make demo` brings the whole app up; `make test` runs every test.
PY := .venv/bin/python
PORT ?= 8000
PASSWORD ?=
export PATH := $(HOME)/.local/bin:$(PATH)

.PHONY: uv install demo serve test test-under-load lint format bench

uv:
	@command -v uv >/dev/null 2>&1 || python3 -m pip install --quiet uv

# With the inspect extra: Runs → Import transcripts reads Inspect AI logs through it, and a
# plain `uv sync --frozen` would remove it again from a venv that has it.
install: uv
	uv sync --frozen --extra inspect

# The demo is a local, trusted setting: DEBUG on unless the caller says otherwise.
demo: export DEBUG ?= true
demo: install
	@# One Django start for migrate + suites + demo data: a no-op restart is one process
	@# start, not three (seed_demo installs the suites and skips what is already there).
	$(PY) manage.py seed_demo --migrate $(if $(PASSWORD),--password $(PASSWORD))
	$(PY) manage.py serve --port $(PORT)

# pytest-xdist workers: three by default on two cores (the slow tests mostly wait on browsers,
# worker processes and timeouts, which a third process fills: 389 s against 400 s with two;
# four gave no more); `PYTEST_WORKERS=0` runs in one.
PYTEST_WORKERS ?= 3
SOURCES := annotation config jury patientagentbench ratings sandbox tests manage.py

# The tests cover the optional Inspect AI interop too, so they install its extra.
test: uv
	@# Bytecode once at install (~17 s here): this machine sets PYTHONDONTWRITEBYTECODE, so
	@# every worker and manage.py process the tests start would compile its imports (~2.5 s).
	uv sync --frozen --extra inspect --compile-bytecode
	@# The project's own modules too (~1 s), and pytest may keep its rewritten test modules.
	$(PY) -m compileall -q -j0 $(SOURCES)
	@# A module (or class) per worker: its module-scoped rows and caches are built once, not
	@# once on every worker that draws one of its tests (339 s against 357 s, measured).
	PYTHONDONTWRITEBYTECODE= PAB_VAR_DIR=$(CURDIR)/var/test $(PY) -m pytest -n $(PYTEST_WORKERS) --dist loadscope $(PYTEST_ARGS)
	.venv/bin/ruff check .

# The suite beside a CPU hog of twice the cores, every test deadline stretched 4× (tests/
# patience.py): a test that only fails here waits on a fixed time, not on what it checks.
test-under-load: uv
	$(PY) -m tests.under_load $(MAKE) test

lint: install
	.venv/bin/ruff check .
	.venv/bin/ruff format --check .

format: install
	.venv/bin/ruff format .
	.venv/bin/ruff check --fix .

bench: install
	$(PY) benchmarks/metrics.py
	$(PY) benchmarks/pipeline.py
