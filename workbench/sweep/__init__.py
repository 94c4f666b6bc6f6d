"""Sweeps: a grid of agent runs, resumable, on local processes or Ray (README.md)."""
