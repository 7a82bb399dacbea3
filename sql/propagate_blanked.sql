-- Propagation, continued (see propagate.sql): the conflicted texts with their tagged spans
-- blanked out are searched again, and the chosen occurrences become terms.
CREATE OR REPLACE TEMP TABLE blanked_texts AS
SELECT t.row_id, t.person, t.attribute, t.text_id, t.text, b.text AS blanked
FROM rx.texts AS t
JOIN rebuilt_texts AS b ON b.row_id = t.row_id AND b.attribute = t.attribute;

CREATE OR REPLACE TEMP TABLE counted_matches AS
SELECT m.text_id, m.start_pos, m.end_pos, m.needle
FROM (
    SELECT text_id, person, m.start_pos, m.end_pos, m.needle
    FROM (SELECT text_id, person, unnest(rx_find_corpus(blanked)) AS m FROM blanked_texts) AS u
) AS m
SEMI JOIN person_needles AS p ON p.person = m.person AND p.norm = m.needle;
