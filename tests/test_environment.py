"""environment.yml mirrors pyproject.toml (same packages, same constraints)."""

from __future__ import annotations

import re
import tomllib

import yaml

from tests.conftest import REPO


def _name(spec: str) -> str:
    return re.split(r"[<>=!~ ]", spec, maxsplit=1)[0].strip().lower()


def _norm(spec: str) -> str:
    return spec.replace(" ", "").lower()


def test_environment_yml_mirrors_pyproject():
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    extras = project["optional-dependencies"]
    wanted = {_name(s): _norm(s) for s in project["dependencies"] + extras["test"] + extras["slurm"]}
    env = yaml.safe_load((REPO / "environment.yml").read_text())["dependencies"]
    have = {}
    for item in env:
        specs = item["pip"] if isinstance(item, dict) else [item]
        for spec in specs:
            if _name(spec) not in ("python", "pip"):
                have[_name(spec)] = _norm(spec)
    assert have == wanted
