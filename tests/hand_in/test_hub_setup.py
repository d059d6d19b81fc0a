"""Does `python -m kit.hub setup` make the exchange and the configuration it promises, and refuse what
it must? (Its use on a real JupyterHub: tests/hand_in/test_hub.py.)"""

from __future__ import annotations

import json
import os
import pwd
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from kit.course import COURSE_ID
from kit.hub import __main__ as command
from kit.hub import students
from kit.hub.exchange import ExchangeRefused, make_exchange
from kit.notebooks import ROOT
from tests.shared.accounts import make_account

as_root = pytest.mark.skipif(os.geteuid() != 0, reason="makes folders owned by root and by another account")


def test_an_ordinary_account_is_refused_in_one_line(monkeypatch, capsys):
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    assert command.main(["setup", "--instructor=nobody"]) == 1
    assert capsys.readouterr().err.strip() == ("python -m kit.hub setup must run as root "
                                               "(it makes folders owned by root and by the instructor)")


def test_an_account_that_does_not_exist_is_refused(monkeypatch, capsys):
    monkeypatch.setattr(os, "geteuid", lambda: 0)
    assert command.main(["setup", "--instructor=no-such-account-here"]) == 1
    assert "no account 'no-such-account-here'" in capsys.readouterr().err


@as_root
def test_the_exchange_has_the_tightest_modes_stock_nbgrader_works_with(tmp_path):
    course = make_exchange(tmp_path / "exchange", "a-course", "nobody")
    nobody = pwd.getpwnam("nobody").pw_uid
    found = {path.name: (path.stat().st_uid, oct(path.stat().st_mode & 0o7777))
             for path in [tmp_path / "exchange", course, *(course / n for n in ("inbound", "outbound", "feedback"))]}
    assert found == {"exchange": (0, "0o1777"), "a-course": (nobody, "0o755"), "inbound": (nobody, "0o3733"),
                     "outbound": (nobody, "0o755"), "feedback": (nobody, "0o711")}


@as_root
def test_a_course_name_taken_first_by_someone_else_is_refused(tmp_path):
    (tmp_path / "exchange" / "a-course").mkdir(parents=True)
    os.chown(tmp_path / "exchange" / "a-course", 12345, 12345)
    with pytest.raises(ExchangeRefused, match="someone took the course's name first"):
        make_exchange(tmp_path / "exchange", "a-course", "nobody")


@as_root
def test_a_symlink_in_place_of_a_folder_is_refused(tmp_path):
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "exchange" / "a-course").mkdir(parents=True)
    (tmp_path / "exchange" / "a-course" / "inbound").symlink_to(tmp_path / "elsewhere")
    with pytest.raises(ExchangeRefused, match="is not a folder"):
        make_exchange(tmp_path / "exchange", "a-course", "nobody")


def test_the_students_configuration_is_written_once_however_often_setup_runs(tmp_path):
    (tmp_path / "nbgrader_config.py").write_text("c = get_config()\nc.Exchange.timezone = 'UTC'\n")
    for _ in range(2):
        students.for_everyone(tmp_path, "a-course", tmp_path / "exchange")
    config = (tmp_path / "nbgrader_config.py").read_text()
    assert config.count(students.BEGIN) == 1 and "c.Exchange.timezone = 'UTC'" in config  # the admin's line kept
    assert f"c.Exchange.root = {str(tmp_path / 'exchange')!r}" in config
    server = (tmp_path / "jupyter_server_config.py").read_text()
    assert server.count(students.BEGIN) == 1 and "'nbgrader.server_extensions.formgrader': False" in server
    disabled = json.loads((tmp_path / "labconfig" / "page_config.json").read_text())["disabledExtensions"]
    assert disabled == {name: True for name in students.INSTRUCTOR_ONLY_LAB}


@as_root
def test_setup_prints_what_it_made_and_what_a_student_can_and_cannot_reach(tmp_path, instructor):
    name, home = instructor
    made = setup(tmp_path, name)
    assert made.returncode == 0, made.stderr
    assert "A student can:" in made.stdout and "A student cannot:" in made.stdout
    enabled = home / ".jupyter" / "jupyter_server_config.py"
    assert "'nbgrader.server_extensions.formgrader': True" in enabled.read_text()
    assert enabled.stat().st_uid == pwd.getpwnam(name).pw_uid


@as_root
def test_a_symbolic_link_in_the_exchanges_path_is_refused_not_followed(tmp_path):
    (tmp_path / "real").mkdir()
    (tmp_path / "linked").symlink_to(tmp_path / "real")
    with pytest.raises(ExchangeRefused, match="linked is not a folder .a symbolic link"):
        make_exchange(tmp_path / "linked" / "exchange", "a-course", "nobody")
    assert not any((tmp_path / "real").iterdir())


@pytest.fixture
def instructor():
    """An instructor account with a home of its own that it can reach (removed after)."""
    shared = Path(tempfile.mkdtemp(prefix="attention-hub-setup-", dir="/tmp"))
    shared.chmod(0o755)
    home = make_account("attention-hub-setup", shared / "home")
    try:
        yield "attention-hub-setup", home
    finally:
        subprocess.run(["userdel", "--force", "attention-hub-setup"], capture_output=True)
        shutil.rmtree(shared)


def setup(tmp_path, instructor: str, *more: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "kit.hub", "setup", f"--instructor={instructor}",
                           f"--exchange={tmp_path / 'exchange'}", f"--config-dir={tmp_path / 'etc'}", *more],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)


