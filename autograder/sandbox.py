"""The world a student's code runs in: limits, and nothing of the course in reach.

`start(argv, world, ...)` starts a grading child in a world of its own, the
same whether the grader runs as root or as an ordinary account:

- resource limits: CPU seconds, address space, size of any file written,
  open files, processes, and no core dumps;
- a mount namespace in which every top-level folder but the system's own
  (/usr, /etc, /dev, ...), and the course folder wherever it is, are empty and
  read-only, with only the Python environment and the grader's scratch folder
  for this child bound back in, both read-only: the reference solution, the
  graders, hidden values, the gradebook, other students' work, home folders
  and /tmp are not hidden by name, they are absent. Nothing of the machine's
  own folders is writable: the child writes only in its work folder, a tmpfs
  of `Limits.disk_bytes` made anew for it (over an empty folder of the
  scratch), gone with the namespace when the child ends, so nothing it writes
  (a link, a read-only folder, a disk filled) is ever seen by the grader;
- no /proc: the child cannot read or reset its own memory counters (the
  grader reads them from outside, autograder/grading_child.py), nor look at
  any process;
- a network namespace of its own: nothing outside it is reachable, not even
  the grader's loopback (a notebook server, a database on 127.0.0.1);
- a PID namespace of its own: the child sees and can signal only its own
  processes, and when its grading ends (the child exits or the grader stops
  it) the kernel kills every process it started, detached or not;
- an unprivileged user: as root, a user of its own (FIRST_SANDBOX_USER and up,
  one per student's grading, `new_user`, set once the world is built), the
  only one besides root that may read the grader's scratch folder (`open_to`);
  as an ordinary account, a user namespace mapping the instructor's uid to
  `nobody` inside, with no capabilities and no way to gain any.

The child itself adds one lock before any student code runs (child.py,
seccomp.py): no new program, process or namespace.

Two ways to build that world, one primary and one fallback:

- bubblewrap (`bwrap`, what Flatpak uses) is the primary. It is a small,
  audited, well-kept tool that already does the delicate parts right: the PID
  namespace's init that reaps and exits with the child, --die-with-parent,
  a tmpfs of a given size, pivot_root, dropping capabilities, and the checks
  unprivileged mounts need. Starting it costs about 0.1 s a child on a busy
  machine (benchmarks/REPORT.md). As root it runs without a user namespace
  (bwrap would map the child to the real root) and setpriv drops the child to
  its own user once the world is built.
- the hand-written ctypes path (`_confine_by_hand`, Popen's preexec_fn) is the
  fallback, for machines where bubblewrap is not installed but user
  namespaces (or root) are available. It builds the same world with
  unshare/mount and forks an init of its own.

`probe()` says which of the two this machine allows, trying each once with a
trivial child (KIT_CONFINEMENT=bubblewrap|namespaces|none forces the answer,
for tests and for a machine the probe reads wrongly). Where none works the
kit refuses to grade (`NoConfinement`, whose message names the cause and the
fixes) unless the caller allows unconfined grading: a course that opts out in
course.toml, or a self-learner grading their own code on their own machine.
Unconfined, only the limits apply.

One job, kept whole past 250 lines: the one world a grading child runs in, built two ways (bubblewrap, or
by hand with unshare and mount) from one description (`World`, `Limits`), each way beside the other to compare.
"""

from __future__ import annotations

import ctypes
import itertools
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import threading
from functools import cache, partial
from pathlib import Path
from typing import NamedTuple

CLONE_NEWNS, CLONE_NEWUTS, CLONE_NEWIPC, CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET = (
    0x00020000, 0x04000000, 0x08000000, 0x10000000, 0x20000000, 0x40000000)
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_REMOUNT, MS_NOATIME, MS_NODIRATIME, MS_BIND, MS_REC = (
    1, 2, 4, 8, 32, 1024, 2048, 4096, 16384)
