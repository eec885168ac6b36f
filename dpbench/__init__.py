"""dpbench: what does privacy cost a learner, compared with what the theory promises?

The package holds the science (problems, learners, mechanisms, theoretical rates) and the
machinery the Snakemake workflow calls (config validation, grid expansion, shard runs,
results schema, theory checks, figures). See README.md and ``docs/``.
"""

__version__ = "0.1.0"
