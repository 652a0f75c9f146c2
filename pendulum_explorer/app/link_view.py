"""Links and the dashboard's objects: the body a link asks for, and the link of the view shown (body, tab, level,
seeds).  No widgets (tested without them); :mod:`.links` reads and writes the query strings themselves."""
from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from .. import presets
from ..bodies import Body, Pendulum, equivalent_body
from .links import MAX_LAUNCH, ViewLink
from .plausible import check_plausible_pendulum


def body_from_link(link: ViewLink) -> Body | None:
    """The body a link asks for (None: the default body); ValueError for a J, rho that is not a body."""
    g = 9.81 if link.g is None else link.g
    if link.preset is not None:
        return presets.get(link.preset, g=g)
    if link.J is not None and link.rho is not None:
        J = [list(link.J[0:3]), list(link.J[3:6]), list(link.J[6:9])]
        pend = Pendulum(J, list(link.rho), 1.0 if link.m is None else link.m, g)
        check_plausible_pendulum(pend)
        return equivalent_body(pend)
    if link.g is not None:
        return presets.get("paper_fig1", g=g)
    return None


#: the launch sources whose seed is not a point of the section (a link records their first crossing instead)
OFF_SECTION = ("paper", "nearby")


def link_of_view(body: Body, tab: str, presenter: bool, level: tuple[float, float] | None = None,
                 launches: Iterable[Any] = (), motion: tuple[Sequence[float], float] | None = None,
                 start: Mapping[str, Any] | None = None) -> ViewLink:
    """The link of a view: ``body`` (its preset, else its J, rho and m; g unless 9.81), ``tab``, the presenter
    view, the motion ``(omega0, T)`` if one is shown and its ``start`` (``tilt``, ``axis``, ``damping``, ``unit`` as
    :class:`~.links.ViewLink` fields, where they are not the defaults), the section ``level`` (E, mu) if one is shown,
    and as seeds the chart points of the ``launches`` made at that level for that body (a seed off the section,
    from a paper preset or "launch nearby", as its first crossing: the same orbit), at most
    :data:`~.links.MAX_LAUNCH`."""
    pend = body.pendulum
    kw: dict[str, Any] = {"tab": tab, "presenter": presenter}
    if presets.preset_of(body) is not None:
        kw["preset"] = body.name
    else:
        kw.update(J=tuple(float(x) for x in pend.J.ravel()), rho=tuple(float(x) for x in pend.rho), m=float(pend.m))
    if pend.g != 9.81:
        kw["g"] = float(pend.g)
    if motion is not None:
        kw.update(omega0=tuple(float(x) for x in motion[0]), T=float(motion[1]), **dict(start or {}))
    if level is not None:
        E, mu = level
        kw.update(E=float(E), mu=float(mu))
        from ..poincare import chart_from_sphere  # here: a link's body (the first view) does not import poincare

        seeds = []
        for L in list(launches):
            if L.E != E or L.mu != mu or L.body != body.name:
                continue
            if L.source in OFF_SECTION and len(L.chart):
                phi, z = L.chart[0]  # a seed off the section: the same orbit through its first crossing
            else:  # a seed on the section (clicked, typed, filled, loaded, from a link or an orbit) as it was
                phi, z = chart_from_sphere(np.asarray(L.Gamma0, float))
            if abs(float(z)) < 1.0:
                seeds.append((float(phi), float(z)))
        kw["launch"] = tuple(seeds[:MAX_LAUNCH])
    return ViewLink(**kw)
