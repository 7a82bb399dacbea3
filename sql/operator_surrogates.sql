-- One round of drawing: draw the keys not drawn yet, then find the unacceptable draws. A
-- surrogate must not be an original value (of its person, or of its label anywhere), must not
-- contain one of its person's replaced terms or a direct identifier as a word, must not stand for
-- two terms of one person, and must not be shared by two persons who wrote the same term (a
-- shared surrogate would act as the term itself). Shifted dates are exempt from the
-- label-wide original values and from the last rule: their offsets are independent draws, so a
-- coincidence links nothing.
UPDATE surrogate_keys
SET canon = lower(rx_surrogate(person_key, label, norm, norm, attempt)), drawn = true, own_bad = NULL
WHERE NOT drawn;

-- The rules that look at one draw alone are checked once per draw, not in every round (later
-- rounds redraw only a few keys). A surrogate is searched in each context it will stand in (60
-- characters either side), so that it forms no replaced term or direct identifier with the text
-- around it either ("Carter and McDonald" before "'s" reads "McDonald's"; "Tuesday" before
-- " night"): a match that overlaps the surrogate is a failure. The contexts hold the
-- neighbouring terms as written, so most matches are theirs and do not count.
CREATE OR REPLACE TEMP TABLE fresh_contexts AS
SELECT row_number() OVER (ORDER BY person, label, norm, canon, before, after) AS context_id, *, before || canon || after AS text
FROM (
    SELECT DISTINCT k.person, k.label, k.norm, k.canon,
           substring(x.text, greatest(t.start_pos - 60, 0) + 1, t.start_pos - greatest(t.start_pos - 60, 0)) AS before,
           substring(x.text, t.end_pos + 1, 60) AS after
    FROM surrogate_keys AS k
    JOIN rx.terms AS t ON t.person = k.person AND t.label = k.label AND t.norm = k.norm
    JOIN rx.texts AS x ON x.row_id = t.row_id AND x.attribute = t.attribute
    WHERE k.canon IS NOT NULL AND k.own_bad IS NULL
) AS contexts;

-- One search call per person for the person's replaced terms (rx_find_texts), one per context
-- for the direct identifiers.
CREATE OR REPLACE TEMP TABLE fresh_hits AS
SELECT m.id AS context_id, m.start_pos, m.end_pos
FROM (SELECT person, array_agg(struct_pack(id := context_id, text := text)) AS items
      FROM fresh_contexts GROUP BY person) AS p
JOIN surrogate_needles AS n ON n.person = p.person
CROSS JOIN unnest(rx_find_texts(p.items, n.needles)) AS u(m)
UNION ALL
SELECT c.context_id, m.start_pos, m.end_pos
FROM fresh_contexts AS c
CROSS JOIN unnest(rx_find_identifiers(c.text)) AS u(m);

UPDATE surrogate_keys AS k
SET own_bad = k.canon = k.norm
    OR EXISTS (SELECT 1 FROM original_norms AS o WHERE o.person = k.person AND o.norm = k.canon)
    OR (NOT k.shifted AND EXISTS (SELECT 1 FROM original_norms AS o WHERE o.label = k.label AND o.norm = k.canon))
    OR EXISTS (SELECT 1 FROM fresh_contexts AS c
               JOIN fresh_hits AS h ON h.context_id = c.context_id
               WHERE c.person = k.person AND c.label = k.label AND c.norm = k.norm
                 AND h.start_pos < length(c.before) + length(c.canon) AND h.end_pos > length(c.before))
WHERE k.canon IS NOT NULL AND k.own_bad IS NULL;

-- The rules between draws: of two terms of one person with one surrogate, the later norm
-- draws again; of two persons with one surrogate for one term, the later person.
CREATE OR REPLACE TEMP TABLE surrogate_bad AS
SELECT person, label, norm
FROM (
    SELECT person, label, norm, own_bad,
           row_number() OVER (PARTITION BY person, label, canon ORDER BY norm) AS nth_term_of_person,
           CASE WHEN shifted THEN 1
                ELSE row_number() OVER (PARTITION BY label, norm, canon ORDER BY person_key) END AS nth_person_of_term
    FROM surrogate_keys
    WHERE canon IS NOT NULL
) AS ranked
WHERE own_bad OR nth_term_of_person > 1 OR nth_person_of_term > 1;
