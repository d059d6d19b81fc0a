"""Are the hidden cases kept on disk (autograder/case_store.py) the cases built, and only ever this account's own?"""

from __future__ import annotations

import os
import shutil

import numpy as np
import pytest

from autograder import case_store
from autograder.cases import REGISTRY, build, hidden_specs


def _differences(built, kept, where="") -> list[str]:
    """Where `kept` is not `built` exactly: a type (a NumPy scalar for a float), a dtype, a shape, a value."""
    if type(built) is not type(kept):
        return [f"{where}: {type(built).__name__} kept as {type(kept).__name__}"]
    if isinstance(built, np.ndarray):
        same = built.dtype == kept.dtype and built.shape == kept.shape and built.tobytes() == kept.tobytes()
        return [] if same else [f"{where}: the array differs"]
    if isinstance(built, dict):
        if list(built) != list(kept):
            return [f"{where}: keys {list(built)} kept as {list(kept)}"]
        return [d for k in built for d in _differences(built[k], kept[k], f"{where}/{k}")]
    if isinstance(built, (list, tuple)):
        if len(built) != len(kept):
            return [f"{where}: {len(built)} items kept as {len(kept)}"]
        return [d for i, (b, k) in enumerate(zip(built, kept)) for d in _differences(b, k, f"{where}/{i}")]
    return [] if built == kept or (built != built and kept != kept) else [f"{where}: {built!r} kept as {kept!r}"]


@pytest.fixture
def store(tmp_path, monkeypatch):
    monkeypatch.setattr(case_store, "FOLDER", tmp_path / "hidden-cases")
    return tmp_path / "hidden-cases"


@pytest.fixture(scope="module")
def built() -> dict[str, tuple[dict, ...]]:
    """Every exercise's hidden cases, built here (never read from the store)."""
    return {name: tuple(build(e, spec) for spec in hidden_specs(e)) for name, e in REGISTRY.items()}


def test_the_cases_read_back_are_the_cases_built_type_for_type(store, built):
    assert case_store.keep(built) == store / f"{case_store.key()}.npz"
    assert _differences(built, case_store.load()) == []


def test_the_store_is_readable_by_this_account_alone(store, built):
    path = case_store.keep(built)
    assert (os.stat(store).st_mode & 0o777, os.stat(path).st_mode & 0o777) == (0o700, 0o600)


@pytest.mark.parametrize("opened", ["the file", "its folder"])
def test_a_store_another_account_may_write_is_never_read(store, built, opened):
    path = case_store.keep(built)
    (path if opened == "the file" else store).chmod(0o666 if opened == "the file" else 0o777)
    assert case_store.load() is None


def test_a_file_cut_short_is_never_read(store, built):
    path = case_store.keep(built)
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    assert case_store.load() is None


def test_a_link_in_place_of_the_file_is_never_read(store, built, tmp_path):
    path = case_store.keep(built)
    path.rename(tmp_path / "elsewhere.npz")
    path.symlink_to(tmp_path / "elsewhere.npz")
    assert case_store.load() is None


def test_another_version_of_the_kit_reads_another_file_and_writing_removes_the_old(store, built, tmp_path, monkeypatch):
    old = case_store.keep(built)
    copy = tmp_path / "kit"
    for folder in case_store.SOURCES:
        shutil.copytree(case_store.ROOT / folder, copy / folder, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(case_store, "ROOT", copy)
    case_store.key.cache_clear()
    try:
        assert case_store.key() == old.stem  # the same files: the same key
        with open(copy / "solutions" / "attention.py", "a") as source:
            source.write("\n# a changed reference\n")
        case_store.key.cache_clear()
        assert case_store.key() != old.stem and case_store.load() is None
        assert case_store.keep(built).exists() and not old.exists()
    finally:
        case_store.key.cache_clear()
