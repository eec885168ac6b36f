"""Rule `summarise`: everything after the shards, in one process
(dpbench.reporting.pipeline.summarise_run)."""
import gc
import logging

gc.disable()  # no cyclic collection while the libraries are imported (see below)
import checkout  # noqa: E402, F401  (dpbench from this checkout if the environment lacks it)

from dpbench.foundation.registry import load_plugins  # noqa: E402
from dpbench.orchestration.job_exit import exit_job, job_cpu  # noqa: E402
from dpbench.reporting.pipeline import RunOutputs, summarise_run  # noqa: E402

# The figures and frames make short-lived reference cycles by the hundred thousand: at the
# default thresholds (700, 10, 10) the collector runs a dozen full collections, each walking
# every object the imported libraries hold. Objects made by the imports are set aside
# (gc.freeze) and a young collection waits for 10,000 new objects: about 1.4 of the job's
# 20 CPU-s less, ~30 MB more at the peak (issue 32; measured on the default run's figures).
gc.freeze()
gc.set_threshold(10_000, 10, 10)
gc.enable()
logging.basicConfig(stream=open(snakemake.log[0], "w"), level=logging.INFO)
# the config's plugins: a plugin learner's declared theorem draws its theory line and verdict
load_plugins(snakemake.config.get("plugins", ()))
logging.getLogger("fontTools").setLevel(logging.WARNING)  # ~3,000 INFO lines per PDF's font subsetting
experiments = snakemake.params.experiments
out = snakemake.output
# every file goes exactly where Snakemake declared it (on remote storage: its local copies)
outputs = RunOutputs(
    shards={experiment: list(snakemake.input[experiment]) for experiment in experiments},
    results=dict(zip(experiments, out.results)),
    theory_csv=dict(zip(experiments, out.theory_csv)),
    theory_html=dict(zip(experiments, out.theory_html)),
    figures=list(out.figures),
    summary=(out.summary_csv, out.summary_html),
    cost=tuple(out.cost) or None,
    cost_experiments=list(snakemake.params.cost_experiments),
    landing=out.landing,
    galleries=dict(zip(experiments, out.galleries)),
)
for step, seconds in summarise_run(outputs).items():
    logging.info("%s: %.2f s", step, seconds)
# the job's whole CPU (interpreter start-up, imports, every step): benchmarks/bench_workflow.py
# reads this line to split the run's CPU outside cells between shards, summarise and Snakemake
logging.info("job cpu %.2fs", job_cpu())
exit_job()  # every output is in place: no interpreter teardown (dpbench.orchestration.job_exit)
