#!/usr/bin/env python3
"""One-command set-up for Pendulum Explorer (needs only Python >= 3.11 and git).

    python3 tools/dev.py serve     # set up .venv, warm the numba cache, serve the dashboard
    python3 tools/dev.py test      # set up .venv, warm the numba cache, run the whole test suite
    python3 tools/dev.py lab       # set up .venv, open JupyterLab on notebooks/ (the teaching notebooks)
    python3 tools/dev.py docs      # set up .venv with the docs extra, build the site into docs/_build/html
    python3 tools/dev.py i18n      # the dashboard's message catalogs: extract, update the .po files, compile the .mo

The virtual environment lives in ``.venv`` next to this repository; it is (re)installed only when
``pyproject.toml`` changes.  Extra arguments after ``serve``/``test``/``lab``/``docs`` go to
``pendulum-explorer serve`` / ``pytest`` / ``jupyter lab`` / ``sphinx-build``.
"""
from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VENV = ROOT / ".venv"
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
PY = BIN / ("python.exe" if os.name == "nt" else "python")
STAMP = VENV / ".pendulum-explorer-installed"


def run(cmd, **kw):
    print("+", " ".join(str(c) for c in cmd), flush=True)
    subprocess.run([str(c) for c in cmd], check=True, **kw)


def setup():
    if sys.version_info < (3, 11):
        sys.exit(f"Python >= 3.11 is required; this is {sys.version.split()[0]}")
    if not PY.exists():
        print(f"creating virtual environment {VENV}", flush=True)
        venv.EnvBuilder(with_pip=True, clear=False).create(VENV)
    want = hashlib.sha256((ROOT / "pyproject.toml").read_bytes()).hexdigest()
    if not STAMP.exists() or STAMP.read_text().strip() != want:
        run([PY, "-m", "pip", "install", "--disable-pip-version-check", "-q", "--upgrade", "pip"])
        run([PY, "-m", "pip", "install", "--disable-pip-version-check", "-q", "-e", f"{ROOT}[test,lab,figures,docs]"])
        STAMP.write_text(want)
    # compile every numba kernel into the on-disk cache once, before anything is timed
    run([PY, "-m", "pendulum_explorer.cli", "warmup"], cwd=ROOT)


def lab_command(rest=()):
    """``python -m jupyter lab`` arguments: JupyterLab on notebooks/ (loopback, token as JupyterLab makes it)."""
    cmd = ["-m", "jupyter", "lab", f"--ServerApp.root_dir={ROOT / 'notebooks'}"]
    if hasattr(os, "geteuid") and os.geteuid() == 0:  # containers run as root; JupyterLab refuses without this
        cmd.append("--allow-root")
    return cmd + list(rest)


def docs_command(rest=()):
    """``python -m sphinx`` arguments: the HTML site into docs/_build/html, warnings as errors, every reference
    checked (nitpicky); the notebooks' outputs come from docs/_build/.jupyter_cache when their code is unchanged."""
    return ["-m", "sphinx", "-b", "html", "-W", "--keep-going", "-n", str(ROOT / "docs"),
            str(ROOT / "docs" / "_build" / "html"), *rest]


def main(argv):
    if not argv or argv[0] not in ("serve", "test", "setup", "lab", "docs", "i18n"):
        sys.exit(__doc__)
    setup()
    cmd, rest = argv[0], argv[1:]
    if cmd == "serve":
        os.execv(str(PY), [str(PY), "-m", "pendulum_explorer.cli", "serve", "--no-warmup", *rest])
    elif cmd == "lab":
        os.execv(str(PY), [str(PY), *lab_command(rest)])
    elif cmd == "docs":
        r = subprocess.run([str(PY), *docs_command(rest)], cwd=ROOT)
        if r.returncode == 0:
            print(f"the site: {ROOT / 'docs' / '_build' / 'html' / 'index.html'}")
        sys.exit(r.returncode)
    elif cmd == "i18n":
        sys.exit(subprocess.run([str(PY), str(ROOT / "tools" / "i18n_catalogs.py"), *rest], cwd=ROOT).returncode)
    elif cmd == "test":
        args = rest or ["-n", "2", "--dist", "loadfile", "-q"]
        r = subprocess.run([str(PY), "-m", "pytest", *args], cwd=ROOT)
        sys.exit(r.returncode)


if __name__ == "__main__":
    main(sys.argv[1:])
