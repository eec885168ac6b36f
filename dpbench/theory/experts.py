"""Theoretical rates for the `experts` family (filled in by its issue)."""

__all__: list[str] = []
