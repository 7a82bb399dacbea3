-- Of the corpus search's matches that count for their person (counted_matches: text_id,
-- start_pos, end_pos, needle), overlapping ones are resolved as terms.sql resolves tagged spans:
-- the longer stays, then the earlier ("new york city" over "york", "George and Mervat" over
-- "George"). rx_find_corpus returns all of them because which ones count is only known here: a
-- longer match that does not count for this person must not hide a shorter one that does.
-- A rare word inside a span that only may state an attribute ("36" of a CARDINAL "36 years
-- old") is left to linking: linked, the span's stating part is recoded; not linked, the span
-- becomes a RARE term (linking.sql).
DELETE FROM counted_matches
WHERE rowid IN (
    SELECT m.rowid
    FROM counted_matches AS m
    JOIN corpus_needles AS n ON n.norm = m.needle
    JOIN rx.texts AS t ON t.text_id = m.text_id
    JOIN terms_found AS f
      ON f.row_id = t.row_id AND f.attribute = t.attribute AND f.start_pos < m.end_pos AND m.start_pos < f.end_pos
    WHERE n.label = 'RARE' AND f.source <> 'identifier' AND f.label NOT IN (SELECT label FROM rx.labels)
);

CREATE OR REPLACE TEMP TABLE resolved_matches AS
WITH overlapping AS (
    SELECT DISTINCT a.text_id
    FROM counted_matches AS a
    JOIN counted_matches AS b ON b.text_id = a.text_id
    WHERE b.rowid <> a.rowid AND b.start_pos < a.end_pos AND a.start_pos < b.end_pos
)
SELECT a.text_id, a.start_pos, a.end_pos, a.needle
FROM counted_matches AS a
WHERE a.rowid NOT IN (
    SELECT a.rowid
    FROM counted_matches AS a
    JOIN counted_matches AS b ON b.text_id = a.text_id
    WHERE a.text_id IN (SELECT text_id FROM overlapping)
      AND b.rowid <> a.rowid
      AND b.start_pos < a.end_pos AND a.start_pos < b.end_pos
      AND (b.end_pos - b.start_pos > a.end_pos - a.start_pos
           OR b.end_pos - b.start_pos = a.end_pos - a.start_pos
              AND (b.start_pos < a.start_pos OR b.start_pos = a.start_pos AND b.rowid < a.rowid))
);
