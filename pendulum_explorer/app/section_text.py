"""What the section panel says: its About text and the wording of its messages.  No widgets (tested without
them): each function turns the facts of one event into the sentence the panel shows."""
from __future__ import annotations

import base64
from collections.abc import Iterable, Sequence
from typing import Any

#: the five energies of the paper's Fig. 2 (a)-(e), as the presets menu lists them
PAPER_FIG2_ENERGIES = [("(a) E = −2.65", -2.65), ("(b) E = 0", 0.0), ("(c) E = 2.03", 2.03), ("(d) E = 8.83", 8.83),
                       ("(e) E = 11.95", 11.95)]

ABOUT = r"""
<p>At fixed momentum \(\mu=\omega^{T}J\Gamma\) the Lagrange&ndash;Routh equations (62) live on \(TS^2\), a
4-dimensional space; fixing the energy \(E\) leaves 3 dimensions, and the Poincaré section of Sec. 5.6</p>
$$\mathcal P=\{(\Gamma,\dot\Gamma):\ e_3^{T}\dot\Gamma = 0,\ e_3^{T}(\Gamma\times\dot\Gamma)>0,\ E(\Gamma,\dot\Gamma)=E\}$$
<p>is a 2-dimensional surface: over each \(\Gamma\) there is exactly one section state, with speed fixed by
\(E = V_\mu(\Gamma) + K\), \(K\ge 0\) the kinetic energy of the motion of \(\Gamma\) (quadratic in \(\dot\Gamma\)), where \(V_\mu(\Gamma)=\frac{\mu^2}{2\Gamma^{T}J\Gamma}-mg\rho^{T}\Gamma\)
is the amended potential. So the section is drawn as a map of the sphere: the equal-area chart
\(\varphi=\mathrm{atan2}(\Gamma_2,\Gamma_1)\), \(z=\Gamma_3\). Where \(V_\mu(\Gamma) > E\) (grey) the body cannot
go at this energy; when the white region is a thin band, the chart zooms to it.</p>
<p><b>Reading the picture.</b> Each click starts a trajectory at the section state under the mouse and plots
every return to the section, one colour per trajectory. Closed curves are quasi-periodic motions (KAM tori),
isolated fixed points are periodic orbits, and a cloud that fills an area is chaos. Following the paper's Fig. 2
(body \(J=\mathrm{diag}(0.13,0.28,0.17)\), \(\rho=[0,0,0.3]\), started from \(R_0=I\), \(\omega_0=c[1,1,1]\)) you see
regular motion at \(E=-2.65\), chaos at \(E=0\) and \(2.03\), and order again at \(E=11.95\). The small diagram shows
where \((\mu, E)\) sits among the relative equilibria; the E slider spans the energies between two of their
energies at this \(\mu\) (where the picture changes), so it has a fine step where it matters.</p>
"""


def _trajectories(n: int) -> str:
    return f"{n} trajector{'y' if n == 1 else 'ies'}"


def level(E: float, mu: float) -> str:
    return f"E = {E:.5g} J, μ = {mu:.4g} kg m²/s"


def aside_note(saved: Any) -> str:
    """What a level change, a new body or "clear" set aside (``saved``: a :class:`~.history.Saved` or None)."""
    n = 0 if saved is None else len(saved.launches)
    return ("" if not n else (f" ({_trajectories(n)} at E = {saved.E:.5g} J set aside: "
                              f"'undo' or 'saved levels' brings {'it' if n == 1 else 'them'} back)")) + (
        "" if saved is None else saved.drop_note)


def new_level(E: float, mu: float, aside: Any) -> str:
    return f"section at {level(E, mu)}: click in the white region to launch a trajectory{aside_note(aside)}"


def new_body(title: str, E: float, mu: float, aside: Any) -> str:
    return (f"new body ({title}): section at E = {E:.5g} J, μ = {mu:.4g} kg m²/s; click in the white region to "
            f"launch a trajectory{aside_note(aside)}")


def level_kept(reason: Any, E: float, mu: float) -> str:
    """A refused level: why, and the section that stays."""
    return f"{reason} The section stays at E = {E:.5g} J, μ = {mu:.4g} kg m²/s."


def cleared(aside: Any) -> str:
    return "cleared" + aside_note(aside)


def restored(label: str, what: str) -> str:
    return f"back to {label} (set aside when {what})"


