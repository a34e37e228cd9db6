"""The install claims one import name, `accel`: every package folder of the design card
is listed under it in pyproject.toml, and the generic names stay free."""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _package_folders() -> set[str]:
    found = set()
    for top in ("compiler", "dialects", "tools"):
        for dirpath, _, files in os.walk(os.path.join(ROOT, top)):
            if "__init__.py" in files:
                rel = os.path.relpath(dirpath, ROOT).replace(os.sep, ".")
                found.add(f"accel.{rel}")
    return found


def test_every_package_folder_is_installed_under_accel():
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as f:
        config = tomllib.load(f)["tool"]["setuptools"]
    assert set(config["packages"]) == _package_folders()
    assert config["package-dir"] == {"accel.compiler": "compiler", "accel.dialects": "dialects", "accel.tools": "tools"}


def test_generic_top_level_names_stay_free(tmp_path):
    # Outside the checkout only `accel` is importable.
    code = (
        "import importlib.util, accel.compiler.driver, accel.dialects.relay, accel.tools.accel_opt\n"
        "print([n for n in ('compiler', 'dialects', 'tools') if importlib.util.find_spec(n)])\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
