"""Level 3: end-to-end blocks (iteration budget 25)."""