MS_PRIVATE, MS_RELATIME = 1 << 18, 1 << 21
PR_SET_PDEATHSIG, PR_SET_DUMPABLE, PR_SET_NO_NEW_PRIVS = 1, 4, 38
FIRST_SANDBOX_USER = 1_000_000  # far above any account of the machine
INSIDE_USER = 65534  # the instructor's uid inside a user namespace: `nobody`
# Top-level folders a Python process needs; every other one (/work, /srv, /opt,
# /home, /root, /tmp, /var, ...) may hold a course, a clone or a student's work.
SYSTEM_FOLDERS = {"usr", "bin", "sbin", "lib", "lib32", "lib64", "libx32", "etc", "dev", "proc", "sys"}
BUBBLEWRAP, NAMESPACES, UNCONFINED = "bubblewrap", "namespaces", "unconfined"
PROBE = "attention-grading-probe-"  # the probe's folders, in the temporary folder (a kind of autograder/scratch.py)
# What a caller accepts when the machine allows no confinement.
REQUIRED, IF_AVAILABLE, NEVER = "required", "if available", "never"


def accepting(unconfined: bool) -> str:
    """What `confinement` accepts for a course: IF_AVAILABLE when it opted out (course.toml:
    `[grading] unconfined = true`), else REQUIRED."""
    return IF_AVAILABLE if unconfined else REQUIRED


HERE = Path(__file__).resolve().parent
REFUSAL = "Grading stopped before running any student's code"


class Limits(NamedTuple):
    cpu_seconds: int = 120
    memory_bytes: int = 2 << 30
    file_bytes: int = 64 << 20
    open_files: int = 64
    processes: int = 64
    disk_bytes: int = 64 << 20  # what the child may write in all (the size of its work folder)


class World(NamedTuple):
    """What a child may see: everything else outside the system's folders is absent."""
    hidden: tuple[Path, ...]   # course folders, hidden even inside a system folder
    prefix: Path               # the Python environment, read-only
    base_prefix: Path
    scratch: Path              # the grader's folder for this child, read-only
    work: Path | None = None   # an empty folder of `scratch`: the child's own, a fresh tmpfs (see the docstring)

    def kept(self) -> list[Path]:
        """What is bound back, read-only, into the emptied world."""
        return [self.prefix, self.base_prefix, self.scratch]


class NoConfinement(RuntimeError):
    """The machine allows no confinement and the caller did not allow grading without it."""


# ---------------------------------------------------------------- which confinement this machine allows


@cache
def probe() -> tuple[str | None, str]:
    """(BUBBLEWRAP, NAMESPACES or None, what was tried and why it failed), trying each with a trivial child."""
    forced = forced_confinement()
    if forced in (BUBBLEWRAP, NAMESPACES):
        return forced, f"KIT_CONFINEMENT={forced}"
    if forced == "none":
        return None, "KIT_CONFINEMENT=none is set in the environment (it forces this refusal)"
    tried = []
    for kind in (BUBBLEWRAP, NAMESPACES):
        if kind == BUBBLEWRAP and not shutil.which("bwrap"):
            tried.append("bubblewrap: not installed (no bwrap on PATH)")
            continue
        error = _trial(kind)
        if error is None:
            return kind, ""
        tried.append(f"{kind}: {error}")
    return None, "; ".join(tried + _blocking_settings())


def forced_confinement() -> str:
    """KIT_CONFINEMENT: BUBBLEWRAP, NAMESPACES, "none" or "" (unset: the probe tries each); NoConfinement for
    anything else, whether or not the course grades unconfined where there is none: a misspelt setting must
    not leave the machine's choice to a probe its writer meant to overrule."""
    forced = os.environ.get("KIT_CONFINEMENT", "")
    if forced not in ("", BUBBLEWRAP, NAMESPACES, "none"):
        raise NoConfinement(f"KIT_CONFINEMENT={forced!r} names no confinement: {BUBBLEWRAP!r}, {NAMESPACES!r} or "
                            "'none' (unset, the kit tries each); grading stopped before any student's code ran")
    return forced


