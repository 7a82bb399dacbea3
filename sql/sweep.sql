-- The sweep, the last pass before the texts are rebuilt: a surface that is replaced somewhere in
-- a person's texts, and that the person does not show anywhere, is replaced wherever else it
-- stands in their texts, the same way (its first replacement there). Propagation and linking
-- choose among overlapping spans, and a choice can leave a surface bare:
-- - a rare number beside a chosen match inside a span that only may state an attribute ("224"
--   of the CARDINAL "224 50", whose "50" is a MONEY elsewhere);
-- - the rest of a term whose linked part alone is recoded ("German" of "German Law", Law a
--   topic);
-- - a word that a longer match covered, where the longer match gave way to a linked value
--   ("Students" of "Female Weapon Hammer Students").
-- The occurrences are those propagation found (every whole-word occurrence of each of the
-- person's surfaces). This is verify's leak check (leaks.sql) turned into replacements, on the
-- original texts; verify still searches the released texts itself, so what this misses is caught
-- there.
INSERT INTO rx.replacements
WITH replaced AS (
    SELECT r.person, r.norm, r.replacement, r.reason, r.label, r.operator, r.start_pos
    FROM rx.replacements AS r
    ANTI JOIN shown_terms AS s ON s.person = r.person AND s.norm = r.norm
    WHERE r.reason IN ('suppressed', 'generalized')
),
-- (bare_occurrences: linking.sql; one that touches a replacement is already broken up in the
-- release. A search of each person's texts for their swept surfaces here would be a second pass
-- over every text for what propagation has found already.)
-- A surface with glue characters ("æ\x9cº", C1 controls of mis-decoded text between letters) is
-- read by the leak check with its glue dropped and with its glue as spaces; propagation found it
-- where its needle, read one way, stood ("æº"). So the persons' glued surfaces are searched once
-- more here with the check's own search (rx_find_texts): where "æ\x89\x8bæ\x9cº" stood, the check
-- read "æ º" as a word that propagation never saw. (Few persons have one: on the blog sample, the
-- writers of mis-decoded CJK.)
glued_needles AS (
    SELECT person, list_sort(array_agg(DISTINCT norm)) AS needles
    FROM replaced
    WHERE regexp_matches(norm, $glue)
    GROUP BY person
),
glued AS (
    SELECT t.row_id, t.person, t.attribute, u.m.start_pos, u.m.end_pos, u.m.needle AS norm
    FROM (
        -- (a needle with glue is found only where its glue is written: the readings without
        -- glue have none, and find.py folds no glue character away; 82 of the blog sample's
        -- persons, 1.8 s for all their texts, against the 350 texts with glue alone. The test
        -- in the aggregate's filter, after the join: in a WHERE, DuckDB ran it on every text of
        -- the corpus shape, 1.2 CPU s, where no person had a needle with glue.)
        SELECT t.person, array_agg(struct_pack(id := t.text_id, text := t.text))
                             FILTER (WHERE regexp_matches(t.text, $glue)) AS items
        FROM rx.texts AS t
        SEMI JOIN glued_needles AS n ON n.person = t.person
        GROUP BY t.person
        HAVING count(*) FILTER (WHERE regexp_matches(t.text, $glue)) > 0
    ) AS p
    JOIN glued_needles AS n ON n.person = p.person
    CROSS JOIN unnest(rx_find_texts(p.items, n.needles)) AS u(m)
    JOIN rx.texts AS t ON t.text_id = u.m.id
    -- (a term at that very place, or a longer one around it, is what the check reads there)
    ANTI JOIN rx.terms AS k
        ON k.row_id = t.row_id AND k.attribute = t.attribute AND k.start_pos <= u.m.start_pos AND u.m.end_pos <= k.end_pos
    -- (a surface that counts only where written as a name, written otherwise, is none:
    -- propagate.sql, leaks.sql)
    WHERE rx_written_as_name(substring(t.text, u.m.start_pos + 1, u.m.end_pos - u.m.start_pos))
       OR (t.person, rx_key(u.m.needle)) IN (SELECT person, key FROM rx.any_case)
       OR NOT (SELECT bool_and(x.word IN (SELECT word FROM rx.everyday_words))
               FROM unnest(regexp_extract_all(u.m.needle, '[\pL\pN_]+')) AS x(word))
),
occurrences AS (
    SELECT row_id, person, attribute, start_pos, end_pos, norm FROM rx.bare_occurrences
    UNION SELECT row_id, person, attribute, start_pos, end_pos, norm FROM glued
),
-- (the replacements and terms of the texts with an occurrence, found by a join that builds on
-- those texts: joined to the occurrences themselves, every replacement and every term went into
-- a hash table, three of 2.7 and 3.7 million rows on the corpus shape, which has none)
near_replacements AS (
    SELECT r.row_id, r.attribute, r.start_pos, r.end_pos
    FROM rx.replacements AS r
    SEMI JOIN occurrences AS o ON o.row_id = r.row_id AND o.attribute = r.attribute
),
near_terms AS (
    SELECT k.row_id, k.attribute, k.start_pos, k.end_pos
    FROM rx.terms AS k
    SEMI JOIN occurrences AS o ON o.row_id = k.row_id AND o.attribute = k.attribute
),
-- (each surface's first replacement, of the surfaces found bare only: of all 118,000 replaced
-- surfaces of the blog sample the aggregate was most of the statement's 450 MB of DuckDB memory)
swept AS (
    SELECT r.person, r.norm, min_by(struct_pack(r.replacement, r.reason, r.label, r.operator), r.start_pos) AS how
    FROM replaced AS r
    SEMI JOIN occurrences AS o ON o.person = r.person AND o.norm = r.norm
    GROUP BY r.person, r.norm
),
bare AS (
    SELECT b.*
    FROM occurrences AS b
    SEMI JOIN swept AS s ON s.person = b.person AND s.norm = b.norm
    ANTI JOIN near_replacements AS r
        ON r.row_id = b.row_id AND r.attribute = b.attribute AND r.start_pos < b.end_pos AND b.start_pos < r.end_pos
),
-- (of overlapping hits, the longest, then the earliest: "new york" over "york"; a text with glue
-- characters may match two needles at one place)
chosen AS (
    SELECT b.*
    FROM bare AS b
    ANTI JOIN bare AS o
        ON o.row_id = b.row_id AND o.attribute = b.attribute AND o.start_pos < b.end_pos AND b.start_pos < o.end_pos
       AND (o.end_pos - o.start_pos > b.end_pos - b.start_pos
            OR (o.end_pos - o.start_pos = b.end_pos - b.start_pos
                AND (o.start_pos < b.start_pos OR (o.start_pos = b.start_pos AND o.norm < b.norm))))
),
-- A hit that cuts into a term the partition keeps ("I'm" into "I? I") takes the term's span too:
-- replaced alone, it left the kept term's other part bare beside it.
widened AS (
    SELECT c.row_id, c.person, c.attribute, c.norm,
           least(c.start_pos, min(k.start_pos)) AS start_pos, greatest(c.end_pos, max(k.end_pos)) AS end_pos
    FROM chosen AS c
    LEFT JOIN near_terms AS k
        ON k.row_id = c.row_id AND k.attribute = c.attribute AND k.start_pos < c.end_pos AND c.start_pos < k.end_pos
    GROUP BY c.row_id, c.person, c.attribute, c.norm, c.start_pos, c.end_pos
)
SELECT c.row_id, c.person, c.attribute, c.start_pos, c.end_pos, s.how.replacement, s.how.reason, s.how.label, c.norm,
       s.how.operator
FROM widened AS c
JOIN swept AS s ON s.person = c.person AND s.norm = c.norm
-- (two hits widened into one term: the longer span, then the earlier)
ANTI JOIN widened AS o
    ON o.row_id = c.row_id AND o.attribute = c.attribute AND o.start_pos < c.end_pos AND c.start_pos < o.end_pos
   AND (o.end_pos - o.start_pos > c.end_pos - c.start_pos
        OR (o.end_pos - o.start_pos = c.end_pos - c.start_pos
            AND (o.start_pos < c.start_pos OR (o.start_pos = c.start_pos AND o.norm < c.norm))))
ANTI JOIN near_replacements AS r
    ON r.row_id = c.row_id AND r.attribute = c.attribute AND r.start_pos < c.end_pos AND c.start_pos < r.end_pos;
