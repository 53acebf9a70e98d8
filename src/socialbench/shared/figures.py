"""The figure shapes the three papers use, drawn with matplotlib (Agg, no display).

Every bar or cell carries its n, every estimate its 95% CI; a value that does not exist (nothing asked, no
data) is drawn as missing -- a hatched empty bar or a grey cell marked "n/a" -- never as 0. Reference values
(baselines, the papers' numbers) are drawn as labelled lines or hatched bars, never mixed with the user's.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
from matplotlib.figure import Figure

plt.rcParams.update({"svg.fonttype": "none", "font.size": 9, "axes.spines.top": False, "axes.spines.right": False})


@dataclass(frozen=True)
class Estimate:
    """A value with its 95% CI and n; ``value is None`` means no data."""

    value: float | None
    low: float | None = None
    high: float | None = None
    n: int = 0

    @property
    def missing(self) -> bool:
        return self.value is None or (isinstance(self.value, float) and math.isnan(self.value))


def _width(count: int) -> float:
    return min(11.0, max(4.0, 0.6 * count + 2.0))


def bars(
    title: str,
    groups: Sequence[str],
    series: Mapping[str, Sequence[Estimate]],
    ylabel: str = "accuracy (%)",
    scale: float = 100.0,
    references: Mapping[str, float] | None = None,
    paper: Mapping[str, Sequence[float | None]] | None = None,
    ylim: tuple[float, float] | None = None,
) -> Figure:
    """Grouped bars (one group per label, one bar per series) with CI whiskers and n under each bar; missing
    values as hatched empty bars marked "n/a"; ``references`` as dashed horizontal lines; ``paper`` series as
    hatched bars labelled as the paper's."""
    all_series: list[tuple[str, list[Estimate], bool]] = [(name, list(vals), False) for name, vals in series.items()]
    for name, printed in (paper or {}).items():
        all_series.append((name, [Estimate(v) for v in printed], True))
    k = max(1, len(all_series))
    width = 0.8 / k
    legend_room = 3.5 if (len(all_series) > 1 or references or paper) else 0.0  # the legend sits right of the axes
    fig, ax = plt.subplots(figsize=(_width(len(groups) * k) + legend_room, 3.6))
    x = np.arange(len(groups))
    top, bottom = 0.0, 0.0
    for i, (name, values, is_paper) in enumerate(all_series):
        offset = x - 0.4 + width * (i + 0.5)
        for j, est in enumerate(values[: len(groups)]):
            if est.missing:
                ax.bar(offset[j], 0.02 * (ylim[1] if ylim else scale), width, fill=False, hatch="//", edgecolor="grey")
                ax.text(offset[j], 0.03 * (ylim[1] if ylim else scale), "n/a", ha="center", va="bottom", fontsize=7)
                continue
            value = float(est.value or 0.0) * scale
            color = f"C{i % 10}"
            ax.bar(
                offset[j],
                value,
                width,
                color="white" if is_paper else color,
                edgecolor=color,
                hatch="xx" if is_paper else None,
                label=(f"{name} (paper)" if is_paper else name) if j == 0 else None,
            )
            top, bottom = max(top, value), min(bottom, value)
            if est.low is not None and est.high is not None:
                lo, hi = est.low * scale, est.high * scale
                ax.errorbar(offset[j], value, yerr=[[value - lo], [hi - value]], color="black", capsize=2, lw=0.8)
                top, bottom = max(top, hi), min(bottom, lo)
            if est.n:  # above the whisker (or the bar), where it stays readable
                y = max(value, est.high * scale if est.high is not None else value)
                ax.text(offset[j], y, f"n={est.n}", ha="center", va="bottom", fontsize=6)
    for k_ref, (label, value) in enumerate((references or {}).items()):
        ax.axhline(value * scale, ls="--", lw=1, color=f"C{(k_ref + 5) % 10}", label=label)
        top = max(top, value * scale)
    ax.set_xticks(x, groups, rotation=20 if len(groups) > 4 else 0, ha="right" if len(groups) > 4 else "center")
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    if bottom < 0:
        ax.axhline(0, color="black", lw=0.6)
    ax.set_ylim(*(ylim or (bottom * 1.15, max(1.0, top * 1.15))))
    if any(ax.get_legend_handles_labels()):
        ax.legend(fontsize=7, frameon=False, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    fig.tight_layout()
    return fig


def heatmap(
    title: str,
    rows: Sequence[str],
    columns: Sequence[str],
    cells: Mapping[tuple[str, str], Estimate],
    scale: float = 100.0,
    label: str = "accuracy (%)",
) -> Figure:
    """Rows x columns, each cell its value, CI and n; cells without data grey and marked "n/a"."""
    data = np.full((len(rows), len(columns)), np.nan)
    for (r, c), cell in cells.items():
        if not cell.missing and r in rows and c in columns:
            data[rows.index(r), columns.index(c)] = float(cell.value or 0.0) * scale
    fig, ax = plt.subplots(figsize=(_width(len(columns)) + 1, max(3.0, 0.5 * len(rows) + 1.5)))
    cmap = plt.get_cmap("viridis").copy()
    cmap.set_bad("#dddddd")
    image = ax.imshow(np.ma.masked_invalid(data), cmap=cmap, aspect="auto", vmin=0, vmax=scale)
    for i, r in enumerate(rows):
        for j, c in enumerate(columns):
            est = cells.get((r, c))
            if est is None or est.missing:
                ax.text(j, i, "n/a", ha="center", va="center", fontsize=7, color="dimgrey")
                continue
            ci = (
                f"\n[{est.low * scale:.0f}, {est.high * scale:.0f}]"
                if est.low is not None and est.high is not None
                else ""
            )
            ax.text(j, i, f"{data[i, j]:.1f}{ci}\nn={est.n}", ha="center", va="center", fontsize=6, color="white")
    ax.set_xticks(range(len(columns)), columns, rotation=30, ha="right")
    ax.set_yticks(range(len(rows)), rows)
    ax.set_title(title)
    fig.colorbar(image, ax=ax, label=label, shrink=0.8)
    fig.tight_layout()
    return fig


def scatter(
    title: str,
    points: Mapping[str, Sequence[tuple[float, float]]],
    xlabel: str,
    ylabel: str,
    annotations: Mapping[str, str] | None = None,
    scale_y: float = 100.0,
) -> Figure:
    """One point series per label (e.g. per model), with a per-series note in the legend (e.g. Spearman's rho)."""
    fig, ax = plt.subplots(figsize=(6, 3.6))
    for i, (name, pts) in enumerate(points.items()):
        if not pts:
            continue
        xs, ys = zip(*pts, strict=True)
        note = (annotations or {}).get(name, "")
        ax.scatter(xs, [y * scale_y for y in ys], s=18, color=f"C{i % 10}", label=f"{name} {note}".strip())
    if not any(points.values()):
        ax.text(0.5, 0.5, "no data", ha="center", va="center", transform=ax.transAxes, color="dimgrey")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    if any(points.values()):
        ax.legend(fontsize=7, frameon=False)
    fig.tight_layout()
    return fig


def stacked_shares(title: str, groups: Sequence[str], shares: Mapping[str, Sequence[float | None]]) -> Figure:
    """Stacked 100% bars (e.g. option-choice distributions); a group with no data is a hatched empty bar."""
    fig, ax = plt.subplots(figsize=(_width(len(groups)) + 2.0, 3.4))
    bottom = np.zeros(len(groups))
    x = np.arange(len(groups))
    columns = list(shares)
    present = [all(shares[c][j] is not None for c in columns) for j in range(len(groups))]
    for i, col in enumerate(columns):
        values = np.array([(shares[col][j] or 0.0) * 100 if present[j] else 0.0 for j in range(len(groups))])
        ax.bar(x, values, 0.6, bottom=bottom, label=col, color=f"C{i % 10}")
        bottom += values
    for j, ok in enumerate(present):
        if not ok:
            ax.bar(x[j], 100, 0.6, fill=False, hatch="//", edgecolor="grey")
            ax.text(x[j], 50, "n/a", ha="center", va="center", fontsize=7)
    ax.axhline(25, ls=":", lw=0.8, color="black", label="uniform (25%)")
    ax.set_xticks(x, groups, rotation=20 if len(groups) > 4 else 0, ha="right" if len(groups) > 4 else "center")
    ax.set_ylabel("share of answers (%)")
    ax.set_ylim(0, 100)
    ax.set_title(title)
    ax.legend(fontsize=7, frameon=False, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    fig.tight_layout()
    return fig


def estimate(values: Sequence[float]) -> Estimate:
    """Mean, percentile bootstrap 95% CI and n of a sample; missing when empty."""
    from .statistics import bootstrap_ci

    if not values:
        return Estimate(None)
    low, high = bootstrap_ci(values)
    return Estimate(float(np.mean(values)), low, high, len(values))


def from_line(line: Mapping[str, object] | None, value: str = "accuracy", n: str = "n") -> Estimate:
    """An `Estimate` from a report row ``{value, ci95: [low, high], n}``; missing when the row or value is."""
    if not line or line.get(value) is None:
        return Estimate(None)
    ci: Any = line.get("ci95") or (None, None)
    count: Any = line.get(n) or 0
    return Estimate(float(line[value]), ci[0], ci[1], int(count))  # type: ignore[arg-type]
