"""Import side effect for the rule scripts: when the job's Python has no dpbench (an
environment built from environment.yml by `--software-deployment-method conda`, which does
not install the package), put this checkout first on sys.path so `import dpbench` finds it.
Also: Ctrl-C ends the job silently (dpbench.orchestration.interrupt.quiet_job)."""
import importlib.util
import sys
from pathlib import Path

if importlib.util.find_spec("dpbench") is None:
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

# Ctrl-C (SIGINT to the whole process group): the job exits quietly, before the script's
# heavy imports, and Snakemake's process prints the one line (dpbench.orchestration.interrupt)
from dpbench.orchestration.interrupt import quiet_job  # noqa: E402

quiet_job()
