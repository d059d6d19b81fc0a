# Two entry points, both from nothing: `make demo` (the kit's main job) and `make test`.
PYTHON ?= python3.11
VENV := .venv
PY := $(VENV)/bin/python
export PATH := $(CURDIR)/$(VENV)/bin:$(PATH)

.PHONY: demo test release setup browser lab bench clean

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[browser,train]' pytest-xdist
	touch $@

setup: $(VENV)/.installed

# Debian's Chromium for the browser tests (Playwright's own browser download does
# not work everywhere). Installed when running as root; otherwise the browser
# tests skip and say how to enable them.
browser:
	@if command -v chromium >/dev/null 2>&1; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	else echo "chromium not found: browser tests will skip (install Debian's chromium to run them)"; fi

# Regenerate source/, the student release and the example class from notebooks/ and the reference.
release: setup
	$(PY) -m kit.release
	$(PY) -m examples.make_class

# The kit's main job: the instructor's whole loop on the example class.
demo: setup
	$(PY) -m kit.demo

test: setup browser
	$(PY) -m pytest -n 2 --dist loadfile --durations=15 tests

# The student's view: JupyterLab 4 with nbgrader's Assignment List and Validate button, on your
# own copy in student/attention (fetched once from the course exchange, never overwritten).
lab: setup
	$(PY) -m nbgrader release_assignment attention --force --log-level=ERROR
	mkdir -p student
	printf 'c = get_config()  # noqa: F821\nc.Exchange.root = "$(CURDIR)/exchange"\nc.CourseDirectory.course_id = "attention-kit"\n' > student/nbgrader_config.py
	cd student && { test -d attention || $(CURDIR)/$(PY) -m nbgrader fetch_assignment attention --log-level=ERROR; }
	cd student && $(CURDIR)/$(VENV)/bin/jupyter lab $(if $(filter 0,$(shell id -u)),--allow-root) attention/01_worked_example.ipynb

bench: setup
	$(PY) -m benchmarks.run

clean:
	rm -rf $(VENV) gradebook.db gradebook.db-wal gradebook.db-shm submitted autograded feedback exchange .run grades.csv