def pole_note(phi: float, z: float, moved: tuple[float, float]) -> str:
    """A click at a pole, moved to ``moved`` = (φ, Γ₃) (:meth:`PoincareSection.seed_at`)."""
    where = "the hanging pole (Γ₃ = +1)" if z > 0 else "the inverted pole (Γ₃ = −1)"
    return (f" — (φ, Γ₃) = ({phi:.3f}, {z:.4g}) is {where}, where the swing has no direction and the section has "
            f"no point; launched at the nearest point where motion is possible, ({moved[0]:.3f}, {moved[1]:.4f})")


def inaccessible(phi: float, z: float, E: float, V: float) -> str:
    return (f"(φ, Γ₃) = ({phi:.3f}, {z:.3f}) is not accessible at E = {E:.4g}: there V_μ = {V:.4g} > E. Click in "
            f"the white region; nothing launched.")


def computing(launch_id: int, n: int, note: str = "") -> str:
    return f"trajectory #{launch_id}: computing {n} crossings…{note}"


def trajectory_done(launch_id: int, n_crossings: int, E: float, mu: float, note: str = "") -> str:
    return (f"trajectory #{launch_id}: {n_crossings} crossings (E = {E:.4g} J, μ = {mu:.4g} kg m²/s); open the "
            f"Motion tab to watch it{note}")


#: what the Poincaré section marks, in plain words (Γ̇₃ = 0 crossed with e₃ᵀ(Γ × Γ̇) > 0)
SECTION_RULE = ("it marks Γ each time Γ₃ (the component of gravity along the body axis e₃) reaches a turning point "
                "while Γ goes round e₃ in the positive sense")
#: the motions that the section never marks
NEVER_MARKED = ("one that rests at an equilibrium, swings in a vertical plane through the pole Γ = ±e₃ (a planar swing) "
                "or goes round e₃ the other way")


#: why a trajectory's crossings stopped, in a few words, per Crossings status
SHORT_REASONS = {"no_crossing": "it stopped coming back to the section", "max_time": "the time bound was reached",
                 "max_steps": "the step budget was used up", "step_too_small": "the integrator's step became too small",
                 "non_finite": "the numbers became non-finite"}


def stopped(launch_id: int, n_crossings: int, status: str) -> str:
    return f"trajectory #{launch_id} stopped after {n_crossings} crossings ({SHORT_REASONS.get(status, status)})"


def many_done(label: str, items: Sequence[tuple[Any, int]]) -> str:
    """A fill or a load finished (``items``: (launch, crossings asked)); those that stopped short, and why."""
    short = [(L, n) for L, n in items if L.stopped]
    head = f"{label} done: {len(items)} trajectories"
    if not short:
        return head
    parts = ", ".join(f"#{L.id} {len(L.crossings)} of {n} ({SHORT_REASONS.get(L.stopped, L.stopped)})"
                      for L, n in short)
    return (f"{head}; {len(short)} stopped short of the crossings asked: {parts}. A motion that never returns to "
            f"the section (e.g. {NEVER_MARKED}) has no point on it")


def stop_reason(status: str, max_gap: float) -> str:
    """Why a trajectory's crossings stopped, in plain words, for a :class:`~pendulum_explorer.poincare.Crossings`
    status other than "ok" (``max_gap``: the section's time without a crossing before it gives up [s])."""
    if status == "no_crossing":
        gap = f"{max_gap:.0f}" if max_gap >= 10 else f"{max_gap:.2g}"
        return (f"the motion did not come back to the section for {gap} s, so the computation stopped. The section "
                f"{SECTION_RULE.removeprefix('it ')}, and a motion that never does that has no point on it: for "
                f"example {NEVER_MARKED}")
    return SHORT_REASONS.get(status, status)


def trajectory_stopped(launch_id: int, n_crossings: int, n: int, status: str, max_gap: float, E: float, mu: float,
                       note: str = "") -> str:
    """A launch that gave fewer crossings than asked (``status``: why, a Crossings status): what it gave and why."""
    got = "no crossing" if n_crossings == 0 else f"only {n_crossings} of {n} crossings"
    return (f"trajectory #{launch_id} (E = {E:.4g} J, μ = {mu:.4g} kg m²/s): {got} — {stop_reason(status, max_gap)}. "
            f"Watch it in the Motion tab, or click elsewhere in the white region{note}")


def crossings_progress(launch_id: int, done: int, n: int) -> str:
    return f"#{launch_id}: {done}/{n} crossings"


