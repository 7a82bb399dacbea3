"""Term identity of the occurrences the corpus-wide search finds (propagate_terms.sql).

The automaton reads a text in key form, where every run of non-word characters is one space, so
"it.&nbsp" and "it!&nbsp", or the mojibake of ’ and ‘ in "Iâ\\x80\\x99ve" and "Iâ\\x80\\x98ve",
are one key. An occurrence once took the norm of whichever needle of that key sorted first, not
its own: on the 300-author blog sample at k = 2, a person's untagged "it.&nbsp" became the term
"it!&nbsp" that the partition kept, while the same person's tagged "it.&nbsp" was suppressed, and
the release left the surface of a suppressed term as written (its check found the leak and
rolled it back). The rows below are cut from those blog posts."""
from __future__ import annotations

from hypothesis import HealthCheck, given, settings, strategies as st

from helpers import TAGGED_CONFIG, released, rows, run_tagged, scalar
from rxanon_sql.verify import verify

def norms_follow_surfaces(con) -> int:
    """Terms whose norm is not their own surface case folded with white space collapsed (the
    definition of a term's identity)."""
    return scalar(con, r"SELECT count(*) FROM rx.terms WHERE norm <> lower(regexp_replace(trim(term), '\s+', ' ', 'g'))")


def test_a_punctuation_variant_of_a_kept_term_is_no_cover_for_a_suppressed_one(monkeypatch):
    con = run_tagged(monkeypatch, [
        (1, "I'm playful, goofy and thats it.&nbsp; However we are friends.", [("it.&nbsp", "ORG")]),
        (1, "So much for that, and thats it.&nbsp; Bye now.", []),
        (2, "Go for it!&nbsp; You can do it.", [("it!&nbsp", "ORG")]),
    ])
    assert norms_follow_surfaces(con) == 0
    # (person 1 holds "it.&nbsp" only, person 2 "it!&nbsp" only: neither term is shared)
    assert rows(con, "SELECT DISTINCT person, norm FROM rx.terms WHERE norm LIKE 'it%' ORDER BY ALL") == [
        (1, "it.&nbsp"), (2, "it!&nbsp")]
    assert not any("it.&nbsp" in t or "it!&nbsp" in t for t in released(con)), released(con)
    assert verify(con).ok


def test_a_mojibake_variant_is_its_own_term(monkeypatch):
    # (a name: "Iâ\x80\x99ve" of the blog post, read repaired, says "I've" and is no term at all)
    con = run_tagged(monkeypatch, [
        (1, "the first show that Kyleâ\x80\x99s band played, scared to go in", [("Kyleâ\x80\x99s", "GPE")]),
        (1, "Anyway, that was the first show that Kyleâ\x80\x99s band played.", []),
        (2, "Kyleâ\x80\x98s band never played there, and never will.", [("Kyleâ\x80\x98s", "GPE")]),
    ], lam=0.25)
    assert norms_follow_surfaces(con) == 0
    assert not any("â\x80\x99s" in t or "â\x80\x98s" in t for t in released(con)), released(con)
    assert verify(con).ok


def test_a_mojibake_contraction_is_no_term(monkeypatch):
    # "Iâ\x80\x99ve" tagged as a GPE reads "I've" (rx_repaired): no term of its label, and the
    # release passes its check. (The rare guard still takes the piece "Iâ" that two persons write.)
    con = run_tagged(monkeypatch, [
        (1, "the first show that Iâ\x80\x99ve been to, scared to go in", [("Iâ\x80\x99ve", "GPE")]),
        (2, "Iâ\x80\x98ve never been there, and never will.", [("Iâ\x80\x98ve", "GPE")]),
    ], lam=0.25)
    assert scalar(con, "SELECT count(*) FROM rx.terms WHERE label <> 'RARE'") == 0
    assert verify(con).ok


def test_a_glued_variant_of_a_suppressed_term_is_not_kept_beside_it(monkeypatch):
    # "I\x92m" (cp1252's apostrophe read as a C1 control, a glue character) is a term of its
    # own, shared by both persons; person 1 also wrote a plain "Im" that person 2 did not. The
    # leak check reads "I\x92m" as "Im" too, so a kept "I\x92m" showed person 1's suppressed "im".
    # (a name: the blog post's "I\x92m", read repaired, says "I'm" and is no term at all)
    con = run_tagged(monkeypatch, [
        (1, "Laura, Kyle\x92s sorry. He meant to call.", [("Kyle\x92s", "ORG")]),
        (1, "Kyles ready for the tournament.", [("Kyles", "ORG")]),
        (2, "Well, Kyle\x92s ready to go.", [("Kyle\x92s", "ORG")]),
    ], lam=0.5)
    assert rows(con, "SELECT norm FROM rx.kept_terms") == []
    assert not any("\x92s" in t or "Kyles " in t for t in released(con)), released(con)
    assert verify(con).ok


