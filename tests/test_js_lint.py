"""The dashboard's JavaScript (pendulum_explorer/app/js) passes ESLint (eslint.config.mjs; eslint from npm, installed
into node_modules by this test from package-lock.json): no lint errors, no file over 600 lines, no function over
100."""
from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
REQUIRED = bool(os.environ.get("CI") or os.environ.get("PE_REQUIRE_BROWSER"))


def _npm():
    npm = shutil.which("npm")
    if npm is None:
        if REQUIRED:
            pytest.fail("npm is not installed; .ci/run installs Debian's nodejs and npm")
        pytest.skip("npm is not installed (apt-get install nodejs npm)")
    return npm


def _eslint():
    """ESLint from node_modules, installed from package-lock.json the first time."""
    npm = _npm()
    eslint = ROOT / "node_modules" / ".bin" / "eslint"
    if not eslint.exists():
        subprocess.run([npm, "ci", "--no-audit", "--no-fund", "--loglevel=error"], cwd=ROOT, check=True,
                       timeout=600)
    return str(eslint)


def test_javascript_passes_eslint():
    r = subprocess.run([_eslint(), "--max-warnings", "0",
                        "pendulum_explorer/app/js", "pendulum_explorer/app/voila_data"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, f"ESLint found problems:\n{r.stdout}{r.stderr}"


def test_eslint_catches_a_lint_error():
    """The configuration lints the app's modules (a file with an undefined name and == fails)."""
    eslint = _eslint()
    # linted as if it were a module of the app (stdin: nothing is written into the package)
    r = subprocess.run([eslint, "--stdin", "--stdin-filename",
                        "pendulum_explorer/app/js/zz_lint_probe.js"], input="export const a = undefinedName == 3;\n",
                       cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert r.returncode == 1 and "no-undef" in r.stdout and "eqeqeq" in r.stdout, r.stdout
