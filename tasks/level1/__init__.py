"""Level 1: primitive operators (iteration budget 15)."""
