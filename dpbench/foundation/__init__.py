"""Foundation layer: what every other layer stands on and that knows nothing above it —
the registry of problems, learners and experiments, seeding, argument validation, the
results schema and writers, output paths, and the code fingerprints (provenance) that
stamp rows and decide re-runs.
"""
