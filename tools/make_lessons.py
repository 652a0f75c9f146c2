"""Write the lesson notebooks (notebooks/lessons/*.ipynb) and their solutions (notebooks/lessons/solutions/).

One source for both: every exercise cell is written twice, with the placeholder (``None`` / ``...``) in the
lesson and the filled-in answer in the solution.  Run ``python tools/make_lessons.py`` after editing; a test
checks that the committed notebooks equal what this script writes.  Notebooks are written without outputs.
"""
from __future__ import annotations

import sys
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "notebooks" / "lessons"
VOILA = "http://127.0.0.1:8866/"

#: the check helper every lesson defines in its set-up cell (public API only; no grading server)
CHECK = '''
def check(name, answer, expected, rtol=0.02, atol=0.0):
    """Compare your prediction with the value this notebook computed; prints a friendly verdict."""
    show = lambda x: x if isinstance(x, str) else np.round(np.asarray(x, dtype=float), 6).tolist()
    if answer is None or answer is Ellipsis:
        print(f"[{name}] not yet: replace None with your prediction, then run this cell again.")
        return None
    if isinstance(expected, str):
        ok = str(answer).strip().lower() == expected.lower()
    else:
        ok = bool(np.shape(answer) == np.shape(expected) and np.allclose(answer, expected, rtol=rtol, atol=atol))
    if ok:
        print(f"[{name}] correct ✓  (the notebook computed {show(expected)})")
    else:
        print(f"[{name}] not quite: you said {show(answer)}, the notebook computed {show(expected)}. "
              "Look again at the cells above and try once more.")
    return ok
'''.strip()


def md(text: str) -> tuple[str, str]:
    return ("md", text.strip())


def code(text: str) -> tuple[str, str]:
    return ("code", text.strip())


def ex(placeholder: str, solution: str) -> tuple[str, str, str]:
    """An exercise cell: the lesson gets ``placeholder``, the solution ``solution``."""
    return ("ex", placeholder.strip(), solution.strip())


def link(query: str, what: str) -> tuple[str, str]:
    return md(f"**In the dashboard:** [{what}]({VOILA}?{query}) — `{VOILA}?{query}`. The address is relative to "
              "a running dashboard (`pendulum-explorer serve`, Voila on port 8866); on another host or on "
              "Binder keep the part from `?` on.")


SETUP = "import numpy as np\nimport pendulum_explorer as pe\n\n" + CHECK

LESSONS: dict[str, list] = {}

