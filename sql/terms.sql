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
-- punctuation: they are settled, and stay as they are. A test of four characters' code points
-- tells them, read from the span's context (the span with one character either side), which is
-- cut from the text once. Only the few others are trimmed and widened, by the next
-- statement: computed here for every span, those steps would cost their time on every span
-- though they change nothing for the settled ones. (A span still to be trimmed has no
-- trimmed_start yet.)
CREATE OR REPLACE TEMP TABLE found_raw AS
WITH kept_labels AS (
    -- (one join both keeps a span and tells whether its label is sensitive: three IN
    -- subqueries each probed every span)
    SELECT label, bool_or(sensitive) AS sensitive
    FROM (SELECT label, true AS sensitive FROM rx.labels
          UNION ALL SELECT label, false AS sensitive FROM rx.emap) AS l
    GROUP BY label
),
-- Each text is cut into its spans' contexts (the span with one character either side) once,
-- by rx_cut (udfs/find.py), and is not carried to its spans: DuckDB copies the whole text for
-- each span it goes to through the unnest and the join, time and memory in the square of a
-- text's length.
cut AS (
    SELECT t.text_id, t.row_id, t.person, t.attribute, c.entities,
           CASE WHEN octet_length(encode(t.text)) > 4096
                THEN rx_cut(t.text, list_transform(c.entities, lambda e: greatest(e.start_pos, 1) - 1),
                            list_transform(c.entities, lambda e: e.end_pos + 1))
                ELSE list_transform(c.entities, lambda e: substring(t.text, e.start_pos, e.end_pos - e.start_pos + 2))
                END AS contexts
    FROM rx.texts AS t
    JOIN rx.ner_cache AS c ON c.text_hash = t.text_hash
    WHERE c.fingerprint = (SELECT fingerprint FROM rx.params)
),
cached AS (
    -- (span_no, the span's place in its text's list, tells the spans of a text apart: an
    -- explicit id, where DuckDB's rowid has no counterpart on Spark, and no sort to number them)
    SELECT text_id, row_id, person, attribute, unnest(entities) AS e, unnest(contexts) AS context,
           unnest(range(array_length(entities))) AS span_no
    FROM cut
),
spans AS (
    SELECT c.text_id, c.span_no, c.row_id, c.person, c.attribute, c.e.start_pos, c.e.end_pos, c.e.label, c.e.source,
           l.sensitive,
           -- (an empty or reversed span has no context, and is never settled)
           CASE WHEN c.e.start_pos >= 0 AND c.e.end_pos > c.e.start_pos THEN c.context END AS context,
           -- position p of the text is position p - shift of the context
           greatest(c.e.start_pos, 1) - 1 AS shift
    FROM cached AS c
    JOIN kept_labels AS l ON l.label = c.e.label
),
codes AS (
    SELECT *,
           substring(context, start_pos + 1 - shift, end_pos - start_pos) AS term,
           unicode(substring(context, start_pos + 1 - shift, 1)) AS first_code,
           unicode(substring(context, end_pos - shift, 1)) AS last_code,
           CASE WHEN start_pos = 0 THEN -1 ELSE unicode(context) END AS code_before,
           unicode(substring(context, end_pos + 1 - shift, 1)) AS code_after
    FROM spans
),
settle AS (
    SELECT *,
           coalesce((first_code BETWEEN 48 AND 57 OR first_code BETWEEN 65 AND 90 OR first_code BETWEEN 97 AND 122)
           AND (last_code BETWEEN 48 AND 57 OR last_code BETWEEN 65 AND 90 OR last_code BETWEEN 97 AND 122)
           AND (code_before BETWEEN -1 AND 47 OR code_before BETWEEN 58 AND 64 OR code_before BETWEEN 91 AND 94
                OR code_before = 96 OR code_before BETWEEN 123 AND 127)
           AND (code_after BETWEEN -1 AND 47 OR code_after BETWEEN 58 AND 64 OR code_after BETWEEN 91 AND 94
                OR code_after = 96 OR code_after BETWEEN 123 AND 127), false) AS settled
    FROM codes
)
SELECT text_id, span_no, row_id, person, attribute, label, source,
       CASE WHEN settled THEN start_pos END AS trimmed_start,
       start_pos, end_pos, term, sensitive, settled
FROM settle;

-- The spans not settled above, trimmed and widened (with the text once more, which the few of
-- them take by their text_id). Even among them, most edges are settled by a test of one
-- character's code point; the regular expressions only run on the others.
INSERT INTO found_raw (text_id, span_no, row_id, person, attribute, label, source, trimmed_start, start_pos, end_pos, term, sensitive, settled)
--
-- Each span reads its text only 64 characters either side: it takes that window (`text`, from
-- `off` on; positions below are the window's), cut by rx_cut once per text. Joined to each span,
-- the whole text would be copied for each span, in the square of the text's length for one
-- dense text.
WITH pending AS (
    SELECT span_no, text_id, greatest(start_pos - 64, 0) AS off, greatest(start_pos, end_pos) + 64 AS stop
    FROM found_raw
    WHERE trimmed_start IS NULL
),
windows AS (
    SELECT p.text_id, unnest(p.spans) AS span_no, unnest(p.offs) AS off, unnest(rx_cut(t.text, p.offs, p.stops)) AS text
    FROM (SELECT text_id, list(span_no) AS spans, list(off) AS offs, list(stop) AS stops FROM pending GROUP BY text_id) AS p
    JOIN rx.texts AS t ON t.text_id = p.text_id
),
cached AS (
    SELECT f.text_id, f.span_no, f.row_id, f.person, f.attribute, w.text, w.off, f.start_pos - w.off AS start_pos,
           f.end_pos - w.off AS end_pos, f.label, f.source, f.sensitive
    FROM found_raw AS f
    JOIN windows AS w ON w.text_id = f.text_id AND w.span_no = f.span_no
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
    SELECT text_id, span_no, row_id, person, attribute, text, off, label, source, sensitive, proper,
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
SELECT text_id, span_no, row_id, person, attribute, label, source,
       start_pos + off AS trimmed_start,
       CAST(start_pos - grow_left + off AS INTEGER) AS start_pos,
       CAST(end_pos + grow_right + off AS INTEGER) AS end_pos,
       substring(text, start_pos - grow_left + 1, end_pos + grow_right - start_pos + grow_left) AS term,
       sensitive,
       false AS settled
FROM edges
-- A proper span's widened span holds the letter or digit its trimmed span held.
WHERE proper
   OR regexp_matches(substring(text, start_pos - grow_left + 1, end_pos + grow_right - start_pos + grow_left), '[\pL\pN]');

DELETE FROM found_raw WHERE trimmed_start IS NULL;

-- Of overlapping spans, the one a sensitive label, then its length, then its place (trimmed
-- start, label) prefers. (Spans that tie so far are the same span with the same label; the
-- source decides then, where the order of the spans over all texts once did, by chance.) The
-- spans are compared within their text (text_id), so no number over all spans is needed (a
-- global row_number sorted every span, with its text); and the losers are found by a plain
-- join, not a correlated NOT EXISTS, which DuckDB decorrelated by grouping every span on all the
-- columns it compares.
--
-- Recognizers rarely tag overlapping spans, so the spans are compared in full only in the texts
-- where some overlap: a join on the text and the places alone finds those, and carrying the
-- labels, sources and ranks of all spans through the join would carry them for every text.
-- (A temporary table: nothing reads it after the run, and a persistent table's rows are written
-- to the database file.)
--
-- Spans are paired within a bucket of 256 characters of their text, each span in every bucket
-- it touches (two overlapping spans share the one where the later begins): paired within the
-- whole text, the spans of one dense text met each other all, in the square of their number.
CREATE OR REPLACE TEMP TABLE terms_found AS
WITH placed AS (
    SELECT span_no, text_id, start_pos, end_pos,
           unnest(range(start_pos // 256, greatest(end_pos - 1, start_pos) // 256 + 1)) AS bucket
    FROM found_raw
),
overlapping AS (
    SELECT DISTINCT a.text_id
    FROM placed AS a
    JOIN placed AS b ON b.text_id = a.text_id AND b.bucket = a.bucket
    WHERE b.span_no <> a.span_no AND b.start_pos < a.end_pos AND a.start_pos < b.end_pos
),
compared AS (
    SELECT span_no, text_id, start_pos, end_pos, sensitive, trimmed_start, label, source, settled,
           unnest(range(start_pos // 256, greatest(end_pos - 1, start_pos) // 256 + 1)) AS bucket
    FROM found_raw
    WHERE text_id IN (SELECT text_id FROM overlapping)
)
SELECT a.row_id, a.person, a.attribute, a.start_pos, a.end_pos, a.term,
       -- (the regex replace only where it can change something: on every term it costs more
       -- than the contains() tests that rule most terms out;
       -- the regex's \s is one of tab, line feed, form feed, carriage return and space; a settled
       -- term begins and ends with a letter or digit, and trimming it changes nothing)
       lower(CASE WHEN contains(a.term, '  ') OR contains(a.term, chr(9)) OR contains(a.term, chr(10))
                       OR contains(a.term, chr(12)) OR contains(a.term, chr(13))
                  THEN regexp_replace(trim(a.term), '\s+', ' ', 'g')
                  WHEN a.settled THEN a.term
                  ELSE trim(a.term) END) AS norm,
       a.label, a.source
FROM found_raw AS a
-- (text_id and span_no tell the spans apart; two spans that tie on everything compared are the
-- same span from the same source, and either may stay: a settled one, then the earlier in the
-- text's list, as the rowid once chose, which put the spans settled at once first.)
WHERE (a.text_id, a.span_no) NOT IN (
    SELECT a.text_id, a.span_no
    FROM compared AS a
    JOIN compared AS b ON b.text_id = a.text_id AND b.bucket = a.bucket
    WHERE b.span_no <> a.span_no
      AND b.start_pos < a.end_pos AND a.start_pos < b.end_pos
      AND (b.sensitive AND NOT a.sensitive
           OR b.sensitive = a.sensitive
              AND (b.end_pos - b.start_pos > a.end_pos - a.start_pos
                   OR b.end_pos - b.start_pos = a.end_pos - a.start_pos
                      AND (b.trimmed_start < a.trimmed_start
                           OR b.trimmed_start = a.trimmed_start
                              AND (b.label < a.label
                                   OR b.label = a.label
                                      AND (b.source < a.source
                                           OR b.source = a.source
                                              AND (b.settled AND NOT a.settled
                                                   OR b.settled = a.settled AND b.span_no < a.span_no))))))
);

-- (A row put in and taken out again: DuckDB 2.0.0 loses a later insert of 122,880 rows or more
-- into a table that was created empty in the same transaction; scans and joins see none of its
-- rows, count(*) sees them all. Later stages insert into this table, and it is empty where the
-- recognizers found nothing.)
INSERT INTO terms_found (row_id) VALUES (NULL);
DELETE FROM terms_found WHERE row_id IS NULL;
