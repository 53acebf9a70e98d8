"""Solver chains shared across benchmarks (answering, context fitting, ...)."""
