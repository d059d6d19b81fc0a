"""Whether the exchange's file system limits what one account may write there (a per-account quota).

Every account can write into the exchange (its root is 1777, inbound/ 3733: nbgrader's student commands
need both), so without a quota one account can fill its disk: every later `nbgrader submit` and
`release_feedback` then fails, and the file sits where only its owner or root can remove it. The kit's
commands survive a full exchange (collect refuses hand-ins over course.toml's size limits; release names
the pages it could not write and releases them on the next run), but only the file system can stop the
filling: a per-account quota, which `kit.hub setup` checks for (`per_account_quota`) and README's hub
section says how to set.
"""

from __future__ import annotations

import os
from pathlib import Path

QUOTA_OPTIONS = ("usrquota", "quota", "uquota", "usrjquota", "uqnoenforce")


def _mount_of(folder: Path) -> tuple[str, str, set[str]] | None:
    """(mount point, file system type, mount and super options) of the mount holding `folder`."""
    device = os.stat(folder).st_dev
    here = os.path.realpath(folder)
    found = None
    with open("/proc/self/mountinfo") as mounts:
        for line in mounts:
            fields, _, rest = line.partition(" - ")
            _, _, numbers, _, point, options, *_ = fields.split()
            fstype, _, super_options = rest.split()[:3]
            point = point.encode().decode("unicode_escape")  # \040 for a space
            major, minor = map(int, numbers.split(":"))
            inside = here == point or here.startswith(point.rstrip("/") + "/")
            if os.makedev(major, minor) == device and inside and (found is None or len(point) >= len(found[0])):
                found = point, fstype, {*options.split(","), *super_options.split(",")}
    return found


def per_account_quota(folder: Path) -> str | None:
    """Where the file system holding `folder` keeps a per-account quota, a line saying so; None where not."""
    mount = _mount_of(folder)
    if mount is None:
        return None
    point, fstype, options = mount
    kept = sorted(o for o in options if o.split("=", 1)[0] in QUOTA_OPTIONS or o.startswith("usrquota_"))
    return f"{point} ({fstype}) keeps per-account quotas: {', '.join(kept)}" if kept else None
