"""The figure shapes the three papers use, drawn with matplotlib (Agg, no display), sized for a paper.

Every figure is one column (3.3 in) or two columns (7 in) wide, drawn at that size (constrained layout: nothing
reaches past the edge), with no text smaller than 7 pt, so it can be pasted into a paper at 100%. Every bar or
point is an estimate with its 95% CI and n (the n on the bar, or, where bars are too narrow for it, in the
caption note the figure returns); a value that does not exist (nothing asked, no data) is drawn as missing -- a
hatched stub marked "n/a" -- never as 0. Every series is in the legend. The papers' numbers are hollow markers
(never bars like ours), and reference values are dashed lines labelled at the line.

`notes(fig)` returns what a caption must add (e.g. "n per bar: see the table"); `reporting.Figure` appends it.

Each figure function returns a `Drawing`: the figure's specification, drawn only when a rendering of it (SVG, PDF,
its caption notes) is not already in the disk cache (``$SOCIALBENCH_CACHE/figures``, keyed by the function, its
arguments, the code and matplotlib). A warm report over a grid of 522 runs redraws nothing: drawing is where a
report's time goes (docs/benchmarks.md).
"""

from __future__ import annotations

import dataclasses
import functools
import gzip
import hashlib
import io
import json
import math
import textwrap
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, ParamSpec

import numpy as np

from .statistics import EXACT

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from .statistics import Outcomes

COLUMN_WIDTH = 3.3
"""inches: one column of a two-column paper"""
TEXT_WIDTH = 7.0
"""inches: the full text width"""
MIN_FONT = 7.0
"""points: the smallest text in any figure"""
PAPER_MARKERS = "DsP^vX*ph<>o"
"""the papers' series: hollow markers, one shape each"""
PALETTE = ("#332288", "#88CCEE", "#44AA99", "#117733", "#999933", "#DDCC77", "#CC6677", "#882255", "#AA4499")
"""Paul Tol's "muted" scheme: nine colours told apart under the common colour-vision deficiencies (and in grey)."""
HATCHES = ("", "...", "xxx", "---", "+++", "ooo", "|||")
"""Fill patterns that, with the palette, tell bar series apart past nine (never ``////``: that marks n/a)."""
MARKERS = "osD^vPX*h"
"""Point shapes that, with the palette, tell point series apart past nine."""
DIGIT_PT = MIN_FONT * 0.6
"""points: the width of one character at `MIN_FONT` (DejaVu Sans, the estimate `_wrap` uses)."""
CountStyle = Literal["named", "bare", "vertical", "none"]
"""How a figure writes the n above its bars: ``n=12``, ``12``, ``12`` on its side, or not (the caption says)."""
LEGEND_ROW = 0.17
"""inches: the height of one legend row at `MIN_FONT`."""


def series_style(i: int) -> dict[str, str]:
    """The look of series ``i``: a palette colour, and past nine series a fill pattern and a marker of its own, so
    that no two of up to 63 series look alike (the i-th colour cycles fastest; pattern and marker change with each
    round of the palette)."""
    rounds = i // len(PALETTE)
    return {
        "color": PALETTE[i % len(PALETTE)],
        "hatch": HATCHES[rounds % len(HATCHES)],
        "marker": MARKERS[(i + rounds) % len(MARKERS)],
    }


_MPL: dict[str, Any] = {}


def _mpl() -> Any:
    """matplotlib, imported when the first figure is drawn (a report printed to the terminal draws none, and pyplot
    is a large share of a warm report's start-up), with the papers' style applied once: Agg, fonts kept as text."""
    if not _MPL:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
        from matplotlib.lines import Line2D
        from matplotlib.patches import Patch
        from matplotlib.ticker import MaxNLocator

        plt.rcParams.update(
            {
                "svg.fonttype": "none",  # text stays text in the SVG
                "pdf.fonttype": 42,  # TrueType in the PDF: selectable, searchable
                "font.size": 8,
                "axes.titlesize": 8,
                "axes.labelsize": 8,
                "xtick.labelsize": MIN_FONT,
                "ytick.labelsize": MIN_FONT,
                "legend.fontsize": MIN_FONT,
                "axes.spines.top": False,
                "axes.spines.right": False,
                "figure.dpi": 100,
            }
        )
        _MPL.update(plt=plt, Figure=Figure, FigureCanvasAgg=FigureCanvasAgg, Line2D=Line2D, Patch=Patch,
                    MaxNLocator=MaxNLocator, version=matplotlib.__version__)  # fmt: skip
    from types import SimpleNamespace

    return SimpleNamespace(**_MPL)


@dataclass(frozen=True)
class Estimate:
    """A value with its 95% CI and n; ``value is None`` means no data."""

    value: float | None
    low: float | None = None
    high: float | None = None
    n: int = 0
    exact: bool = False
    """The interval is an exact binomial fallback (`statistics.EXACT`), not the interval the table names: every
    rendering marks it ‡ and the table's caption says what that means (`reporting.Table.caption_note`)."""

    @property
    def missing(self) -> bool:
        return self.value is None or (isinstance(self.value, float) and math.isnan(self.value))

    def scaled(self, factor: float = 100.0) -> Estimate:
        """The same estimate in other units (a share as a percentage by default); missing stays missing."""
        if self.missing:
            return self

        def times(v: float | None) -> float | None:
            return None if v is None else v * factor

        return Estimate(times(self.value), times(self.low), times(self.high), self.n, self.exact)


