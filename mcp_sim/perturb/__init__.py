"""Seeded perturbations: planning them per call and injecting them into answers."""
