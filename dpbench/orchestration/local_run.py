"""Start `snakemake` for a local run without the SLURM executor plugin's start-up probe.

Where it happens: Snakemake imports every installed executor plugin while it builds its
command-line parser, before it reads any profile or Snakefile
(``snakemake_interface_common.plugin_registry.PluginRegistryBase.collect_plugins``). The
SLURM plugin (snakemake-executor-plugin-slurm, installed by the ``slurm`` and ``test``
extras) computes the help text of its ``--slurm-status-command`` option when its module is
imported, and that runs ``scontrol show config`` (its ``get_min_job_age``, 10 s time-out). On
a machine where SLURM is installed and a slurm.conf names a controller that is not running,
scontrol retries for ~9 s: every `snakemake` start, local or not, waited that long.

Nothing in the workflow runs before the probe, so the skip is in how `snakemake` is
started: :func:`local_env` is the environment with a directory first on ``PATH`` whose
``scontrol`` fails ``scontrol show config`` at once (the plugin then takes "MinJobAge
unknown", as without SLURM) and hands every other command to the real scontrol.
:func:`main` (``python -m dpbench.orchestration.local_run [snakemake arguments]``) starts
`snakemake` with it unless the arguments select the SLURM executor (:func:`uses_slurm`),
in which case the real probe runs; ``benchmarks/bench_workflow.py`` and the tests start
their local runs this way.
"""

from __future__ import annotations

import os
import sys
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path

import yaml

from dpbench.orchestration.config import exit_on_yaml_error

#: the skip: ``scontrol show config`` fails at once; anything else goes to the real scontrol
#: (found on PATH without this directory)
SCONTROL_SHIM = """#!/bin/sh
# dpbench.orchestration.local_run: a local snakemake run skips the SLURM plugin's probe
if [ "$1" = show ] && [ "$2" = config ]; then exit 1; fi
here=$(dirname "$0")
real=$(PATH=$(printf %s "$PATH" | tr ':' '\\n' | grep -vxF "$here" | paste -sd: -) command -v scontrol) || exit 127
exec "$real" "$@"
"""

#: the shim's directory name (per user): :func:`real_env` strips it from PATH
SHIM_PREFIX = "dpbench-local-bin-"


def shim_dir() -> Path:
    """The directory holding the ``scontrol`` shim, written (atomically) if missing or stale."""
    directory = Path(tempfile.gettempdir()) / f"{SHIM_PREFIX}{os.getuid()}"
    shim = directory / "scontrol"
    if not shim.is_file() or shim.read_text() != SCONTROL_SHIM:
        directory.mkdir(mode=0o755, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=directory, prefix=".scontrol.")
        with os.fdopen(fd, "w") as fh:
            fh.write(SCONTROL_SHIM)
        os.chmod(tmp, 0o755)
        os.replace(tmp, shim)
    return directory


def real_env(env: Mapping[str, str] | None = None) -> dict[str, str]:
    """``env`` (default: this process's) with every shim directory taken off ``PATH``: the
    real ``scontrol``, so the plugin's probe runs (a run that uses SLURM)."""
    env = dict(os.environ if env is None else env)
    parts = env.get("PATH", "").split(os.pathsep)
    env["PATH"] = os.pathsep.join(p for p in parts if not Path(p).name.startswith(SHIM_PREFIX))
    return env


def local_env(env: Mapping[str, str] | None = None) -> dict[str, str]:
    """``env`` (default: this process's) with the shim directory first on ``PATH``: a
    `snakemake` started with it skips the SLURM plugin's ``scontrol show config`` probe."""
    env = real_env(env)
    env["PATH"] = os.pathsep.join(p for p in (str(shim_dir()), env.get("PATH", "")) if p)
    return env


def _values(argv: Sequence[str], *flags: str) -> list[str]:
    """The values of ``flags`` in a command line (``--flag value`` or ``--flag=value``)."""
    out = []
    for i, arg in enumerate(argv):
        for flag in flags:
            if arg == flag and i + 1 < len(argv):
                out.append(argv[i + 1])
            elif arg.startswith(flag + "=") and flag.startswith("--"):
                out.append(arg.split("=", 1)[1])
    return out


def _profile_executor(profile: str) -> str | None:
    """The ``executor`` of a profile directory (its config.yaml), if it names one."""
    for name in ("config.yaml", "config.v8+.yaml"):
        path = Path(profile) / name
        if path.is_file():
            config = yaml.safe_load(path.read_text()) or {}
            return config.get("executor") if isinstance(config, dict) else None
    return None


def uses_slurm(argv: Sequence[str]) -> bool:
    """Whether a `snakemake` command line selects the SLURM executor: ``--executor slurm``
    (``-e slurm``), or a ``--profile`` / ``--workflow-profile`` whose config says
    ``executor: slurm``. Anything else runs locally."""
    if "slurm" in _values(argv, "--executor", "-e"):
        return True
    return any(_profile_executor(p) == "slurm" for p in _values(argv, "--profile", "--workflow-profile"))


def snakemake_env(argv: Sequence[str], env: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment to start ``snakemake *argv`` in: :func:`local_env` for a local run,
    :func:`real_env` for one that uses SLURM."""
    return real_env(env) if uses_slurm(argv) else local_env(env)


def _configfiles(argv: Sequence[str]) -> list[str]:
    """The ``--configfile``/``--configfiles`` paths of a command line (each flag takes one or
    more paths, up to the next option)."""
    paths, taking = [], False
    for arg in argv:
        if arg in ("--configfile", "--configfiles"):
            taking = True
        elif arg.startswith(("--configfile=", "--configfiles=")):
            paths.append(arg.split("=", 1)[1])
            taking = False
        elif arg.startswith("-"):
            taking = False
        elif taking:
            paths.append(arg)
    return paths


def main(argv: Sequence[str] | None = None) -> None:
    """``python -m dpbench.orchestration.local_run ARGS``: `snakemake ARGS` (this Python),
    without the SLURM probe when the run is local; a ``--configfile`` that is not valid YAML
    stops it first with one line naming the file, line and column (exit status 2)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    for path in _configfiles(argv):  # Snakemake reads these before the Snakefile: its error names no line
        exit_on_yaml_error(path)
    os.execve(sys.executable, [sys.executable, "-m", "snakemake", *argv], snakemake_env(argv))


if __name__ == "__main__":
    main()
