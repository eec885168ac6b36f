"""The experiments' theory checks, one module per experiment (``checks.<id>``), apart from
the experiments' run modules (``dpbench.experiments.<id>``).

A theory check reads the whole results table (pandas) and judges it with
:mod:`dpbench.theory_check`; only the summarise jobs run it. An experiment registers its
check by name, ``theory_check="dpbench.experiments.checks.<id>:theory_check"``
(:class:`dpbench.experiments.base.Lazy`, imported on first call), so the shard jobs, which
import the run modules, import neither pandas nor the analysis code
(``tests/test_plan.py::test_shard_jobs_import_no_pandas_or_matplotlib``).
"""
