-- Linking: which terms repeat a relational value of their own tuple (DESIGN.md, redundant term).
-- A redundant term is replaced at recoding by the recoded value of its attribute; only its
-- stating part (stated_start, stated_end) is replaced, so "36 years old" becomes "[24-36] years old".

-- 1. A tuple's own nominal or ordinal value mentioned in its text ("science" for topic Science)
--    is a term wherever no recognizer tagged it; it takes the attribute's first emap label, or the
--    attribute's name in capitals.
CREATE OR REPLACE TEMP TABLE mention_needles AS
SELECT v.row_id, list_sort(array_agg(DISTINCT lower(v.txt))) AS needles
FROM rx.qi_values AS v
JOIN rx.attributes AS a ON a.attribute = v.attribute
WHERE a.kind IN ('nominal', 'ordinal') AND a.match_values AND v.txt IS NOT NULL AND v.txt <> '(missing)'
GROUP BY v.row_id;

-- One search row per person and needle set, not per text: grouping by the needle set alone put
-- most of the blog corpus (19,320 authors sharing few topic values) into one list, one Python
-- call (4.8 GB). A person's texts bound the row, as in propagate.sql.
CREATE OR REPLACE TEMP TABLE mentions AS
SELECT t.row_id, t.person, t.attribute, f.start_pos, f.end_pos,
       substring(t.text, f.start_pos + 1, f.end_pos - f.start_pos) AS term, f.needle AS norm
FROM (
    SELECT m.id AS text_id, m.start_pos, m.end_pos, m.needle
    FROM (
        SELECT n.needles, array_agg(struct_pack(id := t.text_id, text := t.text)) AS items
        FROM rx.texts AS t
        JOIN mention_needles AS n ON n.row_id = t.row_id
        GROUP BY n.needles, t.person
    ) AS g
    CROSS JOIN unnest(rx_find_texts(g.items, g.needles)) AS u(m)
) AS f
JOIN rx.texts AS t ON t.text_id = f.text_id;

INSERT INTO rx.terms_found
SELECT m.row_id, m.person, m.attribute, m.start_pos, m.end_pos, m.term, m.norm,
       coalesce(
           (SELECT min(e.label) FROM rx.emap AS e WHERE e.attribute = first_attr.attribute),
           upper(first_attr.attribute)
       ),
       'list'
FROM mentions AS m
JOIN (
    SELECT v.row_id, lower(v.txt) AS norm, min_by(v.attribute, a.position) AS attribute
    FROM rx.qi_values AS v JOIN rx.attributes AS a ON a.attribute = v.attribute
    WHERE a.kind IN ('nominal', 'ordinal') AND a.match_values
    GROUP BY v.row_id, lower(v.txt)
) AS first_attr ON first_attr.row_id = m.row_id AND first_attr.norm = m.norm
WHERE NOT EXISTS (
    SELECT 1 FROM rx.terms_found AS f
    WHERE f.row_id = m.row_id AND f.attribute = m.attribute
      AND f.start_pos < m.end_pos AND m.start_pos < f.end_pos
);

CREATE OR REPLACE TEMP TABLE found AS
SELECT row_number() OVER (ORDER BY row_id, attribute, start_pos) AS term_id, *
FROM rx.terms_found;

-- 2. Candidate links: (term, attribute) pairs where the term can state the tuple's value.
CREATE OR REPLACE TEMP TABLE link_candidates AS
SELECT f.term_id, f.term, f.start_pos, f.norm, v.attribute, v.kind, v.txt, v.num, v.day, a.position
FROM found AS f
JOIN rx.qi_values AS v ON v.row_id = f.row_id
JOIN rx.attributes AS a ON a.attribute = v.attribute
LEFT JOIN (SELECT DISTINCT attribute, label FROM rx.emap) AS e ON e.attribute = v.attribute AND e.label = f.label
WHERE v.num IS NOT NULL AND f.source <> 'identifier'
  -- a nominal or ordinal value is only ever stated by a term that is the value itself (see links)
  AND (v.kind NOT IN ('nominal', 'ordinal') OR f.norm = lower(v.txt))
  AND (
      e.label IS NOT NULL
      -- a tuple's own categorical value, when matching values is on, is redundant whatever label
      -- the recognizer gave it (spaCy tags the sign "Pisces" as ORG)
      OR (a.kind IN ('nominal', 'ordinal') AND a.match_values)
  );

