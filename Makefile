# Two entry points, both from nothing: `make demo` (the kit's main job) and `make test`.
PYTHON ?= python3.11
VENV := .venv
PY := $(VENV)/bin/python

.PHONY: demo test release setup clean

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e . pytest-xdist
	touch $@

setup: $(VENV)/.installed

# Regenerate source/ and the student release from notebooks/ and the reference.
release: setup
	$(PY) -m kit.release

# The kit's main job.
demo: setup
	$(PY) -m kit.demo

test: setup
	$(PY) -m pytest -n 2 tests

clean:
	rm -rf $(VENV) gradebook.db submitted autograded feedback exchange .run
