"""Results of the section map that a researcher can trust: returned states are valid inputs, seeds of another
level are refused, work is bounded before it runs, malformed queries get clear errors, cancel stops the work."""
from __future__ import annotations

import threading
import time
import warnings
from concurrent.futures import CancelledError

import numpy as np
import pytest

import pendulum_explorer as pe
from pendulum_explorer.errors import IntegrationFailedError, InvariantDriftWarning, PendulumError


@pytest.fixture(scope="module")
def fig2():
    return pe.presets.paper_fig2().pendulum


def test_crossings_far_off_their_level_are_refused_not_returned_as_ok(fig2):
    """At rtol = atol = 1e-3 (the loosest accepted) 10 000 crossings of the Fig. 2 level drifted 39 % off it and
    came back with status "ok" and a warning: points of another level presented as this section.  Beyond 1 %
    (the ensemble's check) no result is returned; below it the crossings come back with the warning."""
    sec, seed = pe.PoincareSection.from_paper_ic(fig2, 0.0, rtol=1e-3, atol=1e-3)
    with pytest.raises(IntegrationFailedError, match=r"the crossings drifted off the level by [0-9.]+ %.*beyond the "
                                                     r"1 %.*not the section at E = 0 J.*rtol=0.001"):
        sec.crossings(seed, 10_000)
    G0 = np.asarray(pe.PoincareSection.from_paper_ic(fig2, 0.0)[0].crossings(seed, 4).Gamma)
    with pytest.raises(IntegrationFailedError, match=r"the crossings of seeds\[\d\] drifted off the level"):
        sec.batch(G0, 3000)
    loose, _ = pe.PoincareSection.from_paper_ic(fig2, 0.0, rtol=1e-7, atol=1e-7)
    with pytest.warns(InvariantDriftWarning, match="drifted off the level"):
        c = loose.crossings(seed, 2000)
    assert c.status == "ok" and len(c.Gamma) == 2000 and 1e-8 < c.stats["level_drift"] < 1e-2


def test_crossings_are_unit_and_valid_seeds_with_their_drift_reported(fig2):
    """A loose tolerance lets the integrated |Gamma| drift by ~1e-2 over 3000 crossings (the last crossing of a
    10^6-crossing run was refused as a seed: |Gamma| off by 2.9e-6); the crossings come back normalised, with the
    drift in stats and a warning once they are off the level."""
    sec, (G0, w0) = pe.PoincareSection.from_paper_ic(fig2, 2.03, rtol=1e-6, atol=1e-6)
    with pytest.warns(InvariantDriftWarning, match="drifted off the level"):
        c = sec.crossings((G0, w0), 3000)
    assert np.abs(np.linalg.norm(c.Gamma, axis=1) - 1.0).max() <= 4e-16
    np.testing.assert_allclose(c.Gammadot, np.cross(c.Gamma, c.omega), atol=1e-15)
    assert c.stats["gamma_drift"] > 1e-6 and c.stats["level_drift"] > 1e-8
    # at the default tolerance the last crossing is a valid seed of the same level, and no warning is raised
    sec, (G0, w0) = pe.PoincareSection.from_paper_ic(fig2, 2.03)
    with warnings.catch_warnings():
        warnings.simplefilter("error", InvariantDriftWarning)
        c = sec.crossings((G0, w0), 2000)
        more = sec.crossings((c.Gamma[-1], c.omega[-1]), 3)
    assert c.stats["level_drift"] < 1e-8 and more.complete
    b = sec.batch([(c.Gamma[-1], c.omega[-1])] * 2, 50)
    assert np.abs(np.linalg.norm(b.Gamma[0, :50], axis=1) - 1.0).max() <= 4e-16


def test_a_section_state_of_another_level_is_refused(fig2):
    """SEC.crossings(LOW.state_at(G)) ran on the wrong level (energy 1.59 J, mu 0.42 off) and reported success."""
    sec, _ = pe.PoincareSection.from_paper_ic(fig2, 2.03)
    low, _ = pe.PoincareSection.from_paper_ic(fig2, -2.0)
    st = low.state_at(pe.sphere_from_chart(0.0, 0.9))
    with pytest.raises(pe.errors.InvalidStateError, match="not on the level of this section"):
        sec.crossings(st, 5)
    with pytest.raises(pe.errors.InvalidStateError, match=r"seeds\[1\]: the seed .* not on the level"):
        sec.batch([sec.state_at(pe.sphere_from_chart(0.0, 0.9)), st], 5)
    assert sec.crossings(sec.state_at(pe.sphere_from_chart(0.0, 0.9)), 3).complete  # its own level's state


def test_chaos_map_bounds_name_resolution_and_match_megno(fig2):
    sec, _ = pe.PoincareSection.from_paper_ic(fig2, 2.03)
    with pytest.raises(pe.errors.InvalidIntegrationError, match=r"resolution = \(2000, 1000\) asks for 2000000 cells"):
        sec.chaos_map((2000, 1000))
    with pytest.raises(pe.errors.InvalidIntegrationError, match="t_total"):
        sec.chaos_map((4, 3), 1e-12)  # megno refuses t_total below 1e-9 too
    with pytest.raises(pe.errors.InvalidIntegrationError, match="t_total"):
        pe.megno(fig2, [0, 0, 1.0], [1.0, 1.0, 1.0], 1e-12)
    with pytest.raises(PendulumError, match="20000 x 20000 points would need"):
        sec.chart_region(20000, 20000)  # allocated 3.2 GB before


