"""matching stage."""
