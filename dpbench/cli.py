"""dpbench: what does privacy cost a learner, compared with what the theory promises?

dpbench runs private and non-private learners on synthetic problems over grids of ε, n and T
(through Snakemake: `snakemake --cores all`), checks every curve against its theorem and
draws the figures. This command is the way in without Snakemake: list the catalogue, check
a config before submitting it, run one cell, audit or check one learner, regenerate the
documentation.

Bad input (a missing or malformed config, an unknown name, a bad value) prints one line
naming the file, key or name — with the closest valid names for a typo — and exits with
status 2, never a traceback.
"""

from __future__ import annotations

import argparse
import math
import os
import sys

import yaml

from dpbench.orchestration.cost_table import CalibrationError  # light: the cost table's data only

# Each command imports what it needs inside its handler (the `from dpbench...` lines in the
# _cmd_* functions), so `dpbench --help` and argument errors stay fast instead of loading every
# command's modules (several pull in numba, pandas, matplotlib or snakemake) on every call.


class UsageError(Exception):
    """Bad input from the command line: printed as one line, exit status 2."""


def _load(path: str):
    """The validated grid of config file ``path`` (a UsageError naming file and key)."""
    from dpbench.orchestration.config import ConfigError, error_line, load

    try:
        return load(path)
    except ConfigError as exc:
        raise UsageError(error_line(path, exc)) from None


def _cmd_list(args: argparse.Namespace) -> int:
    from dpbench.foundation import registry

    registry.load_all()
    for name, cls in sorted(registry.PROBLEMS.items()):
        print(f"problem     {name:<24} family={cls.family}")
    for name, cls in sorted(registry.LEARNERS.items()):
        privacy = "private" if cls.private else "non-private"
        print(f"learner     {name:<24} family={cls.family:<8} {privacy:<12} problems={','.join(cls.problems)}")
    for name, exp in sorted(registry.EXPERIMENTS.items()):
        print(f"experiment  {name:<24} problems={','.join(exp.problems)} size={exp.size} figures={','.join(exp.figures)}")
    return 0


def _cmd_validate(args: argparse.Namespace) -> int:
    grid = _load(args.config)
    for exp_id, plan in grid.experiments.items():
        print(f"{exp_id}: {len(plan.cells)} cells in {len(plan.shards())} shards")
    print(f"{args.config}: valid")
    return 0


def _cmd_plan(args: argparse.Namespace) -> int:
    import time

    from dpbench.orchestration.plan import format_learner_hours, format_plan, learner_hours, make_plan

    start = time.perf_counter()
    grid = _load(args.config)
    if args.by == "learner":
        print(format_learner_hours(learner_hours(grid), source=args.config))
    else:
        print(format_plan(make_plan(grid), source=args.config))
    print(f"(planned in {time.perf_counter() - start:.1f} s)")
    return 0


def _cmd_calibrate(args: argparse.Namespace) -> int:
    from pathlib import Path

    from dpbench.orchestration import calibrate
    from dpbench.orchestration.cost_table import calibration_path

    if not args.budget > 0:
        raise UsageError(f"--budget must be > 0 seconds, got {args.budget}")
    path = Path(args.output) if args.output else calibration_path()
    if path is None:
        raise UsageError("DPBENCH_COST_TABLE=shipped names no file to write: give --output PATH")
    calibrate.run(_load(args.config), args.budget, path, jobs=args.jobs)
    return 0


def _parse_value(text: str) -> object:
    return yaml.safe_load(text)


def _key_values(pairs: list[str], flag: str) -> dict[str, object]:
    out = {}
    for pair in pairs:
        if "=" not in pair:
            raise UsageError(f"{flag} takes NAME=VALUE, got {pair!r}")
        key, value = pair.split("=", 1)
        out[key] = _parse_value(value)
    return out


METRICS = ("error", "train_error", "regret", "expected_regret", "mistakes", "loss", "excess_loss", "fit_seconds")


def _summary(df, keys: list[str]):
    """Per group: every measured metric as ``mean ± sd`` over the repetitions, and their number."""
    import pandas as pd

    metrics = [c for c in METRICS if df[c].notna().any()]
    groups = df.groupby(keys, dropna=False)
    table = groups.size().rename("reps").to_frame()
    mean, sd = groups[metrics].mean(), groups[metrics].std(ddof=1)
    for m in metrics:
        table[m] = [f"{a:.4g} ± {b:.2g}" if pd.notna(b) else f"{a:.4g}" for a, b in zip(mean[m], sd[m])]
    return table.reset_index()


