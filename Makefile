# `make run` and `make test` each build the virtual environment they need on a fresh machine.
VENV ?= .venv
PYTHON ?= python3
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

CHROMIUM := /usr/bin/chromium
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: run test lint clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[dev,similarity,studies,spark]'
	touch $(STAMP)

# The main job: every bundled LongSocialBench item, Full context and BM25 top-20 side by side, on the embedded model.
run: $(STAMP)
	$(BIN)/socialbench run longsocial -T workflow=full -T workflow=bm25-k20

lint: $(STAMP)
	$(BIN)/ruff check src tests benchmarks scripts
	$(BIN)/ruff format --check src tests benchmarks scripts
	$(BIN)/mypy
	$(BIN)/lint-imports

# The report and annotation tests open pages in Debian's chromium, driven by Playwright (never `playwright install`).
$(CHROMIUM):
	$(SUDO) apt-get install -y -q chromium || ($(SUDO) apt-get update -q && $(SUDO) apt-get install -y -q chromium)

test: lint $(CHROMIUM)
	$(BIN)/pytest -q

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
