"""Orchestration layer: config validation, the grid of cells, the cost model that sizes
shard jobs, the plan, and config shrinking. It composes experiments; it never draws.
"""
