-- Terms found by the recognizers, from the NER cache: those of the sensitive labels, and those
-- of a label that can state an attribute (emap), which are kept only if linking finds that they
-- do (a CARDINAL "36" that repeats the age is recoded, any other CARDINAL is not a term).
CREATE OR REPLACE TABLE rx.terms_found AS
SELECT
    t.row_id, t.person, t.attribute, e.start_pos, e.end_pos, e.term,
    lower(regexp_replace(trim(e.term), '\s+', ' ', 'g')) AS norm,
    e.label, e.source
FROM rx.texts AS t
JOIN rx.ner_cache AS c ON c.text_hash = t.text_hash
CROSS JOIN unnest(c.entities) AS u(e)
WHERE c.fingerprint = (SELECT fingerprint FROM rx.params)
  AND (e.label IN (SELECT label FROM rx.labels) OR e.label IN (SELECT label FROM rx.emap));