def notes(fig: Figure | Drawing) -> str:
    """What the caption of ``fig`` must say that the figure itself could not show."""
    if isinstance(fig, Drawing):
        return fig.notes()
    return " ".join(getattr(fig, "socialbench_notes", []))


METADATA: dict[str, dict[str, Any]] = {"svg": {"Date": None}, "pdf": {"CreationDate": None}}
"""What a rendering records of when it was made: nothing, so the same figure gives the same file."""
FIGURE_STATS = {"drawn": 0, "cached": 0, "refused": 0}
"""Renderings made by drawing, served from the disk cache, and cache entries refused (damaged or not the one asked
for) and made again."""
P = ParamSpec("P")


def _matplotlib_version() -> str:
    from importlib.metadata import version

    return version("matplotlib")


def _spec(value: Any) -> Any:
    """A figure argument as JSON for the cache key, keeping what drawing depends on: the order of a mapping's
    items (series order), every key (tuples too) and value; a type it does not know is a `TypeError`."""
    if isinstance(value, Mapping):
        return {"map": [[_spec(k), _spec(v)] for k, v in value.items()]}
    if isinstance(value, list | tuple):
        return [_spec(v) for v in value]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {type(value).__name__: [_spec(getattr(value, f.name)) for f in dataclasses.fields(value)]}
    if isinstance(value, np.generic | np.ndarray):
        return value.tolist()
    if value is None or isinstance(value, str | int | float):
        return value
    raise TypeError(f"no cache key for a {type(value).__name__}")


