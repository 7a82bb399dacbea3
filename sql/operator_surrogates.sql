-- One round of drawing: draw the keys not drawn yet, then find the unacceptable draws. A
-- surrogate must not be an original value (of its person, or of its label anywhere), must not
-- contain one of its person's replaced terms or a direct identifier as a word, must not stand for
-- two terms of one person, and must not be shared by two persons who wrote the same term (a
-- shared surrogate would act as the term itself). Shifted dates are exempt from the last two
-- rules across persons: their offsets are independent draws, so a coincidence links nothing.
UPDATE surrogate_keys
SET canon = lower(rx_surrogate(person_key, label, norm, norm, attempt)), drawn = true
WHERE NOT drawn;

CREATE OR REPLACE TEMP TABLE surrogate_bad AS
SELECT k.person, k.label, k.norm
FROM surrogate_keys AS k
LEFT JOIN surrogate_needles AS n ON n.person = k.person
WHERE k.canon IS NOT NULL AND (
    k.canon = k.norm
    OR EXISTS (SELECT 1 FROM original_norms AS o WHERE o.person = k.person AND o.norm = k.canon)
    OR (NOT k.shifted AND EXISTS (SELECT 1 FROM original_norms AS o WHERE o.label = k.label AND o.norm = k.canon))
    OR EXISTS (SELECT 1 FROM surrogate_keys AS o
               WHERE o.person = k.person AND o.label = k.label AND o.norm < k.norm AND o.canon = k.canon)
    OR (NOT k.shifted AND EXISTS (SELECT 1 FROM surrogate_keys AS o
               WHERE o.label = k.label AND o.norm = k.norm AND o.canon = k.canon AND o.person_key < k.person_key))
    OR array_length(rx_find(k.canon, n.needles)) > 0
    OR array_length(rx_find_identifiers(k.canon)) > 0
);
