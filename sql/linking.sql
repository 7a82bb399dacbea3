-- Linking: which terms repeat a relational value of their own tuple (docs/how-it-works.md, Decisions).
-- A redundant term is replaced at recoding by the recoded value of its attribute; only its
-- stating part (stated_start, stated_end) is replaced, so "36 years old" becomes "[24-36] years old".

-- 1. A tuple's own nominal or ordinal value mentioned in its text ("science" for topic Science)
--    is a term wherever no recognizer tagged it; it takes the attribute's first emap label, or the
--    attribute's name in capitals. The texts were searched for the values (mention_needles.sql)
--    in propagation's pass over them (propagate.sql): the matches of a text's own needles.
--    (A search of its own would read the texts again, and group them again by person.)
CREATE OR REPLACE TEMP TABLE mentions AS
SELECT t.row_id, t.person, t.attribute, f.start_pos, f.end_pos,
       substring(t.text, f.start_pos + 1, f.end_pos - f.start_pos) AS term, f.needle AS norm
FROM found_matches AS f
JOIN rx.texts AS t ON t.text_id = f.text_id
WHERE f.own;

-- A rare word inside a mention of the tuple's own value ("Zorb" of the team "Kilo Zorb") yields
-- to the mention, which is recoded whole. A rare run that reaches beyond the mention ("Female
-- Weapon Hammer" around a gender "Female") stays, and the mention with it: deleted, it left
-- "Weapon Hammer" readable beside the value.
DELETE FROM terms_found
WHERE label = 'RARE' AND (row_id, attribute, start_pos, end_pos) IN (
    SELECT f.row_id, f.attribute, f.start_pos, f.end_pos
    FROM terms_found AS f
    JOIN mentions AS m ON m.row_id = f.row_id AND m.attribute = f.attribute
    WHERE f.label = 'RARE' AND m.start_pos <= f.start_pos AND f.end_pos <= m.end_pos
);

-- (Joins, not correlated subqueries: DuckDB decorrelates a NOT EXISTS by grouping every
-- mention on the columns it compares. The attribute of a mention is looked up for the mentioned
-- (row, value) pairs only, not for every value.)
INSERT INTO terms_found
SELECT m.row_id, m.person, m.attribute, m.start_pos, m.end_pos, m.term, m.norm,
       coalesce(e.label, upper(first_attr.attribute)),
       'list'
FROM mentions AS m
JOIN (
    SELECT v.row_id, lower(v.txt) AS norm, min_by(v.attribute, a.position) AS attribute
    FROM rx.qi_values AS v JOIN rx.attributes AS a ON a.attribute = v.attribute
    WHERE a.kind IN ('nominal', 'ordinal') AND a.match_values
      AND (v.row_id, lower(v.txt)) IN (SELECT row_id, norm FROM mentions)
    GROUP BY v.row_id, lower(v.txt)
) AS first_attr ON first_attr.row_id = m.row_id AND first_attr.norm = m.norm
LEFT JOIN (SELECT attribute, min(label) AS label FROM rx.emap GROUP BY attribute) AS e
  ON e.attribute = first_attr.attribute
WHERE (m.row_id, m.attribute, m.start_pos, m.end_pos) NOT IN (
    SELECT m.row_id, m.attribute, m.start_pos, m.end_pos
    FROM mentions AS m
    JOIN terms_found AS f ON f.row_id = m.row_id AND f.attribute = m.attribute
    WHERE f.start_pos < m.end_pos AND m.start_pos < f.end_pos
);

-- 1b. A tuple's own number in words or in an age's compact form ("thirty-six", "36yo"; the
--     needles of mention_needles.sql) states the numeric attribute holding it (the first
--     configured one). Its stating part is the number: the digits ("36" of "36yo"), or the words.
--     An occurrence that touches no term is a term, labelled as in 1.; one inside a term links
--     that term (number_links, below).
CREATE OR REPLACE TEMP TABLE number_mentions AS
SELECT m.row_id, m.person, m.attribute, m.start_pos, m.end_pos, m.term, m.norm,
       n.attribute AS linked_attribute, n.position,
       CASE WHEN regexp_matches(m.term, '^[0-9]') THEN length(regexp_extract(m.term, '^[0-9]+'))
            ELSE length(m.term) END AS stated_len
FROM mentions AS m
JOIN number_forms AS f ON f.needle = m.norm
JOIN (
    SELECT v.row_id, TRY_CAST(v.num AS INTEGER) AS value, min_by(v.attribute, a.position) AS attribute,
           min(a.position) AS position
    FROM rx.qi_values AS v JOIN rx.attributes AS a ON a.attribute = v.attribute
    WHERE a.kind = 'numeric' AND a.match_values AND v.num = round(v.num)
      AND v.row_id IN (SELECT row_id FROM mentions)
    GROUP BY v.row_id, TRY_CAST(v.num AS INTEGER)
) AS n ON n.row_id = m.row_id AND n.value = f.value;

INSERT INTO terms_found
SELECT m.row_id, m.person, m.attribute, m.start_pos, m.end_pos, m.term, m.norm,
       coalesce(e.label, upper(m.linked_attribute)), 'list'
FROM number_mentions AS m
LEFT JOIN (SELECT attribute, min(label) AS label FROM rx.emap GROUP BY attribute) AS e
  ON e.attribute = m.linked_attribute
WHERE (m.row_id, m.attribute, m.start_pos, m.end_pos) NOT IN (
    SELECT m.row_id, m.attribute, m.start_pos, m.end_pos
    FROM number_mentions AS m
    JOIN terms_found AS f ON f.row_id = m.row_id AND f.attribute = m.attribute
    WHERE f.start_pos < m.end_pos AND m.start_pos < f.end_pos
);

-- 2. Candidate links: (term, attribute) pairs where the term can state the tuple's value. What
--    links a term depends on its row, term, norm and label only. The terms that can state a value
--    at all are numbered by their rowid in terms_found (term_id), which nothing changes from here
--    on, and the links join back to the terms on it at the end. (Finding links once per distinct
--    (row_id, term, norm, label) saves little, as nearly every term is distinct, and a join back
--    on those four columns, strings among them, costs more than one on the rowid. Numbering every
--    term with row_number() would sort all terms with their text.) A nominal or
--    ordinal value is only ever stated by a term that is the value itself, so those pairs are
--    links as soon as they are found, by joining on the value (value_links); a numeric or date
--    value is a candidate of a term whose label can state the attribute (emap), read below.
-- (The values' case-folded forms once, for the tests on every term: categorical attributes have
-- few distinct values among many rows, and every term probes their hash table.)
CREATE OR REPLACE TEMP TABLE value_norms AS
SELECT DISTINCT lower(txt) AS norm
FROM (SELECT DISTINCT txt FROM rx.qi_values WHERE kind IN ('nominal', 'ordinal')) AS d;

CREATE OR REPLACE TEMP TABLE stating_terms AS
SELECT f.rowid AS term_id, f.row_id, f.term, f.norm, f.label
FROM terms_found AS f
WHERE f.source <> 'identifier'
  AND (f.norm IN (SELECT norm FROM value_norms) OR f.label IN (SELECT label FROM rx.emap));

-- (each statement first keeps the terms it can use: the joins on row then build on those, not on
-- the values)
CREATE OR REPLACE TEMP TABLE value_links AS
SELECT f.term_id, v.attribute, a.position, 0 AS offset_in_term, length(f.term) AS len
FROM (SELECT * FROM stating_terms WHERE norm IN (SELECT norm FROM value_norms)) AS f
JOIN rx.qi_values AS v ON v.row_id = f.row_id AND lower(v.txt) = f.norm
JOIN rx.attributes AS a ON a.attribute = v.attribute
WHERE v.num IS NOT NULL AND v.kind IN ('nominal', 'ordinal')
  AND (
      -- a tuple's own categorical value, when matching values is on, is redundant whatever label
      -- the recognizer gave it (spaCy tags the sign "Pisces" as ORG)
      a.match_values
      OR (v.attribute, f.label) IN (SELECT attribute, label FROM rx.emap)
  );

-- (without the term's norm and the value's text: term_numbers and term_dates compare neither, and
-- they would be written for every candidate)
CREATE OR REPLACE TEMP TABLE link_candidates AS
SELECT f.term_id, f.term, v.attribute, v.kind, v.num, v.day, a.position
FROM (SELECT * FROM stating_terms WHERE label IN (SELECT label FROM rx.emap)) AS f
JOIN (SELECT DISTINCT attribute, label FROM rx.emap) AS e ON e.label = f.label
JOIN rx.qi_values AS v ON v.row_id = f.row_id AND v.attribute = e.attribute
JOIN rx.attributes AS a ON a.attribute = v.attribute
WHERE v.num IS NOT NULL AND v.kind NOT IN ('nominal', 'ordinal');

-- Numbers standing alone inside a term, with their offset in the term: the term is cut into
-- alternating runs of digits and non-digits, and a run of digits counts when no letter touches it.
-- What a term states depends on its text only, so terms are read once per distinct text (the
-- same ages and dates recur in many candidates) and only the comparison with each tuple's
-- value is done per candidate.
CREATE OR REPLACE TEMP TABLE term_numbers AS
WITH numeric_terms AS (
    SELECT DISTINCT term FROM link_candidates WHERE kind = 'numeric'
),
-- A term with one number only: in a date ("June 17, 2004", "16 monday") a number is a day, not
-- an age, and in "17:10-16 10" the other numbers would stay beside the recoded one.
single AS (
    SELECT term
    FROM numeric_terms
    WHERE array_length(regexp_extract_all(term, '[0-9]+')) = 1
      AND NOT regexp_matches(lower(term), '(mon|tues|wednes|thurs|fri|satur|sun)day')
      AND term NOT IN (
        SELECT t.term
        FROM numeric_terms AS t
        CROSS JOIN unnest(regexp_extract_all(lower(t.term), '\pL+')) AS w(word)
        JOIN rx.month_names AS mn ON mn.name = w.word
    )
),
pieces AS (
    SELECT s.term, u.piece, u.i
    FROM single AS s
    CROSS JOIN unnest(regexp_extract_all(s.term, '[0-9]+(?:[.][0-9]+)?|[^0-9]+')) WITH ORDINALITY AS u(piece, i)
),
placed AS (
    SELECT *,
        coalesce(sum(length(piece)) OVER (PARTITION BY term ORDER BY i
                                          ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS offset_in_term,
        lag(piece) OVER (PARTITION BY term ORDER BY i) AS before,
        lead(piece) OVER (PARTITION BY term ORDER BY i) AS after
    FROM pieces
),
numbers AS (
    SELECT term, offset_in_term, length(piece) AS len, TRY_CAST(piece AS DOUBLE) AS value
    FROM placed
    WHERE regexp_matches(piece, '^[0-9]')
      AND NOT coalesce(regexp_matches(before, '[\pL_.]$'), false)
      AND NOT coalesce(regexp_matches(after, '^(\pL|[.,][0-9])'), false)
)
SELECT c.term_id, c.attribute, c.position, n.offset_in_term, n.len
FROM link_candidates AS c
JOIN numbers AS n ON n.term = c.term
WHERE c.kind = 'numeric' AND n.value = c.num;

-- Dates stated by a term: day-month-year, month-day-year, numeric and ISO dates, month-year, a
-- year alone, and the same without a year ("14th of May", "May 14", "5/14", "14/5"); every
-- stated part must agree with the tuple's date, a weekday named beside it too ("Friday May 14"),
-- and a year-less form counts only if no other year stands in the term. A day written as an
-- ordinal word ("the fourteenth of May", rx.number_words) is read as its number first. (Parsed
-- once per distinct term, as above.)
CREATE OR REPLACE TEMP TABLE term_dates AS
WITH date_terms AS (
    SELECT DISTINCT term FROM link_candidates WHERE kind = 'date'
),
-- (the longest ordinal word that stands as a word of its own: "twenty-first", not its "first";
-- lower() must keep the length for the position to be the term's)
day_words AS (
    SELECT d.term, arg_max(w.value, length(w.word)) AS value, arg_max(w.word, length(w.word)) AS word,
           arg_max(strpos(lower(d.term), w.word), length(w.word)) AS at
    FROM (
        -- (only terms with a word of an ordinal's ending meet the words, English or French)
        SELECT term FROM date_terms
        WHERE regexp_matches(lower(term), '\pL(?:st|nd|rd|th|me|er)(?:[^\pL]|$)')
    ) AS d
    JOIN rx.number_words AS w ON w.ordinal AND contains(lower(d.term), w.word)
    WHERE length(lower(d.term)) = length(d.term)
      AND NOT regexp_matches(substring(lower(d.term), strpos(lower(d.term), w.word) - 1, 1), '\pL')
      AND NOT regexp_matches(substring(lower(d.term), strpos(lower(d.term), w.word) + length(w.word), 1), '[\pL-]')
    GROUP BY d.term
),
normalized AS MATERIALIZED (
    SELECT d.term,
           CASE WHEN w.term IS NULL THEN d.term
                ELSE substring(d.term, 1, w.at - 1) || CAST(w.value AS VARCHAR) || 'th'
                     || substring(d.term, w.at + length(w.word)) END AS txt
    FROM date_terms AS d
    LEFT JOIN day_words AS w ON w.term = d.term
),
-- (one regexp_extract per form, its groups named in a struct: one call per group would match the
-- form's expression once per group. A form without a day or a month has an empty group for it.)
forms AS MATERIALIZED (
    SELECT term,
        regexp_extract(txt, '(([0-9]{1,2})(?:st|nd|rd|th)?(?: of)?[ ,.-]+(\pL+)\.?,?[ ,.-]+([0-9]{4}))',
                       ['part', 'd', 'm', 'y']) AS dmy,
        regexp_extract(txt, '((\pL+)\.? ([0-9]{1,2})(?:st|nd|rd|th)?,? ([0-9]{4}))', ['part', 'm', 'd', 'y']) AS mdy,
        regexp_extract(txt, '(([0-9]{4})-([0-9]{1,2})-([0-9]{1,2}))', ['part', 'y', 'm', 'd']) AS iso,
        -- 14/05/2004 or 05/14/2004: either order agrees
        regexp_extract(txt, '(([0-9]{1,2})[./]([0-9]{1,2})[./]([0-9]{4}))', ['part', 'd', 'm', 'y']) AS numeric,
        regexp_extract(txt, '((\pL+)\.?,? ([0-9]{4}))()', ['part', 'm', 'y', 'd']) AS my,
        regexp_extract(txt, '(?:^|[^0-9])(((?:1[89]|20)[0-9]{2}))(?:[^0-9]|$)()()', ['part', 'y', 'm', 'd']) AS y,
        -- without a year: "14 May", "14th of May", "May 14th", "May the 14th"
        regexp_extract(txt, '((?:^|[^0-9])([0-9]{1,2})(?:st|nd|rd|th)?(?: of)?[ ,.-]+(\pL+))()',
                       ['part', 'd', 'm', 'y']) AS dm,
        regexp_extract(txt, '((\pL+)\.?,? (?:the )?([0-9]{1,2})(?:st|nd|rd|th)?(?:[^0-9]|$))()',
                       ['part', 'm', 'd', 'y']) AS md,
        -- 5/14 or 14/5 (either order agrees, as above), not a part of a longer numeric date
        regexp_extract(txt, '((?:^|[^0-9./-])([0-9]{1,2})[./]([0-9]{1,2})(?:[.]?$|[.]?[^0-9./]|[.] ))()',
                       ['part', 'd', 'm', 'y']) AS short
    FROM normalized
),
stated AS (
    SELECT term, 'dmy' AS form, dmy.part, dmy.y, dmy.m, dmy.d FROM forms
    UNION ALL SELECT term, 'mdy', mdy.part, mdy.y, mdy.m, mdy.d FROM forms
    UNION ALL SELECT term, 'iso', iso.part, iso.y, iso.m, iso.d FROM forms
    UNION ALL SELECT term, 'numeric', numeric.part, numeric.y, numeric.m, numeric.d FROM forms
    UNION ALL SELECT term, 'my', my.part, my.y, my.m, my.d FROM forms
    UNION ALL SELECT term, 'y', y.part, y.y, y.m, y.d FROM forms
    UNION ALL SELECT term, 'dm', dm.part, dm.y, dm.m, dm.d FROM forms
    UNION ALL SELECT term, 'md', md.part, md.y, md.m, md.d FROM forms
    UNION ALL SELECT term, 'numeric', short.part, short.y, short.m, short.d FROM forms
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
    SELECT *, max(length(part)) OVER (PARTITION BY term) AS longest,
           max(CASE WHEN form = 'y' THEN TRY_CAST(y AS INTEGER) END) OVER (PARTITION BY term) AS any_year
    FROM resolved
    WHERE m = '' OR month_no IS NOT NULL
),
-- (the weekdays a term names, by their ISO number; a term naming two agrees with no date)
weekdays AS (
    SELECT d.term, min(wn.weekday) AS lo, max(wn.weekday) AS hi
    FROM date_terms AS d
    CROSS JOIN unnest(regexp_extract_all(lower(d.term), '\pL+')) AS w(word)
    JOIN rx.weekday_names AS wn ON wn.name = w.word
    GROUP BY d.term
)
-- A date term is replaced whole, not only its stated part: what the patterns do not read ("the
-- summer of 2004", "2004 May 28") is finer than the recoded date and must not stay.
SELECT c.term_id, c.attribute, c.position, 0 AS offset_in_term, length(c.term) AS len
FROM parsed AS r
JOIN link_candidates AS c ON c.term = r.term
LEFT JOIN weekdays AS wd ON wd.term = r.term
WHERE c.kind = 'date'
  AND length(r.part) = r.longest
  AND CASE WHEN r.y = '' THEN r.any_year IS NULL OR r.any_year = year(c.day)
           ELSE TRY_CAST(r.y AS INTEGER) = year(c.day) END
  AND (r.m = '' OR r.month_no = month(c.day)
       OR (r.form = 'numeric' AND r.day_no = month(c.day) AND r.month_no = day(c.day)))
  AND (r.d = '' OR r.day_no = day(c.day)
       OR (r.form = 'numeric' AND r.day_no = month(c.day) AND r.month_no = day(c.day)))
  AND (wd.term IS NULL OR (wd.lo = isodow(c.day) AND wd.hi = isodow(c.day)));

-- A term holding the number of an own occurrence of 1b. states it where the term's label can
-- state the attribute (the DATE "thirty-six years old"; the DATE "36y" that spaCy cuts from
-- "36y/o"), or where the term is the occurrence itself.
CREATE OR REPLACE TEMP TABLE number_links AS
SELECT f.rowid AS term_id, m.linked_attribute AS attribute, m.position,
       m.start_pos - f.start_pos AS offset_in_term, m.stated_len AS len
FROM number_mentions AS m
JOIN terms_found AS f
  ON f.row_id = m.row_id AND f.attribute = m.attribute AND f.start_pos <= m.start_pos
 AND m.start_pos + m.stated_len <= f.end_pos
WHERE f.source <> 'identifier'
  AND ((m.linked_attribute, f.label) IN (SELECT attribute, label FROM rx.emap)
       OR (f.start_pos = m.start_pos AND f.end_pos = m.end_pos));

CREATE OR REPLACE TEMP TABLE links AS
SELECT term_id, attribute, position, offset_in_term, len FROM value_links
UNION ALL
SELECT term_id, attribute, position, offset_in_term, len FROM number_links
UNION ALL
SELECT term_id, attribute, position, offset_in_term, len FROM term_numbers
UNION ALL
SELECT term_id, attribute, position, offset_in_term, len FROM term_dates;

-- 3. The terms, each linked to at most one attribute: the first configured one, and for it the
--    longest stating part (the most specific date form).
CREATE OR REPLACE TEMP TABLE best AS
SELECT term_id, attribute, offset_in_term, len
FROM (
    SELECT *, row_number() OVER (PARTITION BY term_id ORDER BY position, len DESC, offset_in_term) AS rn
    FROM links
) AS r
WHERE rn = 1;

-- 4. Of a term whose stating part is only a part of it ("14 Christmas", linked to the age through
--    "14"), only that part is replaced; a sensitive surface of the person elsewhere in it
--    ("Christmas", suppressed in another post) would stay beside the recoded value. Propagation
--    does not see it: the term's own surface "14 christmas" is the longer match there. So such
--    terms are searched once more for the person's surfaces, with their stating part blanked out
--    (chr(2): no word character); what is found becomes a term of its own, with the label the
--    surface's occurrences carry most often, the person's own first (as in propagate_terms.sql).
CREATE OR REPLACE TEMP TABLE inner_surfaces AS
WITH partly AS (
    SELECT b.term_id, f.row_id, f.person, f.attribute, f.start_pos, f.term,
           substring(f.term, 1, CAST(b.offset_in_term AS BIGINT)) || repeat(chr(2), CAST(b.len AS BIGINT))
           || substring(f.term, CAST(b.offset_in_term + b.len + 1 AS BIGINT)) AS blanked
    FROM best AS b
    JOIN terms_found AS f ON f.rowid = b.term_id
    WHERE b.len < f.end_pos - f.start_pos
),
-- (only the terms that hold a surface of the person as a string go to the whole-word search:
-- most are "36 years old", and a substring test spares most persons a search call, which
-- prepares all their needles. The test is made once per person and distinct blanked text:
-- on the corpus shape 161,752 terms "NN years old" are one text, and tested term by term
-- against each of their person's 1.4 million surfaces they were 66 million tests, 3 s.)
partly_texts AS (
    SELECT DISTINCT person, lower(blanked) AS text FROM partly
),
holding AS (
    SELECT p.*
    FROM partly AS p
    SEMI JOIN (
        -- (the surfaces that count for the person: their own and the corpus-wide ones, propagate.sql)
        SELECT DISTINCT t.person, t.text
        FROM partly_texts AS t
        JOIN person_needles AS n ON n.person = t.person AND contains(t.text, n.norm)
    ) AS h ON h.person = p.person AND h.text = lower(p.blanked)
),
surface_norms AS (
    SELECT DISTINCT person, norm
    FROM person_needles
    WHERE person IN (SELECT person FROM holding)
),
person_surfaces AS (
    SELECT person, list_sort(array_agg(norm)) AS needles
    FROM surface_norms
    GROUP BY person
),
found AS (
    SELECT m.id AS term_id, m.start_pos, m.end_pos, m.needle
    FROM (
        SELECT person, array_agg(struct_pack(id := term_id, text := blanked)) AS items
        FROM holding
        GROUP BY person
    ) AS p
    JOIN person_surfaces AS s ON s.person = p.person
    CROSS JOIN unnest(rx_find_texts(p.items, s.needles)) AS u(m)
),
inside AS (
    SELECT p.row_id, p.person, p.attribute, p.start_pos + f.start_pos AS start_pos, p.start_pos + f.end_pos AS end_pos,
           substring(p.term, f.start_pos + 1, f.end_pos - f.start_pos) AS term, f.needle AS norm
    FROM found AS f
    JOIN partly AS p ON p.term_id = f.term_id
),
counted AS (
    SELECT l.row_id, l.person, l.attribute, l.start_pos, l.end_pos, l.term, l.norm, f.label,
           bool_or(f.person = l.person) AS own_person, count(*) AS n
    FROM inside AS l
    JOIN terms_found AS f ON f.norm = l.norm
    GROUP BY ALL
    UNION ALL
    -- (a corpus-wide needle that is a term nowhere else, a rare word: its own label)
    SELECT l.row_id, l.person, l.attribute, l.start_pos, l.end_pos, l.term, l.norm, c.label, false, 0
    FROM inside AS l
    JOIN corpus_needles AS c ON c.norm = l.norm
),
labelled AS (
    SELECT *, row_number() OVER (PARTITION BY row_id, attribute, start_pos
                                 ORDER BY label IN (SELECT label FROM rx.labels) DESC, own_person DESC, n DESC,
                                          label) AS rn
    FROM counted
)
SELECT row_id, person, attribute, start_pos, end_pos, term, norm, label
FROM labelled
WHERE rn = 1;

INSERT INTO terms_found
SELECT row_id, person, attribute, start_pos, end_pos, term, norm, label, 'match'
FROM inner_surfaces;

-- (Sorted, though the sort is a large part of the statement: the later stages read the terms
-- text by text, for X', the operators and the texts around them, and those reads cost more on
-- an unsorted table than the sort does.)
CREATE OR REPLACE TABLE rx.terms AS
-- An unlinked span that only may state an attribute, holding a rare word (corpus_needles.sql): a
-- RARE term, since the word alone singles out its few writers (resolve_matches.sql).
-- (Each distinct surface cut into words once: cut span by span, the words were joined back to the
-- spans by their surface, 1.4 s on the corpus shape's 3.7 million terms.)
WITH unlinked AS MATERIALIZED (
    SELECT f.rowid AS term_id, f.term
    FROM terms_found AS f
    WHERE f.source <> 'identifier' AND f.label NOT IN (SELECT label FROM rx.labels)
),
rare_surfaces AS (
    SELECT DISTINCT d.term
    FROM (SELECT DISTINCT term FROM unlinked) AS d
    CROSS JOIN unnest(regexp_extract_all(lower(d.term), '[\pL\pN_]+')) AS u(word)
    JOIN corpus_needles AS n ON n.norm = u.word
    WHERE n.label = 'RARE'
),
rare_spans AS (
    SELECT u.term_id FROM unlinked AS u SEMI JOIN rare_surfaces AS r ON r.term = u.term
)
SELECT
    f.row_id, f.person, f.attribute, f.start_pos, f.end_pos, f.term, f.norm,
    CASE WHEN b.attribute IS NULL AND r.term_id IS NOT NULL THEN 'RARE' ELSE f.label END AS label, f.source,
    b.attribute AS linked_attribute,
    CAST(f.start_pos + b.offset_in_term AS INTEGER) AS stated_start,
    CAST(f.start_pos + b.offset_in_term + b.len AS INTEGER) AS stated_end
FROM terms_found AS f
LEFT JOIN best AS b ON b.term_id = f.rowid
LEFT JOIN rare_spans AS r ON r.term_id = f.rowid
WHERE b.attribute IS NOT NULL OR f.source = 'identifier' OR f.label IN (SELECT label FROM rx.labels)
   OR r.term_id IS NOT NULL
ORDER BY f.row_id, f.attribute, f.start_pos;

-- The occurrences of a person's surfaces (propagate.sql) that no term holds in the end: a choice
-- among overlapping spans (resolve_matches.sql, linking above) can leave one bare beside the span
-- that won. The sweep (sweep.sql) replaces those the release replaces elsewhere for the person.
-- (A table: a retuned run starts after linking.)
CREATE OR REPLACE TABLE rx.bare_occurrences AS
-- (each occurrence under its own surface's norm, as propagate_terms.sql names a match and as the
-- leak check searches: the needle that found it may be another surface of the same key)
-- (a long text cut once by rx_cut, as in propagate_terms.sql: 9 s for one mixed 1 MB text)
-- (An occurrence inside a term, or at a term's very place, is held: paired within buckets of 256
-- characters, as terms.sql pairs spans, each term in every bucket it touches and each occurrence
-- in its first, which a term around it touches too. Once, before any surface is read: on the
-- corpus shape every one of the 4.9 million occurrences is held, 3.5 million at a term's very
-- place, and the surfaces read for the others before a second join took 3 of the statement's
-- 6 CPU s.)
WITH k AS (
    SELECT row_id, attribute, start_pos, end_pos,
           unnest(range(start_pos // 256, greatest(end_pos - 1, start_pos) // 256 + 1)) AS bucket
    FROM rx.terms
),
bare AS (
    SELECT o.text_id, o.start_pos, o.end_pos
    FROM surface_occurrences AS o
    JOIN rx.texts AS t ON t.text_id = o.text_id
    ANTI JOIN k
        ON k.row_id = t.row_id AND k.attribute = t.attribute AND k.bucket = o.start_pos // 256
       AND k.start_pos <= o.start_pos AND o.end_pos <= k.end_pos
)
SELECT DISTINCT o.row_id, o.person, o.attribute, o.start_pos, o.end_pos,
       lower(regexp_replace(o.surface, '\s+', ' ', 'g')) AS norm
FROM (
    SELECT t.row_id, t.person, t.attribute, b.start_pos, b.end_pos,
           substring(t.text, b.start_pos + 1, b.end_pos - b.start_pos) AS surface
    FROM bare AS b
    JOIN rx.texts AS t ON t.text_id = b.text_id
    WHERE octet_length(encode(t.text)) <= 4096
    UNION ALL
    SELECT t.row_id, t.person, t.attribute, unnest(b.starts), unnest(b.ends), unnest(rx_cut(t.text, b.starts, b.ends))
    FROM (SELECT text_id, list(start_pos) AS starts, list(end_pos) AS ends FROM bare GROUP BY text_id) AS b
    JOIN rx.texts AS t ON t.text_id = b.text_id
    WHERE octet_length(encode(t.text)) > 4096
) AS o;
