"""The package's version is the workspace's: the native module's ``__version__`` (the crate's
``CARGO_PKG_VERSION``), re-exported as ``flatjoin.__version__``, and the installed distribution's
metadata when flatjoin runs from a wheel."""

import importlib.metadata
import re
from pathlib import Path

from packaging.version import Version

import flatjoin
from flatjoin import _native

WORKSPACE = Path(__file__).resolve().parents[3] / "Cargo.toml"


def workspace_version() -> str:
    text = WORKSPACE.read_text()
    section = re.search(r"^\[workspace\.package\]\n(.*?)(?=^\[|\Z)", text, re.M | re.S)
    assert section, f"{WORKSPACE} has no [workspace.package]"
    version = re.search(r'^version\s*=\s*"([^"]+)"', section.group(1), re.M)
    assert version, f"{WORKSPACE} [workspace.package] has no version"
    return version.group(1)


def test_version_is_the_workspace_version():
    expected = workspace_version()
    assert flatjoin.__version__ == _native.__version__ == expected
    assert "__version__" in flatjoin.__all__


def test_installed_metadata_agrees():
    # Run from the source tree (PYTHONPATH, as `tests/python.rs` does) there is no distribution;
    # from a wheel its metadata must carry the same version (maturin's PEP 440 spelling of it).
    try:
        installed = importlib.metadata.version("flatjoin")
    except importlib.metadata.PackageNotFoundError:
        origin = Path(flatjoin.__file__).resolve()
        assert origin.is_relative_to(Path(__file__).resolve().parents[1] / "python"), (
            f"flatjoin imported from {origin}, but no distribution of it is installed"
        )
        return
    assert Version(installed) == Version(workspace_version())
