"""``pendulum-explorer figure fig1|fig2 [--energy E] --out FILE.{html,png,svg}`` (issue 14, part 3).

HTML everywhere; PNG/SVG where kaleido and Chrome/Chromium are present, required with ``PE_REQUIRE_BROWSER=1``
(CI); the message when they are missing is tested everywhere.
"""
from __future__ import annotations

import json
import os
import re
import struct

import pytest

from pendulum_explorer import cli
from pendulum_explorer.plotting import paper


def _figures_in_html(text):
    """The figure dicts (data, layout) embedded by plotly's ``to_html`` calls (decoded as JSON documents: a
    pattern that stops at the first ``},{`` cut a layout holding a list of objects, e.g. scene annotations)."""
    out = []
    dec = json.JSONDecoder()
    for m in re.finditer(r"Plotly\.newPlot\(\s*\"[^\"]+\",\s*", text):
        data, end = dec.raw_decode(text, m.end())
        end = re.compile(r",\s*").match(text, end).end()
        layout, _ = dec.raw_decode(text, end)
        out.append((data, layout))
    return out


def _array(v):
    """A plotly JSON array: a list, or plotly's base64 typed array ``{"dtype": "f8", "bdata": ...}``."""
    import base64

    import numpy as np

    if isinstance(v, dict):
        return np.frombuffer(base64.b64decode(v["bdata"]), dtype=np.dtype(v["dtype"]))
    return np.asarray(v, float)


def test_fig2_one_energy_html_is_standalone_and_holds_the_crossings(tmp_path, capsys):
    out = tmp_path / "fig2c.html"
    assert cli.main(["figure", "fig2", "--energy", "2.03", "--crossings", "300", "--out", str(out)]) == 0
    assert capsys.readouterr().out.strip() == str(out)
    text = out.read_text()
    assert text.startswith("<!DOCTYPE html>")
    assert "<script src=\"http" not in text, "standalone: plotly.js must be inline, not loaded from the network"
    assert "plotly.js v" in text or "Plotly" in text[:2_000_000]
    figs = _figures_in_html(text)
    assert len(figs) == 1
    data, layout = figs[0]
    assert "Fig. 2 (c)" in layout["title"]["text"] and "E = 2.03 J" in layout["title"]["text"]
    pts = [t for t in data if t.get("mode", "").startswith("markers") and t.get("name", "").startswith("R0")]
    assert len(pts) == 1
    z = _array(pts[0]["y"])
    assert len(z) == len(_array(pts[0]["x"])) == 300
    assert ((z > -1) & (z < 1)).all()


def test_fig2_figures_match_the_model():
    """The panel's points are the section's crossings of the paper's initial condition at that energy."""
    import numpy as np

    from pendulum_explorer.poincare import PoincareSection, chart_from_sphere
    from pendulum_explorer.presets import paper_fig2

    figs = paper.fig2_figures(0.0, n=50)
    assert list(figs) == ["b"]
    sec, seed = PoincareSection.from_paper_ic(paper_fig2().pendulum, 0.0)
    cr = sec.crossings(seed, 50)
    tr = [t for t in figs["b"].data if t.name and t.name.startswith("R0")][0]
    phi, _ = chart_from_sphere(cr.Gamma)
    assert np.allclose(np.asarray(tr.y, float), np.asarray(cr.Gamma)[:, 2], atol=1e-12)
    assert np.allclose(np.asarray(tr.x, float), np.asarray(phi, float), atol=1e-12)
    # a custom energy is not a paper panel
    assert list(paper.fig2_figures(1.0, n=5)) == ["E=1"]


def test_fig1_html_has_three_panels(tmp_path):
    out = tmp_path / "fig1.html"
    assert cli.main(["figure", "fig1", "--out", str(out)]) == 0
    figs = _figures_in_html(out.read_text())
    titles = [layout["title"]["text"] for _, layout in figs]
    assert [t[:11] for t in titles] == ["Fig. 1 (b):", "Fig. 1 (c):", "Fig. 1 (d):"]
    # every panel draws the hanging and inverted points and the families
    for data, _ in figs:
        names = {t.get("name") for t in data}
        assert {"hanging", "inverted"} <= names


