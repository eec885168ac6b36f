"""The registry's lookups (dpbench.foundation.registry): a catalogue entry is found by
importing the module of its own name, so a lookup never imports the whole catalogue."""

from __future__ import annotations

import subprocess
import sys

from dpbench.foundation import registry


def test_every_catalogue_entry_lives_in_the_module_of_its_name():
    """registry._find imports ``dpbench.<package>.<name>`` and the entry points only: a
    catalogue class registered from a module of another name would not be found."""
    registry.load_all()
    tables = {"learners": registry.LEARNERS, "problems": registry.PROBLEMS, "experiments": registry.EXPERIMENTS}
    misplaced = [
        (name, module)
        for package, table in tables.items()
        for name, obj in table.items()
        if (module := getattr(obj, "__module__", None) or type(obj).__module__).startswith("dpbench.")
        and module != f"dpbench.{package}.{name}"
    ]
    # an Experiment instance's __module__ is base.py's: its module is where it is registered
    experiments = {name for name, _ in misplaced if name in registry.EXPERIMENTS}
    for name in experiments:
        assert any(value is registry.EXPERIMENTS[name] for value in vars(sys.modules[f"dpbench.experiments.{name}"]).values())
    assert [(n, m) for n, m in misplaced if n not in experiments] == []


def test_a_name_that_is_no_learner_imports_no_catalogue():
    """``is_learner("laplace")`` (an audited mechanism, as a privacy_audit cell names it)
    answers without importing every learner module (it did: 331 modules, pandas among them,
    in a privacy_audit shard job before its first cell)."""
    code = (
        "import sys\n"
        "from dpbench.foundation import registry\n"
        "before = set(sys.modules)\n"
        "assert not registry.is_learner('laplace') and registry.is_learner('dp_gd')\n"
        "learners = sorted(m for m in set(sys.modules) - before if m.startswith('dpbench.learners.'))\n"
        "print(learners)\n"
        "assert 'pandas' not in sys.modules\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    loaded = eval(out.stdout)
    assert "dpbench.learners.dp_gd" in loaded and len(loaded) < 10, loaded


def test_an_unknown_name_still_lists_every_known_one():
    import pytest

    with pytest.raises(KeyError, match=r"unknown learner 'no_such'; known: .*dp_gd.*winnow"):
        registry.learner("no_such")
