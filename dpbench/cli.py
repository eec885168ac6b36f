"""The ``dpbench`` command.

- ``dpbench list``: every registered problem, learner and experiment, one per line.
- ``dpbench run``: one cell from flags, without Snakemake; prints a small table.
- ``dpbench validate CONFIG``: the same checks as the workflow, before any job.
- ``dpbench plan CONFIG``: cells, shards, jobs and predicted CPU-hours per experiment.
"""

from __future__ import annotations

import argparse
import math
import sys

import yaml


def _cmd_list(args: argparse.Namespace) -> int:
    from dpbench import registry

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
    from dpbench.config import ConfigError, load

    try:
        grid = load(args.config)
    except ConfigError as exc:
        print(f"invalid config {args.config}: {exc}", file=sys.stderr)
        return 2
    for exp_id, plan in grid.experiments.items():
        print(f"{exp_id}: {len(plan.cells)} cells in {len(plan.shards())} shards")
    print(f"{args.config}: valid")
    return 0


def _cmd_plan(args: argparse.Namespace) -> int:
    import time

    from dpbench.config import ConfigError, load
    from dpbench.plan import format_plan, make_plan

    start = time.perf_counter()
    try:
        grid = load(args.config)
    except ConfigError as exc:
        print(f"invalid config {args.config}: {exc}", file=sys.stderr)
        return 2
    print(format_plan(make_plan(grid), source=args.config))
    print(f"(planned in {time.perf_counter() - start:.1f} s)")
    return 0


def _parse_value(text: str) -> object:
    return yaml.safe_load(text)


def _key_values(pairs: list[str], flag: str) -> dict[str, object]:
    out = {}
    for pair in pairs:
        if "=" not in pair:
            raise SystemExit(f"{flag} takes NAME=VALUE, got {pair!r}")
        key, value = pair.split("=", 1)
        out[key] = _parse_value(value)
    return out


def _cmd_run(args: argparse.Namespace) -> int:
    import pandas as pd

    from dpbench.config import ConfigError, from_dict
    from dpbench.experiment import draw_target
    from dpbench import registry

    registry.load_all()
    experiment = registry.experiment(args.experiment)
    block = {
        "problem": args.problem or experiment.problems[0],
        "problem_params": _key_values(args.param, "--param"),
        "learners": [args.learner],
        "learner_params": {args.learner: _key_values(args.learner_param, "--learner-param")} if args.learner_param else {},
        "epsilon": [args.epsilon],
        "delta": args.delta,
        experiment.size: [args.size],
        "repetitions": args.reps,
        "shards": 1,
    }
    try:
        grid = from_dict({"seed": args.seed, "experiments": {args.experiment: block}})
    except ConfigError as exc:
        print(f"invalid cell: {exc}", file=sys.stderr)
        return 2
    rows = []
    for cell in grid.experiments[args.experiment].cells:
        rows += experiment.run_cell(cell, draw_target(cell, args.seed), args.seed)
    df = pd.DataFrame(rows)
    metrics = [c for c in ("error", "train_error", "regret", "expected_regret", "mistakes", "loss", "excess_loss", "fit_seconds") if df[c].notna().any()]
    keys = ["learner", "epsilon", "delta", experiment.size] + (["t"] if df["t"].notna().any() else [])
    summary = df[df["status"] == "ok"].groupby(keys, dropna=False)[metrics].mean()
    skipped = df[df["status"] != "ok"]
    with pd.option_context("display.width", 160, "display.max_columns", 20):
        print(summary.reset_index().to_string(index=False))
    if len(skipped):
        print(f"{len(skipped)} repetitions skipped: {skipped['reason'].iloc[0]}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="dpbench", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("list", help="list registered problems, learners and experiments")
    p.set_defaults(func=_cmd_list)

    p = sub.add_parser("validate", help="validate a config file (same checks as the workflow)")
    p.add_argument("config")
    p.set_defaults(func=_cmd_validate)

    p = sub.add_parser("plan", help="cells, shards, jobs and predicted CPU-hours of a config, before submitting")
    p.add_argument("config")
    p.set_defaults(func=_cmd_plan)

    p = sub.add_parser("run", help="run one cell without snakemake and print a summary")
    p.add_argument("--experiment", required=True)
    p.add_argument("--problem", help="problem name (default: the experiment's first)")
    p.add_argument("--param", action="append", default=[], metavar="NAME=VALUE", help="problem parameter (repeatable)")
    p.add_argument("--learner", required=True)
    p.add_argument("--learner-param", action="append", default=[], metavar="NAME=VALUE", help="learner parameter (repeatable)")
    p.add_argument("--epsilon", type=float, default=math.inf)
    p.add_argument("--delta", type=float, default=0.0)
    p.add_argument("--size", "-n", type=int, required=True, help="n (batch) or T (online, experts)")
    p.add_argument("--reps", type=int, default=5)
    p.add_argument("--seed", type=int, default=0)
    p.set_defaults(func=_cmd_run)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
