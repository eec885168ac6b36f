"""Theoretical rates for the `winnow` family (filled in by its issue)."""

__all__: list[str] = []