def many_progress(label: str, done: int, total: int) -> str:
    return f"{label}: {done}/{total} trajectories"


def many_start(label: str, n_trajectories: int, n: int) -> str:
    return f"{label}: {n_trajectories} trajectories × {n} crossings"


def cancelled(items: Sequence[tuple[Any, int]]) -> str:
    """After a cancel: the trajectories kept (``items``: (launch, crossings asked)) and those not started.  Runs
    of complete trajectories with consecutive numbers are said as one ("#1–#29 5000 each"): a cancelled fill of
    60 listed every trajectory, more than the message slot shows."""
    empty = sum(1 for L, _ in items if len(L.crossings) == 0)
    runs: list[list[Any]] = []  # [first id, last id, crossings, complete, asked]
    for L, n in items:
        m = len(L.crossings)
        if not m:
            continue
        if runs and m >= n and runs[-1][3] and runs[-1][1] == L.id - 1 and runs[-1][2] == m:
            runs[-1][1] = L.id
        else:
            runs.append([L.id, L.id, m, m >= n, n])
    kept = [f"#{a} {m}" + ("" if done else f" of {n}") if a == b else f"#{a}–#{b} {m} each"
            for a, b, m, done, n in runs]
    n_kept = sum(b - a + 1 for a, b, *_ in runs)
    return (f"cancelled: kept {n_kept} trajector{'y' if n_kept == 1 else 'ies'} (crossings: "
            f"{', '.join(kept) or 'none'})" + (f"; {empty} not started, removed" if empty else ""))


def map_start(T: float) -> str:
    return f"chaos map: MEGNO at T = {T:g} s, coarse first, then refined"


def map_progress(resolution: tuple[int, int], done: int, total: int) -> str:
    return f"chaos map {resolution[0]}×{resolution[1]}: {done}/{total} cells"


def map_cancelled(cm: Any) -> str:
    """A cancelled chaos map: the last finished map (``cm``, or None) is kept."""
    if cm is None:
        return "chaos map cancelled: nothing drawn"
    n_z, n_phi = cm.values.shape
    return f"chaos map cancelled: the {n_phi}×{n_z} map is kept"


def map_done(cm: Any) -> str:
    n_z, n_phi = cm.values.shape
    return (f"chaos map {n_phi}×{n_z}, T = {cm.t_total:g} s: {100 * cm.chaotic_fraction():.0f}% of the accessible "
            f"cells chaotic (Ȳ > {cm.threshold:g})")


def orbit_search(k: int, phi: float, z: float) -> str:
    return f"looking for a fixed point of the {ordinal(k)} return map near (φ, Γ₃) = ({phi:.3f}, {z:.3f})…"


def ordinal(k: int) -> str:
    """1st, 2nd, 3rd, 4th, ..., 11th, 12th, 13th, 21st, ... (it said "1-th")."""
    k = int(k)
    suffix = "th" if 10 <= k % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(k % 10, "th")
    return f"{k}{suffix}"


def orbit_found(po: Any, launch_id: int) -> str:
    """A periodic orbit found (:class:`~pendulum_explorer.poincare.PeriodicOrbit`) and launched as ``launch_id``."""
    mult = ", ".join(f"{m:.4g}" for m in po.multipliers)
    return (f"{po.kind} periodic orbit (k = {po.k}) at (φ, Γ₃) = ({po.phi:.5f}, {po.z:.5f}): period "
            f"{po.period:.6g} s, multipliers {mult}; launched as trajectory #{launch_id} "
            f"(open the Motion tab to watch it)")


def downloads_html(files: Iterable[tuple[str, str, str]]) -> str:
    """Download links (data URLs) for ``files`` = [(file name, text, MIME type), ...]."""
    links = []
    for name, text, mime in files:
        b64 = base64.b64encode(text.encode()).decode()
        links.append(f"<a download='{name}' href='data:{mime};base64,{b64}' style='margin-right:14px'>⬇ {name}</a>")
    return "<div class='pe-downloads' style='font-size:13px'>" + "".join(links) + "</div>"


def newton(k: int) -> str:
    return f"Newton for a fixed point of P^{k}…"


def export_ready(n_crossings: int) -> str:
    return f"export ready: {n_crossings} crossings"


def session_loaded(title: str, n_trajectories: int) -> str:
    return f"session loaded: {title}, {n_trajectories} trajectories"
