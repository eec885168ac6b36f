"""Evaluation layer, the theory check: one row per empirical curve — the regime it learns
in, the fitted exponent with its bootstrap interval, the bound ratio, n* — and its verdict
against the theorem (``dpbench.theory`` holds the theorems; this package judges data
against them).
"""