# ------------------------------------------------------------------------------------------------------------
LESSONS["01_from_planar_to_rigid_body"] = [
    md(r"""
# Lesson 1 — From the planar pendulum to the rigid body

**What you will learn (about 25 minutes)**
* A 3D pendulum is a rigid body hung from a fixed point. Its state is an *attitude* $R$ (a rotation matrix:
  body axes → room axes) and an angular velocity $\omega$ measured in the body.
* The equations of motion (paper Eqs 1–2): $J\dot\omega + \omega\times J\omega = m g\,\rho\times R^T e_3$ and
  $\dot R = R\,\hat\omega$. The planar and the spherical pendulum are special cases.
* Two numbers never change along a motion: the energy $E$ and the angular momentum about the vertical
  $\mu = \omega^T J R^T e_3$ (gravity is symmetric only about the vertical). You will predict them and check.
* Why the library's default integrator for long runs is a *geometric* one (LGVI), and what goes wrong with an
  ordinary Runge–Kutta method.

$e_3$ points **down** (along gravity), $\rho$ is the vector from the pivot to the centre of mass in the body.
"""),
    code(SETUP),
    md(r"""
## 1. Three pendulums, one model
* **planar:** a rod swinging about a fixed horizontal axis (the `planar` preset, released in a principal plane);
* **spherical:** a slender rod free to swing in every direction (moment of inertia about its own axis ≈ 0);
* **rigid body:** any body, e.g. the elliptic cylinder of the paper's Fig. 2.
"""),
    code(r"""
def rot_x(angle):
    c, s = np.cos(angle), np.sin(angle)
    return np.array([[1, 0, 0], [0, c, -s], [0, s, c]])

planar = pe.presets.planar().pendulum
spherical = pe.Pendulum(np.diag([1.0, 1.0, 1e-3]), [0.0, 0.0, 1.0], 1.0, 9.81)
rigid = pe.presets.paper_fig2().pendulum
for name, p in [("planar", planar), ("spherical", spherical), ("rigid", rigid)]:
    print(f"{name:9s}", p)
"""),
    md(r"""
Release the planar pendulum from rest, tilted by $\theta_0 = 60°$ about the body axis $e_1$. Because $\rho$ lies
on a principal axis, the motion stays in the plane: $\Gamma = R^Te_3$ keeps $\Gamma_1 = 0$ and $\omega$ stays along
$e_1$.
"""),
    code(r"""
theta0 = np.radians(60)
tr = pe.simulate(planar, rot_x(theta0), [0.0, 0.0, 0.0], 5.0, n_out=501)
print("max |Gamma_1| =", np.abs(tr.Gamma[:, 0]).max(), "  max |omega_2|+|omega_3| =", np.abs(tr.omega[:, 1:]).max())
"""),
    md(r"""
### Exercise 1.1 — predict the energy
The energy (Eq 34) is $E = \tfrac12\omega^TJ\omega - m g\,\rho^T R^T e_3$. At rest tilted by $\theta_0$ only the
potential part is left. Write your prediction as a formula in `m`, `g`, `l` = $|\rho|$ and `theta0`.
"""),
    code("m, g, l = planar.m, planar.g, float(np.linalg.norm(planar.rho))"),
    ex("E_predicted = None   # your formula here", "E_predicted = -m * g * l * np.cos(theta0)"),
    code('check("energy at release", E_predicted, tr.energy[0])\n'
         'print("and it stays: max |E(t) - E(0)| =", tr.energy_error, "J")'),
    md(r"""
### Exercise 1.2 — predict the vertical angular momentum
The rigid body starts with $R_0 = I$ (so $\Gamma_0 = e_3$) and $\omega_0 = [1, 1, 1]$ rad/s. Its
$J = \mathrm{diag}(0.13, 0.28, 0.17)$. What is $\mu = \omega^T J \Gamma$? (A number, kg m²/s.)
"""),
    code('tr3 = pe.simulate(rigid, np.eye(3), [1.0, 1.0, 1.0], 10.0, n_out=1001)\nrigid.J'),
    ex("mu_predicted = None   # a number", "mu_predicted = 0.17"),
    code('check("vertical momentum", mu_predicted, tr3.mu[0], rtol=1e-6)\n'
         'print(f"over 10 s the body tumbles, yet max |mu(t) - mu(0)| = {tr3.mu_error:.1e} "\n'
         '      f"and max |E(t) - E(0)| = {tr3.energy_error:.1e}")'),
    link("preset=paper_fig2&omega0=1,1,1&T=10", "watch this rigid body move (R₀ = I, ω₀ = [1, 1, 1], 10 s)"),
    md(r"""
## 2. What a geometric integrator buys
The **LGVI** (Lie group variational integrator, `method="lgvi"`) is built from a discrete version of the
principle of least action on the rotation group: $R$ stays a rotation to round-off and the energy error stays
*bounded* for ever; it is of order 2. An ordinary Runge–Kutta method of the same order and about the same
cost — Heun's method (RK2), written out below from Eqs 1–2: two force evaluations per step, against one plus a
small Newton solve for the LGVI — has neither property. Both get the **same step** $h$; we run the planar
pendulum released at 60° for `N_PERIODS` periods.
In class we use 200 periods (a few seconds); with `N_PERIODS = 10_000` (a minute or two) the picture is the same, only more so.
"""),
    code(r"""
def hat(w):
    return np.array([[0, -w[2], w[1]], [w[2], 0, -w[0]], [-w[1], w[0], 0]])

def rk2(p, R, w, h, n):
    # Heun's method (explicit RK2) on Eqs (1)-(2): a non-geometric method (R drifts off the rotations)
    J, Ji, mgrho = p.J, np.linalg.inv(p.J), p.m * p.g * p.rho
    def f(R, w):
        return R @ hat(w), Ji @ (np.cross(J @ w, w) + np.cross(mgrho, R[2]))   # R^T e3 = third row of R
    E = np.empty(n + 1)
    energy = lambda R, w: 0.5 * w @ J @ w - mgrho @ R[2]
    E[0] = energy(R, w)
    for i in range(n):
        k1 = f(R, w)
        k2 = f(R + h * k1[0], w + h * k1[1])
        R, w = R + h / 2 * (k1[0] + k2[0]), w + h / 2 * (k1[1] + k2[1])
        E[i + 1] = energy(R, w)
    return E, R

N_PERIODS = 200
T0 = 2 * np.pi * np.sqrt(planar.J[0, 0] / (m * g * l))     # small-amplitude period (Lesson 3 does better)
h = 0.02
n = int(round(N_PERIODS * T0 / h))
E_rk, R_rk = rk2(planar, rot_x(theta0), np.zeros(3), h, n)
lg = pe.simulate(planar, rot_x(theta0), np.zeros(3), n * h, method="lgvi", dt=h, n_out=2001)
drift_rk = abs(E_rk[-1] - E_rk[0])
drift_lgvi = abs(lg.energy[-1] - lg.energy[0])
print(f"{n} steps of h = {h} s ({N_PERIODS} periods of {T0:.2f} s)")
print(f"RK2 : |E(T) - E(0)| = {drift_rk:.2e} J,  ||R^T R - I|| = {np.linalg.norm(R_rk.T @ R_rk - np.eye(3)):.1e}")
print(f"LGVI: |E(T) - E(0)| = {drift_lgvi:.2e} J (max over the run {lg.energy_error:.2e}),  ||R^T R - I|| = {lg.orthogonality_error:.1e}")
"""),
    md(r"""
### Exercise 1.3 — predict before you plot
Which method's energy error *grows* steadily with time: `"rk2"` or `"lgvi"`? Then run the plot.
"""),
    ex('drifts = None   # "rk2" or "lgvi"', 'drifts = "rk2"'),
    code(r"""
half = len(E_rk) // 2
rk_grows = abs(E_rk[-1] - E_rk[0]) > 1.5 * abs(E_rk[half] - E_rk[0])   # the error keeps growing
expected = "rk2" if (rk_grows and drift_rk > drift_lgvi) else "lgvi"
check("which method drifts", drifts, expected)

import plotly.graph_objects as go
t_rk4 = np.arange(len(E_rk)) * h
fig = go.Figure([go.Scatter(x=t_rk4[::20], y=(E_rk - E_rk[0])[::20], name="RK2 (Heun)"),
                 go.Scatter(x=lg.t, y=lg.energy - lg.energy[0], name="LGVI")])
fig.update_layout(xaxis_title="t [s]", yaxis_title="E(t) - E(0) [J]", height=350)
fig.show()
"""),
    md(r"""
**Take-away.** Both methods are of order 2 and make errors of a similar size per step, but the LGVI's energy
error oscillates around zero while Heun's adds up (and $R$ stops being a rotation). For long runs and Poincaré sections the
structure of the equations matters more than the order of the method.

Next: [Lesson 2 — reduction](02_reduction.ipynb).
"""),
]

