"""Synthetic distributions, one module per problem family (algorithms.md §1)."""
