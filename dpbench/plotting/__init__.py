"""Figure recipes: ``(df) -> matplotlib Figure``, no file I/O except :func:`style.save`."""
