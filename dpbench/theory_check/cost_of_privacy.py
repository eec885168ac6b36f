"""The cost of privacy: per problem, private learner and ε, how many more examples, mistakes,
regret or excess risk the private learner needs than its non-private twin, beside the ratio
the theorems predict (``results/theory/cost_of_privacy.csv``).

One row per (experiment, problem setting, private learner, learner parameters, ε):

- **PAC learners** (``conjunctions``, ``decision_lists``): the ratio of empirical sample
  complexities :math:`n^*(\\alpha;\\varepsilon)/n^*_{\\text{twin}}(\\alpha)` at the
  experiment's α and β (:mod:`dpbench.theory_check.nstar`: per repetition, the interpolated
  size at which the error first reaches α; n* is the ⌈(1−β)R⌉-th smallest), each on its own
  size grid (the twin's may start lower: it learns sooner). Predicted: the
  ratio of the theorems' sufficient sizes ``n_at(α, ε)`` of the two learners' primary rates
  (:func:`dpbench.theory.conjunction_rates_of`, :func:`dpbench.theory.dl_rates_of`).
- **Online learners** (``experts``, ``halfspaces_online``, ``linear_loss``): the ratio of the
  mean expected regret (experts), final mistakes (halfspaces) or excess loss (linear loss)
  at the largest horizon T of the setting. Predicted: the ratio of the two learners' bounds
  there — [DR14, Thm 11.1] at the η each run recorded (:func:`dpbench.theory.experts_rate_of`),
  the mistake bounds the runs recorded (``mistake_bound``: DP-Winnow's calibrated
  (M+1)(2L−B+1) against ConfidentWinnow's), LinearLearner's online-to-batch bound at each
  recorded η (:func:`dpbench.theory.linear_learner_rate_of`).
- **Private ERM**: the ratio of the mean excess *population* risk ``pop_excess_loss``
  (:func:`dpbench.experiments.private_erm.population_metrics`) at the largest n the learner and
  its twin share. Predicted, for output perturbation (θ̂ + b with θ̂ the exact minimiser the
  twin returns on the same sample, b independent of it, mean zero, with a uniform direction):
  F is λ-strongly convex and its Hessian is at most ¼E[xxᵀ] + λI, so
  :math:`E[F(\\hat\\theta+b) - F(\\hat\\theta)]` lies in
  :math:`[\\tfrac\\lambda2, \\tfrac12(\\tfrac1{4d}+\\lambda)]\\,E\\|b\\|^2` (the Hessian bound averaged over
  b's direction, E‖x‖² ≤ 1; E‖b‖² from :func:`dpbench.theory.erm.output_noise_second_moment`:
  :math:`d(d+1)(2/(n\\lambda\\varepsilon))^2` for the ℓ2-Laplace law, dσ² for the Gaussian
  mechanism), and the ratio lies in
  :math:`1 + [\\tfrac\\lambda2, \\tfrac12(\\tfrac1{4d}+\\lambda)]\\,E\\|b\\|^2/e_{\\text{twin}}` with
  :math:`e_{\\text{twin}}` the twin's measured mean excess (derived here from the noise law of
  Chaudhuri, Monteleoni & Sarwate, Differentially Private Empirical Risk Minimization, JMLR 12,
  2011, Algorithm 1). No other private ERM learner has a population statement with constants
  in :mod:`dpbench.theory`: ``prediction`` says so.

The twin is the learner's declared ε → ∞ limit (its ``twin`` attribute, which ``dpbench
check`` verifies), the same learner at ε = ∞ where the grid runs it, or else the non-private
learner it privatises (:data:`COUNTERPARTS`, ``twin_kind`` says which); ``twin`` is empty and
``note`` says why where there is none. Twin and private learner see the same samples or
streams per repetition (common random numbers), so the intervals are paired bootstraps over
repetitions (:data:`N_BOOT` resamples, seed 0: deterministic): a ratio of means gets the
symmetric studentised interval of the slopes (:func:`mean_ratio`); a ratio of n* (a quantile of
crossing sizes, no smooth standard error) the percentile interval (:func:`n_star_ratio`). ``position``
says whether the 95 % interval contains the predicted ratio (``contains``; for a predicted
range, overlaps it), lies ``below`` or ``above`` it, or why there is no comparison.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping

import numpy as np
import numpy.typing as npt
import pandas as pd

from dpbench import theory
from dpbench.foundation import registry
from dpbench.theory.logistic_objective import DEFAULT_LAM
from dpbench.theory_check.analysis import PROBLEM_COLUMNS, setting_label, with_learner_params
from dpbench.theory_check.fit import MIN_REPS, studentized_quantile
from dpbench.theory_check.nstar import crossing_sizes, n_star_of

COLUMNS = [
    "experiment", "setting", "learner", "epsilon", "quantity", "at", "twin", "twin_kind",
    "private_value", "twin_value", "ratio", "ratio_low", "ratio_high", "reps",
    "predicted_ratio", "predicted_low", "prediction", "position", "note",
]

#: the non-private learner a private learner privatises, where it declares no ``twin``
#: (not checked as its ε → ∞ limit)
COUNTERPARTS: Mapping[str, str] = {
    "privdl": "rivest",
    "privdl_composition": "rivest",
    "dp_winnow": "confident_winnow",
    "dp_winnow_batched": "confident_winnow",
    "dp_winnow_batched_tight": "confident_winnow",
    "private_mw_001": "rwm",
    "sv_experts": "rwm",
    "dp_gd": "sklearn_logreg",
    "dp_sgd": "sklearn_logreg",
    "exp_mech_grid": "sklearn_logreg",
    "diffprivlib_logreg": "sklearn_logreg",
}

N_BOOT = 2000
CONFIDENCE = 0.95
#: what each experiment's ratio compares, and at which size
QUANTITY = {
    "conjunctions": "n*", "decision_lists": "n*", "experts": "expected_regret", "halfspaces_online": "mistakes",
    "linear_loss": "excess_loss", "private_erm": "pop_excess_loss",
}


def twin_of(learner: str, epsilons: Iterable[float]) -> tuple[str | None, str]:
    """``(twin, twin_kind)`` of a private learner (module doc); ``epsilons``: the ε its
    experiment ran it at (ε = ∞ among them: the same learner)."""
    try:
        declared = getattr(registry.learner(learner), "twin", None)
    except KeyError:  # a learner the registry does not know: no declared twin
        declared = None
    if declared:
        return declared, "ε → ∞ limit (declared twin, checked by dpbench check)"
    if any(math.isinf(float(e)) for e in epsilons):
        return learner, "the same learner at ε = ∞"
    if learner in COUNTERPARTS:
        return COUNTERPARTS[learner], "the non-private learner it privatises (not checked as its ε → ∞ limit)"
    return None, ""


def _position(low: float, high: float, pred: float, pred_low: float, one_sided: str = "") -> str:
    """``contains`` / ``below`` / ``above`` (module doc). ``one_sided`` = ``"lower"`` (the
    ratio is only a lower bound: the twin's n* is censored) keeps only ``above``;
    ``"upper"`` keeps only ``below``; the rest is ``undecided``."""
    if not np.isfinite(pred):
        return "no prediction"
    if not (np.isfinite(low) and np.isfinite(high)):
        return "no interval"
    lo_pred = pred_low if np.isfinite(pred_low) else pred
    out = "below" if high < lo_pred else "above" if low > pred else "contains"
    if (one_sided == "lower" and out != "above") or (one_sided == "upper" and out != "below"):
        return f"undecided (the ratio is only {'a lower' if one_sided == 'lower' else 'an upper'} bound)"
    return out


def _interval(boot: npt.NDArray) -> tuple[float, float]:
    a = (1 - CONFIDENCE) / 2
    boot = boot[~np.isnan(boot)]
    if len(boot) < N_BOOT * 0.9:  # too many undefined resamples (a twin mean of 0)
        return math.nan, math.nan
    lo, hi = np.quantile(boot, [a, 1 - a])
    return float(lo), float(hi)


def _draws(R: int) -> npt.NDArray:
    return np.random.default_rng(0).integers(0, R, size=(N_BOOT, R))


def _paired(a: pd.DataFrame, b: pd.DataFrame, metric: str) -> tuple[npt.NDArray, npt.NDArray]:
    """Per repetition present in both, the mean ``metric`` of ``a`` and of ``b`` (aligned)."""
    if metric not in a or metric not in b:
        return np.array([]), np.array([])
    ma, mb = a.groupby("rep")[metric].mean(), b.groupby("rep")[metric].mean()
    reps = ma.index.intersection(mb.index).sort_values()
    return ma.loc[reps].to_numpy(dtype=float), mb.loc[reps].to_numpy(dtype=float)


def mean_ratio(a: npt.NDArray, b: npt.NDArray) -> tuple[float, float, float]:
    r"""``mean(a)/mean(b)`` over paired repetitions and its symmetric studentised bootstrap
    interval on the log scale (NaN interval below :data:`MIN_REPS` repetitions; NaN ratio where
    mean(b) = 0) — the interval method of every slope's interval
    (:func:`dpbench.theory_check.fit.studentized_fit`), whose coverage tests/test_coverage.py checks.

    With :math:`L = \ln\bar a - \ln\bar b`, the repetition r's influence is
    :math:`z_r = a_r/\bar a - b_r/\bar b` (paired: one z per repetition carries the covariance
    of a and b), :math:`\widehat{\mathrm{se}} = \mathrm{sd}(z)/\sqrt R` (the delta method;
    B. Efron and R. J. Tibshirani, *An Introduction to the Bootstrap*, 1993, §21.3), the same in
    every resample; the interval is :math:`\exp(L \pm q\,\widehat{\mathrm{se}})` with q the 95 %
    quantile of :math:`|L^* - L|/\widehat{\mathrm{se}}^*` (P. Hall, "On symmetric bootstrap
    confidence intervals", J. R. Stat. Soc. B 50(1), 1988). Resamples whose twin mean is 0 are
    dropped (more than 10 %: no interval)."""
    R = len(a)
    if R == 0 or b.mean() <= 0:
        return math.nan, math.nan, math.nan
    ratio = float(a.mean() / b.mean())
    if R < MIN_REPS or not a.mean() > 0:
        return ratio, math.nan, math.nan
    L, se = _log_ratio_se(a[None, :], b[None, :])
    idx = _draws(R)
    Lb, seb = _log_ratio_se(a[idx], b[idx])
    keep = np.isfinite(Lb)
    if keep.sum() < N_BOOT * 0.9:  # too many undefined resamples (a mean of 0)
        return ratio, math.nan, math.nan
    dev = np.abs(Lb[keep] - L[0])
    tol = 1e-12 * max(1.0, abs(float(L[0])))
    if not se[0] > tol * 1e-3 and float(dev.max()) <= tol:  # every repetition gives one ratio
        return ratio, ratio, ratio
    q = studentized_quantile(dev, seb[keep], CONFIDENCE, tol)
    if not np.isfinite(q) or not np.isfinite(se[0]):
        return ratio, math.nan, math.nan
    return ratio, float(math.exp(L[0] - q * se[0])), float(math.exp(L[0] + q * se[0]))


def _log_ratio_se(a: npt.NDArray, b: npt.NDArray) -> tuple[npt.NDArray, npt.NDArray]:
    """Per row of ``a``, ``b`` (B, R paired repetitions): ln(mean a / mean b) and its delta-method
    standard error (:func:`mean_ratio`); NaN where a mean is not positive."""
    ma, mb = a.mean(axis=1), b.mean(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        ok = (ma > 0) & (mb > 0)
        L = np.where(ok, np.log(np.where(ok, ma, 1.0)) - np.log(np.where(ok, mb, 1.0)), np.nan)
        z = a / np.where(ok, ma, 1.0)[:, None] - b / np.where(ok, mb, 1.0)[:, None]
        se = np.where(ok, z.std(axis=1, ddof=1) / math.sqrt(a.shape[1]), np.nan)
    return L, se


def n_star_ratio(priv: pd.DataFrame, twin: pd.DataFrame, alpha: float, beta: float) -> dict[str, object]:
    """n*(α) of ``priv`` and of ``twin`` over their common repetitions, their ratio and its
    paired bootstrap interval; ``censored``/``never`` notes where n* is only an upper bound
    (the grid's smallest n) or not reached on the grid."""
    reps = sorted(set(priv["rep"]) & set(twin["rep"]))
    priv, twin = priv[priv["rep"].isin(reps)], twin[twin["rep"].isin(reps)]
    _, first_p, Cp = crossing_sizes(priv, alpha)
    _, first_t, Ct = crossing_sizes(twin, alpha)
    Cp, Ct = Cp[0], Ct[0]
    R = min(len(Cp), len(Ct))
    out: dict[str, object] = {"reps": R, "note": ""}
    if R == 0:
        return {**out, "private_value": math.nan, "twin_value": math.nan, "ratio": math.nan, "ratio_low": math.nan, "ratio_high": math.nan}
    Cp, Ct = Cp[:R], Ct[:R]
    sp, st = float(n_star_of(Cp, beta)), float(n_star_of(Ct, beta))
    notes = []
    if not np.isfinite(sp):
        notes.append("the private learner's n* is beyond the grid (ratio > grid's largest n / twin's n*)")
    if np.isfinite(st) and st <= first_t[0]:
        notes.append(f"the twin's n* is the grid's smallest n ({first_t[0]:g}): learned before the grid starts, "
                     "so the ratio is only a lower bound")
    if np.isfinite(sp) and sp <= first_p[0]:
        notes.append(f"the private n* is the grid's smallest n ({first_p[0]:g}): an upper bound")
    twin_censored = np.isfinite(st) and st <= first_t[0]
    priv_censored = np.isfinite(sp) and sp <= first_p[0]
    out["one_sided"] = "" if twin_censored == priv_censored else "lower" if twin_censored else "upper"
    if twin_censored and priv_censored:
        notes.append("both n* are censored: the ratio says nothing")
    ratio = sp / st if np.isfinite(sp) and np.isfinite(st) and st > 0 and not (twin_censored and priv_censored) else math.nan
    lo = hi = math.nan
    if R >= MIN_REPS and np.isfinite(ratio):
        idx = _draws(R)
        bp, bt = n_star_of(Cp[idx], beta), n_star_of(Ct[idx], beta)
        with np.errstate(divide="ignore", invalid="ignore"):
            boot = np.where(np.isfinite(bp) & np.isfinite(bt) & (bt > 0), bp / bt, np.nan)
        lo, hi = _interval(boot)
    finite = lambda v: v if np.isfinite(v) else math.nan  # noqa: E731
    return {**out, "private_value": finite(sp), "twin_value": finite(st), "ratio": ratio, "ratio_low": lo,
            "ratio_high": hi, "note": "; ".join(notes)}


# --------------------------------------------------------------------------- predictions


def _primary_n(rates: list) -> object | None:
    primary = [r for r in rates if getattr(r, "primary", True) and getattr(r, "n_at", None) is not None]
    return primary[0] if primary else None


def _pac_prediction(experiment: str, learner: str, twin: str, row: pd.Series, alpha: float) -> tuple[float, str]:
    rates_of = theory.conjunction_rates_of if experiment == "conjunctions" else theory.dl_rates_of
    mine, theirs = _primary_n(rates_of(learner, row)), _primary_n(rates_of(twin, row))
    if mine is None or theirs is None:
        missing = learner if mine is None else twin
        return math.nan, f"no sufficient sample size n(α) for {missing} in dpbench.theory"
    eps = float(row["epsilon"])
    with np.errstate(all="ignore"):
        num = float(np.asarray(mine.n_at(alpha, eps), dtype=float).ravel()[0])
        den = float(np.asarray(theirs.n_at(alpha, math.inf), dtype=float).ravel()[0])
    kinds = {mine.kind, theirs.kind}
    text = f"n(α) of {mine.label} ÷ n(α) of {theirs.label}" + ("" if kinds == {"bound"} else " (a shape enters: unit constants)")
    if not (np.isfinite(num) and np.isfinite(den) and den > 0):
        return math.nan, text + ": undefined at this ε"
    return num / den, text


def _experts_prediction(learner: str, twin: str, priv: pd.DataFrame, twin_rows: pd.DataFrame, T: float, metric: str) -> tuple[float, str]:
    mine, theirs = theory.experts_rate_of(learner, priv, x="T", metric=metric), theory.experts_rate_of(twin, twin_rows, x="T", metric=metric)
    if mine is None or theirs is None:
        return math.nan, f"no regret rate for {learner if mine is None else twin} on this instance in dpbench.theory"
    num, den = float(mine.curve(np.array([T]))[0]), float(theirs.curve(np.array([T]))[0])
    text = f"{mine.label} ÷ {theirs.label}" + ("" if {mine.kind, theirs.kind} == {"bound"} else " (a shape enters)")
    return (num / den if np.isfinite(num) and np.isfinite(den) and den > 0 else math.nan), text


def _output_perturbation_range(row: pd.Series, n: float, eps: float, twin_excess: float) -> tuple[float, float, str]:
    """``(upper, lower, text)`` of output perturbation's predicted population-risk ratio (module
    doc): around the twin's θ̂ (the same sample's minimiser) the noise b, independent of the data,
    with mean 0 and a uniform direction, adds between λ/2·E‖b‖² (strong convexity) and
    ½(1/(4d) + λ)·E‖b‖² (the Hessian bound of :func:`dpbench.theory.erm.pop_excess_output_perturbation`)
    to the expected excess."""
    lam = float(row["lp_lam"]) if "lp_lam" in row and pd.notna(row.get("lp_lam")) else DEFAULT_LAM
    has_mechanism = "lp_mechanism" in row and pd.notna(row.get("lp_mechanism"))
    mechanism = str(row["lp_mechanism"]) if has_mechanism else "l2_laplace"
    delta = float(row["delta"]) if pd.notna(row.get("delta")) and row.get("delta") > 0 else 0.0
    d = int(row["d"])
    second_moment = float(theory.output_noise_second_moment(n, eps, d, lam, mechanism, delta))
    if not twin_excess > 0:
        return math.nan, math.nan, "the twin's excess is 0: no ratio"
    upper = 1 + (1 / (4 * d) + lam) / 2 * second_moment / twin_excess
    lower = 1 + lam / 2 * second_moment / twin_excess
    return upper, lower, ("1 + [λ/2, (1/(4d)+λ)/2]·E‖b‖²/e_twin (strong convexity, and the Hessian bound "
                          "¼E[xxᵀ] + λI "
                          "averaged over the noise's uniform direction, around the twin's θ̂; derived here from "
                          "CMS11 Alg. 1's noise law)")


# --------------------------------------------------------------------------- per experiment


def _settings(df: pd.DataFrame) -> list[str]:
    """Problem columns with two or more values among the private learners' rows (the
    setting label's columns)."""
    private = df[df["private"]]
    return [c for c in PROBLEM_COLUMNS if c in private and c != "n_features" and private[c].nunique(dropna=True) > 1]


def _lp_columns(rows: pd.DataFrame) -> list[str]:
    return [c for c in rows if c.startswith("lp_") and rows[c].notna().any()]


def _label(row: pd.Series, cols: list[str], lp: list[str]) -> str:
    return setting_label({c: (row[c].item() if isinstance(row[c], np.generic) else row[c]) for c in [*cols, *lp] if pd.notna(row[c])})


def _final(df: pd.DataFrame) -> pd.DataFrame:
    ok = df[df["status"] == "ok"]
    return ok[ok["t"] == ok["T"]] if "t" in ok and ok["t"].notna().any() else ok


def cost_rows(experiment: str, df: pd.DataFrame) -> list[dict[str, object]]:
    """The cost-of-privacy rows of one experiment's results (module doc)."""
    if experiment not in QUANTITY or df.empty or "private" not in df:
        return []
    df = with_learner_params(df)
    ok = df[df["status"] == "ok"]
    cols = _settings(ok)
    rows = []
    private_mask = ok["private"] & np.isfinite(ok["epsilon"])
    private = ok[private_mask]
    # the twins' rows per (problem, learner), split once (not one mask of the whole frame per setting)
    twins = dict(iter(ok[~private_mask].groupby(["problem_id", "learner"], sort=False, observed=True)))
    for learner, mine in private.groupby("learner", sort=True):
        twin, kind = twin_of(learner, ok.loc[ok["learner"] == learner, "epsilon"])
        lp = _lp_columns(mine)
        for key, priv in mine.groupby(["problem_id", "epsilon", *lp], sort=True, dropna=False):
            pid, eps = key[0], float(key[1])
            row = priv.iloc[0]
            base = {"experiment": experiment, "setting": _label(row, cols, lp), "learner": learner, "epsilon": eps,
                    "quantity": QUANTITY[experiment], "twin": twin or "", "twin_kind": kind}
            if twin is None:
                rows.append({**base, "at": "", "position": "no twin",
                             "note": "no non-private twin: none declared, none at ε = ∞ on this grid, no counterpart named"})
                continue
            theirs = twins.get((pid, twin))
            if theirs is None:
                rows.append({**base, "at": "", "position": "no twin", "note": f"{twin} did not run on this problem"})
                continue
            rows.append({**base, **_measure(experiment, learner, twin, priv, theirs, row)})
    return rows


def _measure(experiment: str, learner: str, twin: str, priv: pd.DataFrame, theirs: pd.DataFrame, row: pd.Series) -> dict[str, object]:
    eps = float(row["epsilon"])
    pred_low = math.nan
    if experiment in ("conjunctions", "decision_lists"):
        alpha, beta = ((theory.CONJUNCTIONS_ALPHA, theory.CONJUNCTIONS_BETA) if experiment == "conjunctions"
                       else (theory.DL_ALPHA, theory.DL_BETA))
        got = n_star_ratio(priv, theirs, alpha, beta)  # each n* on its own size grid, repetitions paired
        pred, text = _pac_prediction(experiment, learner, twin, row, alpha)
        at = f"α = {alpha:g}, β = {beta:g}, n ≤ {priv['n'].max():,.0f}"
    elif experiment == "private_erm":
        shared = sorted(set(priv["n"]) & set(theirs["n"]))
        n = max(shared)
        a, b = _paired(priv[priv["n"] == n], theirs[theirs["n"] == n], "pop_excess_loss")
        ratio, lo, hi = mean_ratio(a, b)
        got = {"private_value": _mean(a), "twin_value": _mean(b), "ratio": ratio, "ratio_low": lo, "ratio_high": hi,
               "reps": len(a), "note": "" if len(a) else "no pop_excess_loss recorded (a run before the column existed)"}
        if learner == "output_perturbation":
            pred, pred_low, text = _output_perturbation_range(row, n, eps, _mean(b))
        else:
            pred, text = math.nan, "no population-risk bound with constants for this learner in dpbench.theory"
        at = f"n = {n:,.0f}"
    else:
        fp, ft = _final(priv), _final(theirs)
        T = float(min(fp["T"].max(), ft["T"].max()))
        fp, ft = fp[fp["T"] == T], ft[ft["T"] == T]
        metric = QUANTITY[experiment]
        a, b = _paired(fp, ft, metric)
        ratio, lo, hi = mean_ratio(a, b)
        got = {"private_value": _mean(a), "twin_value": _mean(b), "ratio": ratio, "ratio_low": lo, "ratio_high": hi,
               "reps": len(a), "note": "" if np.isfinite(ratio) or not len(b) else f"the twin's mean {metric} is 0: no ratio"}
        at = f"T = {T:,.0f}"
        if experiment == "experts":
            pred, text = _experts_prediction(learner, twin, fp, ft, T, metric)
        elif experiment == "linear_loss":
            num = float(theory.linear_learner_rate_of(fp).curve(np.array([T]))[0])
            den = float(theory.linear_learner_rate_of(ft).curve(np.array([T]))[0])
            pred, text = num / den, "LinearLearner's online-to-batch bound at each run's recorded η (ratio of bounds)"
        else:
            num, den = float(fp["mistake_bound"].median()), float(ft["mistake_bound"].median())
            pred = num / den if np.isfinite(num) and np.isfinite(den) and den > 0 else math.nan
            text = "the runs' recorded mistake bounds (ratio of bounds; DP-Winnow's calibrated (M+1)(2L−B+1))"
    one_sided = str(got.pop("one_sided", ""))
    position = (_position(got["ratio_low"], got["ratio_high"], pred, pred_low, one_sided) if np.isfinite(got["ratio"])
                else "no ratio (note)")
    return {**got, "at": at, "predicted_ratio": pred, "predicted_low": pred_low, "prediction": text, "position": position}


def _mean(v: npt.NDArray) -> float:
    return float(v.mean()) if len(v) else math.nan


def cost_of_privacy_table(results: Mapping[str, pd.DataFrame]) -> pd.DataFrame:
    """Every experiment's rows (``results``: experiment → its results), experiments in
    alphabetical order (independent of the config's)."""
    rows = [r for exp in sorted(results) for r in cost_rows(exp, results[exp])]
    return pd.DataFrame(rows, columns=COLUMNS)