#: config key of a `dpbench run` block → the flag that set it (errors name what the user typed)
_RUN_FLAGS = {"epsilon": "--epsilon", "delta": "--delta", "n": "--size", "T": "--size", "repetitions": "--reps",
              "problem": "--problem", "learners": "--learner", "problem_params": "--param", "learner_params": "--learner-param"}  # fmt: skip


def _flag_error(exc, experiment: str) -> str:
    """A config error of the one-cell grid `dpbench run` builds, named by the flag: e.g.
    ``experiments.conjunctions.epsilon[0]: must be > 0`` → ``--epsilon: must be > 0``,
    ``....problem_params.d: ...`` → ``--param d: ...``."""
    prefix = f"experiments.{experiment}."
    if exc.key == "seed":
        return f"--seed: {exc.message}"
    if not exc.key.startswith(prefix):
        return f"invalid cell: {exc}"
    parts = exc.key[len(prefix):].replace("[", ".[").split(".")
    flag = _RUN_FLAGS.get(parts[0])
    if flag is None:
        return f"invalid cell: {exc}"
    name = parts[-1] if parts[0] == "problem_params" and len(parts) > 1 else parts[2] if parts[0] == "learner_params" and len(parts) > 2 else ""
    return f"{flag}{' ' + name if name else ''}: {exc.message}"


def _check_memory(cells, force: bool) -> None:
    """Refuse (one line naming --size) a cell the cost model predicts beyond this machine's
    memory, unless --force."""
    from dpbench.orchestration.cost import machine_memory_mb, shard_memory_mb

    try:
        need, have = shard_memory_mb(cells), machine_memory_mb()
    except (TypeError, ValueError):  # a parameter the model cannot read: the cell itself will say
        return
    if need > have and not force:
        raise UsageError(f"--size: the cost model predicts {need:,.0f} MB for this cell, more than this machine's "
                         f"{have:,.0f} MB (dpbench.orchestration.cost.shard_memory_mb); --force runs it anyway")  # fmt: skip


def _cmd_run(args: argparse.Namespace) -> int:
    import pandas as pd

    from dpbench.experiments.base import draw_target
    from dpbench.foundation import registry
    from dpbench.orchestration.config import ConfigError, from_dict, nearest

    try:
        experiment = registry.experiment(args.experiment)
    except KeyError:
        raise UsageError(f"--experiment: {nearest(args.experiment, registry.EXPERIMENTS, 'experiment')}") from None
    known = registry.is_learner(args.learner)
    private = known and registry.learner(args.learner).private
    if private and args.epsilon is None:
        raise UsageError(f"--epsilon is required: learner {args.learner!r} is private (give a value > 0, or inf for its non-private limit)")
    if known and not private and args.epsilon is not None:
        print(f"note: learner {args.learner!r} is not private; --epsilon is ignored", file=sys.stderr)
    block = {
        "problem": args.problem or experiment.problems[0],
        "problem_params": _key_values(args.param, "--param"),
        "learners": [args.learner],
        "learner_params": {args.learner: _key_values(args.learner_param, "--learner-param")} if args.learner_param else {},
        "epsilon": [math.inf if args.epsilon is None else args.epsilon],
        "delta": args.delta,
        experiment.size: [args.size],
        "repetitions": args.reps,
        "shards": 1,
    }
    try:
        grid = from_dict({"seed": args.seed, "experiments": {args.experiment: block}})
    except ConfigError as exc:
        raise UsageError(_flag_error(exc, args.experiment)) from None
    _check_memory(grid.experiments[args.experiment].cells, args.force)
    rows = []
    for cell in grid.experiments[args.experiment].cells:
        rows += experiment.run_cell(cell, draw_target(cell, args.seed), args.seed)
    df = pd.DataFrame(rows)
    ok, skipped = df[df["status"] == "ok"], df[df["status"] != "ok"]
    keys = ["learner", "epsilon", "delta", experiment.size] + (["t"] if df["t"].notna().any() else [])
    print(f"{args.experiment}: {block['problem']} {block['problem_params'] or ''}, seed {args.seed}; "
          f"mean ± sd over {args.reps} repetitions")  # fmt: skip
    if len(ok):
        with pd.option_context("display.width", 200, "display.max_columns", 20):
            print(_summary(ok, keys).to_string(index=False))
    if len(skipped):
        print(f"{len(skipped)} repetitions skipped: {skipped['reason'].iloc[0]}")
    return 0


