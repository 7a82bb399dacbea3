"""Precision and recall of identifying spans on French text, by category, with and without the
label mapping and the language rules (issue 24).

    python benchmarks/french.py [--texts 600] [--seed 0] [--pipeline fr_core_news_sm]

No labelled French clinical or PII set is on the package registry, so the set is GENERATED:
consultation notes from sentence templates filled with Faker's fr_FR names, cities, companies
and phone numbers, dates written as Babel writes them in French (CLDR "long", "d MMMM", "MMMM y"
and numeric), and ages in digits or in words (num2words), each slot a gold span of its category.
Figures on generated text flatter every recognizer (few shapes, clean spelling); they compare the
three configurations, they do not predict a real corpus.

Configurations, each with the rule recognizers of rules.py (phone, e-mail, numeric dates, ...):
  before:     the pipeline's labels as they are (PER is no label of ours) and no language rules,
              as rxanon-sql ran a French pipeline before issue 24;
  +labels:    the labels mapped (labels.py: PER -> PERSON), no language rules;
  +rules:     both, as `rxanon-sql apply` runs now.
Matching as in eval_recognizers.py: a gold span is found when a predicted span of a compatible
label overlaps it; a predicted span is correct when it overlaps a gold span of a compatible
category. Predicted labels without a category (CARDINAL, MISC) are not scored.
"""
from __future__ import annotations

import argparse
import random
import sys
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from eval_recognizers import fmt, prf  # noqa: E402

CATEGORIES = ("PERSON", "LOCATION", "ORG", "DATE", "AGE", "PHONE")
COMPATIBLE = {"PERSON": {"PERSON"}, "LOC": {"LOCATION"}, "GPE": {"LOCATION"}, "ORG": {"ORG"},
              "DATE": {"DATE", "AGE"}, "PHONE": {"PHONE"}}
TEMPLATES = [
    ("{PERSON} habite à {LOCATION}. Vu en consultation le {DATE}.",),
    ("{FIRST} a {AGE} et travaille à l'usine. Joignable au {PHONE}.",),
    ("{PERSON}, âgé de {AGE}, consulte le {DATE} pour une douleur au genou.",),
    ("Mme {LAST} rappellera le secrétariat au {PHONE}.",),
    ("M. {LAST} ({AGE}) est suivi depuis {DATE} pour une hypertension.",),
    ("Patient adressé par le Dr {LAST}, clinique de {LOCATION}.",),
    ("{PERSON} est employé chez {ORG} depuis {DATE}.",),
    ("Revu le {DATE} : {FIRST} se plaint de maux de tête.",),
    ("Hospitalisée à {LOCATION} le {DATE}, {PERSON} a {AGE}.",),
    ("Contact : {PERSON}, {PHONE}, domicilié à {LOCATION}.",),
    ("La fille de {FIRST}, {AGE}, vit à {LOCATION}.",),
    ("Prochain rendez-vous le {DATE} avec {PERSON}.",),
]


def _generate(n: int, seed: int):
    from babel.dates import format_date
    from faker import Faker
    from num2words import num2words
    fake = Faker("fr_FR")
    fake.seed_instance(seed)
    rng = random.Random(seed)
    date_forms = ("long", "d MMMM", "MMMM y", "dd/MM/y", "EEEE d MMMM y")

    def value(slot: str) -> tuple[str, str]:
        if slot == "PERSON":
            return f"{fake.first_name()} {fake.last_name()}", "PERSON"
        if slot in ("FIRST", "LAST"):
            return (fake.first_name() if slot == "FIRST" else fake.last_name()), "PERSON"
        if slot == "LOCATION":
            return fake.city(), "LOCATION"
        if slot == "ORG":
            return fake.company(), "ORG"
        if slot == "PHONE":
            return fake.phone_number(), "PHONE"
        if slot == "DATE":
            return format_date(fake.date_between("-5y", "today"), format=rng.choice(date_forms), locale="fr"), "DATE"
        age = rng.randint(18, 95)
        return (f"{age} ans" if rng.random() < 0.6 else f"{num2words(age, lang='fr')} ans"), "AGE"

    texts, gold = [], []
    for _ in range(n):
        template = rng.choice(TEMPLATES)[0]
        out, spans, i = "", [], 0
        while i < len(template):
            j = template.find("{", i)
            if j < 0:
                out += template[i:]
                break
            out += template[i:j]
            k = template.index("}", j)
            text, cat = value(template[j + 1:k])
            spans.append((len(out), len(out) + len(text), cat))
            out += text
            i = k + 1
        texts.append(out)
        gold.append(spans)
    return texts, gold


def _score(gold, predicted):
    g_n, g_found, p_n, p_ok = (defaultdict(int) for _ in range(4))
    for gs, ps in zip(gold, predicted):
        for s, e, c in gs:
            g_n[c] += 1
            g_found[c] += any(a < e and s < b and c in COMPATIBLE.get(l, ()) for a, b, l in ps)
        for a, b, l in ps:
            cats = COMPATIBLE.get(l, ())
            ok = any(a < e and s < b and c in cats for s, e, c in gs)
            for c in cats:
                p_n[c] += 1
                p_ok[c] += ok
    rows = {c: prf(p_ok[c], p_n[c], g_found[c], g_n[c]) for c in CATEGORIES}
    n, found = sum(g_n.values()), sum(g_found.values())
    ok = sum(any(a < e and s < b and c in COMPATIBLE.get(l, ()) for s, e, c in gs) for gs, ps in zip(gold, predicted)
             for a, b, l in ps if l in COMPATIBLE)
    total = sum(l in COMPATIBLE for ps in predicted for _, _, l in ps)
    rows["overall"] = prf(ok, total, found, n)
    return g_n, rows


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--texts", type=int, default=600)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--pipeline", default="fr_core_news_sm")
    args = ap.parse_args(argv)
    from udfs.ner import TextRecognizer

    texts, gold = _generate(args.texts, args.seed)
    full = TextRecognizer(args.pipeline, phone_regions=("FR",))
    labels_only = TextRecognizer(args.pipeline, phone_regions=("FR",))
    labels_only.language = None
    before = TextRecognizer(args.pipeline, phone_regions=("FR",))
    before.language, before.labels = None, {}
    results, times = {}, {}
    for name, rec in (("before", before), ("+labels", labels_only), ("+rules", full)):
        t0 = time.perf_counter()
        spans = rec.entities(texts)
        times[name] = time.perf_counter() - t0
        results[name] = _score(gold, [[(s.start, s.end, s.label) for s in ss] for ss in spans])
    g_n = results["before"][0]
    print(f"{len(texts)} generated French notes (Faker fr_FR, seed {args.seed}), {sum(g_n.values())} gold spans; "
          f"pipeline {full.version}")
    print(f"{'category':<10}{'gold':>6}   " + "".join(f"{n + ': P     R     F1':<27}" for n in results))
    for c in (*CATEGORIES, "overall"):
        n = sum(g_n.values()) if c == "overall" else g_n[c]
        print(f"{c:<10}{n:>6}   " + "".join("  ".join(fmt(v) for v in results[k][1][c]) + "       " for k in results))
    print("time: " + ", ".join(f"{k} {v:.1f}s" for k, v in times.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
