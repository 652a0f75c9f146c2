"""What the section panel says: its About text and the wording of its messages.  No widgets (tested without
them): each function turns the facts of one event into the sentence the panel shows."""
from __future__ import annotations

import base64
from collections.abc import Iterable, Sequence
from typing import Any

from .i18n import DECIMAL_COMMA, N_, Number, _, language, ngettext
from .i18n import number as num

#: the five energies of the paper's Fig. 2 (a)-(e), as the presets menu lists them
PAPER_FIG2_ENERGIES = [("(a) E = −2.65", -2.65), ("(b) E = 0", 0.0), ("(c) E = 2.03", 2.03), ("(d) E = 8.83", 8.83),
                       ("(e) E = 11.95", 11.95)]

#: the About box: paragraphs (translated) and the displayed equation (not marked: the same in every language)
ABOUT_PARTS = (
    N_(r"At fixed momentum \(\mu=\omega^{T}J\Gamma\) the Lagrange&ndash;Routh equations (62) live on \(TS^2\), a "
       r"4-dimensional space; fixing the energy \(E\) leaves 3 dimensions, and the Poincaré section of Sec. 5.6"),
    r"$$\mathcal P=\{(\Gamma,\dot\Gamma):\ e_3^{T}\dot\Gamma = 0,\ e_3^{T}(\Gamma\times\dot\Gamma)>0,\ "
    r"E(\Gamma,\dot\Gamma)=E\}$$",
    N_(r"is a 2-dimensional surface: over each \(\Gamma\) there is exactly one section state, with speed fixed by "
       r"\(E = V_\mu(\Gamma) + K\), \(K\ge 0\) the kinetic energy of the motion of \(\Gamma\) (quadratic in "
       r"\(\dot\Gamma\)), where \(V_\mu(\Gamma)=\frac{\mu^2}{2\Gamma^{T}J\Gamma}-mg\rho^{T}\Gamma\) is the amended "
       r"potential. So the section is drawn as a map of the sphere: the equal-area chart "
       r"\(\varphi=\mathrm{atan2}(\Gamma_2,\Gamma_1)\), \(z=\Gamma_3\). Where \(V_\mu(\Gamma) > E\) (grey) the body "
       r"cannot go at this energy; when the white region is a thin band, the chart zooms to it."),
    N_(r"<b>Reading the picture.</b> Each click starts a trajectory at the section state under the mouse and plots "
       r"every return to the section, one colour per trajectory. Closed curves are quasi-periodic motions (KAM tori), "
       r"isolated fixed points are periodic orbits, and a cloud that fills an area is chaos. Following the paper's "
       r"Fig. 2 (body \(J=\mathrm{diag}(0.13,0.28,0.17)\), \(\rho=[0,0,0.3]\), started from \(R_0=I\), "
       r"\(\omega_0=c[1,1,1]\)) you see regular motion at \(E=-2.65\), chaos at \(E=0\) and \(2.03\), and order again "
       r"at \(E=11.95\). The small diagram shows where \((\mu, E)\) sits among the relative equilibria; the E slider "
       r"spans the energies between two of their energies at this \(\mu\) (where the picture changes), so it has a "
       r"fine step where it matters."),
)


def about_html() -> str:
    """The About box's HTML in the page's language."""
    return "\n".join(part if part.startswith("$$") else f"<p>{_(part)}</p>" for part in ABOUT_PARTS)


ABOUT = "\n".join(part if part.startswith("$$") else f"<p>{part}</p>" for part in ABOUT_PARTS)  # (English)


def _trajectories(n: int) -> str:
    return ngettext("{n} trajectory", "{n} trajectories", n).format(n=n)


def level(E: float, mu: float) -> str:
    return "E = {E} J, μ = {mu} kg m²/s".format(E=num(E, ".5g"), mu=num(mu, ".4g"))


def aside_note(saved: Any) -> str:
    """What a level change, a new body or "clear" set aside (``saved``: a :class:`~.history.Saved` or None)."""
    n = 0 if saved is None else len(saved.launches)
    note = "" if not n else ngettext(
        " ({n} trajectory at E = {E} J set aside: 'undo' or 'saved levels' brings it back)",
        " ({n} trajectories at E = {E} J set aside: 'undo' or 'saved levels' brings them back)",
        n).format(n=n, E=num(saved.E, ".5g"))
    return note + ("" if saved is None else saved.drop_note)


def new_level(E: float, mu: float, aside: Any) -> str:
    return _("section at {level}: click in the white region to launch a trajectory").format(
        level=level(E, mu)) + aside_note(aside)


