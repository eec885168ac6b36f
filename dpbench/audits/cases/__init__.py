"""Worst-case audit instances, one module per learner family; each registers, per private
learner or mechanism, ``cases(*, epsilon, delta) -> list[AuditCase]`` with
:func:`dpbench.audits.register_audit`.
"""
