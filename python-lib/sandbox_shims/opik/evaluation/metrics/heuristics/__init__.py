"""Heuristic metrics of the Opik stand-in."""
