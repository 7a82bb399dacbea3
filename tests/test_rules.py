"""udfs/rules.py: term lists, user patterns, the overlap resolution among the recognizers of
udfs/recognizers/ (each tested in tests/test_recognizers.py), the vague temporal guard, speed."""
from __future__ import annotations

import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from helpers import found, labelled
from udfs.rules import RuleRecognizer, Span, is_vague_temporal


@pytest.fixture(scope="module")
def rec() -> RuleRecognizer:
    return RuleRecognizer()



# --- term lists and patterns --------------------------------------------------------------------

def test_terms_whole_word_and_case_folding():
    r = RuleRecognizer(terms={"job": ["engineer", "data scientist"]})
    text = "An Engineer, two engineers, a DATA  SCIENTIST and a data\nscientist; reengineer."
    spans = r.find(text)
    assert [(s.term, s.label, s.source) for s in spans] == [
        ("Engineer", "JOB", "list"),
        ("DATA  SCIENTIST", "JOB", "list"),
        ("data\nscientist", "JOB", "list"),
    ]


def test_terms_unicode_word_boundaries():
    r = RuleRecognizer(terms={"STREET": ["straße"], "JOB": ["arzt", "engineer"]})
    assert found(r, "Die Straße ist lang.") == ["Straße"]
    assert found(r, "Die Hauptstraße ist lang.") == []      # ß/t are word characters
    assert found(r, "Der Zahnarzt und der Arzt.") == ["Arzt"]
    assert found(r, "éengineer") == []
    assert found(r, "engineer\u0301") == []                  # combining accent continues the word
    assert found(r, "«engineer»") == ["engineer"]


def test_terms_longest_alternative_and_prefix_terms():
    r = RuleRecognizer(terms={"JOB": ["data", "data scientist", "scientist"]})
    assert found(r, "the data scientist and data scientists") == ["data scientist", "data"]


def test_terms_with_punctuation():
    r = RuleRecognizer(terms={"TECH": ["C++", ".NET", "node.js"]})
    assert found(r, "Knows C++, .NET and Node.js.") == ["C++", ".NET", "Node.js"]


def test_patterns():
    r = RuleRecognizer(patterns={"EMPLOYEE_ID": [r"EMP-\d{6}"]})
    spans = r.find("Badge EMP-123456 and EMP-12345.")
    assert [(s.term, s.label, s.source) for s in spans] == [("EMP-123456", "EMPLOYEE_ID", "pattern")]


def test_patterns_respect_word_boundaries():
    r = RuleRecognizer(patterns={"EMPLOYEE_ID": [r"EMP-\d{6}"], "CODE": [r"ab"]})
    assert found(r, "XEMP-123456 EMP-1234567 (EMP-123456) ab cab abc «ab»") == ["EMP-123456", "ab", "ab"]


def test_invalid_pattern_rejected():
    with pytest.raises(ValueError, match="BAD"):
        RuleRecognizer(patterns={"BAD": ["(unclosed"]})


# --- overlap resolution -------------------------------------------------------------------------

def test_overlap_same_length_earlier_recognizer_wins():
    # The user pattern and the term list produce exactly the e-mail span: MAIL comes first.
    r = RuleRecognizer(patterns={"HANDLE": [r"\S+@example\.com"]},
                       terms={"ADDR": ["jane@example.com"]})
    assert labelled(r, "write jane@example.com now") == [("jane@example.com", "MAIL")]
    # Pattern before term list.
    r = RuleRecognizer(patterns={"CODE": [r"XJ-\d+"]}, terms={"WORD": ["XJ-42"]})
    assert labelled(r, "code XJ-42 here") == [("XJ-42", "CODE")]


def test_overlap_longer_span_wins():
    r = RuleRecognizer(patterns={"CONTACT": [r"phone \(415\) 555-2671"]},
                       terms={"CITY": ["York"]})
    text = "my phone (415) 555-2671 in New York"
    assert labelled(r, text) == [("phone (415) 555-2671", "CONTACT"), ("York", "CITY")]
    # A term inside an e-mail address loses to the longer address.
    r = RuleRecognizer(terms={"NAME": ["jane"]})
    assert labelled(r, "jane wrote from jane@example.com") == [
        ("jane", "NAME"), ("jane@example.com", "MAIL")]


def test_spans_sorted_and_disjoint(rec):
    text = ("Mail a@b.org or see https://x.org/a@b.org, call +1 415-555-2671, IBAN "
            "DE89 3704 0044 0532 0130 00, card 4111 1111 1111 1111, IP 192.168.1.1, "
            "SSN 123-45-6789, London SW1A 1AA.")
    spans = rec.find(text)
    assert [s.label for s in spans] == ["MAIL", "URL", "PHONE", "IBAN", "CARD", "IP", "SSN", "POSTCODE"]
    for a, b in zip(spans, spans[1:]):
        assert a.end <= b.start
    assert spans == sorted(spans)
    assert all(isinstance(s, Span) and s.source == "rule" for s in spans)


def test_empty_text(rec):
    assert rec.find("") == []


