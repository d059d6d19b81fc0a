"""What does a grading child see and reach, by each confinement this machine allows? (issue 11)

One small child per confinement (bubblewrap, the hand-written namespaces
fallback) looks around its world and reports; the grader's side checks what
outlives it. The adversarial suite (test_adversarial.py) shows the same
through whole gradings, on the primary confinement.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import pytest

from autograder import sandbox
from kit.notebooks import ROOT

LOOK_AROUND = r"""
import json, os, resource, socket, sys, time
port, marker = int(sys.argv[1]), sys.argv[2]
def writable(path):
    try:
        with open(os.path.join(path, "probe"), "w") as f:
            f.write("x")
        return True
    except OSError:
        return False
def reaches(port):
    try:
        socket.create_connection(("127.0.0.1", port), timeout=2).close()
        return True
    except OSError:
        return False
if os.fork() == 0:  # a detached process, forked twice in a session of its own, that means to stay
    os.setsid()
    if os.fork() == 0:
        os.execv(sys.executable, [sys.executable, "-c", "import time; time.sleep(60)", marker])
    os._exit(0)
os.wait()
time.sleep(0.2)
written = 0
try:
    with open("filler", "wb") as f:
        for _ in range(int(sys.argv[3]) // (1 << 20) + 8):
            written += f.write(b"\0" * (1 << 20))
except OSError:
    pass
os.remove("filler")
print(json.dumps({
    "pid": os.getpid(), "uid": os.getuid(), "written": written,
    "proc": os.listdir("/proc"),
    "writable": sorted(p[2:] for p in sys.argv[4:] if p.startswith("w:") and writable(p[2:])),
    "present": sorted(p[2:] for p in sys.argv[4:] if p.startswith("f:") and os.path.exists(p[2:])),
    "loopback": reaches(port),
    "processes_limit": resource.getrlimit(resource.RLIMIT_NPROC)[0],
}))
"""


def _kinds():
    found = []
    for kind in (sandbox.BUBBLEWRAP, sandbox.NAMESPACES):
        why = "bwrap is not installed" if kind == sandbox.BUBBLEWRAP and not shutil.which("bwrap") else None
        why = why or sandbox._trial(kind)
        found.append(pytest.param(kind, id=kind, marks=pytest.mark.skipif(bool(why), reason=f"{kind}: {why}")))
    return found


@pytest.fixture(scope="module")
def server():
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    yield listener.getsockname()[1]
    listener.close()


@pytest.fixture(scope="module", params=_kinds())
def world(request, server, tmp_path_factory):
    """What a child confined by one kind reports about its world, and what remained of it after it ended."""
    scratch = tmp_path_factory.mktemp("attention-grading-")
    work = scratch / "work"
    work.mkdir()
    marker = f"attention-kit-test-{uuid.uuid4()}"
    in_home = Path.home() / f".{marker}"
    in_home.write_text("the instructor's own file")
    places = [f"w:{p}" for p in ("/", "/tmp", "/dev/shm", "/usr", Path.home(), ROOT, sys.prefix, scratch, work)]
    places += [f"f:{p}" for p in (in_home, ROOT / "solutions" / "attention.py", ROOT / "nbgrader_config.py",
                                  ROOT / "course.toml", Path(sys.executable))]
    limits = sandbox.Limits(disk_bytes=8 << 20)
    child = sandbox.start([sys.executable, "-I", "-c", LOOK_AROUND, str(server), marker, str(limits.disk_bytes),
                           *places], sandbox.World((ROOT,), Path(sys.prefix), Path(sys.base_prefix), scratch, work),
                          limits, request.param, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          cwd=work, env={"PATH": "/usr/bin:/bin"})
    out, err = child.communicate(timeout=120)
    in_home.unlink()
    assert child.returncode == 0, err.decode()[-2000:]
    time.sleep(0.5)  # the kernel ends the namespace's processes as its init exits
    left = [pid for pid in filter(str.isdigit, os.listdir("/proc")) if _cmdline_has(pid, marker)]
    return {**json.loads(out), "left": left, "work": str(work), "after": sorted(os.listdir(scratch)),
            "disk_bytes": limits.disk_bytes}


def _cmdline_has(pid: str, marker: str) -> bool:
    try:
        return marker.encode() in Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False


def test_the_child_sees_no_process_and_no_counter_of_its_own(world):
    # No /proc: nothing to look at, and no memory counter it could reset (the grader reads them from outside).
    assert world["pid"] == 2 and world["proc"] == []


def test_a_detached_process_does_not_outlive_its_grading(world):
    assert world["left"] == []


def test_only_the_childs_own_work_folder_is_writable(world):
    assert world["writable"] == [world["work"]]


def test_what_the_child_writes_is_capped_and_gone_when_it_ends(world):
    assert world["written"] <= world["disk_bytes"]
    assert world["after"] == ["work"] and not os.listdir(world["work"])


def test_the_course_and_home_folders_are_absent_and_python_is_there(world):
    assert world["present"] == [sys.executable]


def test_the_graders_loopback_is_out_of_reach(world):
    assert world["loopback"] is False


def test_the_child_is_an_unprivileged_user_with_a_process_limit(world):
    assert world["uid"] not in (0, os.getuid())
    assert world["processes_limit"] == sandbox.Limits().processes


def test_an_ordinary_account_with_more_processes_than_the_limit_can_still_grade():
    # RLIMIT_NPROC counts every process of the real user: set before the user namespace,
    # it would stop a busy instructor's grading. Here the limit is below what the account runs.
    kind = sandbox.probe()[0]
    if kind is None:
        pytest.skip(f"no confinement: {sandbox.probe()[1]}")
    limits = sandbox.Limits(processes=3)  # the namespace's init, the child, and one process it forks
    sleepers = [subprocess.Popen(["sleep", "30"]) for _ in range(4)]
    scratch = Path(tempfile.mkdtemp(prefix="attention-grading-"))
    try:
        child = sandbox.start([sys.executable, "-I", "-c", "import os; os.wait() if os.fork() else os._exit(0)"],
                              sandbox.World((), Path(sys.prefix), Path(sys.base_prefix), scratch), limits, kind,
                              stderr=subprocess.PIPE)
        assert child.wait(timeout=120) == 0, child.stderr.read().decode()[-1000:]
    finally:
        for sleeper in sleepers:
            sleeper.kill()
            sleeper.wait()
        shutil.rmtree(scratch, ignore_errors=True)


def test_the_grading_child_imports_the_judge_from_the_bytecode_the_grader_wrote(tmp_path):
    """Both copies of the judge in a student's scratch folder (the child's own, and the notebooks') come
    with bytecode checked against their source, so the confined child compiles neither."""
    from autograder.submission import Submission
    with Submission(tmp_path, confine=sandbox.IF_AVAILABLE) as submission:  # no notebooks: the judge is there
        scratch = submission._scratch
        world = sandbox.World(submission.hidden_roots, Path(sys.prefix), Path(sys.base_prefix), scratch)
        for folder in (scratch / "grader", submission.prepared):
            child = sandbox.start(
                [sys.executable, "-I", "-v", "-c", "import sys; sys.dont_write_bytecode = True; "
                 "sys.path.insert(0, sys.argv[1]); import judge", str(folder)],
                world, sandbox.Limits(), submission.confinement, stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE, env={"PATH": "/usr/bin:/bin"})
            log = child.communicate(timeout=120)[1].decode()
            assert child.returncode == 0, log[-2000:]
            loaded = [line for line in log.splitlines()
                      if line.startswith("# code object from") and str(folder / "judge") in line]
            assert len(loaded) == len(list((folder / "judge").glob("*.py"))), log[-2000:]
            assert all(line.endswith(".pyc'") for line in loaded), loaded


TRY_EVERYTHING_NEW = r"""
import ctypes, json, os, subprocess, sys, threading
sys.path.insert(0, sys.argv[1])
import seccomp
seccomp.forbid_new_processes()

def fork():
    pid = os.fork()
    if pid == 0:
        os._exit(0)
    os.waitpid(pid, 0)

def unshare():
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.unshare(0x10000000) != 0:  # CLONE_NEWUSER
        raise OSError(ctypes.get_errno(), "unshare")

tried = {}
for name, action in (("fork", fork), ("a program", lambda: subprocess.run(["/bin/true"])),
                     ("exec", lambda: os.execv(sys.executable, [sys.executable, "-c", "pass"])),
                     ("a namespace", unshare)):
    try:
        action()
        tried[name] = "allowed"
    except OSError as e:
        tried[name] = os.strerror(e.errno)
thread = threading.Thread(target=lambda: tried.setdefault("a thread", "allowed"))
thread.start()
thread.join()
print(json.dumps(tried))
"""


@pytest.mark.parametrize("kind", _kinds())
def test_the_grading_childs_own_lock_refuses_new_processes_programs_and_namespaces_not_threads(kind, tmp_path):
    """child.py loads autograder/seccomp.py before any student code runs: a helper process or a new
    program would take work (and memory) out of what the grader measures of the child."""
    shutil.copyfile(Path(sandbox.__file__).with_name("seccomp.py"), tmp_path / "seccomp.py")
    (tmp_path / "work").mkdir()
    child = sandbox.start([sys.executable, "-I", "-c", TRY_EVERYTHING_NEW, str(tmp_path)],
                          sandbox.World((ROOT,), Path(sys.prefix), Path(sys.base_prefix), tmp_path, tmp_path / "work"),
                          sandbox.Limits(), kind, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          env={"PATH": "/usr/bin:/bin"})
    out, err = child.communicate(timeout=120)
    assert child.returncode == 0, err.decode()[-2000:]
    refused = os.strerror(1)  # EPERM: "Operation not permitted"
    assert json.loads(out) == {"fork": refused, "a program": refused, "exec": refused, "a namespace": refused,
                               "a thread": "allowed"}