# ------------------------------------------------------------------------------------------------------------
LESSONS["02_reduction"] = [
    md(r"""
# Lesson 2 — Reduction: the pendulum as seen from the body

**What you will learn (about 25 minutes)**
* Gravity only sees *which way is down in the body*: the unit vector $\Gamma = R^Te_3$. The equations for
  $(\Gamma, \omega)$ alone are the **Lagrange–Poincaré** model (31)–(32):
  $J\dot\omega = J\omega\times\omega + m g\,\rho\times\Gamma$, $\dot\Gamma = \Gamma\times\omega$.
* The angle of rotation about the vertical drops out; its conjugate momentum $\mu = \omega^TJ\Gamma$ is constant.
* Fixing $\mu$ leaves the **Lagrange–Routh** model on the sphere $(\Gamma, \dot\Gamma)$; the full attitude
  $R(t)$ is rebuilt afterwards (**reconstruction**, Prop 17).
"""),
    code(SETUP),
    code(r"""
P = pe.presets.paper_fig2().pendulum
R0, w0 = np.eye(3), np.array([1.0, 1.0, 1.0])
full = pe.simulate(P, R0, w0, 10.0, n_out=2001)          # Eqs (1)-(2) for R and omega
e3 = np.array([0.0, 0.0, 1.0])
Gamma_from_R = np.einsum("nji,j->ni", full.R, e3)        # R^T e3 at every output time
print("max |R^T e3 - Gamma| =", np.abs(Gamma_from_R - full.Gamma).max())
"""),
    md(r"""
### Exercise 2.1 — $\dot\Gamma$ from $\omega$
Eq (32) gives $\dot\Gamma$ from $\Gamma$ and $\omega$. Write it for the initial state `Gamma0`, `omega0`
(hint: `np.cross`). The check compares it with a finite difference of the simulated $\Gamma(t)$.
"""),
    code("Gamma0, omega0 = full.Gamma[0], full.omega[0]"),
    ex("Gammadot0 = None   # Eq (32)", "Gammadot0 = np.cross(Gamma0, omega0)"),
    code(r"""
dt = full.t[1] - full.t[0]
Gammadot_fd = (-3 * full.Gamma[0] + 4 * full.Gamma[1] - full.Gamma[2]) / (2 * dt)   # one-sided, 2nd order
check("Gamma-dot", Gammadot0, Gammadot_fd, rtol=1e-3, atol=1e-4)
"""),
    md(r"""
### Exercise 2.2 — the momentum of the reduced state
`pe.lr_from_lp(P, Gamma, omega)` returns the Lagrange–Routh state $(\Gamma, \dot\Gamma, \mu)$.
Predict $\mu$ for our state without calling it (Eq 56: $\mu = \omega^TJ\Gamma$), as a number or an expression.
"""),
    ex("mu_predicted = None", "mu_predicted = omega0 @ P.J @ Gamma0"),
    code(r"""
G, Gdot, mu = pe.lr_from_lp(P, Gamma0, omega0)
check("mu", mu_predicted, mu, rtol=1e-9)
print("and back: omega =", pe.lp_from_lr(P, G, Gdot, mu), " (Eqs 66, 69)")
"""),
    md(r"""
## Reconstruction (Prop 17)
`pe.simulate_lr` integrates the Lagrange–Routh equations (62)–(64) at fixed $\mu$ and rebuilds the attitude:
$R = \exp(\theta_{dyn}\hat e_3)\,R_{hor}$ — a *horizontal* part plus a rotation about the vertical by the
**dynamic phase** $\theta_{dyn} = \int \mu/(\Gamma^TJ\Gamma)\,dt$ (Eqs 65–69).

### Exercise 2.3 — predict
Starting from the same state and $R_0 = I$, will the reconstructed $R(t)$ agree with the full simulation of
Eqs (1)–(2)? Answer `"yes"` (to integration accuracy) or `"no"` (only up to a rotation about the vertical).
"""),
    ex('agree = None   # "yes" or "no"', 'agree = "yes"'),
    code(r"""
lr = pe.simulate_lr(P, G, Gdot, mu, 10.0, R0=R0, n_out=2001)
gap = np.abs(lr.R - full.R).max()
print(f"max |R_LR(t) - R(t)| = {gap:.1e} over 10 s;  theta_dyn(10 s) = {lr.stats['theta_dyn']:.4f} rad")
check("reconstruction agrees", agree, "yes" if gap < 1e-6 else "no")
"""),
    md(r"""
**Take-away.** Six numbers $(\Gamma, \omega)$ — really five, since $|\Gamma| = 1$ — and a constant $\mu$ carry all
the dynamics; the rotation about the vertical is a bookkeeping integral afterwards. Everything in Lessons 4 and 5
lives on the sphere of $\Gamma$'s. The *geometric* part of that bookkeeping is the subject of the optional
[geometric phase notebook](../geometric_phase.ipynb).
"""),
    link("preset=paper_fig2&tab=motion", "the motion view shows R(t) and the path of Γ on the sphere"),
    md("Next: [Lesson 3 — analytic anchors](03_analytic_anchors.ipynb)."),
]

