"""Plotly figure builders of the metrics pages (pure: plain data in, figure dicts out)."""