def _cmd_shrink(args: argparse.Namespace) -> int:
    from dpbench.orchestration.config import ConfigError, error_line, read_yaml
    from dpbench.orchestration.shrink import shrink

    try:
        config = read_yaml(args.config)
        small = shrink(config, budget_seconds=args.budget, repetitions=args.reps)
    except ConfigError as exc:
        raise UsageError(error_line(args.config, exc)) from None
    text = yaml.safe_dump(small, sort_keys=False, default_flow_style=None, width=120)
    header = (f"# {args.output}: `dpbench shrink {args.config}` — the same experiments, sweeps, problems,\n"
              f"# learners and epsilons with smaller sizes and {args.reps} repetitions (budget {args.budget:g} s per experiment).\n")  # fmt: skip
    try:
        with open(args.output, "w") as fh:
            fh.write(header + text)
    except OSError as exc:
        raise UsageError(f"-o {args.output}: cannot write ({exc.strerror})") from None
    print(f"wrote {args.output}; `dpbench plan {args.output}` shows its cost")
    return 0


def _cmd_audit(args: argparse.Namespace) -> int:
    from dpbench.audits.engine import cli_audit

    if args.epsilon is not None and not (math.isfinite(args.epsilon) and args.epsilon > 0):
        raise UsageError(f"--epsilon must be finite and > 0 (inf claims no privacy: nothing to audit), got {args.epsilon:g}")
    return cli_audit(args.learner, epsilon=args.epsilon, delta=args.delta, runs=args.runs, seed=args.seed)


def _cmd_docs(args: argparse.Namespace) -> int:
    from dpbench.reporting import docs

    reason = docs.not_a_checkout()
    if reason:
        raise UsageError(reason)
    if args.check:
        stale = docs.stale()
        for path in stale:
            print(f"{path} is stale: run `dpbench docs`", file=sys.stderr)
        return 1 if stale else 0
    for path in docs.write():
        print(f"wrote {path}")
    return 0


def _cmd_check(args: argparse.Namespace) -> int:
    from dpbench.check import cli_check

    return cli_check(args.name, config=args.config)


def _cmd_readme(args: argparse.Namespace) -> int:
    from pathlib import Path

    from dpbench.foundation.results import write_text
    from dpbench.reporting import audit_table, cost_of_privacy
    from dpbench.reporting.summary import ReadmeError, readme_section, replace_section

    # (file, flag, its generated section, its markers, the run file it comes from)
    targets = [(Path(args.readme), "--readme", cost_of_privacy.readme_cost_section,
                {"begin": cost_of_privacy.BEGIN, "end": cost_of_privacy.END}, f"theory/{cost_of_privacy.CSV_NAME}"),
               (Path(args.readme), "--readme", readme_section, {}, "theory/summary.csv"),
               (Path(args.privacy_doc), "--privacy-doc", audit_table.audit_section,
                {"begin": audit_table.BEGIN, "end": audit_table.END}, "theory/privacy_audit.csv")]  # fmt: skip
    stale = 0
    for path, flag, section, markers, source in targets:
        if not path.is_file():
            raise UsageError(f"{flag}: {path}: no such file")
        if flag == "--privacy-doc" and not (Path(args.results) / source).exists():
            print(f"{path}: left as it is ({args.results} has no {source}: the run audited nothing)")
            continue
        if section is cost_of_privacy.readme_cost_section and not (Path(args.results) / source).exists():
            print(f"{path}: cost-of-privacy section left as it is ({args.results} has no {source}: the run has no learning curves)")
            continue
        try:
            text = path.read_text(encoding="utf-8")
            new = replace_section(text, section(args.results), **markers)
        except FileNotFoundError as exc:
            raise UsageError(f"--results: {exc}") from None
        except ReadmeError as exc:
            raise UsageError(f"{flag}: {path}: {exc}") from None
        if args.check:
            if new != text:
                print(f"{path}: the generated section differs from {args.results}/{source}; "
                      f"run `dpbench readme --results {args.results}`", file=sys.stderr)
                stale += 1
            else:
                print(f"{path}: generated section up to date")
            continue
        if new != text:
            write_text(path, new)
        print(f"{path}: generated section written from {args.results}/{source}")
    return 1 if stale else 0


