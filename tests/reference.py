"""A plain recursive implementation of the partitioners of paper 000 (Algorithms 1 and 2) and docs/how-it-works.md, written from the text of
the definitions, to check the level-synchronous partitioner against. It reads the
person-centric view the pipeline built (values, keys, terms) and knows nothing of levels or
partition ids."""
from __future__ import annotations

import re
import statistics
from collections import Counter


def load(con, schema="rx", l=None, t=None):
    """The person-centric view; with l or t, the cuts must also keep both sides l-diverse and
    t-close in the sensitive attributes (rx.sensitive_values)."""
    kinds = dict(con.execute(f"SELECT attribute, kind FROM {schema}.attributes").fetchall())
    bias = dict(con.execute(f"SELECT attribute, bias FROM {schema}.attributes").fetchall())
    lbias = dict(con.execute(f"SELECT label, bias FROM {schema}.labels").fetchall())
    k, lam, order = con.execute(f"SELECT k, lam, nominal_order FROM {schema}.params").fetchall()[0]
    persons = [r[0] for r in con.execute(f"SELECT person FROM {schema}.person_ids").fetchall()]
    values: dict = {p: {} for p in persons}
    for p, a, v in con.execute(f"SELECT person, attribute, num FROM {schema}.person_values").fetchall():
        values[p].setdefault(a, set()).add(v)
    terms: dict = {p: set() for p in persons}
    for p, label, norm in con.execute(f"SELECT person, label, norm FROM {schema}.person_terms").fetchall():
        terms[p].add((label, norm))
    sensitive: dict = {}
    ordered: dict = {}
    if l is not None or t is not None:
        for p, a, rank, o in con.execute(f"SELECT person, attribute, rank, ordered FROM {schema}.sensitive_values").fetchall():
            sensitive.setdefault(a, {}).setdefault(p, set()).add(rank)
            ordered[a] = o
    return dict(kinds=kinds, bias=bias, lbias=lbias, k=k, lam=lam, order=order, persons=persons, values=values,
                terms=terms, l=l, t=t, sensitive=sensitive, ordered=ordered)


def _distribution(d, a, persons):
    """The shares of the values of sensitive attribute a over the persons' (person, value) pairs."""
    held = Counter(v for p in persons for v in d["sensitive"][a].get(p, ()))
    n = sum(held.values())
    return {v: c / n for v, c in held.items()}


def emd(p, q, ordered):
    """ARX's EMD between distributions p and q (value -> share) over the values of q, in order:
    ordered, sum over the m values of |cumulative (p - q)| / (m - 1); else sum |p - q| / 2."""
    values = sorted(q)
    if not ordered:
        return sum(abs(p.get(v, 0) - q[v]) for v in values) / 2
    running, total = 0.0, 0.0
    for v in values:
        running += p.get(v, 0) - q[v]
        total += abs(running)
    return total / (len(values) - 1) if len(values) > 1 else 0.0


def diverse(d, persons):
    """Whether a set of persons holds at least l distinct values of each sensitive attribute and
    lies within t of the whole dataset's distribution."""
    for a in d["sensitive"]:
        p = _distribution(d, a, persons)
        if d["l"] is not None and len(p) < d["l"]:
            return False
        if d["t"] is not None and emd(p, _distribution(d, a, d["persons"]), d["ordered"][a]) > d["t"] + 1e-9:
            return False
    return True


def _allowable(d, P, left) -> bool:
    k = d["k"]
    if not k <= len(left) <= len(P) - k:
        return False
    return not d["sensitive"] or (diverse(d, [p for p in P if p in left]) and diverse(d, [p for p in P if p not in left]))


def _key(d, p, a):
    """The key of a numeric or date cut: the median of the person's values."""
    vals = d["values"][p].get(a)
    return statistics.median(sorted(vals)) if vals else None


def _domain(d):
    rel = {}
    for a in d["kinds"]:
        vals = {v for p in d["persons"] for v in d["values"][p].get(a, ())}
        if vals:
            rel[a] = (max(vals) - min(vals), len(vals))
    txt = Counter(label for label, _ in {t for p in d["persons"] for t in d["terms"][p]})
    return rel, txt


