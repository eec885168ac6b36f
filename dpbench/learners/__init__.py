"""Learners, one module per learner; private and non-private side by side (algorithms.md §2–§6)."""