class _HelpFormatter(argparse.ArgumentDefaultsHelpFormatter):
    """Every option's help ends with its default, where it has one."""

    def _get_help_string(self, action: argparse.Action) -> str:
        if action.required or action.default is None or action.default is argparse.SUPPRESS or action.default == []:
            return action.help
        return super()._get_help_string(action)


class _TopHelpFormatter(argparse.RawDescriptionHelpFormatter):
    """The command list with every command's line beside its name: argparse measures the
    subcommands' names at the list's indent but prints them one level deeper, so a name of
    9 or more characters (``calibrate``) wrapped its line (tests/test_docs.py checks the
    list; it fails the day argparse's private ``_action_max_length`` stops meaning this)."""

    def add_argument(self, action: argparse.Action) -> None:
        super().add_argument(action)
        if action.nargs == argparse.PARSER:
            self._action_max_length += self._indent_increment


def _cmd_publish(args: argparse.Namespace) -> int:
    from dpbench.reporting.publish import PublishError, publish

    _load(args.config)  # a bad config: one line naming file and key
    try:
        out = publish(args.run_dir, args.config, args.out, report=args.report, rows_from=args.rows_from)
    except PublishError as exc:
        raise UsageError(str(exc)) from None
    print(f"published {args.run_dir} ({args.config}) to {out}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    paragraphs = __doc__.split("\n\n")
    parser = argparse.ArgumentParser(
        prog="dpbench", description="\n\n".join(paragraphs[:2]), formatter_class=_TopHelpFormatter,
        epilog="`dpbench COMMAND --help` lists a command's options with their defaults. The workflow itself: "
               "`snakemake --cores all` (README.md); the manual: docs/.",
    )  # fmt: skip
    sub = parser.add_subparsers(dest="command", required=True, title="commands", metavar="COMMAND")

    def command(name: str, line: str, description: str = "") -> argparse.ArgumentParser:
        """A subcommand: ``line`` is its one line in ``dpbench --help``; ``description`` its own help's."""
        return sub.add_parser(name, help=line, description=description or line, formatter_class=_HelpFormatter)

    p = command("list", "every problem, learner and experiment of the registry",
                "list every problem, learner (family, private?) and experiment, one per line")
    p.set_defaults(func=_cmd_list)

    p = command("validate", "check a config file, with the workflow's own checks",
                "validate a config file (the same checks as the workflow, before any job)")
    p.add_argument("config", help="YAML config file")
    p.set_defaults(func=_cmd_validate)

    p = command("plan", "cells, jobs and predicted CPU-hours of a config",
                "cells, shards, jobs and predicted CPU-hours of a config, before submitting")
    p.add_argument("config", help="YAML config file")
    p.add_argument("--by", choices=("experiment", "learner"), default="experiment",
                   help="one line per experiment (default), or per (experiment, learner): where the CPU-hours go")
    p.set_defaults(func=_cmd_plan)

    p = command("calibrate", "measure this machine's cost constants for plan and workflow",
                "run probe cells of a config (default: the default grid) and write this machine's cost factors "
                "where `dpbench plan` and the workflow read them (docs/configuration.md)")  # fmt: skip
    p.add_argument("config", nargs="?", default="config/config.yaml", help="YAML config whose cells are probed")
    p.add_argument("--budget", type=float, default=60.0, help="predicted CPU-s of probe cells in all (shipped table)")
    p.add_argument("--jobs", type=int, default=2, help="probe interpreters at a time")
    p.add_argument("-o", "--output", help="where to write (default: $DPBENCH_COST_TABLE, else the user's config dir)")
    p.set_defaults(func=_cmd_calibrate)

    p = command("shrink", "a config of the same shape that runs in minutes",
                "write a small config with the same shape (experiments, sweeps, problems, learners, ε) "
                "that runs in minutes: try a grid before a cluster run")  # fmt: skip
    p.add_argument("config", help="YAML config file to shrink")
    p.add_argument("-o", "--output", required=True, help="where to write the shrunk config")
    p.add_argument("--budget", type=float, default=20.0, help="predicted CPU-seconds of cells per experiment (dpbench.orchestration.cost)")
    p.add_argument("--reps", type=int, default=2, help="repetitions per cell (at least 2)")
    p.set_defaults(func=_cmd_shrink)

    p = command("run", "run one cell without Snakemake; mean ± sd of each metric",
                "run one cell without Snakemake and print mean ± sd of each metric over the repetitions")
    p.add_argument("--experiment", required=True, help="experiment id (dpbench list)")
    p.add_argument("--problem", help="problem name (default: the experiment's first)")
    p.add_argument("--param", action="append", default=[], metavar="NAME=VALUE", help="problem parameter (repeatable)")
    p.add_argument("--learner", required=True, help="learner name (dpbench list)")
    p.add_argument("--learner-param", action="append", default=[], metavar="NAME=VALUE", help="learner parameter (repeatable)")
    p.add_argument("--epsilon", type=float, help="privacy parameter ε > 0 (inf: non-private limit); required for a private learner")
    p.add_argument("--delta", type=float, default=0.0, help="privacy parameter δ (ignored by pure-DP and non-private learners)")
    p.add_argument("--size", "-n", type=int, required=True, help="n (batch) or T (online, experts)")
    p.add_argument("--reps", type=int, default=5, help="repetitions")
    p.add_argument("--seed", type=int, default=0, help="root seed")
    p.add_argument("--force", action="store_true", help="run even if the cost model predicts more memory than this machine has")
    p.set_defaults(func=_cmd_run)

    p = command("audit", "empirical privacy audit of one learner, correct and broken",
                "empirical privacy audit of one private learner: its correct and a deliberately broken copy")
    p.add_argument("learner", help="learner (or mechanism) with registered audit cases")
    p.add_argument("--epsilon", type=float, help="claimed ε to audit (default: the audit cases' own)")
    p.add_argument("--delta", type=float, help="claimed δ to audit (default: the audit cases' own)")
    p.add_argument("--runs", type=int, help="runs per side (default: the audit's own)")
    p.add_argument("--seed", type=int, default=0, help="root seed of the audit")
    p.set_defaults(func=_cmd_audit)

    p = command("check", "conformance suite on one learner (yours or the catalogue's)",
                "conformance suite on one learner (a registry name or module:Class); exit status 1 on a failure, "
                "3 if nothing failed but a privacy audit had no power (not shown to conform)")
    p.add_argument("name", help="learner name or module:Class")
    p.add_argument("--config", help="config file whose conventions (problems, plugins) the checks use")
    p.set_defaults(func=_cmd_check)

    p = command("publish", "copy a finished run's figures and checks into docs/paper",
                "publish a finished run's figures (PNG), theory and audit CSVs and report page, with the commit "
                "and config they came from, as the project's reference results")  # fmt: skip
    p.add_argument("run_dir", help="the run's output directory (results for the default config)")
    p.add_argument("--config", required=True, help="the config the run was made with")
    p.add_argument("--out", default="docs/paper", help="where to publish (replaced whole)")
    p.add_argument("--report", help="a Snakemake report of the run to include (snakemake --report FILE)")
    p.add_argument("--rows-from", metavar="COMMIT",
                   help="the commit the run's shards ran at, where their code differs from this checkout's "
                        "(recorded in SOURCE.md; without it such rows are refused)")
    p.set_defaults(func=_cmd_publish)

    p = command("readme", "write the README's generated results from a run",
                "write README.md's generated sections (the cost of privacy, between the cost markers, from a run's "
                "results/theory/cost_of_privacy.csv; theory vs practice, between the results markers, from its "
                "results/theory/summary.csv) and docs/privacy.md's audit table from its "
                "results/theory/privacy_audit.csv; --check compares instead")
    p.add_argument("--results", default="results", help="the run's results directory (reads theory/summary.csv)")
    p.add_argument("--readme", default="README.md", help="the README whose section between the results markers is replaced")
    p.add_argument("--privacy-doc", default="docs/privacy.md",
                   help="the page whose measured audit table (between the audit-table markers) is replaced")
    p.add_argument("--check", action="store_true", help="write nothing; exit 1 if the README's section differs")
    p.set_defaults(func=_cmd_readme)

    p = command("docs", "regenerate the catalogue and bibliography in docs/",
                "regenerate docs/catalogue.md and docs/references.md from the registry and docstrings")
    p.add_argument("--check", action="store_true", help="write nothing; exit 1 if a generated page is stale")
    p.set_defaults(func=_cmd_docs)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except (UsageError, CalibrationError) as exc:
        print(f"dpbench {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # the reader went away (`dpbench list | head`): not an error of ours
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no second error at exit
        return 0


if __name__ == "__main__":
    sys.exit(main())
