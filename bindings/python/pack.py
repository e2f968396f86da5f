#!/usr/bin/env python3
"""Packs the PyPI distribution of flatjoin: an abi3 wheel that carries the extension module
(``flatjoin._native``) *and* the ``flatjoin`` command-line binary, so ``pip install flatjoin`` and
``uvx flatjoin check ...`` run the CLI (the binary goes where installers put scripts: the wheel's
``flatjoin-VERSION.data/scripts/``, from maturin's wheel data folder), and the sdist (which holds
no binary: built from source it is the library alone).

    python3 bindings/python/pack.py --cli target/release/flatjoin --out dist --release

The CLI is built beforehand (``cargo build --release -p flatjoin-cli --bin flatjoin``) and named
with ``--cli``. maturin comes from PyPI at the version pinned here, into a venv under the target
directory (made once, reused while the pin is unchanged); a failed install is an error. The binary
is staged into ``bindings/python/flatjoin._native.data/scripts/`` (git-ignored) only while maturin
builds the wheel, and removed afterwards whatever happened; the wheel is then checked to hold it.
Prints the path of every file it made, one a line. Standard library only.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import subprocess
import sys
import time
import venv
import zipfile
from pathlib import Path
from typing import Iterator

MATURIN = "maturin==1.16.0"
HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
# maturin's wheel data folder: `<module-name>.data` beside pyproject.toml, used when it exists (a
# `[tool.maturin] data` setting would be required to exist, and an sdist has no binary). Its
# `scripts/` become the wheel's `flatjoin-VERSION.data/scripts/`, which installers put beside
# `python` (`bin/`, `Scripts\`).
STAGING = HERE / "flatjoin._native.data"


class PackError(Exception):
    pass


def build_venv(target_dir: Path) -> Path:
    """The Python of ``TARGET/pack-venv`` with maturin at the pinned version."""
    root = target_dir / "pack-venv"
    python = root / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    stamp = root / "flatjoin-pack-requirements.txt"
    if python.exists() and stamp.is_file() and stamp.read_text() == MATURIN + "\n":
        return python
    print(f"pack: making {root} with {MATURIN}", file=sys.stderr)
    try:
        venv.EnvBuilder(clear=True, with_pip=True).create(root)
    except (OSError, subprocess.CalledProcessError) as e:
        raise PackError(f"cannot create the build venv {root}: {e}") from None
    install = [str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", MATURIN]
    if subprocess.run(install).returncode != 0:
        raise PackError(f"pip install {MATURIN} failed (see above)")
    stamp.write_text(MATURIN + "\n")
    return python


def maturin(python: Path, args: list[str]) -> None:
    command = [str(python), "-m", "maturin", *args]
    print("pack: " + " ".join(command), file=sys.stderr)
    if subprocess.run(command, cwd=HERE).returncode != 0:
        raise PackError(f"maturin {args[0]} failed (see above)")


@contextlib.contextmanager
def staging_lock() -> Iterator[None]:
    """An exclusive lock on this file while the staging folder is in use (POSIX; elsewhere runs
    are not serialized)."""
    try:
        import fcntl
    except ImportError:
        yield
        return
    with open(__file__, "rb") as handle:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


def written(out: Path, before: dict[Path, int], suffix: str) -> list[Path]:
    """The files of ``out`` ending in ``suffix`` that are new or rewritten since ``before``."""
    return sorted(p for p in out.glob(f"*{suffix}") if before.get(p) != p.stat().st_mtime_ns)


def pack(cli: Path, out: Path, release: bool, target_dir: Path) -> list[Path]:
    if not cli.is_file() or not os.access(cli, os.X_OK):
        raise PackError(f"--cli {cli}: not an executable file (cargo build -p flatjoin-cli --bin flatjoin)")
    out.mkdir(parents=True, exist_ok=True)
    python = build_venv(target_dir)
    before = {p: p.stat().st_mtime_ns for p in out.iterdir()}
    scripts = STAGING / "scripts"
    name = "flatjoin.exe" if os.name == "nt" else "flatjoin"
    # One checkout has one staging folder: concurrent runs (a test's and a person's) take turns.
    with staging_lock():
        if STAGING.exists():
            shutil.rmtree(STAGING)
        try:
            scripts.mkdir(parents=True)
            shutil.copy2(cli, scripts / name)
            (scripts / name).chmod(0o755)
            build = ["build", "--out", str(out), "--target-dir", str(target_dir)]
            if release:
                build.append("--release")
            maturin(python, build)
        finally:
            shutil.rmtree(STAGING, ignore_errors=True)
    wheels = written(out, before, ".whl")
    if not wheels:
        raise PackError(f"maturin build wrote no wheel into {out}")
    for wheel in wheels:
        check_wheel(wheel, name)
    maturin(python, ["sdist", "--out", str(out)])
    return wheels + written(out, before, ".tar.gz")


def check_wheel(wheel: Path, name: str) -> None:
    """The wheel holds the extension and the executable binary among its scripts."""
    with zipfile.ZipFile(wheel) as archive:
        entries = {info.filename: info for info in archive.infolist()}
    scripts = [e for e in entries if e.endswith(f".data/scripts/{name}") and e.count("/") == 2]
    if not scripts:
        raise PackError(f"{wheel.name} holds no .data/scripts/{name}: maturin did not pack the staged binary")
    if not (entries[scripts[0]].external_attr >> 16) & 0o111:
        raise PackError(f"{wheel.name}: {scripts[0]} is not executable")
    if not any(e.startswith("flatjoin/_native") for e in entries):
        raise PackError(f"{wheel.name} holds no flatjoin/_native extension")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cli", type=Path, required=True, help="the built `flatjoin` binary")
    parser.add_argument("--out", type=Path, required=True, help="where the wheel and sdist go")
    parser.add_argument("--release", action="store_true", help="build the extension in release")
    parser.add_argument(
        "--target-dir", type=Path, default=ROOT / "target", help="cargo's target dir (and the build venv's home)"
    )
    args = parser.parse_args()
    started = time.monotonic()
    try:
        made = pack(args.cli.resolve(), args.out.resolve(), args.release, args.target_dir.resolve())
    except PackError as e:
        print(f"pack: {e}", file=sys.stderr)
        return 1
    for path in made:
        print(path)
    print(f"pack: done in {time.monotonic() - started:.0f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
