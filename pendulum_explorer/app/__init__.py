"""Layer 4: the ipywidgets dashboard.  ``build_app()`` returns the top-level widget."""


def build_app():
    """Placeholder until the dashboard lands: shows the default body."""
    import ipywidgets as w

    from ..presets import paper_fig1

    body = paper_fig1()
    return w.HTML(f"<h2>Pendulum Explorer</h2><p>{body.description}</p><pre>{body.pendulum}</pre>")
