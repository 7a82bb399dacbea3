-- Terms found by the recognizers, from the NER cache: those of the sensitive labels, and those
-- of a label that can state an attribute (emap), which are kept only if linking finds that they
-- do (a CARDINAL "36" that repeats the age is recoded, any other CARDINAL is not a term).
--
-- A span is trimmed to begin and end with a letter or digit ("-A" of "KA-A-POW", "$" of "$15"),
-- and one that then starts or ends inside a word is widened to the whole word: spaCy cuts
-- "10GB" into "10" and "GB", and replacing the GPE "GB" alone would leave "10[GPE]", a new word
-- "10" glued to a label. Where the spans then overlap, a sensitive label wins, then the longer
-- span. A span with no letter or digit ("$", "®") is no term.
CREATE OR REPLACE TEMP TABLE found_raw AS
WITH cached AS (
    SELECT t.row_id, t.person, t.attribute, t.text, e.start_pos, e.end_pos, e.label, e.source
    FROM rx.texts AS t
    JOIN rx.ner_cache AS c ON c.text_hash = t.text_hash
    CROSS JOIN unnest(c.entities) AS u(e)
    WHERE c.fingerprint = (SELECT fingerprint FROM rx.params)
      AND (e.label IN (SELECT label FROM rx.labels) OR e.label IN (SELECT label FROM rx.emap))
),
trimmed AS (
    SELECT row_id, person, attribute, text, label, source,
           start_pos + length(regexp_extract(term, '^[^\pL\pN]*')) AS start_pos,
           end_pos - length(regexp_extract(term, '[^\pL\pN]*$')) AS end_pos
    FROM (SELECT *, substring(text, start_pos + 1, end_pos - start_pos) AS term FROM cached) AS c
    WHERE regexp_matches(term, '[\pL\pN]')
),
edges AS (
    SELECT *,
        CASE WHEN regexp_matches(substring(text, start_pos + 1, 1), '[\pL\pN_]')
             THEN length(regexp_extract(substring(text, greatest(start_pos - 64, 0) + 1, start_pos - greatest(start_pos - 64, 0)), '[\pL\pN_]+$'))
             ELSE 0 END AS grow_left,
        CASE WHEN regexp_matches(substring(text, end_pos, 1), '[\pL\pN_]')
             THEN length(regexp_extract(substring(text, end_pos + 1, 64), '^[\pL\pN_]+'))
             ELSE 0 END AS grow_right
    FROM trimmed
)
SELECT row_id, person, attribute, label, source,
       CAST(start_pos - grow_left AS INTEGER) AS start_pos,
       CAST(end_pos + grow_right AS INTEGER) AS end_pos,
       substring(text, start_pos - grow_left + 1, end_pos + grow_right - start_pos + grow_left) AS term,
       label IN (SELECT label FROM rx.labels) AS sensitive,
       row_number() OVER (ORDER BY row_id, attribute, start_pos, label) AS id
FROM edges;

CREATE OR REPLACE TABLE rx.terms_found AS
SELECT a.row_id, a.person, a.attribute, a.start_pos, a.end_pos, a.term,
       lower(regexp_replace(trim(a.term), '\s+', ' ', 'g')) AS norm,
       a.label, a.source
FROM found_raw AS a
WHERE regexp_matches(a.term, '[\pL\pN]')
  AND NOT EXISTS (
    SELECT 1 FROM found_raw AS b
    WHERE b.row_id = a.row_id AND b.attribute = a.attribute AND b.id <> a.id
      AND b.start_pos < a.end_pos AND a.start_pos < b.end_pos
      AND regexp_matches(b.term, '[\pL\pN]')
      AND (b.sensitive AND NOT a.sensitive
           OR b.sensitive = a.sensitive AND (b.end_pos - b.start_pos > a.end_pos - a.start_pos
                                             OR b.end_pos - b.start_pos = a.end_pos - a.start_pos AND b.id < a.id))
);