def new_body(title: str, E: float, mu: float, aside: Any) -> str:
    return _("new body ({title}): section at {level}; click in the white region to launch a trajectory").format(
        title=title, level=level(E, mu)) + aside_note(aside)


def level_kept(reason: Any, E: float, mu: float) -> str:
    """A refused level: why, and the section that stays."""
    return _("{reason} The section stays at {level}.").format(reason=reason, level=level(E, mu))


def cleared(aside: Any) -> str:
    return _("cleared") + aside_note(aside)


def restored(label: str, what: str) -> str:
    return _("back to {label} (set aside when {what})").format(label=label, what=_(what))


def pole_note(phi: float, z: float, moved: tuple[float, float]) -> str:
    """A click at a pole, moved to ``moved`` = (φ, Γ₃) (:meth:`PoincareSection.seed_at`)."""
    where = _("the hanging pole (Γ₃ = +1)") if z > 0 else _("the inverted pole (Γ₃ = −1)")
    return _(" — (φ, Γ₃) = ({phi}, {z}) is {where}, where the swing has no direction and the section has no point; "
             "launched at the nearest point where motion is possible, ({phi2}, {z2})").format(
        phi=num(phi, ".3f"), z=num(z, ".4g"), where=where, phi2=num(moved[0], ".3f"), z2=num(moved[1], ".4f"))


def inaccessible(phi: float, z: float, E: float, V: float) -> str:
    return _("(φ, Γ₃) = ({phi}, {z}) is not accessible at E = {E} J: there V_μ = {V} J > E. Click in the white region; "
             "nothing launched.").format(phi=num(phi, ".3f"), z=num(z, ".3f"), E=num(E, ".4g"), V=num(V, ".4g"))


def computing(launch_id: int, n: int, note: str = "") -> str:
    return _("trajectory #{id}: computing {n} crossings…").format(id=launch_id, n=n) + note


def trajectory_done(launch_id: int, n_crossings: int, E: float, mu: float, note: str = "") -> str:
    return ngettext("trajectory #{id}: {n} crossing (E = {E} J, μ = {mu} kg m²/s); open the Motion tab to watch it",
                    "trajectory #{id}: {n} crossings (E = {E} J, μ = {mu} kg m²/s); open the Motion tab to watch it",
                    n_crossings).format(id=launch_id, n=n_crossings, E=num(E, ".4g"), mu=num(mu, ".4g")) + note


#: what the Poincaré section marks, in plain words (Γ̇₃ = 0 crossed with e₃ᵀ(Γ × Γ̇) > 0): "it marks ..." and,
#: after "the section", "marks ..."
SECTION_RULE = N_("it marks Γ each time Γ₃ (the component of gravity along the body axis e₃) reaches a turning "
                  "point while Γ goes round e₃ in the positive sense")
SECTION_MARKS = N_("marks Γ each time Γ₃ (the component of gravity along the body axis e₃) reaches a turning point "
                   "while Γ goes round e₃ in the positive sense")
#: the motions that the section never marks
NEVER_MARKED = N_("one that rests at an equilibrium, swings in a vertical plane through the pole Γ = ±e₃ (a planar "
                  "swing) or goes round e₃ the other way")


#: why a trajectory's crossings stopped, in a few words, per Crossings status
SHORT_REASONS = {"no_crossing": N_("it stopped coming back to the section"),
                 "max_time": N_("the time bound was reached"),
                 "max_steps": N_("the step budget was used up"),
                 "step_too_small": N_("the integrator's step became too small"),
                 "non_finite": N_("the numbers became non-finite")}


def _reason(status: str) -> str:
    return _(SHORT_REASONS[status]) if status in SHORT_REASONS else status


def stopped(launch_id: int, n_crossings: int, status: str) -> str:
    return ngettext("trajectory #{id} stopped after {n} crossing ({reason})",
                    "trajectory #{id} stopped after {n} crossings ({reason})", n_crossings).format(
        id=launch_id, n=n_crossings, reason=_reason(status))


def many_done(label: str, items: Sequence[tuple[Any, int]]) -> str:
    """A fill or a load finished (``items``: (launch, crossings asked)); those that stopped short, and why."""
    short = [(L, n) for L, n in items if L.stopped]
    head = ngettext("{label} done: {n} trajectory", "{label} done: {n} trajectories", len(items)).format(
        label=label, n=len(items))
    if not short:
        return head
    parts = ", ".join(_("#{id} {got} of {n} ({reason})").format(id=L.id, got=len(L.crossings), n=n,
                                                                reason=_reason(L.stopped)) for L, n in short)
    return _("{head}; {k} stopped short of the crossings asked: {parts}. A motion that never returns to the section "
             "(e.g. {never}) has no point on it").format(head=head, k=len(short), parts=parts, never=_(NEVER_MARKED))