# Variants of one word: its stem and ending joined by punctuation, an HTML entity's ampersand, the
# mojibake of a typographic quote (UTF-8 read as Latin-1, C1 controls left in), cp1252's apostrophe
# as a C1 control, a zero-width space, or nothing.
JOINS = [".", "!", "?", ",", "...", "!!", "&", "-", "\u2019", "\u2018", "\u00e2\x80\x99", "\u00e2\x80\x98", " . ", "\x92",
         "\u200b", ""]


@st.composite
def variant_posts(draw):
    stem, ending = draw(st.sampled_from([("it", "nbsp"), ("i", "ve"), ("zorb", "quill")]))
    variants = [f"{stem}{j}{ending}" for j in draw(st.lists(st.sampled_from(JOINS), min_size=2, max_size=4,
                                                              unique=True))]
    posts = []
    for person in range(1, draw(st.integers(2, 4)) + 1):
        for post in range(draw(st.integers(1, 2))):
            written = draw(st.lists(st.sampled_from(variants), min_size=1, max_size=3))
            text = "Well " + " and then ".join(written) + " we left."
            # (the first post of each person has its first variant tagged, the others none)
            tagged = draw(st.booleans()) if post == 0 else False
            posts.append((person, text, [(written[0], draw(st.sampled_from(["ORG", "GPE"])))] if tagged else []))
    return posts


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(variant_posts(), st.sampled_from([0.0, 0.25, 1.0]))
def test_variants_of_one_word_across_persons_pass_the_check(monkeypatch, posts, lam):
    # Whatever variants each person writes and has tagged, the release passes its own check
    # (apply raises otherwise), and each term is named by its own surface.
    con = run_tagged(monkeypatch, posts, lam)
    assert norms_follow_surfaces(con) == 0
    v = verify(con)
    assert v.ok and not v.leaks, (v.leaks, v.failing)


def test_a_rare_run_that_cuts_through_a_kept_term_takes_it_in(monkeypatch):
    """"New York Musicians", written by one person, around the GPE "New York" that both persons
    hold: the rare run "York Musicians" cut through the tagged span and was dropped, and
    "Musicians" stayed readable beside the kept "New York", a run only that person wrote."""
    con = run_tagged(monkeypatch, [
        (1, "With all of our wishes, New York Musicians Well, we got snow.", [("New York", "GPE")]),
        (2, "I went to New York last winter.", [("New York", "GPE")]),
        (1, "Back in New York again.", [("New York", "GPE")]),
    ], lam=0.5)
    assert not any("Musicians" in t for t in released(con)), released(con)
    v = verify(con)
    assert v.ok and not v.suspects, v.suspects


def test_a_glued_surface_is_swept_where_the_check_reads_it(monkeypatch):
    """Mis-decoded CJK ("æ\\x9cº", C1 controls between letters): propagation's needle "æº", tagged
    for person 2, found person 1's "æ\\x9cº" where it stands alone, but not inside
    "æ\\x89\\x8bæ\\x9cº", which reads "ææº" with the glue dropped; the leak check also reads the glue
    as spaces and found "æ º" there. The sweep now searches glued surfaces as the check does:
    the release passes without a repair."""
    con = run_tagged(monkeypatch, [
        (1, "urlLink ?æ\x9cº?? and more", []),
        (1, "urlLink ?æ\x89\x8bæ\x9cº??ç here", []),
        (2, "Write to æº today.", [("æº", "PERSON")]),
        (2, "Nothing else here.", []),
    ], lam=0.5)
    assert scalar(con, "SELECT count(*) FROM rx.replacements WHERE reason = 'repaired'") == 0
    assert not any("\x9cº" in t for t in released(con)), released(con)
    assert verify(con).ok


def test_a_rare_number_longer_than_a_span_the_model_cut_from_it_is_replaced(monkeypatch):
    """The model cut a 20,000-digit run of a hostile text into CARDINAL spans of a few hundred
    digits; each span dropped the run's rare-number match (resolve_matches.sql), and the run
    stayed readable where only the audit saw it. A rare number is left to linking only where it
    lies inside the span."""
    run = "0123456789" * 50
    config = TAGGED_CONFIG.replace('type = "numeric"\n', 'type = "numeric"\nemap = ["CARDINAL"]\n')
    con = run_tagged(monkeypatch, [
        (1, f"my code is {run} and that is all", [(run[3:40], "CARDINAL")]),
        (2, "my code is short and that is all", []),
        (3, "no code here, only words", []),
    ], config=config)
    assert not any(run[:20] in t for t in released(con)), released(con)
    assert verify(con, strict=True).ok
