"""Synthetic distributions, one module per problem family (docs/catalogue.md)."""
