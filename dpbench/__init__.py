"""dpbench: what does privacy cost a learner, compared with what the theory promises?

The package holds the science (problems, learners, mechanisms, theoretical rates) and the
machinery the Snakemake workflow calls (config validation, grid expansion, shard runs,
results schema, theory checks, figures). See README.md and ``docs/``.
"""

from importlib.metadata import PackageNotFoundError, version

try:
    #: the installed distribution's version (pyproject.toml's, through the package metadata)
    __version__ = version("dpbench-learning")
except PackageNotFoundError:  # the source tree on sys.path, not installed
    __version__ = "0+unknown"

