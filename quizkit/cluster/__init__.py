"""Dask tasks for validate and load (docs/scaling.md)."""
