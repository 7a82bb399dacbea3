"""`rxanon-sql report`: one HTML page, readable offline, on the last sweep (rx.sweep) and the
release in the schema: the rx-anon paper's plots (Figures 2 to 5) and tables (Tables 5 and 6),
the class sizes, the re-identification risk (rx.risk), the share of words kept beside NCP and what
replaced the others (rx.utility) and, for each k, the lambda with the lowest NCP. A schema without a sweep is reported on its release alone.

The plots are matplotlib PNGs (Agg backend, no display) embedded as base64, so the page needs no
file and no network beside it. Every value that comes from the database (labels, settings) is
escaped: a label is the user's configuration and reaches the page as text, never as markup.
"""
from __future__ import annotations

import base64
import dataclasses
import html
import io
from pathlib import Path

import duckdb

from .sqlrun import schema_objects, table


@dataclasses.dataclass
class Figure:
    """One plot: its data, and how to draw it. `series` maps a legend entry to its points (x, y);
    kind "line" draws lines over numeric x, "bar" bars over x taken as categories (series side by
    side) and "stacked" bars stacked."""
    name: str
    title: str
    xlabel: str
    ylabel: str
    series: dict[str, list[tuple]]
    kind: str = "line"
    caption: str = ""


@dataclasses.dataclass
class Table:
    title: str
    header: list[str]
    rows: list[tuple]
    caption: str = ""


@dataclasses.dataclass
class Report:
    sweep_id: int | None
    figures: list[Figure]
    tables: list[Table]


def _q(con: duckdb.DuckDBPyConnection, sql: str, params=None) -> list[tuple]:
    return con.execute(sql, params).fetchall()


def _lam(lam) -> str:
    return "GDF" if lam is None else f"λ = {lam:g}"


def collect(con: duckdb.DuckDBPyConnection, schema: str = "rx") -> Report:
    """The figures and tables of the report, from the schema's last sweep (its runs whose release
    passed) and its release. Raises duckdb.CatalogException when the schema holds no release."""
    t = {name: table(name, schema).sql("duckdb")
         for name in ("sweep", "ncp", "ncp_terms", "classes", "risk", "utility")}
    last = _q(con, f"SELECT k, lam, strategy, ncp_a, ncp_x, ncp, records, partitions FROM {t['ncp']}")[0]
    objects = schema_objects(con, schema)
    # (a release or a sweep written before rx.utility and rx.sweep.words_kept has no words kept)
    utility = "utility" in objects
    kept = _q(con, f"SELECT share_kept FROM {t['utility']} WHERE scope = 'all'")[0][0] if utility else None
    sweep_id, runs = None, []
    if "sweep" in objects:
        sweep_id = _q(con, f"SELECT max(sweep_id) FROM {t['sweep']} WHERE ok")[0][0]
        words_kept = "words_kept" if "words_kept" in _columns(con, t["sweep"]) else "NULL"
        runs = [dict(zip(("k", "lam", "strategy", "partitions", "size_mean", "size_stdev", "splits_a", "splits_x",
                          "ncp_a", "ncp_x", "ncp", "ncp_labels", "risk_highest", "risk_average", "risk_share_above",
                          "seconds", "words_kept"), r)) for r in _q(
            con, f"SELECT k, lam, strategy, partitions, size_mean, size_stdev, splits_relational, splits_textual, "
                 f"ncp_a, ncp_x, ncp, ncp_labels, risk_highest, risk_average, risk_share_above, seconds, "
                 f"{words_kept} FROM {t['sweep']} WHERE sweep_id = ? AND ok ORDER BY k, lam NULLS LAST", [sweep_id])]
    figures, tables = (_sweep_parts(runs) if runs else _run_parts(con, t))
    if utility:
        figures.append(_replaced_figure(con, t, last, kept))
    sizes = _q(con, f"SELECT size, count(*) FROM {t['classes']} GROUP BY size ORDER BY size")
    figures.append(Figure("class_sizes", "Equivalence class sizes of the release", "persons in the class",
                          "classes", {"classes": sizes}, kind="bar",
                          caption=f"The release in the schema: k = {last[0]}, {_lam(None if last[2] == 'gdf' else last[1])}, "
                                  f"{last[2]}."))
    risk = _q(con, f"SELECT highest, average, share_above, threshold, records, classes FROM {t['risk']}")[0]
    tables.append(Table("Re-identification risk of the release (prosecutor)",
                        ["highest", "average", f"share of records above {risk[3]:g}", "records", "classes"],
                        [(_f(risk[0]), _f(risk[1]), _f(risk[2]), risk[4], risk[5])],
                        "A person's risk is 1 / the size of their equivalence class (rx.risk, rx.risk_classes)."))
    tables.insert(0, Table("The release in the schema", ["k", "lambda", "strategy", "NCP_A", "NCP_X", "NCP",
                                                         "words kept", "persons", "partitions"],
                           [(last[0], "" if last[2] == "gdf" else f"{last[1]:g}", last[2], _f(last[3]), _f(last[4]),
                             _f(last[5]), _f(kept), last[6], last[7])],
                           "Words kept: the share of the original texts' words the released texts still show, "
                           "per person (rx.utility)."))
    return Report(sweep_id, figures, tables)