# ------------------------------------------------------------------------------------------------------------
LESSONS["03_analytic_anchors"] = [
    md(r"""
# Lesson 3 — Analytic anchors: what we can compute by hand

**What you will learn (about 25 minutes)**
* The planar pendulum's period is an elliptic integral, $T = 4\sqrt{J_1/(m g|\rho|)}\,K(\sin^2(\theta_0/2))$,
  and it grows with the amplitude.
* Near the hanging equilibrium every 3D pendulum is two independent oscillators with frequencies
  $\sqrt{m g\,l_1}$ and $\sqrt{m g\,l_2}$ (Eqs 21–24).
* How to test a simulation against such exact results — the habit that makes numerical work trustworthy.
"""),
    code(SETUP + "\nfrom scipy.special import ellipk"),
    code(r"""
def rot_x(angle):
    c, s = np.cos(angle), np.sin(angle)
    return np.array([[1, 0, 0], [0, c, -s], [0, s, c]])

def measured_period(tr):
    # mean spacing of the upward zero crossings of Gamma_2 (linear interpolation)
    y, t = tr.Gamma[:, 1], tr.t
    i = np.nonzero((y[:-1] < 0) & (y[1:] >= 0))[0]
    tc = t[i] - y[i] * (t[i + 1] - t[i]) / (y[i + 1] - y[i])
    return float(np.mean(np.diff(tc)))

planar = pe.presets.planar().pendulum
m, g, l, J1 = planar.m, planar.g, float(np.linalg.norm(planar.rho)), planar.J[0, 0]
T_small = 2 * np.pi * np.sqrt(J1 / (m * g * l))
print(f"small-amplitude period 2 pi sqrt(J1/(m g l)) = {T_small:.4f} s")
"""),
    md(r"""
### Exercise 3.1 — the period at 90°
Release the rod from rest at $\theta_0 = 90°$ (horizontal). Predict the ratio $T/T_{small}$ from the formula
above. `ellipk(m)` is $K$ with *parameter* $m = k^2$.
"""),
    ex("ratio_predicted = None", "ratio_predicted = 4 * np.sqrt(J1 / (m * g * l)) * ellipk(np.sin(np.radians(90) / 2) ** 2) / T_small"),
    code(r"""
tr = pe.simulate(planar, rot_x(np.radians(90)), np.zeros(3), 12 * T_small, n_out=6001, rtol=1e-11)
T_sim = measured_period(tr)
print(f"simulated period {T_sim:.6f} s,  T / T_small = {T_sim / T_small:.5f}")
check("period ratio at 90 degrees", ratio_predicted, T_sim / T_small, rtol=1e-3)
"""),
    code(r"""
import plotly.graph_objects as go
amps = np.radians([10, 30, 60, 90, 120, 150, 170])
exact = [4 * np.sqrt(J1 / (m * g * l)) * ellipk(np.sin(a / 2) ** 2) for a in amps]
fig = go.Figure(go.Scatter(x=np.degrees(amps), y=np.array(exact) / T_small, mode="lines+markers", name="elliptic integral"))
fig.add_scatter(x=[90], y=[T_sim / T_small], mode="markers", marker=dict(size=12, symbol="x"), name="simulation")
fig.update_layout(xaxis_title="amplitude θ0 [deg]", yaxis_title="T / T_small", height=330)
fig.show()
"""),
    link("preset=planar&omega0=5.42,0,0&T=8", "the rod swinging with an amplitude of about 90° (from hanging with "
         "ω₀ = [5.42, 0, 0] rad/s, the angular velocity at the bottom of a 90° swing); at 1× its period is "
         "T ≈ 1.18 T_small"),
    md(r"""
## Small oscillations of a rigid body (Eqs 21–24)
Near the hanging attitude the linearised equations decouple into two modes with $\lambda_i = m g\,l_i$ from the
simultaneous diagonalisation of $J$ and the gravity stiffness; `Pendulum.small_oscillations()` solves it.
For a body with $\rho$ on a principal axis ($\rho = |\rho|e_3$, $J$ diagonal) the answer is simple.

### Exercise 3.2 — predict the two frequencies
For the elliptic cylinder of Fig. 2 ($J = \mathrm{diag}(0.13, 0.28, 0.17)$, $\rho = [0, 0, 0.3]$, $m = 1$) each
mode is a planar pendulum about $e_1$ or $e_2$. Give both angular frequencies (rad/s), larger first.
"""),
    code("P = pe.presets.paper_fig2().pendulum\nmgl = P.m * P.g * float(np.linalg.norm(P.rho))"),
    ex("freqs_predicted = None   # [larger, smaller]",
       "freqs_predicted = sorted([np.sqrt(mgl / P.J[0, 0]), np.sqrt(mgl / P.J[1, 1])], reverse=True)"),
    code(r"""
so = P.small_oscillations()
print("l1, l2 =", so["l"], "  frequencies =", so["frequencies"], "rad/s")
# a small kick about e1 in a simulation: measure its frequency
tr = pe.simulate(P, rot_x(np.radians(2)), np.zeros(3), 8.0, n_out=4001)
f_sim = 2 * np.pi / measured_period(tr)
print(f"simulated mode about e1 (2 degrees): {f_sim:.4f} rad/s")
check("small-oscillation frequencies", freqs_predicted, so["frequencies"], rtol=1e-6)
"""),
    md(r"""
**More anchors.** The *Lagrange top* (symmetric body, $\rho$ on the symmetry axis) has a second conserved
momentum, the spin $\omega_3$, and its nutation is given by a cubic; try the `lagrange_top` preset and check
that `tr.omega[:, 2]` stays constant:
"""),
    code(r"""
top = pe.presets.lagrange_top().pendulum
trt = pe.simulate(top, rot_x(0.3), [0.0, 0.5, 20.0], 5.0, n_out=1001)
print(f"Lagrange top: spin omega_3 varies by {np.ptp(trt.omega[:, 2]):.1e} rad/s, mu by {trt.mu_error:.1e}")
"""),
    link("preset=lagrange_top&omega0=0,0.5,20&T=5", "the Lagrange top spinning at 20 rad/s (from hanging, "
         "ω₀ = [0, 0.5, 20]): ω₃ stays at 20 in the ω(t) plot"),
    md("Next: [Lesson 4 — equilibria](04_equilibria.ipynb)."),
]

