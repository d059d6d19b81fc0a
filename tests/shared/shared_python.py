"""A Python environment every account can run, for the tests that act as other accounts (root only).

The Python in use may live where other accounts cannot read (pyenv under
/root): `environment()` makes Debian's python3.11 (world-readable, under /usr)
an environment with this environment's packages hard-linked in (no copy, no
download), kept in CACHE between runs under a key made of the interpreter's
version and the packages' names and versions.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

CACHE = Path("/var/cache/attention-kit")
SYSTEM_PYTHON = Path("/usr/bin/python3.11")
# Packages the suite does not use: left out of the environment (a quarter of the files).
UNUSED = ("torch", "nvidia", "triton", "playwright", "sympy", "__editable__", "attention_kit", "__pycache__")
LAYOUT = "3: Jupyter's data and configuration, packages suited to the system's Python"  # a new layout, a new key
SHARED = ("share/jupyter", "etc/jupyter")  # beside site-packages, under the environment's prefix


def _site_packages() -> Path:
    return Path(sys.prefix) / "lib" / f"python{sys.version_info.major}.{sys.version_info.minor}" / "site-packages"


def environment() -> Path:
    """The python of an environment every account can run (made once per key)."""
    if not SYSTEM_PYTHON.exists():
        subprocess.run(["apt-get", "install", "-y", "-qq", "python3.11"], check=True, capture_output=True)
    version = subprocess.run([SYSTEM_PYTHON, "-VV"], capture_output=True, text=True, check=True).stdout
    packages = sorted(p.name for p in _site_packages().glob("*.dist-info") if not p.name.startswith(UNUSED))
    key = hashlib.sha256("\n".join([LAYOUT, version, *packages, *SHARED]).encode()).hexdigest()[:16]
    venv = CACHE / f"python-{key}"
    python = venv / "bin" / "python"
    if python.exists():
        return python
    building = CACHE / f"building-{key}-{os.getpid()}"
    shutil.rmtree(building, ignore_errors=True)
    subprocess.run([SYSTEM_PYTHON, "-m", "venv", "--without-pip", building], check=True)
    target = building / "lib" / "python3.11" / "site-packages"
    shutil.copytree(_site_packages(), target, dirs_exist_ok=True, symlinks=True, copy_function=_link,
                    ignore=lambda folder, names: [n for n in names if n.startswith(UNUSED)])
    _suit_the_system_python(target, version.split()[1])
    for folder in SHARED:  # Jupyter's data and configuration: nbconvert's templates, the lab, server extensions
        if (Path(sys.prefix) / folder).is_dir():
            shutil.copytree(Path(sys.prefix) / folder, building / folder, symlinks=True, copy_function=_link)
    for folder in (CACHE, building):
        folder.chmod(0o755)
    building.rename(venv)
    return python


def _suit_the_system_python(site_packages: Path, version: str) -> None:
    """Replace each linked package that says it needs a newer Python than the system's (soupsieve 3 and
    later need 3.11.5; Debian 12 has 3.11.2) by pip's choice of that package for the system's Python."""
    from email.parser import HeaderParser

    from packaging.specifiers import SpecifierSet

    unsuited = []
    for info in site_packages.glob("*.dist-info"):
        metadata = HeaderParser().parsestr((info / "METADATA").read_text(errors="replace"))
        needs = metadata.get("Requires-Python")
        if needs and version not in SpecifierSet(needs):
            unsuited.append(metadata["Name"])
            files = [site_packages / line.split(",")[0] for line in (info / "RECORD").read_text().splitlines()]
            for file in files:  # the package's own files, then its folders left empty, then its record
                file.unlink(missing_ok=True)
            for folder in sorted({file.parent for file in files}, key=lambda f: -len(f.parts)):
                if folder != site_packages and folder.is_dir() and not any(folder.iterdir()):
                    folder.rmdir()
            shutil.rmtree(info, ignore_errors=True)
    if unsuited:
        subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--only-binary=:all:",
                        f"--python-version={version}", "--target", site_packages, *unsuited], check=True)


def _link(source: str, target: str) -> None:
    try:
        os.link(source, target)
    except OSError:  # another filesystem
        shutil.copy2(source, target)