class Drawing:
    """A figure as what draws it (a figure function and its arguments). Its renderings are cached on disk, each
    entry naming its key, format and payload digest and checked on read, so a damaged entry or one of other code is
    drawn again, never served; `figure` draws it whatever the cache holds."""

    def __init__(self, draw: Callable[..., Figure], args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        from .runs import code_digest

        self._draw = functools.partial(draw, *args, **kwargs)
        self._figure: Figure | None = None
        spec = [draw.__qualname__, args, kwargs, code_digest(), _matplotlib_version()]
        try:
            self.key: str | None = hashlib.sha256(json.dumps(_spec(spec)).encode()).hexdigest()
        except (TypeError, ValueError):  # an argument with no faithful key: drawn every time
            self.key = None

    @property
    def figure(self) -> Figure:
        """The matplotlib figure, drawn now if it was not yet."""
        if self._figure is None:
            self._figure = self._draw()
        return self._figure

    def _entry(self, kind: str) -> Any:
        from .retrieval import cache_dir

        return cache_dir() / "figures" / f"{self.key}.{kind}.gz"

    def _cached(self, kind: str, make: Callable[[], bytes]) -> bytes:
        if self.key is None:
            FIGURE_STATS["drawn"] += 1
            return make()
        path = self._entry(kind)
        try:
            with gzip.open(path, "rb") as handle:
                entry: bytes = handle.read()
            head, _, payload = entry.partition(b"\n")
            header = json.loads(head)
            if header == {"key": self.key, "kind": kind, "sha256": hashlib.sha256(payload).hexdigest()}:
                FIGURE_STATS["cached"] += 1
                return payload
            FIGURE_STATS["refused"] += 1
        except FileNotFoundError:
            pass
        except Exception:  # a damaged entry (gzip, zlib, JSON alike) is drawn again
            FIGURE_STATS["refused"] += 1
        payload = make()
        FIGURE_STATS["drawn"] += 1
        header = {"key": self.key, "kind": kind, "sha256": hashlib.sha256(payload).hexdigest()}
        from ..core.errors import InputError
        from ..core.jsonl import atomic_writer

        try:
            with atomic_writer(path, binary=True) as handle:  # .gz: written compressed
                handle.write(json.dumps(header).encode() + b"\n" + payload)
        except (InputError, OSError):  # a cache that cannot be written (read-only home) only costs a redraw
            pass
        return payload

    def render(self, fmt: Literal["svg", "pdf"]) -> bytes:
        """The figure as an SVG or PDF file's bytes."""

        def make() -> bytes:
            buffer = io.BytesIO()
            self.figure.savefig(buffer, format=fmt, metadata=METADATA[fmt])
            return buffer.getvalue()

        return self._cached(fmt, make)

    def notes(self) -> str:
        return self._cached("notes", lambda: notes(self.figure).encode()).decode()


def drawn(draw: Callable[P, Figure]) -> Callable[P, Drawing]:
    """``draw`` as a function that returns its `Drawing` (drawn when a rendering is asked for and not cached)."""

    @functools.wraps(draw)
    def deferred(*args: P.args, **kwargs: P.kwargs) -> Drawing:
        return Drawing(draw, args, kwargs)

    return deferred


def _note(fig: Figure, text: str) -> None:
    existing: list[str] = getattr(fig, "socialbench_notes", [])
    if text not in existing:
        fig.socialbench_notes = [*existing, text]  # type: ignore[attr-defined]


def _wrap(text: str, width: float, font: float = 8.0) -> str:
    """Wrap ``text`` to lines that fit ``width`` inches at ``font`` points (DejaVu Sans: about 0.62 em per
    character on average)."""
    chars = max(8, int(width * 72 / (0.62 * font)))
    return "\n".join(textwrap.wrap(text, chars, break_on_hyphens=False, break_long_words=False)) or text


def _text_inches(text: str, font: float = MIN_FONT) -> float:
    """The width of the longest line of ``text`` in inches (the same estimate as `_wrap`)."""
    return max(len(line) for line in text.split("\n")) * 0.62 * font / 72


def _new(width: float, height: float) -> tuple[Figure, Any]:
    """A figure outside pyplot's registry (a report draws dozens; pyplot would keep them all alive)."""
    mpl = _mpl()
    fig = mpl.Figure(figsize=(width, height), layout="constrained")
    mpl.FigureCanvasAgg(fig)
    return fig, fig.subplots()


def _slot_points(fig: Figure, ax: Any, slots: int, span: float) -> float:
    """Width in points of one bar slot when ``slots`` bars share ``span`` axis units."""
    fig.canvas.draw()
    x0, x1 = ax.get_xlim()
    width_pt = ax.get_window_extent().width * 72 / fig.dpi
    return float(width_pt * (span / max(1, slots)) / max(1e-9, x1 - x0))


def _group_ticks(ax: Any, x: Any, groups: Sequence[str], width: float) -> None:
    """Group labels under the axis: wrapped to the group's width where every word fits, else written vertically
    (never at a slant: slanted labels of neighbouring groups run into each other), the figure made taller by what
    the vertical labels need."""
    per_group = width / max(1, len(groups)) * 0.92
    chars = max(4, int(per_group * 72 / (0.62 * MIN_FONT)))
    flat = ["\n".join(textwrap.wrap(g, chars, break_long_words=False)) or g for g in groups]
    if all(_text_inches(f) <= per_group and f.count("\n") < 3 for f in flat):
        ax.set_xticks(x, flat)
        return
    upright = [_wrap(g, 1.2, MIN_FONT) for g in groups]
    ax.set_xticks(x, upright, rotation=90, ha="center")
    extra = max(_text_inches(u) for u in upright) - 0.35
    if extra > 0:
        fig = ax.figure
        w, h = fig.get_size_inches()
        fig.set_size_inches(w, min(9.0, h + extra))


def _legend(fig: Figure, handles: list[Any], width: float) -> None:
    """The legend under the axes: as many columns as fit the width, labels wrapped where one column is too
    narrow even so."""
    if not handles:
        return
    room = width - 0.3  # inches for the legend: the figure less its pads
    marker = 0.35  # the handle and the gap beside it
    longest = max(_text_inches(h.get_label()) for h in handles)
    columns = max(1, min(len(handles), int(room / (longest + marker))))
    if columns == 1 and longest + marker > room:
        for h in handles:
            h.set_label(_wrap(h.get_label(), room - marker, MIN_FONT))
    fig.legend(handles=handles, loc="outside lower center", ncols=columns, frameon=False)
    # the legend's rows are added to the figure's height, never taken from the plot (a 14-entry legend in one
    # column once left a 30 px plot)
    lines = sum(1 + h.get_label().count("\n") for h in handles[::columns])
    w, h = fig.get_size_inches()
    fig.set_size_inches(w, min(9.0, h + lines * LEGEND_ROW))


def _label_references(ax: Any, references: Mapping[str, float], scale: float, x_label: float) -> None:
    """Dashed lines up to a column left free for their labels, each labelled there, the labels pushed apart so
    that no two overlap (a thin leader in the gap before the column joins a moved label to its line)."""
    if not references:
        return
    styles = ["--", ":", "-.", (0, (5, 2, 1, 2)), (0, (1, 1)), (0, (3, 1, 1, 1, 1, 1))]
    fig = ax.figure
    fig.canvas.draw()
    low, high = ax.get_ylim()
    x0, x1 = ax.get_xlim()
    box = ax.get_window_extent()
    inch_per_unit = box.width / fig.dpi / (x1 - x0)
    gap = 0.12 / inch_per_unit  # data units: room for the leaders
    width = max(0.5, (x1 - x_label - gap) * inch_per_unit - 0.03)  # inches left for the labels
    per_point = (high - low) / max(1.0, box.height * 72 / fig.dpi)
    items = []
    for k, (label, value) in enumerate(sorted(references.items(), key=lambda kv: kv[1])):
        text = _wrap(label, width, MIN_FONT)
        lines = text.count("\n") + 1
        ax.plot([x0, x_label], [value * scale] * 2, ls=styles[k % len(styles)], lw=0.9, color="dimgrey", zorder=1)
        items.append([value * scale, value * scale, lines * MIN_FONT * 1.3 * per_point, text])
    for i in range(1, len(items)):  # sweep up: each label at least half its own and its neighbour's height apart
        need = items[i - 1][1] + (items[i - 1][2] + items[i][2]) / 2
        items[i][1] = max(items[i][1], need)
    overflow = items[-1][1] + items[-1][2] / 2 - high
    if overflow > 0:
        for item in items:
            item[1] -= overflow
        for i in range(len(items) - 2, -1, -1):  # and back down where the shift made them collide
            items[i][1] = min(items[i][1], items[i + 1][1] - (items[i][2] + items[i + 1][2]) / 2)
    for value, y, _, text in items:
        if abs(y - value) > 1e-9:
            ax.plot([x_label, x_label + gap], [value, y], lw=0.5, color="grey", zorder=1)
        ax.text(x_label + gap, y, text, fontsize=MIN_FONT, va="center", ha="left", color="dimgrey")
    ax.set_xlim(x0, x1)


FACET_SERIES = len(PALETTE)
"""Series per panel of grouped bars: past this many, bars are drawn as small multiples (panels stacked on one
shared axis, each with a legend of its own), so that within a panel colour alone tells series apart."""
MAX_PANELS = 4
"""Panels per figure: four keep each panel's plot and legend readable on a page; past 36 series the panels hold
more than the palette and add fill patterns."""
PANEL_LEGEND_WIDTH = 2.0
"""inches: the legend column beside each panel"""


def _panels(count: int) -> list[range]:
    """The series of each panel: one panel up to `FACET_SERIES`, else as few panels as keep each within it (at
    most `MAX_PANELS`), filled evenly."""
    if count <= FACET_SERIES:
        return [range(count)]
    panels = min(MAX_PANELS, math.ceil(count / FACET_SERIES))
    per = math.ceil(count / panels)
    return [range(start, min(count, start + per)) for start in range(0, count, per)]


def _panel_axes(width: float, legend_rows: int, panels: int, least: float) -> tuple[Figure, list[Any]]:
    """A figure of ``panels`` stacked axes sharing both axes, each at least ``least`` inches tall and as tall as its
    legend of ``legend_rows`` rows beside it (small multiples: `bars`, `scatter`)."""
    panel_height = max(least, legend_rows * LEGEND_ROW + 0.35)
    mpl = _mpl()
    fig = mpl.Figure(figsize=(width, min(9.0, 0.8 + panel_height * panels)), layout="constrained")
    mpl.FigureCanvasAgg(fig)
    return fig, list(np.atleast_1d(fig.subplots(panels, 1, sharex=True, sharey=True)))


def _panel_legend(ax: Any, members: range, count: int, handles: list[Any]) -> None:
    """A panel's title ("series 1–8 of 15") and its own legend beside it."""
    ax.set_title(f"series {members.start + 1}–{members.stop} of {count}", loc="left", fontsize=MIN_FONT)
    ax.legend(handles=handles, loc="center left", bbox_to_anchor=(1.01, 0.5), frameon=False)


@dataclass
class _Panel:
    """What one panel of `bars` drew: its axes, legend entries and every estimate with its slot."""

    ax: Any
    handles: list[Any]
    estimates: list[tuple[float, Estimate]]


@drawn
def bars(
    title: str,
    groups: Sequence[str],
    series: Mapping[str, Sequence[Estimate]],
    ylabel: str = "accuracy (%)",
    scale: float = 100.0,
    references: Mapping[str, float] | None = None,
    paper: Mapping[str, Sequence[float | None]] | None = None,
    ylim: tuple[float, float] | None = None,
    n_label: str = "n",
    paper_matches: str | None = None,
    width: float | None = None,
) -> Figure:
    """Grouped bars (one group per label, one bar per series) with 95% CI whiskers and ``n_label=N`` above each
    bar; missing values as hatched stubs marked "n/a"; ``references`` as dashed lines labelled at the line;
    ``paper`` series as hollow markers, in the slot of the series named ``paper_matches`` (the quantity the
    paper's number is comparable with) or spread over the group. Non-negative quantities start at 0.

    Past `FACET_SERIES` series the bars are small multiples: panels stacked over the same groups and the same
    y axis, each with its own legend beside it (the paper's series in every panel where they have no series to
    stand beside), so no panel holds more bars per group than colours tell apart."""
    ours = [(name, list(values)) for name, values in series.items()]
    printed = list((paper or {}).items())
    if paper_matches not in series:  # nothing to stand beside: each paper series gets a slot of its own
        paper_matches = None
    matched = list(series).index(paper_matches) if paper_matches is not None else -1
    panels = _panels(len(ours))
    faceted = len(panels) > 1
    k = max(1, max(len(p) for p in panels))
    paper_slots = len(printed) if paper_matches is None else 0
    slots = len(groups) * (k + paper_slots)
    width = width or (COLUMN_WIDTH if not faceted and slots <= (4 if references else 10) else TEXT_WIDTH)
    if faceted:
        legend_rows = max(
            sum(1 + _wrap(ours[i][0], PANEL_LEGEND_WIDTH - 0.35, MIN_FONT).count("\n") for i in members) + len(printed)
            for members in panels
        )
        fig, axes = _panel_axes(width, legend_rows, len(panels), 1.5)
    else:
        fig, ax = _new(width, 2.6 if width == COLUMN_WIDTH else 3.0)
        axes = [ax]
    x = np.arange(len(groups), dtype=float)
    slot = 0.8 / (k + paper_slots)
    values_seen: list[float] = [0.0]
    drawn: list[_Panel] = []
    any_missing = False
    for ax, members in zip(axes, panels, strict=True):
        panel = _Panel(ax, [], [])
        drawn.append(panel)
        for local, i in enumerate(members):
            name, values = ours[i]
            offset = x - 0.4 + slot * (local + 0.5)
            look = series_style(i)  # the figure's own style per series: no two panels show one colour for two series
            color = look["color"]
            label = _wrap(name, PANEL_LEGEND_WIDTH - 0.35, MIN_FONT) if faceted else name
            panel.handles.append(_mpl().Patch(facecolor=color, edgecolor="white", hatch=look["hatch"], label=label))
            for j, est in enumerate(values[: len(groups)]):
                panel.estimates.append((offset[j], est))
                if est.missing:
                    any_missing = True
                    continue
                value = float(est.value or 0.0) * scale
                ax.bar(offset[j], value, slot * 0.92, color=color, hatch=look["hatch"], edgecolor="white", lw=0,
                       zorder=2)  # fmt: skip
                if value == 0:  # a bar of height 0 would draw nothing: a thick line in the series' colour over the
                    # axis line, not clipped by the axes (half of it would be) nor hidden under the spine
                    half = slot * 0.46
                    ax.plot([offset[j] - half, offset[j] + half], [0, 0], color=color, lw=3.5,
                            solid_capstyle="butt", zorder=4, clip_on=False)  # fmt: skip
                values_seen.append(value)
                if est.low is not None and est.high is not None:
                    lo, hi = est.low * scale, est.high * scale
                    # a whisker never points inward (an interval computed apart may round past its estimate)
                    below, above = max(0.0, value - lo), max(0.0, hi - value)
                    ax.errorbar(offset[j], value, yerr=[[below], [above]], color="black", capsize=1.5, lw=0.7)
                    values_seen += [lo, hi]
        if paper_matches is not None and matched not in members:
            continue  # the paper's numbers stand beside their series, in its panel only
        for p, (name, numbers) in enumerate(printed):
            if paper_matches is not None:
                at = x - 0.4 + slot * (matched - members.start + 0.5)
            else:
                at = x - 0.4 + slot * (len(members) + p + 0.5)
            marker = PAPER_MARKERS[p % len(PAPER_MARKERS)]
            shown = [(at[j], float(v) * scale) for j, v in enumerate(numbers[: len(groups)]) if v is not None]
            label = name if "paper" in name.lower() else f"{name} (paper)"
            panel.handles.append(
                _mpl().Line2D([], [], ls="none", marker=marker, mfc="white", mec="black", ms=5, mew=0.9, label=label)
            )
            if shown:
                xs, ys = zip(*shown, strict=True)
                ax.plot(xs, ys, ls="none", marker=marker, mfc="white", mec="black", ms=5, mew=0.9, zorder=4)
                values_seen += list(ys)
    if printed:
        _note(fig, "Hollow markers are the paper's numbers (none where the paper gives none).")
    bottom = min(values_seen)
    top = max(values_seen)
    if ylim is None:
        headroom = (top - min(0.0, bottom)) * 0.22 or scale * 0.1
        ylim = (min(0.0, bottom - headroom * 0.3) if bottom < 0 else 0.0, top + headroom)
        for value in (references or {}).values():
            ylim = (min(ylim[0], value * scale), max(ylim[1], value * scale * 1.05))
    right = len(groups) - 0.5 + (1.2 if references else 0.0) * max(1.0, len(groups) / 6)
    for panel in drawn:
        panel.ax.set_ylim(*ylim)
        if scale == 100.0 and "%" in ylabel and ylim[1] > 100:  # headroom for the n labels, but no tick past 100%
            panel.ax.set_yticks([t for t in panel.ax.get_yticks() if ylim[0] <= t <= 100 + 1e-9])
        panel.ax.set_xlim(-0.5, right)
        if bottom < 0:
            panel.ax.axhline(0, color="black", lw=0.6)
        panel.ax.set_ylabel(ylabel)
    _group_ticks(axes[-1], x, groups, width * (len(groups) / (right + 0.5)))
    if faceted:
        fig.suptitle(_wrap(title, width - 0.4), fontsize=8)
        for panel, members in zip(drawn, panels, strict=True):
            _panel_legend(panel.ax, members, len(ours), panel.handles)
        _note(fig, f"{len(ours)} series in {len(panels)} panels over the same groups and scale; each series has a "
                   "look of its own (colour, and past nine a fill pattern) across the panels.")  # fmt: skip
    else:
        axes[0].set_title(_wrap(title, width - 0.4))
    slot_pt = _slot_points(fig, axes[0], 1, slot)
    lift = (ylim[1] - ylim[0]) * 0.01
    estimates = [e for panel in drawn for e in panel.estimates]
    counts = sorted({e.n for _, e in estimates if e.n})
    digits = len(str(counts[-1])) if counts else 1
    # one way of writing n for the whole figure, the widest that fits every slot: "n=1000" is wider than "n=4"
    # each label needs its width and a gap of a space's width (half a digit's): "66" and "666" side by side must
    # not read "66666"
    if slot_pt >= (len(n_label) + 1.5 + digits) * DIGIT_PT:
        counted: CountStyle = "named"
    elif slot_pt >= (digits + 0.5) * DIGIT_PT:
        counted = "bare"
    else:
        counted = "vertical" if slot_pt >= MIN_FONT + 2 else "none"
    for panel in drawn:
        for at_x, est in panel.estimates:
            _count_or_stub(panel.ax, at_x, est, ylim, slot, slot_pt, scale, lift, n_label, counted)
    if counted != "named" and counts:
        span = f"{counts[0]}" if len(counts) == 1 else f"{counts[0]}–{counts[-1]}"
        where = {"bare": "above each bar", "vertical": "written vertically above each bar"}.get(counted, "in the table")
        _note(fig, f"{n_label} per bar ({span}) {where}.")
    common: list[Any] = []  # entries every panel shares: under the figure once
    if any_missing:
        common.append(_mpl().Patch(fill=False, hatch="////", edgecolor="grey", label="n/a: no data"))
        if slot_pt < MIN_FONT + 1:
            _note(fig, "Hatched stubs mark values without data (n/a).")
    if any(e.low is not None for _, e in estimates):
        common.append(_mpl().Line2D([], [], color="black", lw=0.7, marker="|", label="95% CI"))
    # first: the legend takes room from the axes, which the label spacing needs
    _legend(fig, common if faceted else drawn[0].handles + common, width)
    for panel in drawn:
        _label_references(panel.ax, references or {}, scale, len(groups) - 0.45)
    return fig


def _count_or_stub(
    ax: Any,
    at_x: float,
    est: Estimate,
    ylim: tuple[float, float],
    slot: float,
    slot_pt: float,
    scale: float,
    lift: float,
    n_label: str,
    counted: CountStyle,
) -> None:
    """Above a bar its ``n`` as the figure writes them (``n_label=N``, the bare number, the number on its side --
    upright when one digit: an "8" on its side reads as "∞" -- or not at all); for a missing value a hatched stub
    marked "n/a"."""
    if est.missing:
        ax.bar(at_x, (ylim[1] - ylim[0]) * 0.03, slot * 0.92, bottom=max(0.0, ylim[0]), fill=False,
               hatch="////", edgecolor="grey", lw=0.6, zorder=2)  # fmt: skip
        if slot_pt >= MIN_FONT + 1:
            ax.text(at_x, max(0.0, ylim[0]) + (ylim[1] - ylim[0]) * 0.04, "n/a", rotation=90, ha="center",
                    va="bottom", fontsize=MIN_FONT, color="dimgrey")  # fmt: skip
        return
    y = max(float(est.value or 0.0) * scale, est.high * scale if est.high is not None else -math.inf) + lift
    if not est.n or counted == "none":
        return
    text = f"{n_label}={est.n}" if counted == "named" else f"{est.n}"
    upright = counted in ("named", "bare") or est.n < 10
    ax.text(at_x, y, text, ha="center", va="bottom", fontsize=MIN_FONT, rotation=0 if upright else 90)


@drawn
def dots(
    title: str,
    rows: Sequence[tuple[str, Estimate, bool]],
    xlabel: str = "accuracy (%)",
    scale: float = 100.0,
    references: Mapping[str, float] | None = None,
    xlim: tuple[float, float] = (0.0, 100.0),
) -> Figure:
    """One labelled row per (label, estimate, is_paper): ours as filled dots with CI and n, the paper's as hollow
    diamonds; the row label names each directly, so no legend is needed to tell them apart. Reference lines are
    vertical, labelled in a strip above the rows."""
    labels = [_wrap(r[0] + (" (paper)" if r[2] and "paper" not in r[0] else ""), 1.5, MIN_FONT) for r in rows]
    lines = max([label.count("\n") + 1 for label in labels] or [1])
    height = min(9.0, max(1.8, max(0.24, 0.14 * lines + 0.06) * len(rows) + 1.1))
    fig, ax = _new(COLUMN_WIDTH, height)
    ys = np.arange(len(rows))[::-1]
    span = xlim[1] - xlim[0]
    for y, (_, est, is_paper) in zip(ys, rows, strict=True):
        if est.missing:
            ax.text(xlim[0] + span * 0.01, y, "n/a", va="center", fontsize=MIN_FONT, color="dimgrey")
            continue
        value = float(est.value or 0.0) * scale
        if is_paper:
            ax.plot([value], [y], marker="D", mfc="white", mec="black", ms=5, ls="none")
            continue
        high = value
        if est.low is not None and est.high is not None:
            ax.plot([est.low * scale, est.high * scale], [y, y], color="black", lw=0.8)
            high = est.high * scale
        ax.plot([value], [y], marker="o", color=PALETTE[0], ms=5, ls="none")
        if est.n:
            right = high + span * 0.02 < xlim[1] - span * 0.12
            low = est.low * scale if est.low is not None else value
            ax.text(high + span * 0.02 if right else low - span * 0.02, y, f"n={est.n}", va="center",
                    ha="left" if right else "right", fontsize=MIN_FONT)  # fmt: skip
    ax.set_yticks(ys, labels)
    top = len(rows) - 0.4 + (0.9 if references else 0.0)
    ax.set_ylim(-0.7, top)
    ax.set_xlim(*xlim)
    ax.set_xlabel(xlabel)
    fig.suptitle(_wrap(title, COLUMN_WIDTH - 0.2), fontsize=8)  # over the figure: the row labels shift the axes
    for k, (label, value) in enumerate((references or {}).items()):
        ax.plot([value * scale] * 2, [-0.7, len(rows) - 0.4], ls=["--", ":", "-."][k % 3], lw=0.8, color="dimgrey")
        ax.text(value * scale + span * 0.01, len(rows) - 0.1 + 0.35 * k, label, va="center", ha="left",
                fontsize=MIN_FONT, color="dimgrey")  # fmt: skip
    _note(fig, "Filled dots: this run, with 95% CI; hollow diamonds: the paper's numbers.")
    return fig


@drawn
def heatmap(
    title: str,
    rows: Sequence[str],
    columns: Sequence[str],
    cells: Mapping[tuple[str, str], Estimate],
    scale: float = 100.0,
    label: str = "accuracy (%)",
) -> Figure:
    """Rows x columns, each cell its value (with CI and n where the cell is large enough); cells without data
    grey and marked "n/a"."""
    data = np.full((len(rows), len(columns)), np.nan)
    for (r, c), cell in cells.items():
        if not cell.missing and r in rows and c in columns:
            data[rows.index(r), columns.index(c)] = float(cell.value or 0.0) * scale
    # long row labels (a setting with its marks: "full: llm-retriever [fell back to Full on 1/1] ...") take the
    # text width and are wrapped to half of it, each row as tall as its label: unwrapped they left no plot
    long_labels = any(_text_inches(r) > 0.4 * COLUMN_WIDTH for r in rows)
    width = COLUMN_WIDTH if len(columns) <= 2 and not long_labels else TEXT_WIDTH
    labels = [_wrap(r, width * 0.5, MIN_FONT) for r in rows]
    height = sum(max(0.3, 0.12 * (label.count("\n") + 1)) for label in labels) + 1.3
    fig, ax = _new(width, min(9.0, max(2.0, height)))
    cmap = _mpl().plt.get_cmap("viridis").with_extremes(bad="#dddddd")
    image = ax.imshow(np.ma.masked_invalid(data), cmap=cmap, aspect="auto", vmin=0, vmax=scale)
    ax.set_xticks(range(len(columns)), [_wrap(c, 1.2, MIN_FONT) for c in columns], rotation=30, ha="right")
    ax.set_yticks(range(len(rows)), labels)
    ax.set_title(_wrap(title, width - 0.4))
    fig.colorbar(image, ax=ax, label=label, shrink=0.8)
    fig.canvas.draw()
    box = ax.get_window_extent()
    cell_w = box.width * 72 / fig.dpi / max(1, len(columns))
    cell_h = box.height * 72 / fig.dpi / max(1, len(rows))
    full = cell_w >= 44 and cell_h >= 3 * MIN_FONT * 1.2
    for i, r in enumerate(rows):
        for j, c in enumerate(columns):
            est = cells.get((r, c))
            if est is None or est.missing:
                ax.text(j, i, "n/a", ha="center", va="center", fontsize=MIN_FONT, color="dimgrey")
                continue
            text = f"{data[i, j]:.1f}"
            if full and est.low is not None and est.high is not None:
                text += f"\n[{est.low * scale:.0f}, {est.high * scale:.0f}]\nn={est.n}"
            color = "white" if data[i, j] < 0.6 * scale else "black"
            ax.text(j, i, text, ha="center", va="center", fontsize=MIN_FONT, color=color)
    if not full:
        _note(fig, "Cells show the accuracy; its 95% CI and n are in the table.")
    return fig


@drawn
def scatter(
    title: str,
    points: Mapping[str, Sequence[tuple[float, float]]],
    xlabel: str,
    ylabel: str,
    annotations: Mapping[str, str] | None = None,
    scale_y: float = 100.0,
    ylim: tuple[float, float] | None = (0.0, 100.0),
    fits: Mapping[str, tuple[float, float]] | None = None,
) -> Figure:
    """One point series per label (e.g. per model), with a per-series note in the legend (e.g. Spearman's rho);
    ``fits`` draws a series' least-squares line (slope, intercept) over its x range.

    Past `FACET_SERIES` series the points are small multiples, as `bars` draws them: panels stacked over the same
    axes, each with up to nine series and its legend beside it (fifteen series in one plot stacked their markers,
    and their legend under it was twice the plot's height)."""
    series = list(points.items())
    panels = _panels(len(series))
    faceted = len(panels) > 1

    def label(name: str) -> str:
        text = f"{name} {(annotations or {}).get(name, '')}".strip()
        return _wrap(text, PANEL_LEGEND_WIDTH - 0.35, MIN_FONT) if faceted else text

    if faceted:
        rows = max(sum(1 + label(series[i][0]).count("\n") for i in members) for members in panels)
        fig, axes = _panel_axes(TEXT_WIDTH, rows, len(panels), 1.6)
    else:
        fig, ax = _new(COLUMN_WIDTH, 2.8)
        axes = [ax]
    every_handle = []
    for ax, members in zip(axes, panels, strict=True):
        handles = []
        for i in members:
            name, pts = series[i]
            look = series_style(i)
            handles.append(
                _mpl().Line2D([], [], ls="none", marker=look["marker"], color=look["color"], label=label(name))
            )
            if not pts:
                continue
            xs, ys = zip(*pts, strict=True)
            ax.scatter(xs, [y * scale_y for y in ys], s=14, marker=look["marker"], color=look["color"])
            if fits and name in fits:
                slope, intercept = fits[name]
                ends = [min(xs), max(xs)]
                ax.plot(ends, [(slope * x + intercept) * scale_y for x in ends], color=look["color"], lw=1.0)
        every_handle += handles
        ax.set_ylabel(ylabel)
        ax.xaxis.set_major_locator(_mpl().MaxNLocator(5))  # long tick numbers: few enough that they never touch
        if ylim is not None:
            ax.set_ylim(*ylim)
        if faceted:
            _panel_legend(ax, members, len(series), handles)
    if not any(points.values()):
        axes[0].text(0.5, 0.5, "no data", ha="center", va="center", transform=axes[0].transAxes, color="dimgrey")
    axes[-1].set_xlabel(xlabel)
    if faceted:
        fig.suptitle(_wrap(title, TEXT_WIDTH - 0.4), fontsize=8)
        _note(fig, f"{len(series)} series in {len(panels)} panels over the same axes; each series has a look of "
                   "its own across the panels.")  # fmt: skip
    else:
        axes[0].set_title(_wrap(title, COLUMN_WIDTH - 0.4))
        _legend(fig, every_handle, COLUMN_WIDTH)
    return fig


@drawn
def stacked_shares(title: str, groups: Sequence[str], shares: Mapping[str, Sequence[float | None]]) -> Figure:
    """Stacked 100% bars (e.g. option-choice distributions); a group with no data is a hatched empty bar."""
    width = COLUMN_WIDTH if len(groups) <= 6 else TEXT_WIDTH
    fig, ax = _new(width, 2.8)
    bottom = np.zeros(len(groups))
    x = np.arange(len(groups))
    columns = list(shares)
    present = [all(shares[c][j] is not None for c in columns) for j in range(len(groups))]
    handles: list[Any] = []
    for i, col in enumerate(columns):
        values = np.array([(shares[col][j] or 0.0) * 100 if present[j] else 0.0 for j in range(len(groups))])
        look = series_style(i)
        ax.bar(x, values, 0.6, bottom=bottom, color=look["color"], hatch=look["hatch"], edgecolor="white", lw=0)
        handles.append(_mpl().Patch(facecolor=look["color"], hatch=look["hatch"], edgecolor="white", label=col))
        bottom += values
    for j, ok in enumerate(present):
        if not ok:
            ax.bar(x[j], 100, 0.6, fill=False, hatch="////", edgecolor="grey")
            ax.text(x[j], 50, "n/a", ha="center", va="center", fontsize=MIN_FONT, rotation=90)
    if not all(present):
        handles.append(_mpl().Patch(fill=False, hatch="////", edgecolor="grey", label="n/a: no data"))
    ax.axhline(25, ls=":", lw=0.8, color="black")
    handles.append(_mpl().Line2D([], [], ls=":", lw=0.8, color="black", label="uniform (25%)"))
    _group_ticks(ax, x, groups, width)
    ax.set_ylabel("share of answers (%)")
    ax.set_ylim(0, 100)
    ax.set_title(_wrap(title, width - 0.4))
    _legend(fig, handles, width)
    return fig


def estimate(values: Sequence[float], outcomes: Outcomes = None) -> Estimate:
    """Mean, percentile bootstrap 95% CI and n of a sample; missing when empty. ``outcomes="binary"``: 0/1 values,
    whose interval is the exact binomial one where every value is alike (`statistics.bootstrap_ci`)."""
    from .statistics import bootstrap_ci

    if not values:
        return Estimate(None)
    low, high = bootstrap_ci(values, outcomes=outcomes)
    if math.isnan(low) or math.isnan(high):  # no interval can be formed (every score alike): none, never a point
        return Estimate(float(np.mean(values)), None, None, len(values))
    return Estimate(float(np.mean(values)), low, high, len(values))


def share(values: Sequence[float]) -> Estimate:
    """Share of 0/1 outcomes with its Wilson 95% interval (`statistics.proportion_ci`, as every accuracy in the
    reports: docs/reports.md); missing when empty."""
    from .statistics import proportion_ci

    if not values:
        return Estimate(None)
    low, high = proportion_ci(values)
    return Estimate(float(np.mean(values)), low, high, len(values))


def from_line(line: Mapping[str, object] | None, value: str = "accuracy", n: str = "n") -> Estimate:
    """An `Estimate` from a report row ``{value, ci95: [low, high], n}``; missing when the row or value is."""
    if not line or line.get(value) is None:
        return Estimate(None)
    ci: Any = line.get("ci95") or (None, None)
    count: Any = line.get(n) or 0
    exact = str(line.get("ci_method") or "").startswith(EXACT)
    return Estimate(float(line[value]), ci[0], ci[1], int(count), exact)  # type: ignore[arg-type]