# ------------------------------------------------------------------------------------------------------------
LESSONS["04_equilibria"] = [
    md(r"""
# Lesson 4 — Equilibria and relative equilibria (Fig. 1)

**What you will learn (about 30 minutes)**
* A pendulum at rest hangs (stable) or stands inverted (unstable). It can also spin steadily about the
  **vertical** at a fixed tilt: a *relative equilibrium*.
* They come in one-parameter families (the $\alpha$-families L1–L4, Prop 9), best drawn on the sphere of $\Gamma$'s
  — the paper's Fig. 1 — and in the energy–momentum plane.
* How to test a formula from a paper by substituting it back (the paper has a sign misprint here).

**Setting.** In the Lagrange–Poincaré model (31)–(32) an equilibrium needs $\Gamma\times\omega = 0$ (Eq 36), so
$\omega_e = k\,\Gamma_e$. With $k = 0$ the two static equilibria: **hanging** $\Gamma = \rho/|\rho|$ and
**inverted** $\Gamma = -\rho/|\rho|$.
"""),
    code(SETUP + r"""
from pendulum_explorer.plotting.sphere import equilibria_sphere_figure
from pendulum_explorer.plotting.diagrams import energy_momentum_figure

pend = pe.presets.paper_fig1().pendulum
eq = pe.find_equilibria(pend)
print(pend)
print("families:", eq.labels)
for p in eq.isolated:
    print(f"{p.family:9s} branch {p.branch:+d}  Gamma={np.round(p.Gamma, 4)}  mu={p.mu:+.4f}  E={p.energy:+.4f}  {p.stability}")
"""),
    md(r"""
## The families (Prop 9)
Eq (42), $k^2 J\Gamma + m g \rho = k_1 \Gamma$, has for every $\alpha = k^2/k_1$ a solution
$$\Gamma_e = s\,\frac{n_\alpha}{|n_\alpha|},\qquad \omega_e = \pm\sqrt{\frac{mg}{|n_\alpha|}}\,n_\alpha,\qquad n_\alpha = (J - I/\alpha)^{-1}\rho,$$
with $k^2 = m g |n_\alpha|$ — and a sign $s$. The paper prints $s = -\mathrm{sgn}(\alpha)$ (its factor
$-\mathrm{sgn}(\alpha)$). Is that right?

### Exercise 4.1 — find the sign by substitution
Take $\alpha = 0.5/J_{1}$ (on the family L2). Predict the sign `s` ($+1$ or $-1$) that makes the residual of
Eq (42) vanish. (Hint: use $k_1 = k^2/\alpha$ and $(\alpha J - I)\,n_\alpha = \alpha\rho$.) Then the cell computes
the residual for both signs.
"""),
    code(r"""
Jp, _Q = pend.principal()            # the same pendulum in principal axes
J, rho, mg = Jp.J, Jp.rho, Jp.m * Jp.g
alpha = 0.5 / J[0, 0]
n_a = np.linalg.solve(J - np.eye(3) / alpha, rho)
k2 = mg * np.linalg.norm(n_a); k1 = k2 / alpha

def residual(s):
    Gamma = s * n_a / np.linalg.norm(n_a)
    return np.linalg.norm(k2 * J @ Gamma + mg * rho - k1 * Gamma)

print("paper's sign for this alpha: s =", -np.sign(alpha))
"""),
    ex("s_predicted = None   # +1 or -1", "s_predicted = -1"),
    code(r"""
print(f"residual of (42): s = +1 -> {residual(+1):.3e},  s = -1 -> {residual(-1):.3e}")
check("the sign in Gamma_e", s_predicted, +1 if residual(+1) < residual(-1) else -1)
"""),
    md(r"""
So $\Gamma_e = -n_\alpha/|n_\alpha|$ for every $\alpha$: the paper's extra factor $-\mathrm{sgn}(\alpha)$ must not be there
(it is wrong for $\alpha > 0$). With the corrected sign, $\alpha\to 0^+$ gives the hanging point and $\alpha\to 0^-$ the
inverted one, as the paper's own description of Fig. 1 says.

In principal axes the poles $\alpha = 1/J_i$ cut the $\alpha$-line into four intervals:
$\mathcal L_2 = (0, 1/J_1)$, $\mathcal L_3 = (1/J_1, 1/J_2)$, $\mathcal L_4 = (1/J_2, 1/J_3)$,
$\mathcal L_1 = (-\infty, 0)\cup(1/J_3, \infty)$:
* **L2** starts at the *hanging* point (slow rotation) and runs off to the principal axis $\pm e_1$ as the spin grows;
* **L3** and **L4** connect two principal axes each (they never reach $\mu = 0$);
* **L1** runs from $\pm e_3$ (fast spin about the minor axis) through the **(38)** point ($k_1 = 0$) to the *inverted* point.

Both signs of $\omega_e$ give the same $\Gamma_e$ and energy and opposite $\mu$ (Eq 77). Colour encodes $\alpha$
through $(2/\pi)\arctan(\alpha J_2)$ (blue $-\infty$, red $+\infty$); thick solid = linearly stable, thin dashed = unstable.

**Fig. 1(b)** on the sphere, **(c)** from the inverted side, **(d)** from the hanging side:
"""),
    code('equilibria_sphere_figure(eq, view="3d").show()'),
    code('equilibria_sphere_figure(eq, view="top").show()\nequilibria_sphere_figure(eq, view="bottom").show()'),
    md(r"""
## Stability
Each point is linearised (Lagrange–Routh equation (62) at its own $\mu$): four eigenvalues, classified as
`elliptic-elliptic` (linearly stable), `saddle-centre`, `saddle-saddle` or `focus-focus`. At the hanging point they
are $\pm i\sqrt{m g l_{1,2}}$ (Lesson 3), at the inverted point $\pm\sqrt{m g l_{1,2}}$.

### Exercise 4.2 — predict
Give the stability class of the **inverted** equilibrium (one of the four names above).
"""),
    ex("inverted_class = None", 'inverted_class = "saddle-saddle"'),
    code(r"""
print("hanging  eigenvalues:", np.round(eq.hanging.eigenvalues, 6), eq.hanging.stability)
print("inverted eigenvalues:", np.round(eq.inverted.eigenvalues, 6))
check("inverted stability", inverted_class, eq.inverted.stability)
for f in eq.curves():
    runs, start = [], 0
    for i in range(1, len(f) + 1):
        if i == len(f) or f.stability[i] != f.stability[start]:
            runs.append(f"{f.stability[start]} for alpha in [{f.alpha[start]:.4g}, {f.alpha[i-1]:.4g}]")
            start = i
    print(f.label, ";  ".join(runs))
"""),
    md(r"""
Reading the output: **L2** is stable all along (slow steady rotations near the hanging attitude, up to fast spin
about the major axis); **L3** is stable only close to $e_1$; **L4** becomes stable near $e_3$; **L1** is stable
for fast spin near the minor axis (the "sleeping top"), then loses stability in a Krein collision (focus–focus)
and ends as a saddle–saddle at the inverted point.

## The energy–momentum diagram
All relative equilibria in the $(\mu, E)$ plane; the hanging point is the global minimum $E = -mg|\rho|$ at $\mu = 0$.
At a given $\mu$ they are the points the Poincaré sections of Lesson 5 mark.
"""),
    code(r"""
energy_momentum_figure(eq, marker=(1.0, 0.0)).show()
for p in pe.equilibria_at_mu(pend, 1.0, eq):
    print(f"{p.family:4s} Gamma={np.round(p.Gamma, 4)}  E={p.energy:+.4f}  {p.stability}")
"""),
    link("preset=paper_fig1&tab=equilibria", "Fig. 1 in the equilibria view"),
    md("The same figures from the command line: `pendulum-explorer figure fig1 --out fig1.html`.\n\n"
       "Next: [Lesson 5 — Poincaré sections](05_poincare_sections.ipynb)."),
]

