"""The documentation stands on its own: generated pages are current, every citation resolves
to a full reference, no citation points at a text the user does not have, the plugin
guide's worked example runs, and ``dpbench --help`` lists every command."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from dpbench.foundation import registry
from dpbench.reporting import docs
from dpbench.reporting.references import REFERENCES, cited_keys

ROOT = Path(__file__).resolve().parent.parent
#: Text a user of the repository reads: code, configs, workflow, docs, examples.
SCANNED = ("README.md", "Snakefile", "pyproject.toml", "environment.yml", "dpbench", "config", "docs", "examples",
           "tests", "workflow", "benchmarks")  # fmt: skip
SUFFIXES = {".py", ".md", ".yaml", ".yml", ".toml", ".smk", ".rst", ".txt", ""}

#: A citation of the spec or of the source texts as numbered files: ``algorithms.md §5``,
#: ``design.md``, ``style.md §J``, ``001 Thm 3``, ``004's rule``, ``seed 004``. A seed number
#: is a standalone 000–004 not inside a number (``20 000``, ``0.001``, ``1,000``) or a name
#: (``private_mw_001``).
SPEC = re.compile(r"\b(?:algorithms|design|style)\.md\b|shared/(?:spec|seeds)")
SEED = re.compile(r"(?<![\w.,·×^\-])(?<!\d )00[0-4](?![\w.,])")


def _files() -> list[Path]:
    out = []
    for name in SCANNED:
        path = ROOT / name
        paths = [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.is_file()) if path.exists() else []
        for p in paths:
            rel = p.relative_to(ROOT)
            if p.suffix in SUFFIXES and not any(part.startswith(".") or part.endswith(".egg-info") or part == "__pycache__"
                                                for part in rel.parts):  # fmt: skip
                out.append(p)
    return out


def _offences(pattern: re.Pattern, text: str) -> list[str]:
    return [line.strip()[:120] for line in text.splitlines() if pattern.search(line)]


def test_the_patterns_catch_what_they_must_and_nothing_else():
    for bad in ("(algorithms.md §5)", "see design.md", "style.md §J", "001 Thm 3", "(004 Lemma 4.2)", "004's rule",
                "seed 004", "000 §11.1", "../shared/seeds"):  # fmt: skip
        assert SPEC.search(bad) or SEED.search(bad), bad
    for fine in ("private_mw_001", "20 000 draws", "0.001", "1,000", "1e-300", "T = 3·10⁴", "δ = 1e-06", "x004", "2004"):
        assert not SPEC.search(fine) and not SEED.search(fine), fine


def test_no_citation_of_texts_the_user_does_not_have():
    me = Path(__file__).resolve()
    bad = {}
    for path in _files():
        if path.resolve() == me:
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        found = _offences(SPEC, text) + _offences(SEED, text)
        if found:
            bad[str(path.relative_to(ROOT))] = found
    assert not bad, f"cite the published source ([KEY, locator], dpbench/reporting/references.py) or a docs/ page: {bad}"


def test_every_cited_key_resolves_to_a_full_reference():
    unknown = {}
    for path in _files():
        keys = [k for k in cited_keys(path.read_text(encoding="utf-8", errors="replace")) if k not in REFERENCES]
        if keys:
            unknown[str(path.relative_to(ROOT))] = keys
    assert not unknown, f"add these keys to dpbench/reporting/references.py or fix the citation: {unknown}"
    for ref in REFERENCES.values():  # a full reference: authors, title, venue with a year (unpublished notes have none)
        assert ref.authors and ref.title and ref.venue, ref
        assert re.search(r"(19|20)\d\d", ref.venue) or ref.key.startswith("Notes"), ref


#: A key followed by a locator without the comma (``[CMS11 Alg. 1]``): not read as a citation.
MALFORMED = re.compile(r"\[(?:[A-Z][A-Za-z]*\d{2}|Notes[A-Z]+) ")


def test_no_malformed_citation():
    assert MALFORMED.search("[CMS11 Alg. 1]") and not MALFORMED.search("[CMS11, Alg. 1]")
    bad = {str(p.relative_to(ROOT)): _offences(MALFORMED, p.read_text(encoding="utf-8", errors="replace"))
           for p in _files() if p.resolve() != Path(__file__).resolve()}  # fmt: skip
    bad = {k: v for k, v in bad.items() if v}
    assert not bad, f"write [KEY, locator]: {bad}"


def test_the_citation_pattern_reads_keys_and_locators():
    assert cited_keys("as in [DR14, Thm 11.2] and [BF26]; see [CMS11; BST14] or [NotesPAC, §1]") == [
        "DR14", "BF26", "CMS11", "BST14", "NotesPAC"]  # fmt: skip
    assert cited_keys("x ∈ [0, 1], [reconstructed], [−1, 1]^d, [Thm 2]") == []


def test_every_learner_and_problem_states_its_source_guarantee_and_rate():
    registry.load_all()
    missing = []
    for name, cls in registry.LEARNERS.items():
        if registry.origin(cls) != "catalogue" or cls.family == "audit":
            continue
        doc = docs._module_doc(cls)
        if not [k for k in cited_keys(doc) if k in REFERENCES]:
            missing.append(f"learner {name}: no source")
        if not docs._labelled(doc, "Utility"):
            missing.append(f"learner {name}: no 'Utility:' statement")
        if cls.private and not docs._labelled(doc, "Privacy"):
            missing.append(f"learner {name}: no 'Privacy:' statement")
    for name, cls in registry.PROBLEMS.items():
        if registry.origin(cls) == "catalogue" and cls.family != "audit" and not cited_keys(docs._module_doc(cls)):
            missing.append(f"problem {name}: no source")
    assert not missing, missing


def test_generated_pages_are_current():
    assert docs.stale() == [], "run `dpbench docs` and commit docs/catalogue.md and docs/references.md"


def test_a_stale_page_is_detected(tmp_path):
    docs.write(tmp_path)
    assert docs.stale(tmp_path) == []
    page = tmp_path / "docs" / "catalogue.md"
    page.write_text(page.read_text(encoding="utf-8").replace("### `privdl`", "### `privdl_renamed`"), encoding="utf-8")
    assert docs.stale(tmp_path) == ["docs/catalogue.md"]


def test_catalogue_has_one_entry_per_registered_name():
    registry.load_all()
    text = (ROOT / "docs" / "catalogue.md").read_text(encoding="utf-8")
    headings = set(re.findall(r"^### `([^`]+)`", text, flags=re.M))
    names = {n for table in (registry.LEARNERS, registry.PROBLEMS, registry.EXPERIMENTS)
             for n, c in table.items() if table is registry.EXPERIMENTS or registry.origin(c) == "catalogue"}  # fmt: skip
    assert names <= headings, names - headings
    assert {"laplace", "gaussian", "exponential", "sparse_vector", "composition", "accounting"} <= headings
    assert "kconj_noisy_max" not in headings  # plugins are not part of the catalogue


def test_docs_links_resolve():
    """Every relative link in README.md and docs/*.md points at a file that exists."""
    broken = []
    for page in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", page.read_text(encoding="utf-8")):
            if "://" in target or target.startswith("mailto:"):
                continue
            if not (page.parent / target).exists():
                broken.append(f"{page.relative_to(ROOT)} → {target}")
    optional = {"docs/privacy.md", "docs/theory-check.md", "docs/running.md", "docs/performance.md",
                "docs/learners-dp-winnow.md"}  # written by other work in progress  # fmt: skip
    broken = [b for b in broken if not any(b.endswith(Path(o).name) for o in optional)]
    assert not broken, broken


def test_top_level_help_says_what_dpbench_is_and_lists_every_command():
    """`dpbench --help` at 80 columns: what dpbench is, then every command on exactly one
    line (a help text that wraps fails: give `command()` a short line and a long description)."""
    out = subprocess.run([sys.executable, "-m", "dpbench.cli", "--help"], capture_output=True, text=True,
                         env={**os.environ, "COLUMNS": "80"}, check=True).stdout  # fmt: skip
    assert "what does privacy cost a learner" in out
    from dpbench.cli import build_parser

    sub = next(a for a in build_parser()._actions if a.__class__.__name__ == "_SubParsersAction")
    block = out.split("commands:\n", 1)[1].split("\n\n", 1)[0].splitlines()
    listed = [line.split()[0] for line in block if line.strip() and line.strip() != "COMMAND"]
    assert listed == list(sub.choices), f"each command on one line of its own: {block}"


def test_check_table_heads_its_detail_column():
    from dpbench.check import CheckResult, format_table

    table = format_table("x", [CheckResult("runs", "pass", "3 cells")])
    assert table.splitlines()[1].split() == ["check", "status", "detail"]


def _guide_files() -> dict[str, str]:
    text = (ROOT / "docs" / "plugins.md").read_text(encoding="utf-8")
    return dict(re.findall(r"```python file=(\S+)\n(.*?)```", text, flags=re.S))


def _run(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(cwd), "COLUMNS": "120"}
    return subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=600)


@pytest.mark.slow
def test_worked_example_of_the_plugin_guide_runs_as_written(tmp_path):
    """docs/plugins.md's example, as written: the module and script run, print what the
    guide shows, and `dpbench check` passes it — and fails it once its noise is halved."""
    files = _guide_files()
    assert set(files) == {"my_majority.py", "try_it.py"}, set(files)
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    guide = (ROOT / "docs" / "plugins.md").read_text(encoding="utf-8")
    out = _run([sys.executable, "try_it.py"], tmp_path)
    assert out.returncode == 0, out.stderr
    shown = re.search(r"\$ python try_it.py\n(.*?)```", guide, flags=re.S).group(1)
    assert out.stdout == shown, f"the guide shows {shown!r}, the script prints {out.stdout!r}"
    dpbench = [sys.executable, "-m", "dpbench.cli", "check", "my_majority:PrivateMajority"]
    assert "dpbench check my_majority:PrivateMajority" in guide
    good = _run(dpbench, tmp_path)
    assert good.returncode == 0 and "— conforms" in good.stdout, good.stdout + good.stderr
    assert re.search(r"audit power \(broken copy\)\s+pass\s+caught", good.stdout), good.stdout
    # the guide's claim: halve the noise and the check fails
    module = tmp_path / "my_majority.py"
    assert "return 1.0 / self.epsilon" in files["my_majority.py"]
    module.write_text(files["my_majority.py"].replace("return 1.0 / self.epsilon", "return 0.5 / self.epsilon"), encoding="utf-8")
    bad = _run(dpbench, tmp_path)
    assert bad.returncode == 1, bad.stdout + bad.stderr
    assert re.search(r"privacy audit\s+fail", bad.stdout), bad.stdout


#: the shell commands of docs/plugins.md and the test that runs each as written
GUIDE_COMMANDS = {
    "dpbench check my_majority:PrivateMajority": "test_worked_example_of_the_plugin_guide_runs_as_written",
    "uv pip install -e examples/plugin": "tests/conftest.py (example_plugin_on_path: the same module, from its source)",
    "dpbench check kconj_noisy_max": "tests/test_check.py::test_check_passes_on_the_example_plugin",
    "snakemake --cores all --configfile examples/plugin/config.yaml": "tests/conftest.py::plugin_example_run",
}


def _guide_blocks() -> list[tuple[str, str, str]]:
    """Every fenced block of docs/plugins.md, indented ones too: ``(language, info, body)``."""
    text = (ROOT / "docs" / "plugins.md").read_text(encoding="utf-8")
    blocks = re.findall(r"^( *)```(\w*)([^\n]*)\n(.*?)^\1```", text, flags=re.S | re.M)
    return [(lang, info.strip(), "".join(line[len(indent):] + "\n" for line in body.splitlines()))
            for indent, lang, info, body in blocks]


def _guide_dir(tmp_path: Path) -> Path:
    """A directory holding the guide's ``file=`` modules, as a reader who saved them has."""
    for name, text in _guide_files().items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    return tmp_path


def _run_with_plugin(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    """:func:`_run`, with the example plugin's source importable as tests/conftest.py makes it."""
    from tests.conftest import PLUGIN_SRC

    env = {**os.environ, "PYTHONPATH": os.pathsep.join((str(cwd), str(PLUGIN_SRC))), "COLUMNS": "120"}
    return subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=600)


def test_every_snippet_of_the_plugin_guide_runs_as_written(tmp_path):
    """Every fenced block of docs/plugins.md is run as written, or named here with the test that
    runs it (issue 31): the ``file=`` modules and the script (the worked example, below), every
    other Python block in a fresh interpreter beside them, every config validated and planned
    with the guide's module importable, the entry-point table parsed, every shell command
    mapped to its test (:data:`GUIDE_COMMANDS`), every output block the script's. A new block
    of an unknown kind fails here until it is run."""
    import tomllib

    import yaml

    workdir = _guide_dir(tmp_path)
    blocks = _guide_blocks()
    kinds = [lang or "output" for lang, _, _ in blocks]
    assert kinds.count("yaml") >= 1 and kinds.count("python") >= 3 and kinds.count("toml") == 1, kinds
    for i, (lang, info, body) in enumerate(blocks):
        if lang == "python" and info.startswith("file="):
            assert info.removeprefix("file=") in {"my_majority.py", "try_it.py"}, info  # run by the worked example
        elif lang == "python":
            script = workdir / f"snippet_{i}.py"
            script.write_text(body, encoding="utf-8")
            out = _run_with_plugin([sys.executable, script.name], workdir)
            assert out.returncode == 0, f"block {i} of docs/plugins.md fails:\n{body}\n{out.stderr[-2000:]}"
        elif lang == "yaml":
            config = workdir / f"snippet_{i}.yaml"
            config.write_text(body, encoding="utf-8")
            data = yaml.safe_load(body)
            assert "seed" in data, "the guide's config lacks the required seed:"
            for command in ("validate", "plan"):
                out = _run_with_plugin([sys.executable, "-m", "dpbench.cli", command, config.name], workdir)
                why = f"dpbench {command} on block {i} of docs/plugins.md:\n{body}\n{out.stdout}{out.stderr}"
                assert out.returncode == 0, why
        elif lang == "toml":
            table = tomllib.loads(body)["project"]["entry-points"]["dpbench.plugins"]
            ours = tomllib.loads((ROOT / "examples" / "plugin" / "pyproject.toml").read_text())
            ours = ours["project"]["entry-points"]
            assert "dpbench.plugins" in ours and all(isinstance(v, str) and ":" not in v for v in table.values()), table
        elif lang == "bash":
            for line in body.splitlines():
                command = line.split("#", 1)[0].strip()
                if command:
                    why = f"docs/plugins.md runs {command!r}: run it in a test and list it in GUIDE_COMMANDS"
                    assert command in GUIDE_COMMANDS, why
        else:
            after_script = i > 0 and blocks[i - 1][1] == "file=try_it.py"
            assert lang == "" and after_script and body.startswith("$ python try_it.py"), (lang, body[:80])


def test_the_cost_snippet_of_the_plugin_guide_takes_effect(tmp_path):
    """The guide's cost-model block, run as written, registers its entry: the planner then
    predicts ``my_learner``'s cells with the block's own formula and coefficients."""
    (block,) = [body for lang, info, body in _guide_blocks() if lang == "python" and "register_cost_model" in body]
    probe = tmp_path / "probe.py"
    probe.write_text(block + "\nfrom dpbench.orchestration.cost_table import COST_TABLE\n"
                     "model = COST_TABLE['my_learner']\n"
                     "assert model.formula == 'my_formula' and model.coefficients['per_example'] == 2e-8, model\n"
                     "print('ok')\n", encoding="utf-8")
    out = _run_with_plugin([sys.executable, probe.name], tmp_path)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr[-2000:]


@pytest.mark.slow
def test_the_config_of_the_plugin_guide_runs_end_to_end(tmp_path):
    """The guide's config block, as written, run by snakemake beside the guide's module: the
    plugin learners get rows (their module is imported by every job, ``plugins:``)."""
    import pandas as pd

    from tests.conftest import run_snakemake

    workdir = _guide_dir(tmp_path)
    (body,) = [body for lang, _, body in _guide_blocks() if lang == "yaml"]
    config = workdir / "guide.yaml"
    config.write_text(body, encoding="utf-8")
    saved = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (str(workdir), saved) if p)
    try:
        proc = run_snakemake(workdir, configfile=config)
    finally:
        if saved is None:
            os.environ.pop("PYTHONPATH")
        else:
            os.environ["PYTHONPATH"] = saved
    assert proc.returncode == 0, proc.stderr[-4000:]
    (parquet,) = workdir.glob("results/**/conjunctions.parquet")
    rows = pd.read_parquet(parquet)
    assert {"majority", "private_majority", "elimination"} <= set(rows["learner"]), set(rows["learner"])
    assert (rows.loc[rows["learner"] == "private_majority", "status"] == "ok").all()