def _trial(kind: str) -> str | None:
    """Why a trivial child could not be confined by `kind`, or None if it could: the child loads the
    grading child's own lock (seccomp.py) in a world like a grading child's, made in a folder named for this
    process (PROBE: a probe killed part-way leaves it to the next grader's sweep, autograder/scratch.py)."""
    scratch = Path(tempfile.mkdtemp(prefix=PROBE + owner_tag()))
    try:
        shutil.copyfile(HERE / "seccomp.py", scratch / "seccomp.py")
        (scratch / "work").mkdir()
        world = World((), Path(sys.prefix), Path(sys.base_prefix), scratch, scratch / "work")
        child = start([sys.executable, "-I", str(scratch / "seccomp.py")], world, Limits(), kind,
                      stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        _, err = child.communicate(timeout=60)
        text = err.decode(errors="replace").strip().splitlines()
        return None if child.returncode == 0 else (text[-1] if text else f"exit code {child.returncode}")
    except (OSError, subprocess.SubprocessError) as e:
        return (_unshare_error() if kind == NAMESPACES else None) or str(e)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _unshare_error() -> str | None:
    """Why this account may not make the namespaces of the fallback (the errno of unshare), or None."""
    flags = CLONE_NEWNS | CLONE_NEWNET | CLONE_NEWPID | (0 if os.geteuid() == 0 else CLONE_NEWUSER)
    pid = os.fork()
    if pid == 0:
        os._exit(0 if _libc().unshare(flags) == 0 else ctypes.get_errno() or 1)
    code = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
    return None if code == 0 else f"unshare: {os.strerror(code)}"


def _blocking_settings() -> list[str]:
    """The kernel and AppArmor settings of this machine that forbid unprivileged user namespaces."""
    found = []
    for path, bad in (("/proc/sys/kernel/unprivileged_userns_clone", "0"), ("/proc/sys/user/max_user_namespaces", "0"),
                      ("/proc/sys/kernel/apparmor_restrict_unprivileged_userns", "1")):
        try:
            if Path(path).read_text().strip() == bad:
                found.append(f"{path.removeprefix('/proc/sys/').replace('/', '.')} = {bad}")
        except OSError:
            pass
    return found


def refusal(cause: str) -> str:
    """The message of a grading that stops because no confinement is available."""
    return f"""\
{REFUSAL}: this machine gives a student's code no confined world,
so it could read the reference solution and the graders, and rewrite the course and the gradebook.
Cause: {cause}.
Fix one of these, then grade again:
  - install bubblewrap (Debian, Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap);
  - allow unprivileged user namespaces: sysctl -w kernel.unprivileged_userns_clone=1 (Debian, older Ubuntu),
    sysctl -w user.max_user_namespaces=15000, and on Ubuntu 24.04 and later
    sysctl -w kernel.apparmor_restrict_unprivileged_userns=0 (or an AppArmor profile that allows bwrap);
    in a container, run it with user namespaces allowed (Docker blocks unshare under its default seccomp profile);
  - grade as root.
Or grade unconfined, knowing the above, by setting in course.toml:
  [grading]
  unconfined = true"""


def confinement(accept: str = REQUIRED) -> str:
    """The confinement to grade with: BUBBLEWRAP, NAMESPACES or UNCONFINED.

    accept: REQUIRED raises NoConfinement where the machine allows none;
    IF_AVAILABLE goes on unconfined there; NEVER is always UNCONFINED.
    """
    if accept == NEVER:
        return UNCONFINED
    forced_confinement()  # a misspelt KIT_CONFINEMENT refuses whatever the course accepts
    kind, why = probe()
    if kind is not None:
        return kind
    if accept == IF_AVAILABLE:
        return UNCONFINED
    raise NoConfinement(refusal(why))


# ---------------------------------------------------------------- starting a child


def start(argv: list[str], world: World, limits: Limits, how: str, user: int | None = None,
          **popen) -> subprocess.Popen:
    """Popen(argv) confined by `how` (see the module docstring); `popen` as for Popen.

    As root the child runs as `user` (default: a new one, `new_user`); it can read `world.scratch`
    when the grader gave it that folder (`open_to`)."""
    if how != UNCONFINED and os.geteuid() == 0 and user is None:
        user = new_user()
        open_to(world.scratch, user)
    if how == BUBBLEWRAP:
        command, preexec = _bubblewrap(argv, world, limits, user)
        return subprocess.Popen(command, preexec_fn=preexec, **popen)
    if how == NAMESPACES:
        return subprocess.Popen(argv, preexec_fn=partial(_confine_by_hand, world, limits, user), **popen)
    return subprocess.Popen(argv, preexec_fn=partial(_unconfined, limits), **popen)


def open_to(folder: Path, user: int | None) -> None:
    """Let the child's `user` (as root; None for an ordinary account, whose child is the account itself)
    read `folder`, the grader's, and nobody else: its group becomes the user's, readable by the group,
    whatever the grader's umask. `folder` holds only what the grader made there (no links followed)."""
    if user is None:
        return
    for parent, folders, files in os.walk(folder):
        os.chown(parent, 0, user, follow_symlinks=False)
        os.chmod(parent, 0o750)
        for name in files:
            path = os.path.join(parent, name)
            if not os.path.islink(path):
                os.chown(path, 0, user, follow_symlinks=False)
                os.chmod(path, 0o640)


def exit_code(returncode: int, how: str) -> int:
    """The child's own exit code: negative for a signal, as Popen gives it unconfined.
    Both confined paths end through an init that exits with 128 + the signal's number."""
    return returncode - 128 if how != UNCONFINED and 128 < returncode < 128 + 65 else returncode


def child_pid(process: subprocess.Popen, how: str) -> int:
    """The process id (in the grader's view) of the command itself, under the PID namespace's init."""
    if how == UNCONFINED:
        return process.pid
    for init in _children(process.pid):
        for pid in _children(init):
            if _namespace_pid(pid) == 2:  # the init's first child: the command (later ones are orphans it adopted)
                return pid
    raise LookupError(f"the grading child of process {process.pid} is not running")


def _children(pid: int) -> list[int]:
    """The processes whose parent is `pid`: as the kernel lists them for each of its threads
    (/proc/PID/task/TID/children), or, on a kernel built without those lists, found among all processes."""
    if not _kernel_lists_children():
        return _children_by_scanning(pid)
    found = []
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return []  # it has ended
    for task in tasks:
        try:
            found += map(int, Path(f"/proc/{pid}/task/{task}/children").read_bytes().split())
        except OSError:
            continue  # that thread has ended
    return found


@cache
def _kernel_lists_children() -> bool:
    return Path(f"/proc/self/task/{threading.get_native_id()}/children").exists()


def process_fields(pid: int | str) -> list[str] | None:
    """The fields of /proc/<pid>/stat after the command's name (state first), None if there is no such process."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return text[text.rindex(")") + 2:].split()


def start_ticks(pid: int) -> int | None:
    """When the process `pid` started, in clock ticks since boot; None if there is no such process."""
    fields = process_fields(pid)
    return int(fields[19]) if fields else None


def pid_namespace() -> str | None:
    """This process's PID namespace (its inode number), where /proc is this process's own."""
    try:
        link = os.readlink("/proc/self/ns/pid")  # "pid:[4026531836]"
        own = Path("/proc/self/stat").read_text().split(" ", 1)[0]
    except OSError:
        return None
    found = re.fullmatch(r"pid:\[(\d+)\]", link)
    return found.group(1) if found and own == str(os.getpid()) else None


def owner_tag() -> str:
    """`<PID namespace>-<pid>-<start ticks>-`: what names a scratch folder for the process that made it
    (autograder/scratch.py); "" where /proc cannot say."""
    namespace, started = pid_namespace(), start_ticks(os.getpid())
    return f"{namespace}-{os.getpid()}-{started}-" if namespace and started else ""


def _children_by_scanning(pid: int) -> list[int]:
    return [int(entry) for entry in filter(str.isdigit, os.listdir("/proc"))
            if (fields := process_fields(entry)) is not None and int(fields[1]) == pid]  # after the state: the parent


def _namespace_pid(pid: int) -> int | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("NSpid:"):
                return int(line.split()[-1])
    except (OSError, ValueError):
        pass
    return None


_users = itertools.count()
_users_lock = threading.Lock()


def new_user() -> int:
    """A user id of its own for a child started by root: unique among the children this grader runs."""
    with _users_lock:
        return FIRST_SANDBOX_USER + (os.getpid() % 65536) * 4096 + next(_users) % 4096


def _set_limits(limits: Limits, processes: bool) -> None:
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    resource.setrlimit(resource.RLIMIT_CPU, (limits.cpu_seconds, limits.cpu_seconds))
    resource.setrlimit(resource.RLIMIT_AS, (limits.memory_bytes, limits.memory_bytes))
    resource.setrlimit(resource.RLIMIT_FSIZE, (limits.file_bytes, limits.file_bytes))
    resource.setrlimit(resource.RLIMIT_NOFILE, (limits.open_files, limits.open_files))
    if processes:
        resource.setrlimit(resource.RLIMIT_NPROC, (limits.processes, limits.processes))


def _unconfined(limits: Limits) -> None:
    """preexec_fn without confinement: the limits only (RLIMIT_NPROC would count every
    process of the account, so a busy instructor could not grade: not set)."""
    _set_limits(limits, processes=False)
    os.setsid()


def _top_level() -> list[Path]:
    return sorted(Path("/").iterdir())


def _bubblewrap(argv: list[str], world: World, limits: Limits, user: int | None):
    """bwrap's command line for `argv` in `world`, and the preexec_fn that sets the limits bwrap passes on.

    RLIMIT_NPROC counts the processes of the real user: root's child gets its own user
    (setpriv) and the limit before it starts; an ordinary account's gets it inside its user
    namespace (prlimit), where it counts the child's processes alone, not the instructor's.
    """
    root = user is not None
    args = ["bwrap", "--die-with-parent", "--new-session", "--unshare-pid", "--unshare-net", "--unshare-ipc",
            "--unshare-uts", "--unshare-cgroup-try"]
    if root:
        args += ["--cap-drop", "ALL", "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
        inner = ["/usr/bin/setpriv", f"--reuid={user}", f"--regid={user}", "--clear-groups", "--inh-caps=-all",
                 "--no-new-privs", "--"]
    else:
        args += ["--unshare-user", "--uid", str(INSIDE_USER), "--gid", str(INSIDE_USER), "--disable-userns"]
        inner = ["/usr/bin/prlimit", f"--nproc={limits.processes}:{limits.processes}", "--"]
    for top in _top_level():
        if top.is_symlink():
            args += ["--symlink", os.readlink(top), str(top)]
        elif not top.is_dir():
            continue
        elif top.name == "dev":
            args += ["--dev", "/dev"]
        elif top.name == "proc":
            args += ["--dir", "/proc"]  # empty: see the module's docstring
        elif top.name in SYSTEM_FOLDERS:
            args += ["--ro-bind", str(top), str(top)]
        else:
            args += ["--dir", str(top)]
    for folder in world.hidden:  # a course inside a system folder
        if folder.parts[1:2] and folder.parts[1] in SYSTEM_FOLDERS and folder.is_dir():
            args += ["--tmpfs", str(folder), "--remount-ro", str(folder)]
    for path in world.kept():
        for folder in reversed(path.parents[:-2]):  # the way there: open to all, whatever the host's modes
            if folder.parts[1] not in SYSTEM_FOLDERS:
                args += ["--perms", "0755", "--dir", str(folder)]
        args += ["--ro-bind", str(path), str(path)]
    if world.work is not None:
        args += ["--perms", "0777", "--size", str(limits.disk_bytes), "--tmpfs", str(world.work),
                 "--chdir", str(world.work)]
    args += ["--remount-ro", "/", "--remount-ro", "/dev", "--"]
    return args + inner + argv, partial(_before_bubblewrap, limits, user)


def _before_bubblewrap(limits: Limits, user: int | None) -> None:
    _set_limits(limits, processes=user is not None)
    os.setsid()


# ---------------------------------------------------------------- the fallback, by hand


def _libc():
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong, ctypes.c_char_p]
    libc.umount2.argtypes = [ctypes.c_char_p, ctypes.c_int]
    return libc


def _check(result: int, what: str) -> None:
    if result != 0:
        errno = ctypes.get_errno()
        raise OSError(errno, f"sandbox: {what}: {os.strerror(errno)}")


def _mount(libc, source, target, fstype, flags, data=None) -> None:
    enc = lambda s: None if s is None else str(s).encode()  # noqa: E731
    _check(libc.mount(enc(source), enc(target), enc(fstype), flags, enc(data)), f"mount {target}")


def _bind(libc, source: Path, target: Path, read_only: bool) -> None:
    target.mkdir(parents=True, exist_ok=True)
    _mount(libc, source, target, None, MS_BIND | MS_REC)
    if read_only:
        _read_only(libc, target)


def _read_only(libc, target: Path) -> None:
    """Remount a mount read-only, keeping its other flags (a user namespace may not drop them)."""
    kept = os.statvfs(target).f_flag & (MS_NOSUID | MS_NODEV | MS_NOEXEC | MS_NOATIME | MS_NODIRATIME)
    relatime = MS_RELATIME if os.statvfs(target).f_flag & 4096 else 0  # ST_RELATIME
    _mount(libc, None, target, None, MS_BIND | MS_REMOUNT | MS_RDONLY | kept | relatime)


def _confine_by_hand(world: World, limits: Limits, user: int | None) -> None:
    """preexec_fn of the fallback: the same world as bubblewrap's, built with unshare and mount.

    This process stays outside as a relay that exits as the child does; below it an init
    (PID 1 of the new PID namespace) builds the world, then forks the child, which returns
    from here to exec the command, and exits with it, which ends every other process of
    the namespace.
    """
    root = os.geteuid() == 0
    _set_limits(limits, processes=root)
    os.setsid()
    uid, gid = os.getuid(), os.getgid()
    libc = _libc()
    libc.prctl(PR_SET_PDEATHSIG, 9, 0, 0, 0)  # the relay dies with the grader's thread that started it
    flags = CLONE_NEWNS | CLONE_NEWNET | CLONE_NEWPID | CLONE_NEWIPC | CLONE_NEWUTS | (0 if root else CLONE_NEWUSER)
    _check(libc.unshare(flags), "unshare")
    if not root:
        Path("/proc/self/setgroups").write_text("deny")
        Path("/proc/self/uid_map").write_text(f"{INSIDE_USER} {uid} 1")
        Path("/proc/self/gid_map").write_text(f"{INSIDE_USER} {gid} 1")
    _follow(os.fork())  # the relay returns only in the init
    _build_world(libc, world, limits)
    if not root:
        resource.setrlimit(resource.RLIMIT_NPROC, (limits.processes, limits.processes))
    _follow(os.fork())  # the init returns only in the child
    if root:
        os.setgroups([])
        os.setgid(user)
        os.setuid(user)
    libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)


def _follow(pid: int) -> None:
    """In the parent of a fork: wait for the child `pid` (reaping any other), then exit as it did.
    In the child: die with the parent, and return."""
    if pid == 0:
        ctypes.CDLL(None).prctl(PR_SET_PDEATHSIG, 9, 0, 0, 0)
        return
    os.closerange(0, 1 << 16)  # the pipes are the child's: the grader must see them close when it ends
    while True:
        try:
            ended, status = os.wait()
        except ChildProcessError:
            os._exit(1)
        if ended == pid:
            os._exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) else 128 + os.WTERMSIG(status))


def _build_world(libc, world: World, limits: Limits) -> None:
    """In the new namespaces (as PID 1): empty every non-system top-level folder and the course,
    bind back what is kept (read-only), cover /proc, and mount the child's work folder: a tmpfs
    of `limits.disk_bytes` open to the child's user."""
    libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)  # a fork of the grader: the child may not read its memory
    _mount(libc, None, "/", None, MS_REC | MS_PRIVATE)
    # What must stay reachable is bound into a private staging area before the
    # tmpfs mounts cover it, then bound back to its own path.
    staging = Path("/dev/shm")
    _mount(libc, "tmpfs", staging, "tmpfs", MS_NOSUID | MS_NODEV, "size=1m,mode=700")
    kept = world.kept()
    for index, path in enumerate(kept):
        _bind(libc, path, staging / str(index), read_only=False)
    # Hidden: every top-level folder outside the system's, the course wherever it is,
    # and any folder above a kept path that others may not enter (it would block the way back).
    # A folder under one already hidden no longer exists, and is skipped.
    top = {p for p in _top_level() if p.name not in SYSTEM_FOLDERS and p.is_dir() and not p.is_symlink()}
    closed = {a for path in kept for a in path.parents if a.is_dir() and not a.stat().st_mode & 0o001}
    emptied = []
    for folder in sorted(top | set(world.hidden) | {Path.home()} | closed, key=lambda p: len(p.parts)):
        if folder != Path("/") and folder.is_dir() and not folder.is_symlink():
            _mount(libc, "tmpfs", folder, "tmpfs", MS_NOSUID | MS_NODEV, "size=1m,mode=755")
            emptied.append(folder)
    for index, path in enumerate(kept):
        _bind(libc, staging / str(index), path, read_only=True)
    for folder in [*emptied, staging]:
        if folder.is_dir():
            _mount(libc, None, folder, None, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV)
    for name in sorted(SYSTEM_FOLDERS - {"dev", "proc"}):
        folder = Path("/") / name
        if folder.is_dir() and not folder.is_symlink():
            _mount(libc, folder, folder, None, MS_BIND | MS_REC)
            _read_only(libc, folder)
    _mount(libc, "tmpfs", "/proc", "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, "size=4k,mode=555")
    _mount(libc, None, "/proc", None, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC)
    if world.work is not None:
        _mount(libc, "tmpfs", world.work, "tmpfs", MS_NOSUID | MS_NODEV, f"size={limits.disk_bytes},mode=777")
    # Popen's cwd was entered before this world was built: it would still reach the folder on the host.
    os.chdir(world.work or "/")
