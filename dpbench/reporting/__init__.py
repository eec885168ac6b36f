"""Reporting layer: what a finished run is turned into — the summarise pipeline (collection,
theory CSVs, figures, report pages), the summary and README tables, the audit table, the
published paper snapshot, the generated docs and the bibliography.
"""