def stop_reason(status: str, max_gap: float) -> str:
    """Why a trajectory's crossings stopped, in plain words, for a :class:`~pendulum_explorer.poincare.Crossings`
    status other than "ok" (``max_gap``: the section's time without a crossing before it gives up [s])."""
    if status == "no_crossing":
        gap = f"{max_gap:.0f}" if max_gap >= 10 else num(max_gap, ".2g")
        return _("the motion did not come back to the section for {gap} s, so the computation stopped. The section "
                 "{marks}, and a motion that never does that has no point on it: for example {never}").format(
            gap=gap, marks=_(SECTION_MARKS), never=_(NEVER_MARKED))
    return _reason(status)


def trajectory_stopped(launch_id: int, n_crossings: int, n: int, status: str, max_gap: float, E: float, mu: float,
                       note: str = "") -> str:
    """A launch that gave fewer crossings than asked (``status``: why, a Crossings status): what it gave and why."""
    got = _("no crossing") if n_crossings == 0 else _("only {got} of {n} crossings").format(got=n_crossings, n=n)
    return _("trajectory #{id} (E = {E} J, μ = {mu} kg m²/s): {got} — {why}. Watch it in the Motion tab, or click "
             "elsewhere in the white region").format(id=launch_id, E=num(E, ".4g"), mu=num(mu, ".4g"), got=got,
                                                     why=stop_reason(status, max_gap)) + note


def crossings_progress(launch_id: int, done: int, n: int) -> str:
    return _("#{id}: {done}/{n} crossings").format(id=launch_id, done=done, n=n)


def many_progress(label: str, done: int, total: int) -> str:
    return _("{label}: {done}/{total} trajectories").format(label=label, done=done, total=total)


def many_start(label: str, n_trajectories: int, n: int) -> str:
    return _("{label}: {k} trajectories × {n} crossings").format(label=label, k=n_trajectories, n=n)


def cancelled(items: Sequence[tuple[Any, int]]) -> str:
    """After a cancel: the trajectories kept (``items``: (launch, crossings asked)) and those not started.  Runs
    of complete trajectories with consecutive numbers are said as one ("#1–#29 5000 each"): a cancelled fill of
    60 listed every trajectory, more than the message slot shows."""
    empty = sum(1 for L, _n in items if len(L.crossings) == 0)
    runs: list[list[Any]] = []  # [first id, last id, crossings, complete, asked]
    for L, n in items:  # (a fill runs several trajectories at once: those cancelled together also have equal counts)
        m = len(L.crossings)
        if not m:
            continue
        if runs and runs[-1][3] == (m >= n) and runs[-1][1] == L.id - 1 and runs[-1][2] == m and runs[-1][4] == n:
            runs[-1][1] = L.id
        else:
            runs.append([L.id, L.id, m, m >= n, n])
    kept = [(f"#{a} {m}" if done else _("#{id} {got} of {n}").format(id=a, got=m, n=n)) if a == b else
            (_("#{a}–#{b} {m} each").format(a=a, b=b, m=m) if done else
             _("#{a}–#{b} {got} of {n} each").format(a=a, b=b, got=m, n=n)) for a, b, m, done, n in runs]
    n_kept = sum(b - a + 1 for a, b, *_r in runs)
    text = ngettext("cancelled: kept {n} trajectory (crossings: {kept})",
                    "cancelled: kept {n} trajectories (crossings: {kept})", n_kept).format(
        n=n_kept, kept=", ".join(kept) or _("none"))
    return text + (_("; {n} not started, removed").format(n=empty) if empty else "")


def map_start(T: float) -> str:
    return _("chaos map: MEGNO at T = {T} s, coarse first, then refined").format(T=num(T))


def map_progress(resolution: tuple[int, int], done: int, total: int) -> str:
    return _("chaos map {nx}×{ny}: {done}/{total} cells").format(nx=resolution[0], ny=resolution[1], done=done,
                                                                 total=total)


def map_cancelled(cm: Any) -> str:
    """A cancelled chaos map: the last finished map (``cm``, or None) is kept."""
    if cm is None:
        return _("chaos map cancelled: nothing drawn")
    n_z, n_phi = cm.values.shape
    return _("chaos map cancelled: the {nx}×{ny} map is kept").format(nx=n_phi, ny=n_z)