# ------------------------------------------------------------------------------------------------------------
LESSONS["05_poincare_sections"] = [
    md(r"""
# Lesson 5 — Poincaré sections: regular or chaotic? (Sec. 5.6, Fig. 2)

**What you will learn (about 30 minutes)**
* On a fixed energy $E$ and momentum $\mu$ the reduced motion is 3-dimensional; a **Poincaré section** cuts it
  to a 2-dimensional picture in which regular motion draws curves and chaotic motion fills areas.
* Which parts of the sphere a motion can reach at all (the amended potential).
* Two numbers that say "regular" or "chaotic": MEGNO ($\bar Y \to 2$ for regular motion, growing for chaos) and
  a chaos map of a whole section.

**The paper's experiment.** The elliptic cylinder $J = \mathrm{diag}(0.13, 0.28, 0.17)$, $\rho = [0, 0, 0.3]$,
$m = 1$, started from $R_0 = I$, $\omega_0 = c\,[1, 1, 1]$ with $c$ chosen so that the energy is
$E \in \{-2.65, 0, 2.03, 8.83, 11.95\}$.

**The section.** $\mathcal P = \{(\Gamma, \dot\Gamma) : e_3^T\dot\Gamma = 0,\ e_3^T(\Gamma\times\dot\Gamma) > 0,\ E(\Gamma,\dot\Gamma) = E\}$:
$\dot\Gamma$ is horizontal and points along $e_3\times\Gamma$, its length fixed by the energy. So every $\Gamma$
carries at most one section state, and the section is drawn on the sphere — or on the equal-area chart
$(\varphi, \Gamma_3)$, $\varphi$ the azimuth of $\Gamma$ about $e_3$.
"""),
    code(SETUP + r"""
from pendulum_explorer.plotting.section import section_chart_figure, section_sphere_figure

P = pe.presets.paper_fig2().pendulum
ENERGIES = [-2.65, 0.0, 2.03, 8.83, 11.95]
N_CROSS = 300      # crossings per energy (the paper uses > 2000; the dashboard computes 500 per click by default)
"""),
    md(r"""
## Each energy has its own $\mu$
With $R_0 = I$: $\Gamma_0 = e_3$ and $E = \tfrac{c^2}{2}\,\mathbf 1^TJ\mathbf 1 - m g\rho_3$.

### Exercise 5.1 — predict $\mu$ at $E = 0$
Solve for $c$, then $\mu = \omega_0^TJ\Gamma_0 = c\,J_{33}$. Write it in terms of `P.J`, `P.m`, `P.g`, `P.rho`.
"""),
    ex("mu_predicted = None", "c = np.sqrt(2 * (0.0 + P.m * P.g * P.rho[2]) / P.J.sum())\nmu_predicted = c * P.J[2, 2]"),
    code(r"""
sections = {E: pe.PoincareSection.from_paper_ic(P, E) for E in ENERGIES}
check("mu at E = 0", mu_predicted, sections[0.0][0].mu, rtol=1e-9)
for E, (sec, seed) in sections.items():
    reg = sec.accessible_region()
    print(f"E = {E:6.2f}: mu = {sec.mu:.5f}, section non-empty for E > {reg.energy_min:+.4f}, "
          f"accessible fraction of the sphere {reg.area_fraction:.3f}")
"""),
    md(r"""
## The accessible region
Eliminating the vertical spin leaves the **amended potential** $V_\mu(\Gamma) = \dfrac{\mu^2}{2\,\Gamma^TJ\Gamma} - m g\,\rho^T\Gamma$;
a section state at $\Gamma$ exists only where $V_\mu(\Gamma) < E$ (grey in the figures: forbidden). One section
state, checked against the three conditions and the level:
"""),
    code(r"""
sec, seed = sections[0.0]
st = sec.state_at([np.sin(0.3), 0.0, np.cos(0.3)])
print("e3.Gammadot =", st.Gammadot[2], "  e3.(Gamma x Gammadot) =", np.cross(st.Gamma, st.Gammadot)[2])
print("E - E0 =", pe.reduction.energy(P, st.Gamma, st.omega) - sec.energy,
      "  mu - mu0 =", pe.reduction.momentum(P, st.Gamma, st.omega) - sec.mu)
try:
    sec.state_at([0.0, np.sin(2.0), np.cos(2.0)])
except pe.PendulumError as exc:
    print(type(exc).__name__, ":", exc)
"""),
    md(r"""
## Fig. 2
The paper's trajectory at each energy. The chart's vertical axis is reversed: the **hanging** direction
$\Gamma = +e_3$ is at the bottom, as in the paper. (`pendulum-explorer figure fig2 --out fig2.html` draws the
full-size panels.)

### Exercise 5.2 — predict, then look
For which energies do you expect the crossings to lie on smooth **curves** (regular motion)? Think about the
lowest energy (barely above the hanging minimum $-m g\rho_3 = -2.943$) and the highest (fast tumbling, where
gravity is a small perturbation of the free rigid body). Answer with the list of regular energies.
"""),
    ex("regular_energies = None   # e.g. [0.0, 8.83]", "regular_energies = [-2.65, 11.95]"),
    code(r"""
results = {E: sections[E][0].crossings(sections[E][1], N_CROSS) for E in ENERGIES}
for E in ENERGIES:
    section_chart_figure(sections[E][0], [results[E]], names=["paper IC"],
                         title=f"E = {E}, mu = {sections[E][0].mu:.4f}", height=360).show()
"""),
    md("The same points on the sphere of $\\Gamma$'s (camera \"up\" is $-e_3$: the hanging pole at the bottom), at $E = 2.03$:"),
    code('section_sphere_figure(sections[2.03][0], [results[2.03]], title="E = 2.03 (paper trajectory)", height=420).show()'),
    md(r"""
## A number to go with the pictures: MEGNO
`pe.megno(P, Gamma, omega, t_total)` integrates the motion together with a small deviation. Its mean
$\bar Y(t)$ tends to 2 for regular (quasi-periodic) motion and grows like $\lambda t/2$ for chaotic motion
($\lambda$ the largest Lyapunov exponent). A value above about 4 after a few hundred seconds means chaos.
"""),
    code(r"""
T_MEGNO = 150.0
Y = {}
for E in ENERGIES:
    G0, w0 = sections[E][1]
    Y[E] = pe.megno(P, G0, w0, T_MEGNO).value
    print(f"E = {E:6.2f}: MEGNO Ybar({T_MEGNO:.0f} s) = {Y[E]:7.2f}  ->  {'regular' if Y[E] < 4 else 'chaotic'}")
regular_by_megno = sorted(E for E in ENERGIES if Y[E] < 4)
check("regular energies", None if regular_energies is None else sorted(regular_energies), regular_by_megno)
"""),
    md(r"""
## A chaos map of a whole section
`sec.chaos_map(resolution, t_total)` computes MEGNO for the section state at every cell of a grid of the chart:
regular islands and the chaotic sea side by side. A coarse map (a few seconds) at $E = 8.83$, where the paper
sees a mixed picture:
"""),
    code(r"""
sec, seed = sections[8.83]
cm = sec.chaos_map((16, 10), t_total=60.0)
vals = np.asarray(cm.values, dtype=float)
ok = np.isfinite(vals)
print(f"{ok.sum()} accessible cells: {np.mean(vals[ok] < 4):.0%} look regular (MEGNO < 4), "
      f"{np.mean(vals[ok] >= 4):.0%} chaotic")
"""),
    md(r"""
**How to read the pictures.** Every point is one return to $\mathcal P$. Closed curves mean an invariant torus:
regular, predictable motion; nested curves surround a stable periodic orbit. A cloud filling an area means chaos.
Empty parts of the accessible region belong to other trajectories; click them in the dashboard.
"""),
    link("preset=paper_fig2&tab=section&E=2.03", "the section at E = 2.03 (click to add trajectories)"),
    md("Optional next: [the geometric phase](../geometric_phase.ipynb) (Prop 18): what a periodic orbit of the "
       "section does to the rotation about the vertical."),
]


