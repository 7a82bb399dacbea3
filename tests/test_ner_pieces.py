"""Tests for udfs/ner_pieces.py: what NER reads of a text. (The pieces read through the
recognizer are tested in test_ner.py.)"""
from __future__ import annotations

from hypothesis import given, settings, strategies as st

from udfs.ner_guards import says_nothing_here
from udfs.ner_pieces import can_hold_entity


# Characters without a letter or digit, mis-decoded-text repair included: ASCII punctuation,
# white space, emoji, fullwidth punctuation (ftfy makes it ASCII), symbols.
_NO_NAME = st.sampled_from(list(" .,;:!?()[]{}<>'\"-_/\\|@#$%^&*+=~`\n\t") + ["😀", "👍", "！", "＃", "♥", "★", "→", "∞"])


@settings(max_examples=300, deadline=None)
@given(st.text(_NO_NAME, min_size=1, max_size=12), st.sampled_from(["PERSON", "ORG", "MONEY", "DATE", "CARDINAL"]))
def test_a_piece_that_cannot_hold_an_entity_has_no_span_the_recognizer_would_keep(text, label):
    assert not can_hold_entity(text)
    # (whatever span the model tagged in it, the recognizer drops it: skipping the piece loses nothing)
    assert all(says_nothing_here(text, a, text[a:b], label)
               for a in range(len(text)) for b in range(a + 1, len(text) + 1))


def test_mis_decoded_letters_and_digits_can_hold_an_entity():
    # ("×©×¨" is Hebrew decoded as cp1252: no letter as written, two once repaired)
    assert all(map(can_hold_entity, ["×©×¨", "a", "7", "²", "Ã©", "…"]))
