-- Terms found by the recognizers, from the NER cache: those of the sensitive labels, and those
-- of a label that can state an attribute (emap), which are kept only if linking finds that they
-- do (a CARDINAL "36" that repeats the age is recoded, any other CARDINAL is not a term).
--
-- A span is trimmed to begin and end with a letter or digit ("-A" of "KA-A-POW", "$" of "$15"),
-- and one that then starts or ends inside a word is widened to the whole word: spaCy cuts
-- "10GB" into "10" and "GB", and replacing the GPE "GB" alone would leave "10[GPE]", a new word
-- "10" glued to a label. Where the spans then overlap, a sensitive label wins, then the longer
-- span. A span with no letter or digit ("$", "®") is no term.
--
-- Most spans begin and end with an ASCII letter or digit and stand between spaces or
-- punctuation: a test of one character's code point settles them, and the regular expressions
-- only run on the others (a third of this statement's time went to regexes that changed nothing).
CREATE OR REPLACE TEMP TABLE found_raw AS
WITH cached AS (
    SELECT t.text_id, t.row_id, t.person, t.attribute, t.text, e.start_pos, e.end_pos, e.label, e.source
    FROM rx.texts AS t
    JOIN rx.ner_cache AS c ON c.text_hash = t.text_hash
    CROSS JOIN unnest(c.entities) AS u(e)
    WHERE c.fingerprint = (SELECT fingerprint FROM rx.params)
      AND (e.label IN (SELECT label FROM rx.labels) OR e.label IN (SELECT label FROM rx.emap))
),
spans AS (
    SELECT *, substring(text, start_pos + 1, end_pos - start_pos) AS term,
           -- (an empty or reversed span takes the regexes, as it did before)
           start_pos >= 0 AND end_pos > start_pos AS proper,
           CASE WHEN start_pos >= 0 AND end_pos > start_pos THEN unicode(substring(text, start_pos + 1, 1)) END AS first_code,
           CASE WHEN start_pos >= 0 AND end_pos > start_pos THEN unicode(substring(text, end_pos, 1)) END AS last_code
    FROM cached
),
trimmed AS (
    SELECT text_id, row_id, person, attribute, text, label, source, proper,
           start_pos + CASE WHEN first_code BETWEEN 48 AND 57 OR first_code BETWEEN 65 AND 90
                                 OR first_code BETWEEN 97 AND 122 THEN 0
                            ELSE length(regexp_extract(term, '^[^\pL\pN]*')) END AS start_pos,
           end_pos - CASE WHEN last_code BETWEEN 48 AND 57 OR last_code BETWEEN 65 AND 90
                               OR last_code BETWEEN 97 AND 122 THEN 0
                          ELSE length(regexp_extract(term, '[^\pL\pN]*$')) END AS end_pos
    FROM spans
    WHERE first_code BETWEEN 48 AND 57 OR first_code BETWEEN 65 AND 90 OR first_code BETWEEN 97 AND 122
       OR regexp_matches(term, '[\pL\pN]')
),
-- A trimmed span begins and ends with a letter or digit, so it grows only where the character
-- beside it is one too (or an underscore, or beyond ASCII, left to the regex).
neighbours AS (
    SELECT *,
           CASE WHEN start_pos = 0 THEN -1 ELSE unicode(substring(text, start_pos, 1)) END AS before_code,
           unicode(substring(text, end_pos + 1, 1)) AS after_code
    FROM trimmed
),
edges AS (
    SELECT *,
        CASE WHEN proper AND (before_code BETWEEN -1 AND 47 OR before_code BETWEEN 58 AND 64
                  OR before_code BETWEEN 91 AND 94 OR before_code = 96 OR before_code BETWEEN 123 AND 127) THEN 0
             WHEN regexp_matches(substring(text, start_pos + 1, 1), '[\pL\pN_]')
             THEN length(regexp_extract(substring(text, greatest(start_pos - 64, 0) + 1, start_pos - greatest(start_pos - 64, 0)), '[\pL\pN_]+$'))
             ELSE 0 END AS grow_left,
        CASE WHEN proper AND (after_code BETWEEN -1 AND 47 OR after_code BETWEEN 58 AND 64
                  OR after_code BETWEEN 91 AND 94 OR after_code = 96 OR after_code BETWEEN 123 AND 127) THEN 0
             WHEN regexp_matches(substring(text, end_pos, 1), '[\pL\pN_]')
             THEN length(regexp_extract(substring(text, end_pos + 1, 64), '^[\pL\pN_]+'))
             ELSE 0 END AS grow_right
    FROM neighbours
)
SELECT text_id, row_id, person, attribute, label, source,
       start_pos AS trimmed_start,
       CAST(start_pos - grow_left AS INTEGER) AS start_pos,
       CAST(end_pos + grow_right AS INTEGER) AS end_pos,
       substring(text, start_pos - grow_left + 1, end_pos + grow_right - start_pos + grow_left) AS term,
       label IN (SELECT label FROM rx.labels) AS sensitive
FROM edges
-- A proper span's widened span holds the letter or digit its trimmed span held.
WHERE proper
   OR regexp_matches(substring(text, start_pos - grow_left + 1, end_pos + grow_right - start_pos + grow_left), '[\pL\pN]');

-- Of overlapping spans, the one a sensitive label, then its length, then its place (trimmed
-- start, label) prefers. (Spans that tie so far are the same span with the same label; the
-- source decides then, where the order of the spans over all texts once did, by chance.) The
-- spans are compared within their text (text_id), so no number over all spans is needed (a
-- global row_number sorted every span, with its text); and the losers are found by a plain
-- join, not a correlated NOT EXISTS, which DuckDB decorrelated by grouping every span on all the
-- columns it compares.
CREATE OR REPLACE TABLE rx.terms_found AS
SELECT a.row_id, a.person, a.attribute, a.start_pos, a.end_pos, a.term,
       -- (the regex replace only where it can change something: it took a third of the time)
       lower(CASE WHEN regexp_matches(a.term, '\s\s|[^\S ]') THEN regexp_replace(trim(a.term), '\s+', ' ', 'g')
                  ELSE trim(a.term) END) AS norm,
       a.label, a.source
FROM found_raw AS a
-- (rowid tells the spans of this temporary table apart, without numbering them; two spans that
-- tie on everything compared are the same span from the same source, and either may stay. On
-- Spark, monotonically_increasing_id() would number them.)
WHERE a.rowid NOT IN (
    SELECT a.rowid
    FROM found_raw AS a
    JOIN found_raw AS b ON b.text_id = a.text_id
    WHERE b.rowid <> a.rowid
      AND b.start_pos < a.end_pos AND a.start_pos < b.end_pos
      AND (b.sensitive AND NOT a.sensitive
           OR b.sensitive = a.sensitive
              AND (b.end_pos - b.start_pos > a.end_pos - a.start_pos
                   OR b.end_pos - b.start_pos = a.end_pos - a.start_pos
                      AND (b.trimmed_start < a.trimmed_start
                           OR b.trimmed_start = a.trimmed_start
                              AND (b.label < a.label
                                   OR b.label = a.label
                                      AND (b.source < a.source OR b.source = a.source AND b.rowid < a.rowid)))))
);
