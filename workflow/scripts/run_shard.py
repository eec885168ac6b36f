"""Rule `run_shard`: run every cell of one shard, write its Parquet file atomically."""
import logging

from dpbench.experiment import read_target, run_shard
from dpbench.grid import cells_from_json

logging.basicConfig(stream=open(snakemake.log[0], "w"), level=logging.INFO)
targets = {path.rsplit("/", 1)[-1].removesuffix(".json"): read_target(path) for path in snakemake.input}
run_shard(
    cells_from_json(snakemake.params.cells),
    root_seed=snakemake.params.seed,
    targets=targets,
    out=snakemake.output[0],
    config_hash=snakemake.params.config_hash,
)