def _columns(con: duckdb.DuckDBPyConnection, name: str) -> set[str]:
    return {d[0] for d in con.execute(f"SELECT * FROM {name} LIMIT 0").description}


def _replaced_figure(con: duckdb.DuckDBPyConnection, t: dict[str, str], last: tuple, kept) -> Figure:
    """What the release in the schema replaced: the share of the original words each reason
    replaced (rx.utility), beside the words kept and NCP."""
    reasons = _q(con, f"SELECT name, share_replaced, most_replaced FROM {t['utility']} "
                      "WHERE scope = 'reason' ORDER BY words_replaced DESC, name")
    most = _q(con, f"SELECT most_replaced FROM {t['utility']} WHERE scope = 'all'")[0][0]
    return Figure("words_replaced", "Share of the words replaced, by reason", "reason", "share of the original words",
                  {"replaced": [(name, share or 0.0) for name, share, _ in reasons]}, kind="bar",
                  caption=f"The release in the schema: words kept {_f(kept, 3)}, NCP {_f(last[5], 3)}"
                          + (f"; most replaced {most}" if most else "") + " (rx.utility, rx.utility_surfaces).")


def _f(v, digits: int = 4) -> str:
    return "" if v is None else f"{v:.{digits}f}"


def _sweep_parts(runs: list[dict]) -> tuple[list[Figure], list[Table]]:
    mondrian = [r for r in runs if r["strategy"] != "gdf"]
    ks = sorted({r["k"] for r in runs})
    lams = sorted({r["lam"] for r in mondrian})
    settings = [*lams, *([None] if any(r["strategy"] == "gdf" for r in runs) else [])]
    by = {(r["k"], r["lam"]): r for r in runs}
    figures = []
    # Figure 2: over all k, the share of the cuts made on relational attributes and on textual labels
    shares = {"relational": [], "textual": []}
    for lam in lams:
        a = sum(r["splits_a"] for r in mondrian if r["lam"] == lam)
        x = sum(r["splits_x"] for r in mondrian if r["lam"] == lam)
        if a + x:
            shares["relational"].append((f"{lam:g}", a / (a + x)))
            shares["textual"].append((f"{lam:g}", x / (a + x)))
    figures.append(Figure("split_shares", "Share of the cuts by kind", "λ", "share of the cuts", shares,
                          kind="stacked", caption=f"Cuts of all runs with k in {', '.join(map(str, ks))} (paper, "
                                                  "Figure 2)."))
    for measure, name in (("ncp_a", "NCP_A"), ("ncp_x", "NCP_X"), ("ncp", "NCP")):
        figures.append(Figure(measure, f"{name} against k", "k", name, {
            _lam(lam): [(k, by[k, lam][measure]) for k in ks if (k, lam) in by and by[k, lam][measure] is not None]
            for lam in settings}, caption="One line per λ (paper, Figures 3 and 4)." if measure != "ncp" else ""))
    # Beside NCP: what a reader of the texts still reads.
    kept = {_lam(lam): [(k, by[k, lam]["words_kept"]) for k in ks
                        if (k, lam) in by and by[k, lam]["words_kept"] is not None] for lam in settings}
    if any(kept.values()):
        figures.append(Figure("words_kept", "Words kept against k", "k", "share of the words kept", kept,
                              caption="The share of the original texts' words the released texts still show, per "
                                      "person (rx.utility); one line per λ."))
    labels = sorted({label for r in mondrian for label in (r["ncp_labels"] or {})})
    per_label = {}
    for label in labels:
        points = []
        for k in ks:
            values = [r["ncp_labels"][label] for r in mondrian if r["k"] == k and (r["ncp_labels"] or {}).get(label)
                      is not None]
            if values:
                points.append((k, sum(values) / len(values)))
        per_label[label] = points
    figures.append(Figure("ncp_labels", "NCP_X per entity label against k", "k", "NCP_X of the label", per_label,
                          caption="Mean over the λ of the sweep (paper, Figure 5)."))
    columns = [_lam(lam) for lam in settings]
    tables = [
        Table("Partitions per k and λ", ["k", *columns],
              [(k, *[by[k, lam]["partitions"] if (k, lam) in by else "" for lam in settings]) for k in ks],
              "Paper, Table 5."),
        Table("Mean partition size (standard deviation) per k and λ", ["k", *columns],
              [(k, *[f"{by[k, lam]['size_mean']:.2f} ({by[k, lam]['size_stdev']:.2f})" if (k, lam) in by else ""
                     for lam in settings]) for k in ks], "Paper, Table 6."),
        Table("Recommended settings: for each k the λ with the lowest NCP", ["k", "λ", "NCP", "NCP_A", "NCP_X"],
              [(r["k"], f"{r['lam']:g}", _f(r["ncp"]), _f(r["ncp_a"]), _f(r["ncp_x"])) for r in (
                  min((r for r in mondrian if r["k"] == k), key=lambda r: r["ncp"]) for k in ks
                  if any(r["k"] == k for r in mondrian))]),
        Table("Every run of the sweep", ["k", "λ", "partitions", "cuts A / X", "NCP_A", "NCP_X", "NCP", "words kept",
                                         "risk: highest", "average", "share above 0.2", "seconds"],
              [(r["k"], "GDF" if r["strategy"] == "gdf" else f"{r['lam']:g}", r["partitions"],
                f"{r['splits_a']} / {r['splits_x']}", _f(r["ncp_a"]), _f(r["ncp_x"]), _f(r["ncp"]), _f(r["words_kept"]),
                _f(r["risk_highest"], 3), _f(r["risk_average"], 3), _f(r["risk_share_above"], 3),
                f"{r['seconds']:.2f}") for r in runs]),
    ]
    return figures, tables


