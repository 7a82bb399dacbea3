-- The check of `verify` for the direct-identifier values searched only in their own person's
-- texts (rx.person_identifier_values: "lw", "48"): one written out in a released text of that
-- person, as a whole word in any case, outside a replacement ("48" of a recoded "[48-52]" is
-- none). One row per text column and value: how many rows show it.
WITH own AS (
    SELECT person, list_sort(array_agg(DISTINCT norm)) AS needles
    FROM rx.person_identifier_values
    GROUP BY person
),
-- (Materialized: the numbers must be the same where the matches are joined back.)
person_texts AS MATERIALIZED (
    SELECT row_number() OVER () AS text_id, r.row_id, r.person, r.attribute, r.text
    FROM rx.audit_texts AS r
    SEMI JOIN own AS o ON o.person = r.person
    WHERE r.text IS NOT NULL
),
found AS MATERIALIZED (
    SELECT u.m.id AS text_id, u.m.start_pos, u.m.end_pos, u.m.needle
    FROM (
        SELECT person, array_agg(struct_pack(id := text_id, text := text)) AS items
        FROM person_texts
        GROUP BY person
    ) AS p
    JOIN own AS o ON o.person = p.person
    CROSS JOIN unnest(rx_find_texts(p.items, o.needles)) AS u(m)
)
SELECT t.attribute AS column_name, f.needle, count(DISTINCT t.row_id) AS n
FROM found AS f
JOIN person_texts AS t ON t.text_id = f.text_id
WHERE NOT EXISTS (
    SELECT 1 FROM rx.released_spans AS s
    WHERE s.row_id = t.row_id AND s.attribute = t.attribute AND s.kind = 'replacement'
      AND s.start_pos <= f.start_pos AND f.end_pos <= s.end_pos
)
GROUP BY t.attribute, f.needle
ORDER BY t.attribute, f.needle;
