"""Rule `run_shard`: run every cell of one shard, write its Parquet file atomically."""
import logging
import os
import socket
import time

_START = time.time()  # after the interpreter's own start-up, which is in the CPU below

import checkout  # noqa: F401  (dpbench from this checkout if the environment lacks it)
from dpbench.experiments.base import run_shard
from dpbench.foundation.cell import cells_from_json
from dpbench.orchestration.job_exit import exit_job, job_cpu

logging.basicConfig(stream=open(snakemake.log[0], "w"), level=logging.INFO)
# where the shard ran: SLURM_JOB_ID is set inside a SLURM allocation (tests/test_slurm.py)
logging.info("host=%s SLURM_JOB_ID=%s runtime=%smin mem_mb=%s", socket.gethostname(), os.environ.get("SLURM_JOB_ID", "none"), snakemake.resources.get("runtime"), snakemake.resources.get("mem_mb"))
run_shard(
    cells_from_json(snakemake.params.cells),
    root_seed=snakemake.params.seed,
    out=snakemake.output[0],
    config_hash=snakemake.params.config_hash,
    cell_timeout=snakemake.params.cell_timeout,
)
# the job's whole CPU (interpreter start-up, imports, cells, the Parquet write): what the
# cost model predicts per shard (benchmarks/bench_cost.py --run reads this line)
logging.info("job cpu %.2fs wall %.2fs (wall: from the script's start)", job_cpu(), time.time() - _START)
exit_job()  # the Parquet file is in place: no interpreter teardown (dpbench.orchestration.job_exit)