def _course_of(account: str, home: Path) -> Path:
    """A course folder of the account's (its course.toml is all the set-up reads of it) and its Python."""
    course = home / "course"
    (course / ".venv" / "bin").mkdir(parents=True)
    shutil.copy(ROOT / "course.toml", course / "course.toml")
    (course / ".venv" / "bin" / "python").symlink_to(sys.executable)
    subprocess.run(["chown", "-R", f"{account}:{account}", course], check=True)
    return course


@as_root
def test_the_grading_service_is_the_hubs_managed_service_run_as_the_instructor_in_their_course(tmp_path, instructor):
    from traitlets.config import PyFileConfigLoader

    from kit.hub.managed_service import service_name

    name, home = instructor
    course = _course_of(name, home)
    hub_config = tmp_path / "jupyterhub_config.py"
    hub_config.write_text("c = get_config()\nc.JupyterHub.services = [{'name': 'other', 'api_token': 'x'}]\n")
    hub_config.chmod(0o600)  # a hub's configuration may hold secrets: its mode is kept
    for _ in range(2):  # set up again: replaced, not added
        made = setup(tmp_path, name, f"--hub-config={hub_config}", f"--course={course}")
        assert made.returncode == 0, made.stderr
    assert f"Grading service {service_name(COURSE_ID)}" in made.stdout and "[service] on = true" in made.stdout
    assert oct(hub_config.stat().st_mode & 0o777) == "0o600"
    loaded = PyFileConfigLoader(hub_config.name, str(tmp_path)).load_config()
    assert loaded.JupyterHub.services == [
        {"name": "other", "api_token": "x"},
        {"name": service_name(COURSE_ID), "user": name, "cwd": str(course),
         "command": [str(course / ".venv" / "bin" / "python"), "-m", "kit.grading_service"],
         "environment": {"PYTHONPATH": str(course)}}]


@as_root
def test_the_grading_service_is_refused_a_course_that_is_not_the_instructors(tmp_path, instructor):
    name, home = instructor
    course = _course_of(name, home)
    subprocess.run(["chown", "root:root", course], check=True)
    made = setup(tmp_path, name, f"--hub-config={tmp_path / 'jupyterhub_config.py'}", f"--course={course}")
    assert made.returncode == 1 and f"is not a course folder of {name}'s" in made.stderr
    assert not (tmp_path / "jupyterhub_config.py").exists()
    without = setup(tmp_path, name, f"--hub-config={tmp_path / 'jupyterhub_config.py'}")
    assert without.returncode == 1 and "--hub-config needs --course" in without.stderr


@as_root
def test_the_instructors_configuration_is_written_with_their_rights_alone(tmp_path, instructor):
    """Their ~/.jupyter is theirs: a link there to a folder only root may write leads root's set-up nowhere."""
    name, home = instructor
    roots = home.parent / "roots"
    roots.mkdir(mode=0o755)
    (home / ".jupyter").symlink_to(roots)
    made = setup(tmp_path, name)
    assert made.returncode == 1 and "Refused: writing attention-hub-setup's configuration as" in made.stderr
    assert "Permission denied" in made.stderr and not any(roots.iterdir())


@as_root
def test_setup_says_when_the_exchanges_file_system_keeps_no_quota(tmp_path, instructor):
    from kit.hub.quota import per_account_quota

    made = setup(tmp_path, instructor[0])
    assert made.returncode == 0, made.stderr
    if per_account_quota(tmp_path) is None:
        assert "WARNING: no per-account quota on" in made.stdout
    else:
        assert "Quota: " in made.stdout and "keeps per-account quotas" in made.stdout


QUOTA_MOUNT = "mount -t tmpfs -o size=64m,usrquota,usrquota_block_hardlimit=1m,usrquota_inode_hardlimit=1000 tmpfs"


@as_root
def test_a_student_cannot_write_past_their_quota_while_a_classmate_hands_in(tmp_path, instructor):
    """On a tmpfs exchange with 1 MiB per account (README's Disk section), in a mount namespace of its own."""
    name, home = instructor
    mount_point = home.parent / "exchange-fs"
    mount_point.mkdir()
    probe = subprocess.run(["unshare", "--mount", "--propagation", "private", "sh", "-c", f'{QUOTA_MOUNT} "$0"',
                            mount_point], capture_output=True, text=True)
    if probe.returncode:
        pytest.skip(f"this machine's kernel keeps no tmpfs quotas (CONFIG_TMPFS_QUOTA, Linux 6.6 and later): "
                    f"{probe.stderr.strip()}")
    inbound = mount_point / "exchange" / COURSE_ID / "inbound"
    script = f"""{QUOTA_MOUNT} "$0" || exit 9
{sys.executable} -m kit.hub setup --instructor={name} --exchange="$0/exchange" --config-dir={tmp_path / 'etc'}
runuser -u nobody -- dd if=/dev/zero of={inbound}/fill bs=1M count=4 2>&1; echo "filler: $?"
runuser -u daemon -- sh -c 'head -c 100000 /dev/zero > {inbound}/hand-in' 2>&1; echo "classmate: $?"
"""
    done = subprocess.run(["unshare", "--mount", "--propagation", "private", "sh", "-c", script, mount_point],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert "Quota: " in done.stdout and "usrquota" in done.stdout, done.stdout + done.stderr
    assert "Disk quota exceeded" in done.stdout and "filler: 1" in done.stdout
    assert "classmate: 0" in done.stdout
