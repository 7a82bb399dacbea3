"""Hostile input, glue characters: zero-width and other format characters, NUL and the other
control characters inside or between the words of a name hid it from spaCy and the rules
("Met John\u200bSmith"), so the whole name could be released. Recognition reads the text cleaned
of them (udfs/glue.py) and maps its spans back; the corpus search reads them the same way."""
from __future__ import annotations

import re

import duckdb
import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from helpers import config_from, rows, texts_config
from rxanon_sql import recognize
from rxanon_sql.pipeline import apply
from udfs.corpus import CorpusSearcher
from udfs.find import find_all, find_texts_arrow
from udfs.glue import GLUE_RUN, clean
from udfs.ner import ENTITY_ARROW_TYPE, TextRecognizer
from rxanon_sql.verify import verify

CONFIG = texts_config(["PERSON", "GPE", "MAIL", "PHONE"], k="{k}")

# Format characters (zero-width space, non-joiner, joiner, word joiner, byte order mark, soft
# hyphen, a bidi override) and control characters that are not white space.
GLUE = ["\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u00ad", "\u202e", "\x00", "\x01", "\x07", "\x1b", "\x7f"]
NAMES = ("John", "Smith", "Mary", "Jones", "Peter", "Parker")


def run(texts, rare_guard=True, k=2):
    con = duckdb.connect()
    con.execute("CREATE TABLE t (id INTEGER, age INTEGER, text VARCHAR)")
    con.executemany("INSERT INTO t VALUES (?, ?, ?)", [(i + 1, 30 + i % 3, t) for i, t in enumerate(texts)])
    apply(con, config_from(CONFIG.format(k=k), rare_guard=rare_guard))
    return con


def released(con):
    return [r[0] for r in rows(con, "SELECT text FROM rx.audit ORDER BY row_id")]


def words_left(text: str, words) -> list[str]:
    """The words still readable in a released text, its glue characters read as nothing or as
    spaces."""
    readings = (GLUE_RUN.sub("", text), GLUE_RUN.sub(" ", text))
    return [w for w in words if any(re.search(rf"(?<!\w){re.escape(w)}(?!\w)", r, re.IGNORECASE) for r in readings)]


def test_glued_names_are_recognized_and_replaced_end_to_end():
    # (without the rare-token guard, which reads a glued name as one capitalised run: only the
    # recognizer tags it)
    texts = ["Met John\u200bSmith at the mall.", "We saw Mary\x00Jones", "Met Peter\x01Parker",
             "Jo\u00adhn Sm\u200bith and Ma\u2060ry\ufeffJones met.", "Nothing here.", "Nothing at all."]
    con = run(texts, rare_guard=False)
    out = released(con)
    assert all(not words_left(r, NAMES) for r in out), out
    # (the glue inside a replaced name goes with it)
    assert not any(GLUE_RUN.search(r) for r in out), out
    assert verify(con).ok


def test_the_recognizer_returns_spans_of_the_original_text():
    rec = TextRecognizer()
    text = "Mail ja\u200bne@exa\x00mple.com, call +44 20 79\u200b46 0958; Jo\u00adhn\u200bSmith lives in Par\x02is."
    spans = rec.entities([text])[0]
    assert [(s.term, s.label) for s in spans] == [
        ("ja\u200bne@exa\x00mple.com", "MAIL"), ("+44 20 79\u200b46 0958", "PHONE"),
        ("Jo\u00adhn\u200bSmith", "PERSON"), ("Par\x02is", "GPE")]
    assert all(text[s.start:s.end] == s.term for s in spans)


def test_recognition_reads_the_text_in_nfc():
    # (a configured term written composed, the text decomposed: "e" + U+0301)
    rec = TextRecognizer(terms={"CLIENT": ["José García"]})
    text = "Met Jose\u0301 Garci\u0301a today"
    assert [(s.start, s.end, s.label) for s in rec.entities([text])[0]] == [(4, 17, "CLIENT")]


def test_clean_maps_every_character_back():
    cleaned = clean("a\u200bB Jo\x00hn Jose\u0301!")
    assert cleaned.text == "a B John José!"
    assert cleaned.span(0, 3) == (0, 3)
    assert cleaned.span(4, 8) == (4, 9)
    assert cleaned.span(9, 13) == (10, 15)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("abXY .") + ["\u200b", "\x00", "\x9c", "\xad", "\ufeff", "\u202e"])),
       st.booleans())
def test_clean_maps_each_character_to_its_origin(text, spaces):
    cleaned = clean(text, spaces)
    if cleaned.starts is None:
        assert cleaned.text == text and not GLUE_RUN.search(text)
        return
    assert len(cleaned.starts) == len(cleaned.ends) == len(cleaned.text)
    assert all(a < b for a, b in zip(cleaned.starts[:-1], cleaned.starts[1:]))
    for i, ch in enumerate(cleaned.text):
        origin = text[cleaned.starts[i]:cleaned.ends[i]]
        assert origin == ch or ch == " " and GLUE_RUN.fullmatch(origin)
    if spaces:
        assert cleaned.text == GLUE_RUN.sub(" ", text)


class TagFirst:
    """A recognizer that tags `surface` as PERSON in the first text only (a model that sees a
    name once and misses it everywhere else)."""

    def __init__(self, surface: str):
        self.surface = surface

    def arrow(self, texts: pa.Array) -> pa.Array:
        out = []
        for text in texts.to_pylist():
            at = text.find(self.surface) if "[tagme]" in text else -1
            out.append([] if at < 0 else [{"start_pos": at, "end_pos": at + len(self.surface), "term": self.surface,
                                            "label": "PERSON", "source": "ner"}])
        return pa.array(out, type=ENTITY_ARROW_TYPE)