def notebook(cells: list, solution: bool) -> nbformat.NotebookNode:
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    out = []
    for c in cells:
        if c[0] == "md":
            out.append(nbformat.v4.new_markdown_cell(c[1]))
        elif c[0] == "code":
            out.append(nbformat.v4.new_code_cell(c[1]))
        else:
            out.append(nbformat.v4.new_code_cell(c[2] if solution else c[1], metadata={"tags": ["exercise"]}))
    if solution:
        out.insert(0, nbformat.v4.new_markdown_cell("**Solution notebook** — for teachers; the exercise version is "
                                                    "`../" + "{name}" + ".ipynb`."))
    nb.cells = out
    for i, cell in enumerate(nb.cells):
        cell["id"] = f"c{i:02d}"
    return nb


def build() -> dict[Path, str]:
    """{path: notebook JSON text} of every lesson and solution."""
    files = {}
    for name, cells in LESSONS.items():
        for solution in (False, True):
            nb = notebook(cells, solution)
            if solution:
                nb.cells[0].source = nb.cells[0].source.replace("{name}", name)
            path = (OUT / "solutions" if solution else OUT) / f"{name}.ipynb"
            files[path] = nbformat.writes(nb) + "\n"
    return files


def main() -> int:
    for path, text in build().items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        print("wrote", path.relative_to(ROOT))
    return 0


if __name__ == "__main__":
    sys.exit(main())