@pytest.mark.parametrize("argv, needle", [
    (["figure", "fig1", "--energy", "1", "--out", "x.html"], "--energy applies to fig2 only"),
    (["figure", "fig2", "--energy", "-10", "--crossings", "5", "--out", "x.html"], "E = -10"),
    (["figure", "fig2", "--energy", "nan", "--out", "x.html"], "energy"),
    (["figure", "fig2", "--crossings", "0", "--out", "x.html"], "1..100000"),
])
def test_bad_figure_arguments_say_what(argv, needle, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert cli.main(argv) == 1
    err = capsys.readouterr().err
    assert needle in err and "Traceback" not in err
    assert not (tmp_path / "x.html").exists()


@pytest.mark.parametrize("out, needle", [("fig.pdf", "--out must end in one of .html, .png, .svg"),
                                         ("no/such/folder/fig.html", "does not exist")])
def test_bad_out_is_refused_before_any_work(out, needle, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(paper, "fig1_figures", lambda: pytest.fail("computed before checking --out"))
    with pytest.raises(SystemExit) as exc:
        cli.main(["figure", "fig1", "--out", out])
    assert exc.value.code == 2 and needle in capsys.readouterr().err


def test_images_without_browser_fail_with_what_to_install(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("BROWSER_PATH", raising=False)
    monkeypatch.setattr("shutil.which", lambda name, *a, **k: None)
    monkeypatch.setattr(paper, "fig2_figures", lambda *a, **k: pytest.fail("computed although PNG cannot be written"))
    with pytest.raises(SystemExit) as exc:
        cli.main(["figure", "fig2", "--energy", "0", "--out", str(tmp_path / "f.png")])
    err = capsys.readouterr().err
    assert exc.value.code == 2
    assert "cannot write PNG" in err and "Chromium" in err and "kaleido" in err and "FILE.html" in err
    monkeypatch.setenv("BROWSER_PATH", str(tmp_path / "nothing"))
    assert "BROWSER_PATH" in cli.image_export_problem()


def _need_images():
    problem = cli.image_export_problem()
    if problem:
        msg = f"PNG/SVG export unavailable here: {problem}"
        if os.environ.get("PE_REQUIRE_BROWSER") == "1":
            pytest.fail(msg + " [PE_REQUIRE_BROWSER=1]", pytrace=False)
        pytest.skip(msg)


@pytest.mark.browser
def test_fig2_png_and_svg(tmp_path, capsys):
    """One Fig. 2 panel as PNG and as SVG (kaleido with Debian's Chromium)."""
    _need_images()
    png, svg = tmp_path / "fig2a.png", tmp_path / "fig2a.svg"
    assert cli.main(["figure", "fig2", "--energy", "-2.65", "--crossings", "200", "--out", str(png)]) == 0
    head = png.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n"
    w, h = struct.unpack(">II", head[16:24])
    assert w >= 500 and h >= 400, (w, h)
    assert cli.main(["figure", "fig2", "--energy", "-2.65", "--crossings", "200", "--out", str(svg)]) == 0
    text = svg.read_text()
    assert "<svg" in text[:500] and "Fig. 2 (a)" in text


def test_an_export_that_writes_nothing_is_not_success(tmp_path, monkeypatch):
    """kaleido's browser can return without writing a file (seen under load): retried once, then a
    FigureExportError; never the path of a file that was not written, and the file that was there before stays
    (issue 26 item 7: it was deleted before the export)."""
    import plotly.graph_objects as go
    import plotly.io as pio

    calls = []

    def silent(figs, paths, format):  # writes nothing
        calls.append(list(paths))

    monkeypatch.setattr(pio, "write_images", silent)
    out = tmp_path / "f.svg"
    out.write_text("stale")  # an earlier run's file must not pass for this one, nor be lost
    with pytest.raises(cli.FigureExportError, match="wrote nothing"):
        cli.write_figures({"a": go.Figure()}, out, title="t")
    assert len(calls) == 2 and out.read_text() == "stale"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["f.svg"]  # no temporary file left
    assert all(p != str(out) for c in calls for p in c)  # the export never writes onto out itself

    def second_time(figs, paths, format):  # fails once, then writes
        calls.append(list(paths))
        if len(calls) > 3:
            for p in paths:
                open(p, "w").write("<svg/>")

    monkeypatch.setattr(pio, "write_images", second_time)
    assert cli.write_figures({"a": go.Figure()}, out, title="t") == [out]
    assert out.read_text() == "<svg/>"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["f.svg"]


def test_a_failed_export_keeps_every_earlier_file(tmp_path, monkeypatch):
    """A multi-panel PNG export that raises half-way leaves all the earlier panels as they were (issue 26 item 7)."""
    import plotly.graph_objects as go
    import plotly.io as pio

    out = tmp_path / "f.png"
    old = {n: tmp_path / f"f-{n}.png" for n in ("a", "b")}
    for n, p in old.items():
        p.write_bytes(b"old " + n.encode())

    def half(figs, paths, format):
        open(paths[0], "wb").write(b"new")
        raise RuntimeError("browser closed")

    monkeypatch.setattr(pio, "write_images", half)
    monkeypatch.setattr(cli, "image_export_problem", lambda: None)
    with pytest.raises(cli.FigureExportError, match="RuntimeError: browser closed"):
        cli.write_figures({"a": go.Figure(), "b": go.Figure()}, out)
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == {"f-a.png": b"old a", "f-b.png": b"old b"}


def test_html_is_written_through_a_temporary_file(tmp_path, monkeypatch):
    """The page goes to a temporary file renamed onto --out: a write that fails keeps the old page."""
    import plotly.graph_objects as go

    out = tmp_path / "f.html"
    out.write_text("old page")

    def boom(self, *a, **k):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(cli.Path, "write_text", boom)
    with pytest.raises(cli.FigureExportError, match="No space left on device"):
        cli.write_figures({"a": go.Figure()}, out)
    monkeypatch.undo()
    assert out.read_text() == "old page" and [p.name for p in tmp_path.iterdir()] == ["f.html"]
    assert cli.write_figures({"a": go.Figure()}, out) == [out] and "plotly" in out.read_text()


def _one_line(err):
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


@pytest.mark.parametrize("make_out, needle", [
    (lambda d: str(d), "--out must end in one of .html, .png, .svg"),  # a folder
    (lambda d: str(d / "dir.html"), "is a folder, not a file"),  # a folder named like a page
    (lambda d: "/proc/x.html", "--out: cannot create a file in the folder '/proc'"),
    (lambda d: str(d / "ro" / "x.html"), "--out: cannot create a file in the folder"),
])
def test_unwritable_out_is_one_line_naming_the_option(make_out, needle, tmp_path, capsys, monkeypatch):
    """``--out DIR``, ``--out /proc/x.html``: one line naming --out, exit 2, before any work (issue 26 item 7:
    a Python traceback before)."""
    (tmp_path / "dir.html").mkdir()
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o500)
    if os.access(ro, os.W_OK):  # root ignores the mode
        ro.chmod(0o700)
        if make_out(tmp_path).endswith("/ro/x.html"):
            pytest.skip("running as root: a read-only folder is writable")
    monkeypatch.setattr(paper, "fig1_figures", lambda: pytest.fail("computed before checking --out"))
    try:
        with pytest.raises(SystemExit) as exc:
            cli.main(["figure", "fig1", "--out", make_out(tmp_path)])
    finally:
        ro.chmod(0o700)
    assert exc.value.code == 2
    line = _one_line(capsys.readouterr().err)
    assert needle in line and line.startswith("pendulum-explorer figure: error:")


@pytest.mark.parametrize("argv, needle", [
    (["figure", "fig3", "--out", "x.html"], "argument which: invalid choice: 'fig3'"),
    (["figure", "fig2", "--crossings", "x", "--out", "x.html"], "argument --crossings: invalid int value"),
    (["figure", "fig2", "--energy", "one", "--out", "x.html"], "argument --energy: invalid float value"),
    (["figure", "fig1"], "the following arguments are required: --out"),
])
def test_argument_errors_are_one_line(argv, needle, tmp_path, capsys, monkeypatch):
    """argparse's own errors for the figure command: one line (no usage block), naming the argument."""
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as exc:
        cli.main(argv)
    assert exc.value.code == 2 and needle in _one_line(capsys.readouterr().err)


@pytest.mark.parametrize("argv, needle", [
    (["figure", "fig2", "--energy", "-10", "--crossings", "5", "--out", "x.html"], "--energy -10: E = -10"),
    (["figure", "fig2", "--energy", "nan", "--out", "x.html"], "--energy must be a finite number"),
    (["figure", "fig2", "--crossings", "0", "--out", "x.html"], "--crossings must be an integer in 1..100000"),
    (["figure", "fig1", "--crossings", "10", "--out", "x.html"], "--crossings applies to fig2 only"),
])
def test_value_errors_name_the_option(argv, needle, tmp_path, capsys, monkeypatch):
    """Errors found by the model name the command-line option, on one line (issue 26 item 7)."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(paper, "fig1_figures", lambda: pytest.fail("computed although an argument is bad"))
    assert cli.main(argv) == 1
    assert needle in _one_line(capsys.readouterr().err)
    assert not (tmp_path / "x.html").exists()


def test_export_failure_after_the_work_is_one_line(tmp_path, capsys, monkeypatch):
    """A failure of the export itself (here: the disk) is one line naming --out, exit 1, the old file kept."""
    import plotly.graph_objects as go

    out = tmp_path / "f.html"
    out.write_text("old page")
    monkeypatch.setattr(paper, "fig1_figures", lambda: {"b": go.Figure()})

    def boom(self, *a, **k):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(cli.Path, "write_text", boom)
    assert cli.main(["figure", "fig1", "--out", str(out)]) == 1
    line = _one_line(capsys.readouterr().err)
    assert line.startswith("pendulum-explorer figure: error: --out") and "No space left on device" in line
    monkeypatch.undo()
    assert out.read_text() == "old page"
