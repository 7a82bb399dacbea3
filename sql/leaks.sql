-- The leak check of `verify`: a suppressed term's surface (whole word, case-insensitive) written
-- out in a released text of the same person. Positions are in the released text. A surface that
-- is part of a replacement (a recoded set such as "(Leo,Pisces)", a surrogate, a generalized
-- place) or of a longer term left as written ("Jo" inside a kept "Jo Ann" that the whole
-- partition shares) is not the suppressed term.
-- A surface the person shows anyway (shown_terms.sql) is no leak, whatever label another
-- occurrence of it had ("the " before a generalized "Houston" reads the same); nor is a surface
-- of common words written otherwise than as a name ("hope" beside a suppressed "Hope":
-- propagate.sql).
-- The same search finds the direct-identifier values searched only in their own person's texts
-- (rx.person_identifier_values: "lw", "48"), which identifier_leaks.sql counts from leak_hits: a
-- value written out outside a replacement ("48" of a recoded "[48-52]" is none).
-- The persons go in batches (sqlrun.run_file), runs of persons in their order with about
-- a $batches-th of the released text each (as propagate.sql's person_batches): grouping every
-- released text by person at once held 0.5 GB more than DuckDB's memory limit counts on the blog
-- corpus shape (19,320 persons, 163 MB of text), at the check, where the run's memory peaked.
-- (The same statement as propagate.sql's, but over the released texts it checks: batched by
-- rx.texts, the pipeline's copy, a release whose rx.texts was emptied or cut short would leave
-- persons unsearched: tests/test_hostile_verify.py.)
CREATE OR REPLACE TEMP TABLE leak_batches AS
WITH sizes AS (
    SELECT person, sum(octet_length(encode(text))) AS size
    FROM rx.audit_texts
    WHERE text IS NOT NULL
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

CREATE OR REPLACE TEMP TABLE leak_hits AS
SELECT row_id, person, attribute, CAST(NULL AS INTEGER) AS start_pos, CAST(NULL AS INTEGER) AS end_pos,
       CAST(NULL AS VARCHAR) AS needle, CAST(NULL AS BOOLEAN) AS replaced_term, CAST(NULL AS BOOLEAN) AS identifier
FROM rx.audit_texts
WHERE false;

-- (see terms_found in terms.sql)
INSERT INTO leak_hits (row_id) VALUES (NULL);
DELETE FROM leak_hits WHERE row_id IS NULL;

INSERT INTO leak_hits
WITH term_needles AS (
    SELECT DISTINCT r.person, r.norm
    FROM rx.replacements AS r
    -- (a generalized term is not kept either, nor one that a repair replaced: repair.sql)
    WHERE r.reason IN ('suppressed', 'generalized', 'repaired')
      AND NOT EXISTS (SELECT 1 FROM shown_terms AS s WHERE s.person = r.person AND s.norm = r.norm)
      -- (a recognized bare number of one or two digits is the term only where it was recognized:
      -- corpus_needles.sql; one that the rare guard replaced, or a repair, is the term everywhere)
      AND NOT (regexp_matches(r.norm, '^[0-9]{1,2}$') AND r.label <> 'RARE' AND r.reason <> 'repaired')
      -- (the batch's persons: every later join is on the person of a text of the batch)
      AND r.person BETWEEN $first_person AND $last_person
),
leak_needles AS (
    SELECT person, list_sort(array_agg(DISTINCT norm)) AS needles
    FROM (SELECT person, norm FROM term_needles UNION SELECT person, norm FROM rx.person_identifier_values)
    GROUP BY person
),
-- One search call per person, over all the person's released texts (rx_find_texts): one call
-- per text would prepare the person's needles again for each of their texts.
-- (Materialized: the numbers must be the same where the matches are joined back.)
person_texts AS MATERIALIZED (
    SELECT row_number() OVER (ORDER BY r.row_id, r.attribute) AS text_id, r.row_id, r.person, r.attribute, r.text
    FROM rx.audit_texts AS r
    SEMI JOIN leak_needles AS n ON n.person = r.person
    WHERE r.text IS NOT NULL
      AND r.person BETWEEN $first_person AND $last_person
),
found AS MATERIALIZED (
    SELECT u.m.id AS text_id, u.m.start_pos, u.m.end_pos, u.m.needle
    FROM (
        SELECT person, array_agg(struct_pack(id := text_id, text := text)) AS items
        FROM person_texts
        GROUP BY person
    ) AS p
    JOIN leak_needles AS n ON n.person = p.person
    CROSS JOIN unnest(rx_find_texts(p.items, n.needles)) AS u(m)
),
-- A surface of everyday words only counts where it is written as a name ("Hope" goes, "hope"
-- stays: propagate.sql), unless its person had it tagged, or as a direct identifier's value, in
-- another form (rx.any_case, by key) or it is a direct identifier's value of theirs. Written
-- otherwise, it is no leak. The test is propagation's own (rx_written_as_name), so that the
-- check passes what propagation leaves and nothing else.
-- (of the needles found only: the words of all 218,000 of the blog sample were read for 31,000 hits)
name_form_needles AS (
    SELECT t.person, t.norm
    FROM term_needles AS t
    SEMI JOIN (SELECT DISTINCT p.person, f.needle FROM found AS f JOIN person_texts AS p ON p.text_id = f.text_id) AS h
        ON h.person = t.person AND h.needle = t.norm
    CROSS JOIN unnest(regexp_extract_all(t.norm, '[\pL\pN_]+')) AS w(word)
    WHERE (t.person, t.norm) NOT IN (SELECT person, norm FROM rx.person_identifier_values)
    GROUP BY t.person, t.norm
    HAVING bool_and(w.word IN (SELECT word FROM rx.everyday_words))
       AND (t.person, rx_key(t.norm)) NOT IN (SELECT person, key FROM rx.any_case)
),
hits AS (
    SELECT t.row_id, t.person, t.attribute, f.start_pos, f.end_pos, f.needle
    FROM found AS f
    JOIN person_texts AS t ON t.text_id = f.text_id
    LEFT JOIN name_form_needles AS n ON n.person = t.person AND n.norm = f.needle
    WHERE CASE WHEN n.norm IS NULL THEN true
               ELSE rx_written_as_name(substring(t.text, f.start_pos + 1, f.end_pos - f.start_pos)) END
)
SELECT h.*,
       (h.person, h.needle) IN (SELECT person, norm FROM term_needles) AS replaced_term,
       (h.person, h.needle) IN (SELECT person, norm FROM rx.person_identifier_values) AS identifier
FROM hits AS h;

SELECT h.row_id, h.person, h.attribute, h.start_pos, h.end_pos, h.needle
FROM leak_hits AS h
WHERE h.replaced_term AND NOT EXISTS (
    SELECT 1 FROM rx.released_spans AS s
    WHERE s.row_id = h.row_id AND s.attribute = h.attribute
      AND s.start_pos <= h.start_pos AND h.end_pos <= s.end_pos
      AND (s.kind = 'replacement' OR s.end_pos - s.start_pos > h.end_pos - h.start_pos)
)
ORDER BY h.row_id, h.attribute, h.start_pos;
