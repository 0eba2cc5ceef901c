"""classifiers stage."""
