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
-- rounds redraw only a few keys). The search for the person's replaced terms takes one call per
-- person: the fresh draws joined by chr(1), which is neither a word nor a space character, so a
-- match never spans two draws and word boundaries hold at the joins.
CREATE OR REPLACE TEMP TABLE fresh_draws AS
SELECT person, label, norm, canon,
       coalesce(sum(length(canon) + 1) OVER (PARTITION BY person ORDER BY label, norm
                                            ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS start_pos
FROM surrogate_keys
WHERE canon IS NOT NULL AND own_bad IS NULL;

CREATE OR REPLACE TEMP TABLE fresh_hits AS
SELECT f.person, m.start_pos
FROM (SELECT person, string_agg(canon, chr(1) ORDER BY label, norm) AS text FROM fresh_draws GROUP BY person) AS f
JOIN surrogate_needles AS n ON n.person = f.person
CROSS JOIN unnest(rx_find(f.text, n.needles)) AS u(m);

UPDATE surrogate_keys AS k
SET own_bad = k.canon = k.norm
    OR EXISTS (SELECT 1 FROM original_norms AS o WHERE o.person = k.person AND o.norm = k.canon)
    OR (NOT k.shifted AND EXISTS (SELECT 1 FROM original_norms AS o WHERE o.label = k.label AND o.norm = k.canon))
    OR EXISTS (SELECT 1 FROM fresh_hits AS h
               WHERE h.person = f.person AND h.start_pos >= f.start_pos AND h.start_pos < f.start_pos + length(f.canon))
    OR array_length(rx_find_identifiers(k.canon)) > 0
FROM fresh_draws AS f
WHERE f.person = k.person AND f.label = k.label AND f.norm = k.norm;

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
