"""rx_repaired (udfs/mojibake.py): mis-decoded text read as what it says, ASCII as it is."""
from __future__ import annotations

import pyarrow as pa
from hypothesis import given, strategies as st

from udfs.mojibake import repaired, repaired_arrow


def test_mis_decoded_punctuation_and_letters_read_repaired():
    assert repaired("Iâ€™m Princeton") == "I'm Princeton"
    assert repaired("Itâ\x80\x99s") == "It's"
    assert repaired("JosÃ© Silva") == "José Silva"
    assert repaired_arrow(pa.array([None, "plain"], pa.string())).to_pylist() == [None, "plain"]


@given(st.text(alphabet=st.characters(max_codepoint=127)))
def test_ascii_is_returned_as_it_is(text):
    assert repaired(text) == text
