"""How an evaluation report is shown: a terminal table, and one self-contained HTML file (inline
CSS and an inline SVG chart per tool; no scripts, nothing fetched), for sharing in CI artifacts
and pull requests."""

from __future__ import annotations

import html
import json
from collections.abc import Sequence
from pathlib import Path

from mcp_sim.fidelity.evaluate import CallScore, Report, Summary

METRICS: tuple[tuple[str, str, str], ...] = (
    ("exact", "exact", "#4e79a7"),
    ("json_match", "canonical JSON", "#f28e2b"),
    ("schema_valid", "schema-valid", "#59a14f"),
    ("kv_f1", "key/value F1", "#b07aa1"),
    ("error_agreement", "error agreement", "#e15759"),
)
JUDGE_COLOUR = "#76b7b2"


def _percent(value: float | None) -> str:
    return "-" if value is None else f"{value * 100:.1f}"


def _score(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}"


def _metric_values(summary: Summary) -> list[float | None]:
    """The chart's bars of one summary, each on 0..1."""
    values: list[float | None] = [getattr(summary, name) for name, _, _ in METRICS]
    if summary.judge:
        overall = summary.judge.get("overall")
        values.append(None if overall is None else overall / 100)
    return values


# --- terminal --------------------------------------------------------------------------------


def table(report: Report) -> str:
    """The summary as an aligned text table: percentages, and judge scores on 0..100."""
    judged = bool(report.overall.judge)
    header = ["tool", "calls", "exact%", "json%", "schema%", "kv-F1%", "err-agree%"]
    if judged:
        header += ["judge", *(d[:4] for d in report.overall.judge if d != "overall")]
    rows = [header]
    groups = [*report.tools.items(), ("all", report.overall)]
    for name, summary in groups:
        row = [
            name,
            str(summary.calls),
            _percent(summary.exact),
            _percent(summary.json_match),
            _percent(summary.schema_valid),
            _percent(summary.kv_f1),
            _percent(summary.error_agreement),
        ]
        if judged:
            row.append(_score(summary.judge.get("overall")))
            row += [_score(v) for d, v in summary.judge.items() if d != "overall"]
        rows.append(row)
    widths = [max(len(r[i]) for r in rows) for i in range(len(header))]
    lines = []
    for i, row in enumerate(rows):
        cells = [c.ljust(widths[0]) if j == 0 else c.rjust(widths[j]) for j, c in enumerate(row)]
        lines.append("  ".join(cells))
        if i == 0 or i == len(rows) - 2:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join([*lines, *_left_out(report)])


def _left_out(report: Report) -> list[str]:
    """What the figures do not say on their own: recorded calls skipped, predictions the world
    model failed."""
    notes = []
    if report.skipped:
        notes.append(
            f"skipped {report.skipped} recorded call(s) without an observation "
            "(their model request failed when recorded)"
        )
    if report.model_errors:
        notes.append(
            f"{report.model_errors} prediction(s) failed: the world model gave no answer "
            "(scored as errors)"
        )
    return notes


# --- HTML ------------------------------------------------------------------------------------


_STYLE = """
body { font: 14px/1.45 system-ui, sans-serif; margin: 2em auto; max-width: 70em; color: #222; }
h1 { font-size: 1.5em; } h2 { font-size: 1.2em; margin-top: 2em; }
table { border-collapse: collapse; margin: 1em 0; }
th, td { border-bottom: 1px solid #ddd; padding: .3em .7em; text-align: right; }
th:first-child, td:first-child { text-align: left; }
tr.all td { font-weight: 600; border-top: 2px solid #999; }
.meta { color: #555; } .legend span { display: inline-block; margin-right: 1.2em; }
.legend i { display: inline-block; width: .9em; height: .9em; margin-right: .3em;
  vertical-align: -.1em; }
details { border: 1px solid #ddd; border-radius: 4px; margin: .4em 0; padding: .3em .6em; }
summary { cursor: pointer; } .bad { color: #b00; } .good { color: #070; }
pre { background: #f6f6f6; padding: .5em; overflow-x: auto; white-space: pre-wrap;
  max-height: 24em; }
.pair { display: grid; grid-template-columns: 1fr 1fr; gap: 1em; }
"""


def _chart(report: Report) -> str:
    """A grouped bar chart: one group per tool (and one for all), one bar per metric."""
    names = [n for _, n, _ in METRICS] + (["judge overall"] if report.overall.judge else [])
    colours = [c for _, _, c in METRICS] + ([JUDGE_COLOUR] if report.overall.judge else [])
    groups = [*report.tools.items(), ("all", report.overall)]
    bar, gap, left, top, height = 14, 26, 44, 14, 200
    group_width = bar * len(names) + gap
    width = left + group_width * len(groups) + 10
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{top + height + 70}" '
        'role="img" aria-label="Fidelity metrics per tool">'
    ]
    for tick in range(0, 101, 25):
        y = top + height - tick * height / 100
        parts.append(
            f'<line x1="{left}" y1="{y:.1f}" x2="{width - 10}" y2="{y:.1f}" stroke="#e4e4e4"/>'
            f'<text x="{left - 6}" y="{y + 4:.1f}" font-size="11" text-anchor="end">{tick}%</text>'
        )
    for g, (name, summary) in enumerate(groups):
        x0 = left + g * group_width + gap / 2
        for i, value in enumerate(_metric_values(summary)):
            x = x0 + i * bar
            label = f"{html.escape(name)} · {names[i]}: "
            if value is None:
                parts.append(
                    f'<text x="{x + bar / 2:.1f}" y="{top + height - 3}" font-size="9" '
                    f'text-anchor="middle" fill="#999"><title>{label}n/a</title>–</text>'
                )
                continue
            h = value * height
            parts.append(
                f'<rect x="{x:.1f}" y="{top + height - h:.1f}" width="{bar - 2}" height="{h:.1f}" '
                f'fill="{colours[i]}"><title>{label}{value * 100:.1f}%</title></rect>'
            )
        centre = x0 + bar * len(names) / 2
        shown = name if len(name) <= 18 else name[:17] + "…"
        parts.append(
            f'<text x="{centre:.1f}" y="{top + height + 16}" font-size="11" text-anchor="end" '
            f'transform="rotate(-30 {centre:.1f} {top + height + 16})">{html.escape(shown)}</text>'
        )
    parts.append("</svg>")
    legend = "".join(
        f'<span><i style="background:{c}"></i>{html.escape(n)}</span>'
        for n, c in zip(names, colours, strict=True)
    )
    return "".join(parts) + f'<div class="legend">{legend}</div>'