def _run_parts(con: duckdb.DuckDBPyConnection, t: dict[str, str]) -> tuple[list[Figure], list[Table]]:
    """Without a sweep: what the one release shows."""
    labels = _q(con, f"SELECT label, ncp_x FROM {t['ncp_terms']} WHERE ncp_x IS NOT NULL ORDER BY label")
    figures = [Figure("ncp_labels", "NCP_X per entity label", "label", "NCP_X of the label", {"NCP_X": labels},
                      kind="bar", caption="No sweep in the schema (`rxanon-sql sweep`): the last run alone.")]
    return figures, []


def png(figure: Figure) -> bytes:
    """The figure drawn as a PNG."""
    import matplotlib
    matplotlib.use("Agg")
    from matplotlib import pyplot as plt

    many = len(figure.series) > 10
    fig, ax = plt.subplots(figsize=(8.0 if many else 6.4, 4.0), dpi=100)
    try:
        if many:
            # (the default cycle has 10 colours: an eleventh label would repeat the first)
            ax.set_prop_cycle(color=plt.cm.tab20.colors)
        if figure.kind == "line":
            for name, points in figure.series.items():
                if points:
                    ax.plot([p[0] for p in points], [p[1] for p in points], marker="o", label=_plain(name))
            # (the grid's own values, k = 2, 5, 10, rather than matplotlib's 2.0, 2.5, ...)
            ax.set_xticks(sorted({p[0] for points in figure.series.values() for p in points}))
        else:
            categories = list(dict.fromkeys(p[0] for points in figure.series.values() for p in points))
            where = {c: i for i, c in enumerate(categories)}
            n = max(len(figure.series), 1)
            bottom = [0.0] * len(categories)
            for j, (name, points) in enumerate(figure.series.items()):
                xs = [where[p[0]] for p in points]
                ys = [p[1] for p in points]
                if figure.kind == "stacked":
                    ax.bar(xs, ys, bottom=[bottom[x] for x in xs], label=_plain(name))
                    for x, y in zip(xs, ys):
                        bottom[x] += y
                else:
                    width = 0.8 / n
                    ax.bar([x - 0.4 + width * (j + 0.5) for x in xs], ys, width=width, label=_plain(name))
            ax.set_xticks(range(len(categories)), [_plain(str(c)) for c in categories],
                          rotation=45 if len(categories) > 8 else 0)
        ax.set_title(figure.title)
        ax.set_xlabel(figure.xlabel)
        ax.set_ylabel(figure.ylabel)
        if many:
            ax.legend(fontsize="small", ncol=2, loc="upper left", bbox_to_anchor=(1.01, 1.0))
        elif len(figure.series) > 1:
            ax.legend(fontsize="small")
        ax.grid(alpha=0.3)
        fig.tight_layout()
        out = io.BytesIO()
        fig.savefig(out, format="png")
        return out.getvalue()
    finally:
        plt.close(fig)


