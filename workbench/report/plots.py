"""The report's figures as PNG bytes.

matplotlib: the plotting library scientists know from papers, fully offline, and its
Agg backend draws to PNG without a display (CI, servers, Ray workers).
"""
from __future__ import annotations

import io

import matplotlib

matplotlib.use("Agg")                   # no display needed; set before pyplot loads
import matplotlib.pyplot as plt  # noqa: E402

from . import metrics, published  # noqa: E402
from .data import CellResult  # noqa: E402

DPI = 110


def _png(fig) -> bytes:
    buf = io.BytesIO()
    fig.tight_layout()
    fig.savefig(buf, format="png", dpi=DPI)
    plt.close(fig)
    return buf.getvalue()


def _empty(ax, text: str) -> None:
    ax.text(0.5, 0.5, text, ha="center", va="center", transform=ax.transAxes, color="0.4")


def speedup_distribution(rows: list[CellResult]) -> bytes:
    groups = metrics.by([r for r in rows if r.speedup is not None],
                        lambda r: f"{r.accel} L{r.level}")
    fig, ax = plt.subplots(figsize=(6.4, 3.6))
    if groups:
        labels = list(groups)
        data = [[r.speedup for r in groups[k]] for k in labels]
        ax.boxplot(data, tick_labels=labels, showmeans=True)
        for i, vals in enumerate(data, 1):
            ax.scatter([i] * len(vals), vals, s=14, alpha=0.6, color="tab:blue", zorder=3)
        # The paper's best-agent speed-ups on the same (task, configuration) cells.
        pub = [(i, published.speedup(r.accel, r.task, r.config))
               for i, k in enumerate(labels, 1) for r in groups[k]]
        pub = [(i, v) for i, v in pub if v is not None]
        if pub:
            ax.scatter([i + 0.15 for i, _ in pub], [v for _, v in pub], s=22, marker="D",
                       facecolors="none", edgecolors="tab:red", zorder=4,
                       label="published (same task and configuration)")
            ax.legend(fontsize=7)
    else:
        _empty(ax, "no solved runs")
    ax.axhline(1.0, color="0.5", lw=0.8, ls="--")
    ax.set_ylabel("speed-up over the baseline (solved runs)")
    ax.set_title("Speed-up distribution per accelerator and level")
    return _png(fig)


def fast_p_curves(rows: list[CellResult]) -> bytes:
    top = max([r.speedup for r in rows if r.speedup is not None] + [2.0]) * 1.1
    ps = [i * top / 200 for i in range(201)]
    fig, ax = plt.subplots(figsize=(6.4, 3.6))
    for (model, accel), sel in metrics.by(rows, lambda r: (r.model, r.accel)).items():
        curve = metrics.fast_p_curve(sel, ps)
        ax.plot([p for p, _ in curve], [f for _, f in curve], label=f"{model} on {accel}")
    for p in metrics.FAST_P:
        ax.axvline(p, color="0.8", lw=0.8, zorder=0)
    ax.set_xlabel("p (speed-up threshold)")
    ax.set_ylabel("fast_p (share of runs)")
    ax.set_ylim(-0.02, 1.02)
    ax.set_title("fast_p over p")
    if rows:
        ax.legend(fontsize=7)
    else:
        _empty(ax, "no runs")
    return _png(fig)


def solved_per_model(rows: list[CellResult]) -> bytes:
    """Success rate per model and accelerator/level; the published models' rates for
    the same platform and level beside them, hatched and labelled (published)."""
    bars: list[tuple[str, str, float, bool]] = []     # (group, label, rate, published)
    for (accel, level), sel in metrics.by(rows, lambda r: (r.accel, r.level)).items():
        for model, msel in metrics.by(sel, lambda r: r.model).items():
            bars.append((f"{accel} L{level}", model,
                         sum(r.solved for r in msel) / len(msel), False))
        for model, (k, n) in published.solved(accel, level).items():
            bars.append((f"{accel} L{level}", f"{model} (published)", k / n, True))
    fig, ax = plt.subplots(figsize=(7.2, 3.8))
    if bars:
        labels = sorted({b[1] for b in bars}, key=lambda s: (s.endswith("(published)"), s))
        groups = list(dict.fromkeys(b[0] for b in bars))
        width = 0.8 / len(labels)
        cmap = plt.get_cmap("tab10")
        for j, label in enumerate(labels):
            xs, ys = [], []
            for i, g in enumerate(groups):
                hit = [b for b in bars if b[0] == g and b[1] == label]
                if hit:
                    xs.append(i + j * width - 0.4 + width / 2)
                    ys.append(hit[0][2])
            pub = label.endswith("(published)")
            ax.bar(xs, ys, width, label=label, color=cmap(j % 10), alpha=0.45 if pub else 0.9,
                   hatch="//" if pub else None, edgecolor="0.3")
        ax.set_xticks(range(len(groups)), groups)
        ax.legend(fontsize=6, ncol=3, loc="upper center")
    else:
        _empty(ax, "no runs")
    ax.set_ylim(0, 1.4)
    ax.set_ylabel("cells solved within budget (share)")
    ax.set_title("Solved cells per model")
    return _png(fig)


def cost_vs_success(rows: list[CellResult]) -> bytes:
    fig, ax = plt.subplots(figsize=(6.4, 3.6))
    for model, sel in metrics.by(rows, lambda r: r.model).items():
        cost = sum(r.cost for r in sel)
        rate = sum(r.solved for r in sel) / len(sel)
        ax.scatter([cost], [rate], s=40)
        ax.annotate(f"{model} ({len(sel)} runs)", (cost, rate), fontsize=7,
                    xytext=(4, 4), textcoords="offset points")
    if not rows:
        _empty(ax, "no runs")
    ax.set_xlabel("total cost (USD)")
    ax.set_ylabel("success rate")
    ax.set_ylim(-0.05, 1.1)
    ax.set_title("Cost vs. success")
    return _png(fig)


FIGURES = {
    "speedup_distribution": ("Speed-up distribution per accelerator and level", speedup_distribution),
    "fast_p": ("fast_p over p", fast_p_curves),
    "solved_per_model": ("Solved cells per model (published beside ours)", solved_per_model),
    "cost_vs_success": ("Cost vs. success", cost_vs_success),
}


def all_figures(rows: list[CellResult]) -> dict[str, tuple[str, bytes]]:
    return {name: (title, fn(rows)) for name, (title, fn) in FIGURES.items()}
