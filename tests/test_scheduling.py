"""The xdist grouping of tests/conftest.py: under ``--dist loadgroup`` every test using a
shared run gets that run's group, every other test its file's, in the controller and (what
decides the schedule: a worker sends the nodeids) in a worker, where xdist resets ``dist``
to ``"no"`` and sets ``loadgroup`` instead."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from tests.conftest import pytest_collection_modifyitems


class _Item:
    def __init__(self, nodeid: str, fixturenames: list[str]):
        self.nodeid, self.fixturenames, self.marks = nodeid, fixturenames, []

    def iter_markers(self, name: str):
        return (m for m in self.marks if m.name == name)

    def add_marker(self, mark) -> None:
        self.marks.append(mark.mark)


def _groups(option: dict) -> dict[str, list[str]]:
    items = [_Item("tests/test_a.py::t1", ["tmp_path"]), _Item("tests/test_a.py::t2", ["default_run", "tmp_path"]),
             _Item("tests/test_b.py::t3", ["run_dir", "default_run"]), _Item("tests/test_b.py::t4", [])]
    pytest_collection_modifyitems(SimpleNamespace(option=SimpleNamespace(**option)), items)
    return {item.nodeid: [m.args[0] for m in item.iter_markers("xdist_group")] for item in items}


@pytest.mark.parametrize("option", [{"dist": "loadgroup"}, {"dist": "no", "loadgroup": True}], ids=["controller", "worker"])
def test_shared_run_users_share_a_group(option):
    groups = _groups(option)
    assert groups == {"tests/test_a.py::t2": ["default_run"], "tests/test_b.py::t3": ["default_run"],
                      "tests/test_a.py::t1": ["tests/test_a.py"], "tests/test_b.py::t4": ["tests/test_b.py"]}


def test_no_groups_without_loadgroup():
    assert all(g == [] for g in _groups({"dist": "no", "loadgroup": False}).values())
