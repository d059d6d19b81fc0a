# Two entry points, both from nothing: `make demo` (the kit's main job) and `make test`.
# Each command installs what it uses into one .venv/: the base dependencies for the
# demo, the lab and the release; the test and benchmark extras (torch among them) on top,
# the first time `make test` or `make bench` runs. One marker file per layer.
PYTHON ?= python3.11
VENV := .venv
PY := $(VENV)/bin/python
export PATH := $(CURDIR)/$(VENV)/bin:$(PATH)
# course.toml's names (kit/course.py), asked only by the recipes that use them, once the venv exists.
ASSIGNMENT = $(shell $(PY) -m kit.course assignment)
COURSE_ID = $(shell $(PY) -m kit.course course_id)

.PHONY: demo report test mutants release setup setup-test setup-bench browser axe dolos bubblewrap postgres hub lab bench clean

# The kit is imported from this folder, never installed as a package (pyproject.toml): a .pth names it.
$(VENV)/.base: pyproject.toml requirements/students.txt requirements/instructor.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e .
	$(PY) -c 'import sys, sysconfig; open(sysconfig.get_paths()["purelib"] + "/attention_kit_course.pth", "w").write(sys.argv[1] + "\n")' "$(CURDIR)"
	touch $@

$(VENV)/.test: $(VENV)/.base
	$(PY) -m pip install --quiet -e '.[test]'
	touch $@

$(VENV)/.bench: $(VENV)/.base
	$(PY) -m pip install --quiet -e '.[bench]'
	touch $@

setup: $(VENV)/.base
setup-test: $(VENV)/.test
setup-bench: $(VENV)/.bench

# Debian's Chromium for the browser tests (Playwright's own browser download does
# not work everywhere). Installed when running as root; otherwise the browser
# tests skip and say how to enable them.
browser:
	@if command -v chromium >/dev/null 2>&1; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	else echo "chromium not found: browser tests will skip (install Debian's chromium to run them)"; fi

# axe-core (npm), the accessibility engine tests/browser/test_accessibility.py loads into every page the kit makes,
# pinned (tests/shared/axe.py VERSION says the same), into .run/axe/. npm comes from Debian when root; without npm the
# audit skips and says so (under CI it fails).
AXE_VERSION = 4.14.1
AXE_PREFIX = .run/axe
axe:
	@if grep -qs '"version": "$(AXE_VERSION)"' $(AXE_PREFIX)/node_modules/axe-core/package.json; then :; \
	elif command -v npm >/dev/null 2>&1 || { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 && \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq npm >/dev/null; }; then \
		mkdir -p $(AXE_PREFIX) && npm install --silent --no-fund --no-audit --prefix $(AXE_PREFIX) axe-core@$(AXE_VERSION) >/dev/null; \
	else echo "npm not found: the accessibility audit will skip (install npm, then make axe)"; fi

# Dolos (npm's @dodona/dolos-lib), which benchmarks/similarity_tools.py measures beside the report's own similarity
# engine, pinned, into .run/dolos/. Only the benchmark uses it: the report never needs Node. Without npm the
# benchmark leaves Dolos out and says so.
DOLOS_VERSION = 3.5.1
DOLOS_PREFIX = .run/dolos
dolos:
	@if grep -qs '"version": "$(DOLOS_VERSION)"' $(DOLOS_PREFIX)/node_modules/@dodona/dolos-lib/package.json; then :; \
	elif command -v npm >/dev/null 2>&1 || { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 && \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq npm >/dev/null; }; then \
		mkdir -p $(DOLOS_PREFIX) && npm install --silent --no-fund --no-audit --prefix $(DOLOS_PREFIX) @dodona/dolos-lib@$(DOLOS_VERSION) >/dev/null; \
	else echo "npm not found: benchmarks/similarity_tools.py will leave Dolos out (install npm, then make dolos)"; fi

# bubblewrap confines each student's grading child (autograder/sandbox.py); without it (and
# without user namespaces) `nbgrader autograde` refuses to grade. Installed when running as root.
bubblewrap:
	@if command -v bwrap >/dev/null 2>&1; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bubblewrap >/dev/null; \
	else echo "bwrap not found: grading falls back to user namespaces, or refuses (install Debian's bubblewrap)"; fi

# Debian's PostgreSQL server for the tests that run the loop on a PostgreSQL gradebook (the suite
# starts its own server in a temporary folder). Installed when root; otherwise those tests skip.
postgres:
	@if ls /usr/lib/postgresql/*/bin/pg_ctl >/dev/null 2>&1; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null; \
	else echo "postgresql not found: PostgreSQL gradebook tests will skip (install Debian's postgresql to run them)"; fi

# configurable-http-proxy (npm) for the JupyterHub test (tests/hand_in/test_hub.py), in the cache beside the environment
# every account can run (tests/hand_in/hub.py CHP). Root only, like the hub test; otherwise that test skips.
CHP_PREFIX = $(shell $(PY) -c 'from tests.hand_in.hub import CHP_PREFIX; print(CHP_PREFIX)')
hub: setup
	@if [ "$$(id -u)" != 0 ]; then echo "not root: the JupyterHub test will skip (run make test as root)"; \
	elif [ -x $(CHP_PREFIX)/node_modules/.bin/configurable-http-proxy ]; then :; \
	else { command -v npm >/dev/null 2>&1 || { apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq npm >/dev/null; }; } && \
		mkdir -p $(CHP_PREFIX) && npm install --silent --no-fund --no-audit --prefix $(CHP_PREFIX) configurable-http-proxy >/dev/null; fi

# Regenerate source/, the student release and the example class from notebooks/ and the reference.
release: setup
	$(PY) -m kit.release
	$(PY) -m examples.make_class

# The kit's main job: the instructor's whole loop on the example class.
demo: setup bubblewrap
	$(PY) -m kit.demo

# What the class got wrong, from the gradebook and the grader's reports (after `make demo` or autograde).
# ARGS=--anonymous writes a version that names no student.
report: setup
	$(PY) -m kit.report $(ARGS)

test: setup-test browser axe bubblewrap postgres hub
	$(PY) -m pytest -n 2 --dist loadgroup --no-loadscope-reorder --durations=15 tests

# Mutation testing of the graders: grade the mutants of every exercise a change touched (ARGS=--all: every
# exercise) and write mutation/REPORT.md and mutation/results.json (tests/judge/test_mutants.py reads them).
mutants: setup-test
	$(PY) -m mutation $(ARGS)

# The student's view: JupyterLab 4 with nbgrader's Assignment List and Validate button, on your
# own copy in student/attention (fetched once from the course exchange, never overwritten).
lab: setup
	$(PY) -m nbgrader release_assignment $(ASSIGNMENT) --force --log-level=ERROR
	mkdir -p student
	printf 'c = get_config()  # noqa: F821\nc.Exchange.root = "$(CURDIR)/exchange"\nc.CourseDirectory.course_id = "$(COURSE_ID)"\n' > student/nbgrader_config.py
	cd student && { test -d $(ASSIGNMENT) || $(CURDIR)/$(PY) -m nbgrader fetch_assignment $(ASSIGNMENT) --log-level=ERROR; }
	cd student && $(CURDIR)/$(VENV)/bin/jupyter lab $(if $(filter 0,$(shell id -u)),--allow-root) $(ASSIGNMENT)/01_worked_example.ipynb

bench: setup-bench dolos
	$(PY) -m benchmarks.run

clean:
	rm -rf $(VENV) gradebook.db gradebook.db-wal gradebook.db-shm submitted autograded feedback exchange .run grades.csv reports
