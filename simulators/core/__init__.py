"""Pieces every accelerator's simulator shares: programs, errors, budgets, traces, backends."""