def _summary_table(report: Report) -> str:
    judged = bool(report.overall.judge)
    dims = [d for d in report.overall.judge if d != "overall"]
    head = ["tool", "calls", "exact", "canonical JSON", "schema-valid", "key/value F1", "errors"]
    head += ["judge", *dims] if judged else []
    rows = ["<tr>" + "".join(f"<th>{html.escape(h)}</th>" for h in head) + "</tr>"]
    for name, summary in [*report.tools.items(), ("all", report.overall)]:
        cells = [
            html.escape(name),
            str(summary.calls),
            _percent(summary.exact),
            f"{_percent(summary.json_match)} <small>({summary.json_calls})</small>",
            f"{_percent(summary.schema_valid)} <small>({summary.schema_calls})</small>",
            _percent(summary.kv_f1),
            _percent(summary.error_agreement),
        ]
        if judged:
            cells.append(_score(summary.judge.get("overall")))
            cells += [_score(summary.judge.get(d)) for d in dims]
        css = ' class="all"' if name == "all" else ""
        rows.append(f"<tr{css}>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>")
    return "<table>" + "".join(rows) + "</table>"


def _mark(value: bool | None) -> str:
    if value is None:
        return "n/a"
    return '<span class="good">yes</span>' if value else '<span class="bad">no</span>'


def _calls(calls: Sequence[CallScore]) -> str:
    out = []
    for c in calls:
        judge = f" · judge {json.dumps(c.judge)}" if c.judge else ""
        f1 = "n/a" if c.kv_f1 is None else f"{c.kv_f1:.2f}"
        out.append(
            f"<details><summary>{html.escape(c.session)} #{c.step} "
            f"<b>{html.escape(c.tool)}</b> · exact {_mark(c.exact)} · JSON {_mark(c.json_match)}"
            f" · schema {_mark(c.schema_valid)} · F1 {f1} · errors {_mark(c.error_agreement)}"
            f"{html.escape(judge)} · <small>{html.escape(c.prediction_source)}</small></summary>"
            f"<pre>{html.escape(json.dumps(c.arguments, ensure_ascii=False, indent=1))}</pre>"
            '<div class="pair"><div>real'
            f"{' (error)' if c.reference_error else ''}<pre>{html.escape(c.reference)}</pre></div>"
            f"<div>simulated{' (error)' if c.prediction_error else ''}"
            f"<pre>{html.escape(c.prediction)}</pre></div></div></details>"
        )
    return "".join(out)


def render_html(report: Report) -> str:
    """The whole report as one HTML document."""
    meta = (
        f"world <b>{html.escape(report.world)}</b> · journal {html.escape(report.journal)} · "
        f"model {html.escape(report.model or 'none')}"
    )
    if report.judge_model:
        meta += f" · judge {html.escape(report.judge_model)}"
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        f"<title>mcp-sim fidelity: {html.escape(report.world)}</title>"
        f"<style>{_STYLE}</style></head><body>"
        f"<h1>Simulator fidelity: {html.escape(report.world)}</h1>"
        f'<p class="meta">{meta} · {report.overall.calls} calls, teacher-forced</p>'
        + "".join(f'<p class="meta bad">{html.escape(note)}</p>' for note in _left_out(report))
        + f"<h2>Per tool</h2>{_chart(report)}{_summary_table(report)}"
        "<p class=meta>Rates in %. Canonical JSON and key/value F1 count calls whose real "
        "observation is JSON; schema-valid counts successful predictions of tools with an "
        "output schema (numbers of calls in brackets). Judge scores are (x−1)/4×100.</p>"
        f"<h2>Calls</h2>{_calls(report.calls)}</body></html>\n"
    )


def write_reports(
    report: Report, journal: Path, json_path: Path | None = None, html_path: Path | None = None
) -> tuple[Path, Path]:
    """Write ``report`` of the journal file ``journal`` as JSON and as the HTML page of
    :func:`render_html`, by default beside the journal (``REAL.eval.json``,
    ``REAL.eval.html``); returns where."""
    json_path = json_path or journal.with_suffix(".eval.json")
    html_path = html_path or journal.with_suffix(".eval.html")
    for path in (json_path, html_path):
        path.parent.mkdir(parents=True, exist_ok=True)
    json_path.write_text(
        json.dumps(report.to_json(), indent=2, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    html_path.write_text(render_html(report), encoding="utf-8")
    return json_path, html_path
