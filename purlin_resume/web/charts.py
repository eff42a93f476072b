"""Charts drawn on the server as SVG: horizontal bars and columns over time. No script runs to
draw them and nothing is fetched; each bar carries its value (``data-value``) and a tooltip."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from html import escape

from markupsafe import Markup

from purlin_resume.core import redact

WIDTH = 560
ROW = 22
LABEL_WIDTH = 200
COLUMN_AREA = 160


def _number(value: float) -> str:
    return f"{value:,.0f}" if float(value).is_integer() else f"{value:,.2f}"


def _empty(name: str, title: str) -> Markup:
    return Markup(
        f'<svg class="chart" data-chart="{escape(name)}" role="img" viewBox="0 0 {WIDTH} 40" '
        f'aria-label="{escape(title)}: no data"><text x="8" y="24" class="empty">no data</text></svg>'
    )


def _short(text: str, limit: int = 30) -> str:
    return redact.one_line(text, limit)


def bars(
    name: str,
    title: str,
    rows: Sequence[tuple[str, float]],
    shown: Callable[[float], str] = _number,
    maximum: float | None = None,
) -> Markup:
    """One horizontal bar per (label, value), longest scale = ``maximum`` or the largest value."""
    if not rows:
        return _empty(name, title)
    top = maximum or max(value for _, value in rows) or 1
    span = WIDTH - LABEL_WIDTH - 70
    height = ROW * len(rows) + 8
    parts = [
        f'<svg class="chart" data-chart="{escape(name)}" role="img" '
        f'viewBox="0 0 {WIDTH} {height}" aria-label="{escape(title)}">'
    ]
    for index, (label, value) in enumerate(rows):
        y = 4 + index * ROW
        length = max(1.0, span * (value / top)) if value else 0.0  # value / top: 1e308 stays finite
        parts.append(
            f'<text x="{LABEL_WIDTH - 6}" y="{y + 15}" text-anchor="end" class="label">'
            f"{escape(_short(str(label)))}</text>"
            f'<rect class="bar" x="{LABEL_WIDTH}" y="{y + 3}" width="{length:.1f}" height="{ROW - 6}"'
            f' data-value="{value}"><title>{escape(str(label))}: {escape(shown(value))}</title></rect>'
            f'<text x="{LABEL_WIDTH + length + 6:.1f}" y="{y + 15}" class="value">'
            f"{escape(shown(value))}</text>"
        )
    parts.append("</svg>")
    return Markup("".join(parts))


def columns(
    name: str, title: str, rows: Sequence[tuple[str, float, float]], legend: tuple[str, str]
) -> Markup:
    """Columns over time: (label, total, part of it), the part drawn inside its total."""
    if not rows:
        return _empty(name, title)
    top = max(total for _, total, _ in rows) or 1
    step = (WIDTH - 60) / len(rows)
    width = max(1.0, step * 0.8)
    base = COLUMN_AREA + 10
    parts = [
        f'<svg class="chart" data-chart="{escape(name)}" role="img" '
        f'viewBox="0 0 {WIDTH} {base + 40}" aria-label="{escape(title)}">',
        f'<text x="4" y="14" class="value">{escape(_number(top))}</text>',
        f'<line x1="50" y1="{base}" x2="{WIDTH}" y2="{base}" class="axis"/>',
    ]
    for index, (label, total, part) in enumerate(rows):
        x = 55 + index * step
        high = COLUMN_AREA * (total / top)
        inner = COLUMN_AREA * (part / top)
        tip = f"{label}: {_number(total)} ({legend[1]} {_number(part)})"
        parts.append(
            f'<rect class="bar total" x="{x:.1f}" y="{base - high:.1f}" width="{width:.1f}" '
            f'height="{high:.1f}" data-value="{total}"><title>{escape(tip)}</title></rect>'
            f'<rect class="bar part" x="{x:.1f}" y="{base - inner:.1f}" width="{width:.1f}" '
            f'height="{inner:.1f}" data-value="{part}"><title>{escape(tip)}</title></rect>'
        )
    first, last = rows[0][0], rows[-1][0]
    parts.append(f'<text x="55" y="{base + 16}" class="label">{escape(first)}</text>')
    if last != first:
        parts.append(
            f'<text x="{WIDTH - 4}" y="{base + 16}" text-anchor="end" class="label">'
            f"{escape(last)}</text>"
        )
    parts.append(
        f'<rect x="55" y="{base + 26}" width="10" height="10" class="bar total"/>'
        f'<text x="70" y="{base + 35}" class="label">{escape(legend[0])}</text>'
        f'<rect x="175" y="{base + 26}" width="10" height="10" class="bar part"/>'
        f'<text x="190" y="{base + 35}" class="label">{escape(legend[1])}</text></svg>'
    )
    return Markup("".join(parts))


def _percent(value: float) -> str:
    return f"{value * 100:.0f}%"


def resurrection_charts(stats: dict, frequency: list[dict]) -> dict[str, Markup]:
    """The seed's metrics (000, "Metrics & Analytics"), one chart each."""
    latency = stats["latency_ms"]
    cross = stats["cross_repo"]
    return {
        "Most resurrected agents": bars(
            "top-agents",
            "Most resurrected agents",
            [(t["agent"] or "?", t["resurrections"]) for t in stats["top_agents"]],
        ),
        "Resurrections per day": columns(
            "frequency",
            "Resurrections per day",
            [(d["day"], d["resurrections"], d["success"]) for d in frequency],
            ("resurrections", "successes"),
        ),
        "Success rate by mode": bars(
            "success-by-mode",
            "Success rate by mode",
            [(mode, v["rate"]) for mode, v in stats["success_rate_by_mode"].items()],
            _percent,
            maximum=1,
        ),
        "Average context tokens by agent type": bars(
            "context-by-type",
            "Average context tokens by agent type",
            list(stats["average_context_tokens_by_agent_type"].items()),
        ),
        "Resurrection latency (ms)": bars(
            "latency",
            "Resurrection latency (ms)",
            [(name.upper(), latency[name]) for name in ("p50", "p95", "p99") if latency[name]],
        ),
        "Cross-repo vs same-repo": bars(
            "cross-repo",
            "Cross-repo vs same-repo",
            [("cross-repo", cross["cross"]), ("same repo", cross["same"])]
            if stats["total"]
            else [],
        ),
        "Top failure reasons": bars(
            "failure-reasons",
            "Top failure reasons",
            [(f["reason"], f["count"]) for f in stats["top_failure_reasons"]],
        ),
    }
