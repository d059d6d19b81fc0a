"""The grading child's own last lock, set before any student code runs: no new program, process or namespace.

`forbid_new_processes()` loads a seccomp filter (built by libseccomp, the
library systemd, Docker and apt use, through ctypes) under which the
process and its threads may not run another program (execve, execveat),
start another process (fork, vfork, clone without CLONE_THREAD; clone3
answers ENOSYS so the C library falls back to clone, whose flags a filter
can read), or make or join a namespace (unshare, setns). Threads stay
allowed: they share the process's memory, which the grader measures.

Why: the grader measures a child's memory from outside, as the kernel counts
it for that one process (autograder/submission.py); a helper process, or a
new program whose counters start again at zero, would escape that count.
A filter cannot be lifted once loaded, and it passes to every thread.

child.py loads it from the grader's read-only folder; `sandbox.probe` runs it
once (`python -I seccomp.py`) and refuses to grade where it cannot be loaded.
"""

import ctypes
import errno
import os
import sys

ALLOW = 0x7FFF0000       # SCMP_ACT_ALLOW
MASKED_EQ = 7            # SCMP_CMP_MASKED_EQ
CLONE_THREAD = 0x00010000
FORBIDDEN = ("execve", "execveat", "fork", "vfork", "unshare", "setns")


class _ArgumentTest(ctypes.Structure):  # struct scmp_arg_cmp
    _fields_ = [("arg", ctypes.c_uint), ("op", ctypes.c_int), ("datum_a", ctypes.c_uint64),
                ("datum_b", ctypes.c_uint64)]


def _refuse(code: int) -> int:
    return 0x00050000 | code  # SCMP_ACT_ERRNO(code)


def forbid_new_processes() -> None:
    """Load the filter into this process (see the module docstring); OSError where it cannot be."""
    try:
        lib = ctypes.CDLL("libseccomp.so.2")
    except OSError as e:
        raise OSError(f"libseccomp is not installed (Debian, Ubuntu: apt-get install libseccomp2): {e}") from None
    lib.seccomp_init.restype = ctypes.c_void_p
    lib.seccomp_init.argtypes = [ctypes.c_uint32]
    lib.seccomp_syscall_resolve_name.argtypes = [ctypes.c_char_p]
    lib.seccomp_rule_add_array.argtypes = [ctypes.c_void_p, ctypes.c_uint32, ctypes.c_int, ctypes.c_uint,
                                           ctypes.POINTER(_ArgumentTest)]
    lib.seccomp_load.argtypes = lib.seccomp_release.argtypes = [ctypes.c_void_p]
    context = lib.seccomp_init(ALLOW)
    if not context:
        raise OSError("seccomp_init failed")
    try:
        def rule(action: int, name: str, *tests: _ArgumentTest) -> None:
            number = lib.seccomp_syscall_resolve_name(name.encode())
            if number < 0:
                raise OSError(f"seccomp: this machine has no system call {name}")
            result = lib.seccomp_rule_add_array(context, action, number, len(tests),
                                                (_ArgumentTest * len(tests))(*tests) if tests else None)
            if result != 0:
                raise OSError(-result, f"seccomp: a rule for {name}: {os.strerror(-result)}")
        for name in FORBIDDEN:
            rule(_refuse(errno.EPERM), name)
        rule(_refuse(errno.EPERM), "clone", _ArgumentTest(0, MASKED_EQ, CLONE_THREAD, 0))
        rule(_refuse(errno.ENOSYS), "clone3")
        result = lib.seccomp_load(context)  # sets no_new_privs first, as an unprivileged filter needs
        if result != 0:
            raise OSError(-result, f"seccomp: loading the filter: {os.strerror(-result)}")
    finally:
        lib.seccomp_release(context)


if __name__ == "__main__":  # the probe: load it, then show that a new process is refused
    forbid_new_processes()
    try:
        os.fork()
    except OSError:
        sys.exit(0)
    os._exit(3)  # both the parent and the child that should not exist
