-- The check of `verify` for the direct-identifier values searched only in their own person's
-- texts (rx.person_identifier_values: "lw", "48"), from leaks.sql's search (leak_hits): one
-- written out in a released text of that person, as a whole word in any case, outside a
-- replacement ("48" of a recoded "[48-52]" is none). One row per text column and value: how many
-- rows show it.
SELECT h.attribute AS column_name, h.needle, count(DISTINCT h.row_id) AS n
FROM leak_hits AS h
WHERE h.identifier AND NOT EXISTS (
    SELECT 1 FROM rx.released_spans AS s
    WHERE s.row_id = h.row_id AND s.attribute = h.attribute AND s.kind = 'replacement'
      AND s.start_pos <= h.start_pos AND h.end_pos <= s.end_pos
)
GROUP BY h.attribute, h.needle
ORDER BY h.attribute, h.needle;
