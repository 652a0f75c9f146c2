"""Layer 3: pure functions returning plotly figures (body.py, sphere.py, section.py, diagrams.py)."""
