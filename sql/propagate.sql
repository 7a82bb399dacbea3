-- Every occurrence of a person's sensitive surface in any of the person's texts is a term, not
-- only the occurrences the recognizer tagged: otherwise a suppressed term could survive in a
-- sentence where the model missed it, or tagged only a part ("Friday" of "Friday night"). An
-- occurrence takes the label the person's tagged occurrences carry most often, a sensitive label
-- before one that only may state an attribute (ties: label name).
CREATE OR REPLACE TEMP TABLE surfaces AS
SELECT person, list_sort(array_agg(DISTINCT norm)) AS needles
FROM terms_found
WHERE label IN (SELECT label FROM rx.labels) OR source = 'identifier'
GROUP BY person;

-- A span of a label that only may state an attribute (CARDINAL "4:3", kept by terms.sql for
-- linking and dropped there unless it states a value) never hides a sensitive surface: where
-- they overlap, the sensitive surface wins. Below, "tagged spans" are the others.
CREATE OR REPLACE TEMP TABLE blocking AS
SELECT f.row_id, f.attribute, t.text_id, f.start_pos, f.end_pos, f.source
FROM terms_found AS f
JOIN rx.texts AS t ON t.row_id = f.row_id AND t.attribute = f.attribute
WHERE f.label IN (SELECT label FROM rx.labels) OR f.source = 'identifier';

-- The batches of the search below: runs of persons in their order, each with about a $batches-th
-- of the text. rx.texts lies in person order (rx.dataset's row_id; text column after text
-- column), so a batch's scan skips the row groups of the other batches: with hash(person) %
-- $batches for the batch, each of the 5 batches of the blog corpus shape read all 163 MB of
-- texts (0.29 s of a 1.3 s statement).
CREATE OR REPLACE TEMP TABLE person_batches AS
WITH sizes AS (
    SELECT person, sum(strlen(text)) AS size
    FROM rx.texts
    GROUP BY person
),
running AS (
    SELECT person, sum(size) OVER (ORDER BY person) - size AS before, sum(size) OVER () AS total
    FROM sizes
)
SELECT least(coalesce(CAST(floor(before * $batches / nullif(total, 0)) AS INTEGER), 0), $batches - 1) AS batch,
       min(person) AS first_person, max(person) AS last_person
FROM running
GROUP BY ALL;

-- One search call per person, not per text: the person's needles cross into Python once. (The
-- matches are stored before they meet another table: the optimizer cannot know how many a
-- function returns, and would hash all of them, each with its text, to join them.) The persons
-- go in batches (sqlrun.run_file): grouping all 163 MB of texts of the blog corpus shape at once
-- took 1.3 GB more than the search of one batch.
--
-- The same pass finds linking's value mentions: each text carries the number of its tuple's
-- needle set (mention_needles.sql) as needles of its own, and their matches are `own`
-- (linking.sql reads them). A text goes to the search if its person has surfaces or its tuple
-- has values to find.
CREATE OR REPLACE TEMP TABLE found_matches (text_id BIGINT, start_pos INTEGER, end_pos INTEGER, needle VARCHAR,
                                            own BOOLEAN);

-- (see terms_found in terms.sql)
INSERT INTO found_matches (text_id) VALUES (NULL);
DELETE FROM found_matches WHERE text_id IS NULL;

INSERT INTO found_matches
WITH person_texts AS (
    SELECT t.person, array_agg(struct_pack(id := t.text_id, text := t.text, own := CAST(n.set_id AS INTEGER))) AS items
    FROM rx.texts AS t
    LEFT JOIN mention_needles AS n ON n.row_id = t.row_id
    WHERE t.person BETWEEN (SELECT first_person FROM person_batches WHERE batch = $batch)
                       AND (SELECT last_person FROM person_batches WHERE batch = $batch)
      AND (n.set_id IS NOT NULL OR t.person IN (SELECT person FROM surfaces))
    GROUP BY t.person
)
SELECT m.id AS text_id, m.start_pos, m.end_pos, m.needle, m.own
FROM person_texts AS p
LEFT JOIN surfaces AS s ON s.person = p.person
-- (a NULL argument would skip the call: DuckDB's default NULL handling for functions)
CROSS JOIN unnest(rx_find_texts_own(p.items, coalesce(s.needles, []))) AS u(m);

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
