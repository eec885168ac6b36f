"""Learners, one module per learner; private and non-private side by side (docs/catalogue.md lists them with their sources)."""
