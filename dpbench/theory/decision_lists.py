"""Theoretical rates for the `decision_lists` family (filled in by its issue)."""

__all__: list[str] = []
