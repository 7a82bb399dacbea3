"""What the commands print: tables, measures, verdicts and progress bars (click and tqdm); the
commands themselves are in cli/."""
from __future__ import annotations

import sys

import click

from .measures import dataset_ncp, utility
from .release import release_relation
from .stages import COUNTED


def clip(text: str, width: int = 100) -> str:
    """A value cut to one screen line: a hostile text's suspect can be a 20,000-digit run."""
    return text if len(text) <= width else text[: width - 1] + "…"


def table(rows: list[tuple], header: list[str], width: int = 100) -> str:
    cells = [[clip("" if v is None else str(v), width) for v in r] for r in rows]
    widths = [max([len(h)] + [len(r[i]) for r in cells]) for i, h in enumerate(header)]
    line = lambda r: "  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip()
    return "\n".join([line(header), line(["-" * w for w in widths])] + [line(r) for r in cells])


def print_release(con, schema: str) -> None:
    rel = release_relation(con, schema)
    click.echo(table(rel.fetchall(), rel.columns))


def print_measures(con, schema: str) -> None:
    ncp = dataset_ncp(con, schema)
    na = "n/a" if ncp[0] is None else f"{ncp[0]:.4f}"
    nx = "n/a" if ncp[1] is None else f"{ncp[1]:.4f}"
    click.echo(f"NCP_A = {na}   NCP_X = {nx}   NCP = {ncp[2]:.4f}   ({ncp[3]} persons in {ncp[4]} partitions)")


def print_utility(con, schema: str) -> None:
    """One line: the share of the texts' words the release keeps, and the three surfaces it
    replaced most (rx.utility, rx.utility_surfaces); nothing without text."""
    share, surfaces = utility(con, schema)
    if share is None:
        return
    most = ", ".join(f"{surface!r} ({label}) {n:,}x" for surface, label, n in surfaces)
    click.echo(f"words kept: {share:.3f}" + (f"; most replaced: {most}" if most else "")
               + f" ({schema}.utility)")


class Progress:
    """apply's progress callback on a terminal: a line naming the stage that runs, and for NER and
    the term search a bar with their rate and time left."""
    LABELS = COUNTED

    def __init__(self, stream):
        self.stream = stream
        self.status = None
        self.bars = {}

    def __call__(self, task: str, done: int, total: int | None) -> None:
        from tqdm import tqdm
        if total is None:
            if self.status is None:
                self.status = tqdm(file=self.stream, bar_format="{desc}", leave=False)
            self.status.set_description_str(f"rxanon-sql: {task.replace('_', ' ')}")
            return
        bar = self.bars.get(task)
        if bar is None:
            bar = self.bars[task] = tqdm(total=total, desc=self.LABELS.get(task, task), unit=" texts",
                                         file=self.stream, dynamic_ncols=True)
        bar.update(done - bar.n)
        if done >= total:
            bar.close()

    def close(self) -> None:
        for bar in (*self.bars.values(), self.status):
            if bar is not None:
                bar.close()


def progress(quiet: bool) -> Progress | None:
    """A progress display only where someone watches: not with --quiet, nor when stderr goes to a
    file or a pipe, which would fill with redrawn bars."""
    return None if quiet or not sys.stderr.isatty() else Progress(sys.stderr)


def report_verdict(v) -> None:
    for line in v.advice:
        click.echo(f"rxanon-sql: what to change: {line}", err=True)
    click.echo(f"k = {v.k}: {v.classes} equivalence classes, smallest has {v.smallest} persons; "
               f"{len(v.leaks) + len(v.identifiers)} leaks; {v.rows_released}/{v.rows_input} rows released")
    if v.mismatched_rows:
        click.echo(f"  FAIL {v.mismatched_rows} rows of the release differ from the audit", err=True)
    for key, kept, size, person_rows in v.failing[:20]:
        click.echo(f"  FAIL class of {size} persons: {key} kept terms {kept}", err=True)
    if v.l is not None or v.t is not None:
        click.echo(f"l = {v.l}, t = {v.t}: {len(v.undiverse)} classes break them")
    for key, kept, size, attribute, n_values, kind, distance in v.undiverse[:20]:
        click.echo(f"  FAIL class of {size} persons: {key} kept terms {kept}: sensitive attribute {attribute!r} has "
                   f"{n_values} distinct values, {kind} EMD {distance:.4f}", err=True)
    for row_id, person, attribute, s, e, needle in v.leaks[:20]:
        click.echo(f"  LEAK row {row_id} column {attribute!r} [{s}:{e}] still says {clip(needle)!r}", err=True)
    for column, needle, n in v.identifiers[:20]:
        click.echo(f"  LEAK column {column!r} names the direct identifier {clip(needle)!r} in {n} rows", err=True)
    if v.unrebuilt_rows:
        click.echo(f"  FAIL {v.unrebuilt_rows} rows of the audit differ from the release rebuilt from the dataset and "
                   f"the replacements, e.g. row_id {v.unrebuilt_example}", err=True)
    if v.audited:
        report_suspects(v)