def _plain(text: str) -> str:
    """A label as matplotlib shows it literally: two dollar signs would start its TeX (mathtext),
    which fails on a label such as "US$ or $"."""
    return text.replace("$", r"\$")


def render(report: Report, db: str, png_dir: str | None = None) -> str:
    """The HTML page; with `png_dir`, each plot also as <name>.png there."""
    e = html.escape
    title = f"rxanon-sql report: {Path(db).name}"
    parts = [f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{e(title)}</title><style>"
             "body{font-family:sans-serif;max-width:60em;margin:2em auto;padding:0 1em}"
             "table{border-collapse:collapse;margin:.5em 0 1.5em}td,th{border:1px solid #ccc;padding:.2em .6em;"
             "text-align:right}img{max-width:100%}figure{margin:1em 0 2em}</style></head><body>",
             f"<h1>{e(title)}</h1>",
             f"<p>{'Sweep ' + str(report.sweep_id) if report.sweep_id else 'No sweep; the last run alone'}.</p>"]
    for tab in report.tables:
        parts.append(f"<h2>{e(tab.title)}</h2><table><tr>" + "".join(f"<th>{e(str(h))}</th>" for h in tab.header)
                     + "</tr>" + "".join("<tr>" + "".join(f"<td>{e(str(v))}</td>" for v in row) + "</tr>"
                                         for row in tab.rows) + "</table>")
        if tab.caption:
            parts.append(f"<p>{e(tab.caption)}</p>")
    for figure in report.figures:
        data = png(figure)
        if png_dir is not None:
            (Path(png_dir) / f"{figure.name}.png").write_bytes(data)
        parts.append(f"<figure id='{e(figure.name)}'><img alt='{e(figure.title)}' src='data:image/png;base64,"
                     f"{base64.b64encode(data).decode()}'><figcaption>{e(figure.caption)}</figcaption></figure>")
    parts.append("</body></html>")
    return "\n".join(parts)
