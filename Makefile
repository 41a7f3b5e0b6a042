# Agent Desk: `make run` for the demo, `make test` for the whole suite.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
HOST ?= 127.0.0.1
PORT ?= 8000
# The demo runs on the embedded defaults; these are for one machine only (see README).
export DJANGO_DEBUG ?= 0
export DJANGO_SECRET_KEY ?= $(shell cat .demo-secret-key 2>/dev/null || ($(PYTHON) -c 'import secrets; print(secrets.token_urlsafe(40))' | tee .demo-secret-key))

.PHONY: run test test-fast install serve tick clean

$(VENV)/.installed: requirements.txt requirements-dev.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements-dev.txt
	touch $@

install: $(VENV)/.installed

run: install
	$(PY) manage.py migrate --no-input
	$(PY) manage.py seed_demo
	@echo "Serving on http://$(HOST):$(PORT)/  (autonomy loop beside it; Ctrl-C stops both)"
	@trap 'kill 0' INT TERM EXIT; \
	$(PY) manage.py autonomy_tick --loop --interval $${AUTONOMY_INTERVAL:-30} & \
	$(PY) -m daphne -b $(HOST) -p $(PORT) config.asgi:application

test: install
	$(PY) -m pytest $(PYTEST_ARGS)

# The inner loop: everything but the tests that start another process (the `slow` marker).
test-fast: install
	$(PY) -m pytest -m "not slow" $(PYTEST_ARGS)

clean:
	rm -rf $(VENV) staticfiles test_db.sqlite3*