def mondrian(d, P=None, dom=None, cuts=None):
    """The final partitions; `cuts`, if given, gets (|P|, left size, name, kind, priority) of each
    cut made."""
    P = list(d["persons"]) if P is None else P
    dom = dom or _domain(d)
    k, lam = d["k"], d["lam"]
    if len(P) < 2 * k:
        return [frozenset(P)]
    cands = []
    for a, kind in d["kinds"].items():
        vals = {v for p in P for v in d["values"][p].get(a, ())}
        if not vals:
            continue
        width, n = dom[0][a]
        if kind in ("numeric", "date"):
            span = (max(vals) - min(vals)) / width if width > 0 else 0
            keys = [_key(d, p, a) for p in P if _key(d, p, a) is not None]
            cut = statistics.median(keys)
            left = {p for p in P if _key(d, p, a) is not None and _key(d, p, a) < cut}
        else:
            span = len(vals) / n
            ordered = sorted(vals)
            if kind == "nominal" and d["order"] == "frequency":
                holders = Counter(v for p in P for v in d["values"][p].get(a, ()))
                ordered = sorted(vals, key=lambda v: (-holders[v], v))
            # left: persons whose first value in this order is among the first half, that is
            # persons holding any value of the first half
            first = set(ordered[:len(ordered) // 2])
            left = {p for p in P if d["values"][p].get(a, set()) & first}
        cands.append(((span + lam + d["bias"][a]) / 2, a, "relational", left))
    df = Counter(t for p in P for t in d["terms"][p])
    for label in sorted({l for l, _ in df}):
        span = sum(1 for l, _ in df if l == label) / dom[1][label]
        allowed = [(n, f) for (l, n), f in df.items() if l == label and k <= f <= len(P) - k]
        left = set()
        if allowed:
            norm, _ = min(allowed, key=lambda nf: (abs(nf[1] - len(P) / 2), -nf[1], nf[0]))
            left = {p for p in P if (label, norm) in d["terms"][p]}
        # (w = 1 - lambda is one term of the sum: docs/how-it-works.md)
        cands.append(((span + (1 - lam) + d["lbias"].get(label, 0.0)) / 2, label, "textual", left))
    cands.sort(key=lambda c: (-c[0], c[1], c[2]))
    for priority, name, kind, left in cands:
        if _allowable(d, P, left):
            if cuts is not None:
                cuts.append((len(P), len(left), name, kind, priority))
            return (mondrian(d, [p for p in P if p in left], dom, cuts)
                    + mondrian(d, [p for p in P if p not in left], dom, cuts))
    return [frozenset(P)]


def gdf(d, P=None, cuts=None):
    P = list(d["persons"]) if P is None else P
    k = d["k"]
    if len(P) < 2 * k:
        return [frozenset(P)]
    df = Counter(t for p in P for t in d["terms"][p])
    allowed = [(t, f) for t, f in df.items() if k <= f <= len(P) - k]
    if not allowed:
        return [frozenset(P)]
    term, df = min(allowed, key=lambda tf: (-tf[1], tf[0]))
    left = [p for p in P if term in d["terms"][p]]
    if not _allowable(d, P, set(left)):
        return [frozenset(P)]
    if cuts is not None:
        cuts.append((len(P), len(left), term[0], "textual", float(df)))
    return gdf(d, left, cuts) + gdf(d, [p for p in P if term not in d["terms"][p]], cuts)


# --- the rare-string guard, per class (docs/privacy.md, "Beyond the recognizer") -----------------
# Written from the rule's text for texts of ASCII letters, digits and punctuation: "\w" is then
# the pipeline's [\pL\pN_], [a-z] its \p{Ll} and [A-Z] its \p{Lu}.

_INSIDE = re.compile(r"[a-z,;]((?:[ \t]+[A-Z]\w+)+)")
_SEQUENCE = re.compile(r"(?<!\w)([A-Z]\w+(?:[ \t]+[A-Z]\w+)+)")


def guard_words(originals: list[str], common: set[str], dictionary: set[str]) -> set[str]:
    """The words (lower case, two characters or more) that can name someone: no common word, and
    no dictionary word unless some text writes it with a capital inside a sentence (after a
    lower-case letter, a comma or a semicolon, or after such a word)."""
    inside = {w.lower() for t in originals for m in _INSIDE.finditer(t) for w in m.group(1).split()}
    return {w for t in originals for w in re.findall(r"\w+", t.lower())
            if len(w) > 1 and w not in common and (w not in dictionary or w in inside)}


def shown_guard_strings(released: str, guard: set[str], dictionary: set[str],
                        frequent: set[str]) -> set[tuple[str, ...]]:
    """The guard strings a released text shows, each as its tuple of lower-case words: its guard
    words outside brackets ("[RARE]" is a label; a dictionary word only where written with a
    capital), and its capitalised runs of two to four words without the most frequent words at
    their ends."""
    shown = {(w.lower(),) for w in re.findall(r"(?<!\[)\b\w+\b(?!\])", released)
             if w.lower() in guard and (w.lower() not in dictionary or w[0].isupper())}
    for m in _SEQUENCE.finditer(released):
        words = m.group(1).lower().split()
        while words and words[0] in frequent:
            words = words[1:]
        while words and words[-1] in frequent:
            words = words[:-1]
        if 2 <= len(words) and len(m.group(1).split()) < 5:
            shown.add(tuple(words))
    return shown


def holds(original: str, string: tuple[str, ...]) -> bool:
    """Whether a text holds a string as a run of its lower-case words."""
    words = re.findall(r"\w+", original.lower())
    n = len(string)
    return any(tuple(words[i:i + n]) == string for i in range(len(words) - n + 1))


def guard_violations(originals: dict, released: dict, classes: dict, k: int, guard: set[str],
                     dictionary: set[str], frequent: set[str]) -> list[tuple]:
    """(person, string, holders in the person's class) for every guard string that a person's
    released texts show and that fewer than k persons of the person's class hold in their
    original texts. `originals`, `released`: person -> list of texts; `classes`: person -> class."""
    out = []
    for p, texts in released.items():
        mates = [q for q in originals if classes[q] == classes[p]]
        for string in sorted(set().union(*(shown_guard_strings(t, guard, dictionary, frequent) for t in texts))):
            holders = sum(any(holds(t, string) for t in originals[q]) for q in mates)
            if holders < k:
                out.append((p, " ".join(string), holders))
    return out
