-- Propagation, continued after resolve_matches.sql (see propagate.sql).
INSERT INTO found_matches
SELECT text_id, start_pos, end_pos, needle, false AS own FROM resolved_matches;

-- A match that is exactly a tagged span is that span: it is no new term, and since tagged spans
-- never overlap one another (terms.sql keeps one of overlapping spans, identifiers.sql drops
-- what an identifier overlaps) it conflicts with none. Only the other matches go on: where the
-- recognizer tagged every occurrence, none.
CREATE OR REPLACE TEMP TABLE other_matches AS
SELECT t.row_id, t.person, t.attribute, f.start_pos, f.end_pos,
       substring(t.text, f.start_pos + 1, f.end_pos - f.start_pos) AS term, f.needle AS norm
FROM (
    SELECT * FROM found_matches AS f
    ANTI JOIN blocking AS b ON b.text_id = f.text_id AND b.start_pos = f.start_pos AND b.end_pos = f.end_pos
    WHERE NOT f.own
) AS f
JOIN rx.texts AS t ON t.text_id = f.text_id;

-- 1. A surface that touches no tagged span is a new term, and so is one that covers tagged
--    spans, is longer than each and cuts through none ("Dena how" of another post over "Dena"
--    here); it replaces them. Identifier spans are never covered.
CREATE OR REPLACE TEMP TABLE chosen AS
SELECT m.*
FROM other_matches AS m
LEFT JOIN blocking AS f
  ON f.row_id = m.row_id AND f.attribute = m.attribute AND f.start_pos < m.end_pos AND m.start_pos < f.end_pos
GROUP BY ALL
HAVING bool_and(f.row_id IS NULL OR (
    m.start_pos <= f.start_pos AND f.end_pos <= m.end_pos AND f.source <> 'identifier'
    AND f.end_pos - f.start_pos < m.end_pos - m.start_pos));

-- (A row put in and taken out again: see terms_found in terms.sql. Later stages insert into
-- this table, and it is empty where the recognizers found nothing.)
INSERT INTO chosen (row_id) VALUES (NULL);
DELETE FROM chosen WHERE row_id IS NULL;

-- 2. Where a surface only partly overlaps a tagged span, a shorter surface may hide behind it
--    ("Jo" of "Jo Ann" when the identifier "Ann Lee" took the "Ann"). Those texts are searched
--    again with every tagged span blanked out (same length, no word character), so that what is
--    found can neither overlap a tagged span nor be swallowed by a longer surface that does.
CREATE OR REPLACE TEMP TABLE conflicted AS
SELECT DISTINCT m.row_id, m.attribute
FROM other_matches AS m
JOIN blocking AS f
  ON f.row_id = m.row_id AND f.attribute = m.attribute AND f.start_pos < m.end_pos AND m.start_pos < f.end_pos
WHERE f.start_pos <> m.start_pos OR f.end_pos <> m.end_pos;

-- The blanks (applied by rebuild_texts.sql; propagate_blanked.sql continues from there): chr(2)
-- is neither a word nor a space character, and rx_find_texts searches texts holding it column-wise.
CREATE OR REPLACE TEMP TABLE text_edits AS
SELECT f.row_id, f.attribute, f.start_pos, f.end_pos, repeat(chr(2), f.end_pos - f.start_pos) AS replacement
FROM blocking AS f
JOIN conflicted AS c ON c.row_id = f.row_id AND c.attribute = f.attribute;