def test_anchor_characters_at_text_start(rec):
    # Regression: an "@" or "/" at offset 0 must not stop the scan for later ones.
    assert found(rec, "@ a0@example.org", "MAIL") == ["a0@example.org"]
    assert found(rec, "/x then example.com/a", "URL") == ["example.com/a"]
    assert found(rec, "://x then https://a.org/b", "URL") == ["https://a.org/b"]


def test_url_scheme_glued_to_word(rec):
    assert found(rec, "Visithttps://x.com/a.", "URL") == ["https://x.com/a"]
    assert found(rec, "pip install git+https://github.com/a/b.git", "URL") == [
        "git+https://github.com/a/b.git"]


# --- offsets on non-ASCII text ------------------------------------------------------------------

@pytest.mark.parametrize("prefix", [
    "😀👨‍👩‍👧 ",
    "Café crème, naïve façade — ",
    "He said “hello” and ‘bye’ — it’s ",
    "مرحبا بالعالم ",
    "שלום עולם ",
    "Jose\u0301 (decomposed) ",
    "日本語のテキスト、",
])
def test_offsets_after_non_ascii(rec, prefix):
    text = prefix + "mail jane@example.com or call +44 20 7946 0958 or 192.168.1.1"
    spans = rec.find(text)
    assert [(s.term, s.label) for s in spans] == [
        ("jane@example.com", "MAIL"), ("+44 20 7946 0958", "PHONE"), ("192.168.1.1", "IP")]
    for s in spans:
        assert text[s.start:s.end] == s.term
    assert spans[0].start == len(prefix) + len("mail ")


def test_term_offsets_after_emoji():
    r = RuleRecognizer(terms={"JOB": ["ingénieur"]})
    text = "🚀🚀 L’Ingénieur arrive"
    [s] = r.find(text)
    assert (s.start, s.term) == (text.index("Ingénieur"), "Ingénieur")


# --- vague temporal guard -----------------------------------------------------------------------

@pytest.mark.parametrize("span", [
    "today", "a great year", "a good day", "four days ago", "the weekend", "tonight",
    "last week", "these days", "the past few years", "the past few decades", "", "  ",
])
def test_vague_temporal_true(span):
    assert is_vague_temporal(span) is True


@pytest.mark.parametrize("span", [
    "14 May 2004", "2004", "in March", "May", "Monday", "May 14", "14/05/2004", "the 1990s",
    "10:30", "Christmas 2004", "summer of 1999", "Sept.", "on Fridays", "New Year's Eve",
    "New Year’s Day", "Thanksgiving", "last Christmas", "١٩٩٩",
])
def test_vague_temporal_false(span):
    assert is_vague_temporal(span) is False


# --- property test ------------------------------------------------------------------------------

_LOCAL_EXTRA = "0123456789_+-éüßñøçдяλ名字"
_local_segment = st.text(alphabet="abcdefghijklmnopqrstuvwxyz" + _LOCAL_EXTRA, min_size=1, max_size=8)
_label = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789", min_size=1, max_size=10)


@st.composite
def emails(draw) -> str:
    first = draw(st.sampled_from("abcdefghijklmnopqrstuvwxyz"))
    local = first + ".".join(draw(st.lists(_local_segment, min_size=1, max_size=3)))
    labels = draw(st.lists(_label, min_size=1, max_size=3))
    tld = draw(st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=2, max_size=6))
    return f"{local}@{'.'.join(labels)}.{tld}"


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=st.text(st.characters(blacklist_categories=("Cs",)), max_size=300),
       address=emails(), data=st.data())
def test_property_inserted_mail_found_at_position(rec, text, address, data):
    pos = data.draw(st.integers(min_value=0, max_value=len(text)))
    full = text[:pos] + " " + address + " " + text[pos:]
    spans = rec.find(full)
    for s in spans:
        assert full[s.start:s.end] == s.term
        assert s.start < s.end
    for a, b in zip(spans, spans[1:]):
        assert a.end <= b.start
    assert Span(pos + 1, pos + 1 + len(address), address, "MAIL", "rule") in spans


_NOISY = st.one_of(
    st.sampled_from(list("0123456789 .-/:@+()#ABCDEGKNSWXZabcemorw\n\u00a0é😀")),
    st.characters(blacklist_categories=("Cs",)),
)


@settings(max_examples=300, deadline=None)
@given(text=st.text(_NOISY, max_size=200))
def test_property_random_text_invariants(rec, text):
    spans = rec.find(text)
    for s in spans:
        assert 0 <= s.start < s.end <= len(text)
        assert text[s.start:s.end] == s.term
    for a, b in zip(spans, spans[1:]):
        assert a.end <= b.start


# --- speed --------------------------------------------------------------------------------------

def test_find_is_fast_on_plain_text(rec):
    sentence = ("The committee met on a rainy afternoon to discuss the future of the old library, "
                "and everyone agreed that progress had been made before the meeting ended. ")
    text = (sentence * 8)[:1000]
    rec.find(text)
    runs = 200
    t0 = time.perf_counter()
    for _ in range(runs):
        rec.find(text)
    per_call = (time.perf_counter() - t0) / runs
    assert per_call < 1e-3, f"find took {per_call * 1e6:.0f} us on 1,000 plain characters"
