"""What the checkout-against-checkout benchmarks share: a child process's ``RESULT {json}`` line and the table of
min / median per measure and checkout."""
from __future__ import annotations

import json
import statistics
import subprocess
from pathlib import Path


def child_result(cmd: list[str], env: dict[str, str], cwd: str | Path, timeout: float, label: object):
    """Run ``cmd`` and return the JSON after ``RESULT `` on its output; raise with its stderr when there is none."""
    p = subprocess.run(cmd, env=env, cwd=str(cwd), capture_output=True, text=True, timeout=timeout)
    line = next((x for x in p.stdout.splitlines() if x.startswith("RESULT ")), None)
    if line is None:
        raise RuntimeError(f"{label}: no result\n{p.stderr[-3000:]}")
    return json.loads(line[7:])


def print_min_median(runs: dict[str, list[dict[str, float]]], names) -> None:
    """A markdown table: one row per measure of the ``this`` runs, min and median per checkout ("-" if absent)."""
    print("| | " + " | ".join(f"{k} min | {k} median" for k in names) + " |")
    print("|---|" + "---|---|" * len(names))
    for key in runs["this"][0]:
        cells = []
        for name in names:
            xs = [r[key] for r in runs[name] if key in r]
            cells += [f"{min(xs):.3g}", f"{statistics.median(xs):.3g}"] if xs else ["-", "-"]
        print(f"| {key} | " + " | ".join(cells) + " |")