def test_chaos_map_queries_and_orbit_seeds_refuse_malformed_input(fig2):
    sec, _ = pe.PoincareSection.from_paper_ic(fig2, 2.03)
    cm = sec.chaos_map((6, 4), 5.0)
    for phi, z in ((np.nan, 0.0), (0.0, np.nan), (np.inf, 0.0)):
        with pytest.raises(PendulumError, match="must be finite"):
            cm.value_at(phi, z)
    with pytest.raises(PendulumError, match="must be finite"):
        cm.cells([np.inf], [0.0])
    with pytest.raises(PendulumError, match="threshold"):
        cm.chaotic_fraction(threshold="x")
    assert 0.0 <= cm.chaotic_fraction(threshold=3.0) <= 1.0
    for bad in ("abc", [[1, 2], [3]], [1 + 2j, 0.5], {"phi": 1}):
        with pytest.raises(PendulumError, match="seed"):
            sec.periodic_orbit(bad)


def test_a_cancelled_chaos_map_stops_its_threads(fig2, monkeypatch):
    """After cancel, each worker thread finishes at most the piece of the lane kernel it is in (before: its whole
    chunk of cells, which the next batch then waited behind: 20.9 s)."""
    import pendulum_explorer.section.chaos_map as CM
    from pendulum_explorer._core import lanes_tangent
    from pendulum_explorer.section.parallel import N_THREADS, thread_pool
    real = lanes_tangent.tangent_lanes
    pieces = []
    cancelled_at = []

    def slow(*a):
        time.sleep(0.02)
        out = real(*a)
        pieces.append(1)  # counted when done
        return out

    monkeypatch.setattr(lanes_tangent, "tangent_lanes", slow)
    monkeypatch.setattr(CM, "LANE_PIECE_STEPS", 20)
    sec, _ = pe.PoincareSection.from_paper_ic(fig2, 2.03)
    ev = threading.Event()

    def progress(done, total):
        if not ev.is_set():
            ev.set()
            cancelled_at.append(len(pieces))

    with pytest.raises(CancelledError):
        sec.chaos_map((24, 16), 20.0, cancel=ev, progress=progress, n_chunks=2 * N_THREADS)
    assert cancelled_at
    for f in [thread_pool().submit(lambda: None) for _ in range(N_THREADS)]:
        f.result(timeout=60)  # the pool has drained
    after = len(pieces) - cancelled_at[0]
    assert after <= N_THREADS, f"{after} pieces computed after cancel"



def _session(**over):
    d = {"app": "pendulum_explorer", "version": 2, "body": {"name": "paper_fig2",
         "pendulum": pe.presets.paper_fig2().pendulum.to_dict()}, "E": 2.03, "mu": 0.7, "n_crossings": 500,
         "launches": [{"Gamma0": [0.0, 0.0, 1.0], "omega0": [1.0, 1.0, 1.0], "n": 10}]}
    d.update(over)
    return d


@pytest.mark.parametrize("over, match", [
    ({"n_crossings": 1e300}, r"'n_crossings' in the session file must be a whole number in 1 … 5000"),
    ({"n_crossings": -5}, r"'n_crossings' .* must be a whole number in 1 … 5000; got -5"),
    ({"n_crossings": 0}, r"'n_crossings'"),
    ({"E": "1.5"}, r"'E' in the session file must be a number in"),
    ({"mu": True}, r"'mu' in the session file must be a number"),
    ({"launches": [{"Gamma0": [0, 0, 1.0], "omega0": [1, 1, 1.0], "n": 5000}] * 61},
     r"asks for 305000 crossings in all; a loaded session may ask for at most 300000"),
    ({"E": 10 ** 400}, r"'E' in the session file must be a number in"),
    ({"body": {"name": "x", "shape": [1, 2], "pendulum": pe.presets.paper_fig2().pendulum.to_dict()}},
     r"'body.shape' in the session file must be null, a builder shape"),
    ({"body": {"name": "x", "shape": "box", "pendulum": pe.presets.paper_fig2().pendulum.to_dict()}}, r"body.shape"),
    ({"body": {"name": "x", "shape": {"kind": "box", "m": 1.0}, "pendulum": pe.presets.paper_fig2().pendulum.to_dict()}},
     r"'body.shape' in the session file must be null, a builder shape"),
    ({"launches": [{"Gamma0": [0, 0, 1.0], "omega0": [1e6, 1, 1.0]}]}, r"'omega0\[0\]' of launch 0 .* -1000 … 1000"),
])
def test_session_files_are_checked_against_the_schema(over, match):
    """Each of these loaded (n_crossings 1e300, -5, 0, E a string, mu true, 10^9 crossings in all) or raised a raw
    OverflowError / AttributeError / KeyError before."""
    import json
    from pendulum_explorer.session import parse_session
    with pytest.raises(PendulumError, match=match):
        parse_session(json.dumps(_session(**over)))
    assert parse_session(json.dumps(_session())).n_crossings == 500  # the unchanged file loads


