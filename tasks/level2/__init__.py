"""Level 2: composite operators (iteration budget 20)."""
