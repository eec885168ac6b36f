"""Import side effect for the rule scripts: when the job's Python has no dpbench (an
environment built from environment.yml by `--software-deployment-method conda`, which does
not install the package), put this checkout first on sys.path so `import dpbench` finds it."""
import importlib.util
import sys
from pathlib import Path

if importlib.util.find_spec("dpbench") is None:
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
