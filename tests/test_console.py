"""What the commands print (rxanon_sql/console.py)."""
from hypothesis import given, strategies as st

from rxanon_sql.console import clip, report_suspects
from rxanon_sql.verify import Verdict


@given(st.text(max_size=300), st.integers(min_value=2, max_value=120))
def test_clip_keeps_a_value_to_one_screen_line(text, width):
    out = clip(text, width)
    assert len(out) <= width
    assert out == text if len(text) <= width else out[:-1] == text[: width - 1] and out.endswith("…")


def test_a_hostile_suspect_is_printed_cut(capsys):
    """A 20,000-digit run (benchmarks/dense.py's mixed text) was printed whole, on the summary
    line and in every --strict line."""
    run = "0123456789" * 2000
    v = Verdict(k=2, strict=True, audited=True,
                suspects=[("token", run, 1, 7, 5, 12, "text", "… " + run + " …")])
    report_suspects(v)
    out, err = capsys.readouterr()
    assert "suspect strings" in out and "SUSPECT token" in err
    assert max(len(line) for line in (out + err).splitlines()) < 500
