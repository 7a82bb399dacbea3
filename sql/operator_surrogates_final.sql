-- The surrogate of each written form of each acceptable key (the written form's case is kept;
-- the draw depends only on person, label, norm and attempt, so all forms of a term agree). A key
-- without an acceptable surrogate after the last round is tagged instead (rx.surrogates has no row).
CREATE OR REPLACE TABLE rx.surrogates AS
SELECT f.person, f.label, f.norm, f.surface, f.attempt,
       rx_surrogate(f.person_key, f.label, f.norm, f.surface, f.attempt) AS surrogate
FROM (
    SELECT DISTINCT k.person, k.person_key, k.label, k.norm, t.term AS surface, k.attempt
    FROM surrogate_keys AS k
    JOIN rx.terms AS t ON t.person = k.person AND t.label = k.label AND t.norm = k.norm
    WHERE k.canon IS NOT NULL
      AND NOT EXISTS (SELECT 1 FROM surrogate_bad AS b WHERE b.person = k.person AND b.label = k.label AND b.norm = k.norm)
) AS f;