@pytest.mark.parametrize("tagged", ["Zorbek Quill", "Zor\u200bbek Quill"])
def test_a_found_name_is_found_wherever_glue_hides_it(monkeypatch, tagged):
    # Propagation: the surface tagged once is searched in every text, glued or not, and a surface
    # tagged with glue inside it is found written plainly. (k = 6: the five who write the name are
    # too few to keep it as a class)
    monkeypatch.setattr(recognize, "make_recognizer", lambda cfg: TagFirst(tagged))
    texts = [f"I met {tagged} at the [tagme].", "Zorbek Quill came by.", "Zor\u200bbek Quill again.",
             "zorbek\x00quill later.", "Zorbek\u2060Quill left.", "Nothing here.", "Nothing at all."]
    con = run(texts, rare_guard=False, k=6)
    out = released(con)
    assert all(not words_left(r, ["Zorbek", "Quill", "Zor", "bek"]) for r in out), out


def test_the_corpus_search_reads_glue_both_ways():
    searcher = CorpusSearcher(["john smith"])
    texts = ["Met John\u200bSmith", "Met Jo\u200bhn Smith", "met john\x00smith", "Met Johnsmith"]
    found = searcher.arrow(pa.array(texts)).to_pylist()
    assert [[(m["start_pos"], m["end_pos"], m["capital"]) for m in ms] for ms in found] == [
        [(4, 14, True)], [(4, 15, True)], [(4, 14, False)], []]


# Sentences whose names and places the default model tags in the clean text.
SENTENCES = [
    "Mary Jones lives in Paris.",
    "I met John Smith in London yesterday.",
    "Peter Parker works in New York.",
    "We visited Berlin with Anna Schmidt.",
    "David Miller moved to Chicago last year.",
    "Sarah Connor was born in Los Angeles.",
    "Mail mary.jones@example.com or call +44 20 7946 0958 today.",
]


@pytest.fixture(scope="module")
def recognizer():
    return TextRecognizer()


@st.composite
def glued(draw):
    """A sentence, with the spaces inside its capitalised names glued (or not) and glue runs put
    at random places, the inside of words included."""
    text = draw(st.sampled_from(SENTENCES))
    if draw(st.booleans()):
        text = re.sub(r"(?<=[a-z]) (?=[A-Z])", lambda m: draw(st.sampled_from(GLUE)), text)
    glue = st.text(st.sampled_from(GLUE), min_size=1, max_size=3)
    for at in sorted(draw(st.lists(st.integers(0, len(text)), max_size=6)), reverse=True):
        text = text[:at] + draw(glue) + text[at:]
    return text


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(glued())
def test_glue_hides_no_term_of_the_clean_text(recognizer, text):
    clean_text = next(s for s in SENTENCES if s.replace(" ", "") == GLUE_RUN.sub("", text).replace(" ", ""))
    terms = [s.term for s in recognizer.entities([clean_text])[0]]
    assert terms
    spans = recognizer.entities([text])[0]
    out = text
    for s in sorted(spans, reverse=True):
        assert text[s.start:s.end] == s.term
        out = out[:s.start] + "[X]" + out[s.end:]
    words = {w for t in terms for w in re.findall(r"\w+", t)}
    assert not words_left(out, words), (text, out)


def test_the_text_search_reads_glue_both_ways():
    # (rx_find, rx_find_texts: direct identifiers, value mentions, verify's leak check)
    text = "Met John\u200bSmith, jo\u00adhn smith, john\x00smith and Johnsmith."
    expected = [(4, 14, "john smith"), (16, 27, "john smith"), (29, 39, "john smith")]
    assert find_all(text, ["john smith"]) == expected
    assert find_all("Met John\u200bSmith.", ["john\u200bsmith"]) == [(4, 14, "john\u200bsmith")]
    items = pa.array([[{"id": 1, "text": text}, {"id": 2, "text": "John Smith é"}]],
                     pa.list_(pa.struct([("id", pa.int64()), ("text", pa.string())])))
    found = find_texts_arrow(items, pa.array([["john smith"]])).to_pylist()[0]
    assert [(m["id"], m["start_pos"], m["end_pos"]) for m in found] == [(1, s, e) for s, e, _ in expected] + [(2, 0, 10)]


IDENTIFIER_CONFIG = """
[source]
relations = ["t"]
person = "id"
direct_identifiers = ["handle"]
[attributes.age]
type = "numeric"
[text]
columns = ["text"]
labels = ["PHONE"]
[anonymization]
k = 2
"""


def test_a_glued_direct_identifier_is_replaced_and_a_glued_leak_is_reported():
    con = duckdb.connect()
    con.execute("CREATE TABLE t (id INTEGER, age INTEGER, handle VARCHAR, text VARCHAR)")
    con.executemany("INSERT INTO t VALUES (?, ?, ?, ?)", [
        (1, 30, "zq_marlowe77", "Write to zq_marlowe\u200b77 soon."), (2, 31, "kb_ostrander", "Ping kb\x00_ostrander."),
        (3, 30, "pv_hale", "Nothing here."), (4, 31, "mm_orr", "Nothing there.")])
    apply(con, config_from(IDENTIFIER_CONFIG, rare_guard=False))
    out = released(con)
    assert not words_left(out[0], ["zq_marlowe77"]) and not words_left(out[1], ["kb_ostrander"]), out
    assert verify(con).ok
    # A release edited to hold the handle again, glued: verify reads it as the search does.
    con.execute("UPDATE rx.audit SET text = 'Write to zq_marlowe\u200b77 soon.' WHERE person = 1")
    assert not verify(con).ok