def test_readme_is_the_front_page():
    """The two commands verbatim (CI runs the second), one results block for the generated
    headline results, and a way into every manual page."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert 'pip install -e ".[test]" && pytest' in text
    assert 'pip install -e ".[peers]" && snakemake --cores all' in text  # the extra the headline counts (tests/test_readme_commands.py)
    assert text.count("<!-- results:begin -->") == 1 and text.count("<!-- results:end -->") == 1
    assert text.index("<!-- results:begin -->") < text.index("<!-- results:end -->")
    mine = ["experiments", "catalogue", "references", "findings", "configuration", "results", "slurm", "plugins",
            "testing", "layout"]  # fmt: skip
    for page in mine:
        assert (ROOT / "docs" / f"{page}.md").exists(), page
        assert f"(docs/{page}.md)" in text, f"README does not link docs/{page}.md"


def test_measured_blocks_are_closed():
    """Every `<!-- measured: ... -->` block (numbers to be generated from a run) is closed."""
    for page in sorted((ROOT / "docs").glob("*.md")):
        text = page.read_text(encoding="utf-8")
        opened, closed = text.count("<!-- measured:"), text.count("<!-- /measured -->")
        assert opened == closed, f"{page.name}: {opened} opened, {closed} closed"


def test_docstring_markup_becomes_markdown():
    md = docs._rst_to_md("Loop::\n\n    for t: ``x``\n\n.. math:: a\n          + b\n\nSee :func:`~dpbench.theory.x`, ``y``, [DR14, Thm 11.2].")
    assert "```text\nfor t: ``x``\n```" in md  # code kept verbatim
    assert "$$\na + b\n$$" in md
    assert "See `dpbench.theory.x`, `y`, [DR14, Thm 11.2](references.md#dr14)." in md


def test_experiments_page_types_no_measured_slopes():
    """docs/experiments.md states no hand-typed measured slopes or intervals (they went stale
    against the run: the run's theory tables and the README's generated block carry them)."""
    import re

    text = (ROOT / "docs" / "experiments.md").read_text()
    typed = re.findall(r"(?:fitted|slopes?|CI|interval)[^.\n]{0,30}?[−-]\d\.\d+", text)
    assert typed == [], typed
