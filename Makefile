# evaltrans: every set-up step lives here, so a fresh machine needs only Python 3.11.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: run worker venv dev-venv test test-suite fuzz lint bench browser-deps demo clean

$(VENV)/.installed: requirements.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip
	$(PIP) install --quiet -r requirements.txt
	touch $@

$(VENV)/.dev-installed: $(VENV)/.installed requirements-dev.txt
	$(PIP) install --quiet -r requirements-dev.txt
	touch $@

venv: $(VENV)/.installed
dev-venv: $(VENV)/.dev-installed

demo: venv
	$(PY) manage.py migrate --noinput
	$(PY) manage.py load_demo
	$(PY) manage.py load_demo_campaign
	$(PY) manage.py load_demo_runs

# The site and one Celery worker on the embedded default; Ctrl-C stops both.
run: demo
	@echo ""
	@echo "  evaltrans is starting at http://$(HOST):$(PORT)/"
	@echo "  demo logins:  admin / admin-demo   judge1 / judge-demo   viewer / viewer-demo"
	@echo ""
	@trap 'kill 0' INT TERM EXIT; \
	$(VENV)/bin/celery -A evaltrans worker --loglevel=warning --concurrency=2 & \
	$(PY) manage.py runserver $(HOST):$(PORT)

# One Celery worker alone, e.g. when the site runs elsewhere or the worker of `make run` died;
# it resumes the active runs when it connects.
worker: venv
	$(VENV)/bin/celery -A evaltrans worker --loglevel=warning --concurrency=2

# Debian's Chromium for the browser tests (never a downloaded browser build).
browser-deps:
	@command -v chromium >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -qq && apt-get install -y -qq chromium >/dev/null; \
	  else echo "browser tests need Debian's chromium: sudo apt-get install chromium"; fi; }

test: dev-venv test-suite

test-suite:
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(PY) manage.py check --settings=evaltrans.settings.test
	$(PY) manage.py makemigrations --check --dry-run --settings=evaltrans.settings.test
	$(VENV)/bin/pytest $(PYTEST_ARGS)

# Every fuzz module (tests/**/test_fuzz_*.py) with the "fuzz" hypothesis profile of
# tests/fuzzing.py: 2000 examples per test instead of the suite's 40 (minutes, not seconds).
FUZZ_MODULES = $(shell find tests -name 'test_fuzz_*.py' | sort)

fuzz: dev-venv
	HYPOTHESIS_PROFILE=fuzz $(VENV)/bin/pytest $(PYTEST_ARGS) $(FUZZ_MODULES)

lint: dev-venv
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

bench: dev-venv
	$(PY) -m tests.benchmarks

clean:
	rm -rf $(VENV) var staticfiles .pytest_cache .ruff_cache