def report_suspects(v) -> None:
    """The residual audit: one summary line; with --strict each suspect (up to 20) as a failure."""
    strings = v.suspect_strings
    examples = ", ".join(f"{clip(s, 40)!r} ({o} in, {n}x out)" for _, s, o, _, n in strings[:5])
    click.echo(f"residual audit: {len(strings)} suspect strings (that can name someone, in the original texts of 1 to "
               f"{v.k - 1} persons of the corpus or the class) in the released texts of {persons(v.suspect_persons)}"
               + (f", e.g. (persons in the original texts, times released) {examples}" if examples else "")
               + f" ({v.residual_seconds:.2f}s)")
    if not v.strict:
        return
    rank = {(kind, suspect): i for i, (kind, suspect, *_) in enumerate(strings)}
    for kind, suspect, original, person, n, row_id, attribute, example in sorted(
            v.suspects, key=lambda r: (rank[(r[0], r[1])], -r[4]))[:20]:
        click.echo(f"  SUSPECT {kind} {clip(suspect)!r} (in the original texts of {persons(original)}) shown {n}x by one "
                   f"person, first in row {row_id} column {attribute!r}: {clip(example)!r}", err=True)


def persons(n: int) -> str:
    return f"{n} person" if n == 1 else f"{n} persons"


class SweepBar:
    """sweep's progress on a terminal: one bar over the runs, with the setting and stage that run."""

    def __init__(self, stream, total: int):
        from tqdm import tqdm
        self.bar = tqdm(total=total, unit=" runs", file=stream, dynamic_ncols=True, desc="sweep")

    def __call__(self, done: int, total: int, cfg, stage: str | None) -> None:
        self.bar.update(done - self.bar.n)
        lam = "" if cfg.strategy == "gdf" else f" lambda={cfg.lam:g}"
        self.bar.set_postfix_str(f"k={cfg.k}{lam} {cfg.strategy}" + (f": {stage.replace('_', ' ')}" if stage else ""))

    def close(self) -> None:
        self.bar.close()


def print_run(report) -> None:
    """What `apply` made: counts, repairs, dropped columns, and whether the stages before
    partitioning were kept."""
    c = report.counts
    click.echo(f"{c['rows']} rows, {c['persons']} persons -> {c['partitions']} partitions "
               f"({c['levels']} levels); {c['texts_recognized']} texts recognized")
    if c.get("repairs"):
        click.echo(f"repaired: {c['repairs']} spans that the check still read in the released texts were replaced "
                   "there too (rx.replacements, reason 'repaired')")
    if report.dropped:
        click.echo("dropped from the release: " + "; ".join(f"{', '.join(cols)} ({why})"
                                                             for why, cols in report.dropped.items()))
    if report.reused:
        click.echo("source and configuration as in the last run but for parameters of partitioning, recoding and "
                   "measures: its join, terms, linking and persons were kept (--rebuild builds them)")


def print_timings(report) -> None:
    click.echo("timings: " + ", ".join(f"{k} {v:.2f}s" for k, v in report.timings.items()))


def print_sweep(rows: list[tuple], result, schema: str) -> None:
    """The grid of a sweep, one row per run (grid.sweep_rows), and where its release is."""
    click.echo(table(rows, ["k", "lambda", "strategy", "ok", "partitions", "mean size", "splits A", "splits X",
                            "NCP_A", "NCP_X", "NCP", "max risk", "reused", "seconds"]))
    click.echo(f"sweep {result.sweep_id}: {result.runs} runs in {result.seconds:.1f}s, written to "
               f"{schema}.sweep; schema {schema!r} holds the release of the last setting")
