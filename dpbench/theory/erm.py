"""Theoretical rates for the `erm` family (filled in by its issue)."""

__all__: list[str] = []