-- Numbers standing alone inside a term, with their offset in the term: the term is cut into
-- alternating runs of digits and non-digits, and a run of digits counts when no letter touches it.
CREATE OR REPLACE TEMP TABLE term_numbers AS
WITH pieces AS (
    SELECT c.term_id, c.term, c.attribute, c.num, c.position, u.piece, u.i
    FROM link_candidates AS c
    CROSS JOIN unnest(regexp_extract_all(c.term, '[0-9]+(?:[.][0-9]+)?|[^0-9]+')) WITH ORDINALITY AS u(piece, i)
    WHERE c.kind = 'numeric'
),
placed AS (
    SELECT *,
        coalesce(sum(length(piece)) OVER (PARTITION BY term_id, attribute ORDER BY i
                                          ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS offset_in_term,
        lag(piece) OVER (PARTITION BY term_id, attribute ORDER BY i) AS before,
        lead(piece) OVER (PARTITION BY term_id, attribute ORDER BY i) AS after
    FROM pieces
)
SELECT term_id, attribute, position, offset_in_term, length(piece) AS len
FROM placed
-- A term with one number only: in a date ("June 17, 2004", "16 monday") a number is a day, not
-- an age, and in "17:10-16 10" the other numbers would stay beside the recoded one.
WHERE array_length(regexp_extract_all(term, '[0-9]+')) = 1
  AND NOT regexp_matches(lower(term), '(mon|tues|wednes|thurs|fri|satur|sun)day')
  AND term_id NOT IN (
    SELECT c.term_id
    FROM link_candidates AS c
    CROSS JOIN unnest(regexp_extract_all(lower(c.term), '\pL+')) AS w(word)
    JOIN rx.month_names AS mn ON mn.name = w.word
    WHERE c.kind = 'numeric'
)
  AND regexp_matches(piece, '^[0-9]')
  AND TRY_CAST(piece AS DOUBLE) = num
  AND NOT coalesce(regexp_matches(before, '[\pL_.]$'), false)
  AND NOT coalesce(regexp_matches(after, '^(\pL|[.,][0-9])'), false);

-- Dates stated by a term: day-month-year, month-day-year, numeric and ISO dates, month-year, or
-- a year alone; every stated part must agree with the tuple's date.
CREATE OR REPLACE TEMP TABLE term_dates AS
WITH stated AS (
    SELECT term_id, attribute, position, day, 'dmy' AS form,
        regexp_extract(term, '([0-9]{1,2})(?:st|nd|rd|th)?(?: of)?[ ,.-]+(\pL+)\.?,?[ ,.-]+([0-9]{4})', 0) AS part,
        regexp_extract(term, '([0-9]{1,2})(?:st|nd|rd|th)?(?: of)?[ ,.-]+(\pL+)\.?,?[ ,.-]+([0-9]{4})', 3) AS y,
        regexp_extract(term, '([0-9]{1,2})(?:st|nd|rd|th)?(?: of)?[ ,.-]+(\pL+)\.?,?[ ,.-]+([0-9]{4})', 2) AS m,
        regexp_extract(term, '([0-9]{1,2})(?:st|nd|rd|th)?(?: of)?[ ,.-]+(\pL+)\.?,?[ ,.-]+([0-9]{4})', 1) AS d
    FROM link_candidates WHERE kind = 'date'
    UNION ALL
    SELECT term_id, attribute, position, day, 'mdy',
        regexp_extract(term, '(\pL+)\.? ([0-9]{1,2})(?:st|nd|rd|th)?,? ([0-9]{4})', 0),
        regexp_extract(term, '(\pL+)\.? ([0-9]{1,2})(?:st|nd|rd|th)?,? ([0-9]{4})', 3),
        regexp_extract(term, '(\pL+)\.? ([0-9]{1,2})(?:st|nd|rd|th)?,? ([0-9]{4})', 1),
        regexp_extract(term, '(\pL+)\.? ([0-9]{1,2})(?:st|nd|rd|th)?,? ([0-9]{4})', 2)
    FROM link_candidates WHERE kind = 'date'
    UNION ALL
    SELECT term_id, attribute, position, day, 'iso',
        regexp_extract(term, '([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})', 0),
        regexp_extract(term, '([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})', 1),
        regexp_extract(term, '([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})', 2),
        regexp_extract(term, '([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})', 3)
    FROM link_candidates WHERE kind = 'date'
    UNION ALL
    -- 14/05/2004 or 05/14/2004: either order agrees
    SELECT term_id, attribute, position, day, 'numeric',
        regexp_extract(term, '([0-9]{1,2})[./]([0-9]{1,2})[./]([0-9]{4})', 0),
        regexp_extract(term, '([0-9]{1,2})[./]([0-9]{1,2})[./]([0-9]{4})', 3),
        regexp_extract(term, '([0-9]{1,2})[./]([0-9]{1,2})[./]([0-9]{4})', 2),
        regexp_extract(term, '([0-9]{1,2})[./]([0-9]{1,2})[./]([0-9]{4})', 1)
    FROM link_candidates WHERE kind = 'date'
    UNION ALL
    SELECT term_id, attribute, position, day, 'my',
        regexp_extract(term, '(\pL+)\.?,? ([0-9]{4})', 0),
        regexp_extract(term, '(\pL+)\.?,? ([0-9]{4})', 2),
        regexp_extract(term, '(\pL+)\.?,? ([0-9]{4})', 1),
        ''
    FROM link_candidates WHERE kind = 'date'
    UNION ALL
    SELECT term_id, attribute, position, day, 'y',
        regexp_extract(term, '(?:^|[^0-9])((?:1[89]|20)[0-9]{2})(?:[^0-9]|$)', 1),
        regexp_extract(term, '(?:^|[^0-9])((?:1[89]|20)[0-9]{2})(?:[^0-9]|$)', 1),
        '', ''
    FROM link_candidates WHERE kind = 'date'
),
resolved AS (
    SELECT s.*,
        CASE WHEN regexp_matches(s.m, '^[0-9]+$') THEN CAST(s.m AS INTEGER) ELSE mn.month END AS month_no,
        TRY_CAST(s.d AS INTEGER) AS day_no
    FROM stated AS s
    LEFT JOIN rx.month_names AS mn ON mn.name = lower(s.m)
    WHERE s.part <> ''
),
-- Only the most specific form a term states counts: "15 June 2004" states a day, so it does
-- not agree with 2004-05-14 through its year alone.
parsed AS (
    SELECT *, max(length(part)) OVER (PARTITION BY term_id, attribute) AS longest
    FROM resolved
    WHERE m = '' OR month_no IS NOT NULL
)
-- A date term is replaced whole, not only its stated part: what the patterns do not read ("the
-- summer of 2004", "2004 May 28") is finer than the recoded date and must not stay.
SELECT r.term_id, r.attribute, r.position, c.start_pos, 0 AS offset_in_term, length(c.term) AS len
FROM parsed AS r
JOIN link_candidates AS c ON c.term_id = r.term_id AND c.attribute = r.attribute
WHERE length(r.part) = r.longest
  AND TRY_CAST(r.y AS INTEGER) = year(r.day)
  AND (r.m = '' OR r.month_no = month(r.day)
       OR (r.form = 'numeric' AND r.day_no = month(r.day) AND r.month_no = day(r.day)))
  AND (r.d = '' OR r.day_no = day(r.day)
       OR (r.form = 'numeric' AND r.day_no = month(r.day) AND r.month_no = day(r.day)));

CREATE OR REPLACE TEMP TABLE links AS
SELECT term_id, attribute, position, 0 AS offset_in_term, length(term) AS len
FROM link_candidates
WHERE kind IN ('nominal', 'ordinal') AND norm = lower(txt)
UNION ALL
SELECT term_id, attribute, position, offset_in_term, len FROM term_numbers
UNION ALL
SELECT term_id, attribute, position, offset_in_term, len FROM term_dates;

-- 3. The terms, each linked to at most one attribute: the first configured one, and for it the
--    longest stating part (the most specific date form).
CREATE OR REPLACE TABLE rx.terms AS
WITH best AS (
    SELECT term_id, attribute, offset_in_term, len
    FROM (
        SELECT *, row_number() OVER (PARTITION BY term_id ORDER BY position, len DESC, offset_in_term) AS rn
        FROM links
    ) AS ranked
    WHERE rn = 1
)
SELECT
    f.row_id, f.person, f.attribute, f.start_pos, f.end_pos, f.term, f.norm, f.label, f.source,
    b.attribute AS linked_attribute,
    CAST(f.start_pos + b.offset_in_term AS INTEGER) AS stated_start,
    CAST(f.start_pos + b.offset_in_term + b.len AS INTEGER) AS stated_end
FROM found AS f
LEFT JOIN best AS b ON b.term_id = f.term_id
WHERE b.attribute IS NOT NULL OR f.source = 'identifier' OR f.label IN (SELECT label FROM rx.labels)
ORDER BY f.row_id, f.attribute, f.start_pos;