def map_done(cm: Any) -> str:
    n_z, n_phi = cm.values.shape
    return _("chaos map {nx}×{ny}, T = {T} s: {pct}% of the accessible cells chaotic (Ȳ > {threshold})").format(
        nx=n_phi, ny=n_z, T=num(cm.t_total), pct=f"{100 * cm.chaotic_fraction():.0f}", threshold=num(cm.threshold))


def manifolds_drawn(k: int, multipliers: Sequence[float], n_homoclinic: int, in_caps: int, truncated: bool,
                    z_max: float = 0.99) -> str:
    """The stable and unstable manifolds of a period-``k`` orbit drawn: their ``n_homoclinic`` homoclinic points,
    ``in_caps`` of them in the polar caps |Γ₃| > ``z_max``, which the chart does not draw (it said "off the poles"
    of all of them, when 2 of the 10 at E = 8.83 lie in a cap)."""
    points = ngettext("{n} homoclinic point", "{n} homoclinic points", n_homoclinic).format(n=n_homoclinic)
    if in_caps:
        points += _(" ({c} of them in the polar caps |Γ₃| > {z}, not drawn on the chart)").format(c=in_caps,
                                                                                               z=num(z_max))
    return _("stable and unstable manifolds of the period-{k} orbit (multipliers {lu} and {ls}): {points}{cut}").format(
        k=k, lu=num(multipliers[0], ".4g"), ls=num(multipliers[1], ".4g"), points=points,
        cut=_("; stopped short (work bound, or a jump of the return map)") if truncated else "")


def orbit_search(k: int, phi: float, z: float) -> str:
    return _("looking for a fixed point of the {ordinal} return map near (φ, Γ₃) = ({phi:.3f}, {z:.3f})…").format(
        ordinal=ordinal(k), phi=Number(phi), z=Number(z))


def ordinal(k: int) -> str:
    """1st, 2nd, 3rd, 4th, ..., 11th, 12th, 13th, 21st, ... (it said "1-th")."""
    k = int(k)
    form = _("{k}th") if 10 <= k % 100 <= 20 else {1: _("{k}st"), 2: _("{k}nd"), 3: _("{k}rd")}.get(k % 10, _("{k}th"))
    return form.format(k=k)


def orbit_found(po: Any, launch_id: int) -> str:
    """A periodic orbit found (:class:`~pendulum_explorer.poincare.PeriodicOrbit`) and launched as ``launch_id``."""
    # (complex multipliers of an elliptic orbit: 0.6+0.8j; a decimal comma and "; " between them in de and es)
    comma = language() in DECIMAL_COMMA
    mult = ("; " if comma else ", ").join(format(m, ".4g").replace(".", "," if comma else ".") for m in po.multipliers)
    kind = {"elliptic": _("elliptic periodic orbit"), "hyperbolic": _("hyperbolic periodic orbit"),
            "parabolic": _("parabolic periodic orbit")}.get(po.kind, f"{po.kind} periodic orbit")
    return _("{kind} (k = {k}) at (φ, Γ₃) = ({phi:.5f}, {z:.5f}): period {period:.6g} s, multipliers {mult}; "
             "launched as trajectory #{id} (open the Motion tab to watch it)").format(
        kind=kind, k=po.k, phi=Number(po.phi), z=Number(po.z), period=Number(po.period), mult=mult, id=launch_id)


def downloads_html(files: Iterable[tuple[str, str, str]]) -> str:
    """Download links (data URLs) for ``files`` = [(file name, text, MIME type), ...]."""
    links = []
    for name, text, mime in files:
        b64 = base64.b64encode(text.encode()).decode()
        links.append(f"<a download='{name}' href='data:{mime};base64,{b64}' style='margin-right:14px'>⬇ {name}</a>")
    return "<div class='pe-downloads' style='font-size:13px'>" + "".join(links) + "</div>"


def newton(k: int) -> str:
    return _("Newton for a fixed point of P^{k}…").format(k=k)


def export_ready(n_crossings: int) -> str:
    return ngettext("export ready: {n} crossing", "export ready: {n} crossings", n_crossings).format(n=n_crossings)


def session_loaded(title: str, n_trajectories: int) -> str:
    return ngettext("session loaded: {title}, {n} trajectory", "session loaded: {title}, {n} trajectories",
                    n_trajectories).format(title=title, n=n_trajectories)