def test_session_text_errors_and_writing_checks():
    import json
    from pendulum_explorer.session import parse_session, session_json
    text = json.dumps(_session()).replace('"E": 2.03', '"E": ' + "9" * 5000)  # an integer past Python's 4300 digits
    with pytest.raises(PendulumError, match="invalid JSON"):
        parse_session(text)
    body = pe.presets.paper_fig2()
    with pytest.raises(PendulumError, match="E = nan"):
        session_json(body, float("nan"), 0.5, 500, [])
    with pytest.raises(TypeError, match="body must be a Body"):
        session_json("paper_fig2", 1.0, 0.5, 500, [])
    from pendulum_explorer.session_schema import session_schema
    import jsonschema
    jsonschema.Draft202012Validator.check_schema(session_schema())  # the schema itself is valid JSON Schema


@pytest.mark.parametrize("what, args, field", [
    ("n_crossings", dict(n=6000), "'n_crossings'"), ("E", dict(E=2e6), "'E'"),
    ("g", dict(g=400.0), "'body.pendulum.g'"), ("m", dict(m=2e4), "'body.pendulum.m'")])
def test_session_json_refuses_what_parse_session_cannot_read(what, args, field):
    """session_json wrote n_crossings 6000, E 2e6, g 400, m 2e4 and parse_session then refused the file."""
    from pendulum_explorer.bodies import equivalent_body
    from pendulum_explorer.session import session_json
    P = pe.presets.paper_fig2().pendulum
    m = args.get("m", P.m)
    body = equivalent_body(pe.Pendulum(J=P.J * m / P.m, rho=P.rho, m=m, g=args.get("g", P.g)))
    with pytest.raises(PendulumError, match=f"cannot be saved: {field} in the session file must be"):
        session_json(body, args.get("E", 0.1), 0.0, args.get("n", 500), [])


def test_a_custom_J_body_session_reloads():
    """The dashboard's "custom J and rho" body (bodies.equivalent_body, shape kind "custom_J") was written by
    session_json and then refused by parse_session ("'body.shape' ... must be null or a builder shape")."""
    from pendulum_explorer.bodies import equivalent_body
    from pendulum_explorer.session import parse_session, session_json
    P = pe.Pendulum(J=[[2.0, 0.1, 0.0], [0.1, 3.0, 0.0], [0.0, 0.0, 4.0]], rho=[0.0, 0.1, -0.3], m=1.5)
    body = equivalent_body(P)
    assert body.shape["kind"] == "custom_J"
    s = parse_session(session_json(body, 0.2, 0.0, 500, []))
    np.testing.assert_allclose(s.body.pendulum.J, P.J, rtol=0, atol=1e-12)
    np.testing.assert_allclose(s.body.pendulum.rho, P.rho, rtol=0, atol=1e-12)
    assert s.body.pendulum.m == 1.5 and s.E == 0.2


def test_work_is_bounded_before_it_runs(fig2):
    """A batch of 2e6 seeds checked every seed in Python (~33 us each) before refusing nothing; a ring of 5000 steady
    spins took 36-64 s (a pairwise duplicate search) and 100 000 hung; the accessible region's memory guard counted
    12 floats a point while 10000 x 1000 peaked at 1.75 GB; a 64 MiB session of empty lists parsed into 1.7 GB."""
    import json

    from pendulum_explorer.session import parse_session
    sec, (G0, w0) = pe.PoincareSection.from_paper_ic(fig2, 2.03)
    seed = np.concatenate([G0, w0])
    with pytest.raises(pe.errors.ShapeError, match="a batch takes at most 100000"):
        sec.batch(np.tile(seed, (100_001, 1)), 1)
    with pytest.raises(PendulumError, match="10000 x 1000 points would need"):
        sec.accessible_region(10000, 1000)
    with pytest.raises(PendulumError, match="n_ring"):
        pe.equilibria_at_mu(pe.presets.lagrange_top().pendulum, 0.3, n_ring=100_000)
    top = pe.presets.lagrange_top().pendulum
    pe.equilibria_at_mu(top, 0.3, n_ring=8)  # the families, computed once
    ring = pe.equilibria_at_mu(top, 0.3, n_ring=2000)
    G = np.array([p.Gamma for p in ring])
    assert len(ring) >= 2000 and np.min(np.linalg.norm(G[:, None] - G[None], axis=-1)
                                        + 10 * np.eye(len(G))) > 1e-9  # no duplicates left
    d = {"app": "pendulum_explorer", "body": {"pendulum": fig2.to_dict()}, "E": 2.03, "mu": 0.7,
         "junk": [[]] * 100_001}
    with pytest.raises(PendulumError, match="lists and records; a session holds at most 100000"):
        parse_session(json.dumps(d))
