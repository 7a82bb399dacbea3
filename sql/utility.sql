-- What the release costs a reader of the texts (measures.py, after measures.sql): the share of
-- the words it keeps, and what replaced the others, overall, per label, per reason and per
-- surface. Measurement only: nothing here changes the release.
--
-- Words kept: per person, the lower-cased words ($token) of their original texts and of their
-- released texts as multisets; the sum over persons of the intersection's size, divided by the
-- number of words of the original texts. A word a replacement writes ("[PERSON]" gives
-- "person", a recoded "[24-27]" gives "24" and "27") counts as kept when the person wrote it
-- elsewhere in their original texts, as a reader would see it.
--
-- Only the texts the release changes are split into words: an unchanged text adds the same words
-- to both multisets, and min(a + c, b + c) = c + min(a, b), so it adds its number of words to the
-- intersection.

-- Each original text: its person, its number of words, and whether its released text differs
-- (a row left out of the release has no released text, and keeps none of its words).
CREATE OR REPLACE TEMP TABLE utility_texts AS
SELECT o.row_id, o.attribute, o.person, array_length(regexp_extract_all(o.text, $token)) AS words,
       r.text IS DISTINCT FROM o.text AS changed
FROM rx.texts AS o
LEFT JOIN rx.audit_texts AS r ON r.row_id = o.row_id AND r.attribute = o.attribute
WHERE o.text IS NOT NULL;

-- The intersection over the changed texts: each person's words counted in the original and in
-- the released texts, and the smaller count of each word.
CREATE OR REPLACE TEMP TABLE utility_kept AS
WITH original AS (
    SELECT person, word, count(*) AS n
    FROM (SELECT o.person, unnest(regexp_extract_all(lower(o.text), $token)) AS word
          FROM rx.texts AS o
          SEMI JOIN utility_texts AS c ON c.row_id = o.row_id AND c.attribute = o.attribute AND c.changed) AS w
    GROUP BY person, word
),
released AS (
    SELECT person, word, count(*) AS n
    FROM (SELECT r.person, unnest(regexp_extract_all(lower(r.text), $token)) AS word
          FROM rx.audit_texts AS r
          SEMI JOIN utility_texts AS c ON c.row_id = r.row_id AND c.attribute = r.attribute AND c.changed) AS w
    GROUP BY person, word
)
SELECT CAST(coalesce(sum(least(o.n, r.n)), 0) AS BIGINT) AS kept_in_changed
FROM original AS o
JOIN released AS r ON r.person = o.person AND r.word = o.word;

-- Each replacement, with the reason a user knows it by, the surface it replaced (in lower case)
-- and the number of words of that surface (the words of the original texts it replaced):
-- - recoded: the part of a term that states a quasi-identifier, shown as its recoded value;
-- - repaired: what the check before the commit still read (repair.sql);
-- - a replaced term, by what made it a term: rare guard (label RARE), identifier (a direct
--   identifier's value), propagation (source match: a surface of the person found elsewhere in
--   their texts), ner, rule (a rule recognizer), list or pattern (the configured terms);
-- - sweep: a replacement of no term's span, which the sweep (sweep.sql) added where the person's
--   replaced surface stood bare.
CREATE OR REPLACE TEMP TABLE utility_replaced AS
-- The surface is read from the term the replacement replaces (the whole term, or the part of a
-- linked term that states the attribute): a substring of the text itself would walk the text up
-- to the replacement's offset, once for each replacement of a long text. Only a replacement of
-- no term's span (the sweep's, the repairs') is read from its text.
WITH placed AS (
    SELECT r.row_id, r.attribute, r.start_pos, r.end_pos, r.label,
           CASE WHEN r.reason IN ('recoded', 'repaired') THEN r.reason
                WHEN t.source IS NULL THEN 'sweep'
                WHEN r.label = 'RARE' THEN 'rare guard'
                WHEN t.source = 'match' THEN 'propagation'
                ELSE t.source END AS reason,
           CASE WHEN r.reason = 'recoded' THEN substring(l.term, r.start_pos - l.start_pos + 1, r.end_pos - r.start_pos)
                WHEN r.reason <> 'repaired' THEN t.term END AS surface
    FROM rx.replacements AS r
    LEFT JOIN rx.terms AS t
        ON r.reason IN ('suppressed', 'generalized') AND t.row_id = r.row_id AND t.attribute = r.attribute
       AND t.start_pos = r.start_pos AND t.end_pos = r.end_pos AND t.label = r.label AND t.norm = r.norm
    LEFT JOIN rx.terms AS l
        ON r.reason = 'recoded' AND l.row_id = r.row_id AND l.attribute = r.attribute
       AND l.stated_start = r.start_pos AND l.stated_end = r.end_pos AND l.label = r.label AND l.norm = r.norm
),
surfaces AS (
    SELECT label, reason, surface FROM placed WHERE surface IS NOT NULL
    UNION ALL
    SELECT p.label, p.reason, substring(o.text, p.start_pos + 1, p.end_pos - p.start_pos)
    FROM placed AS p
    JOIN rx.texts AS o ON o.row_id = p.row_id AND o.attribute = p.attribute
    WHERE p.surface IS NULL
)
SELECT label, reason, lower(surface) AS surface, array_length(regexp_extract_all(surface, $token)) AS words
FROM surfaces;

-- Every replaced surface, per label and reason: how often it was replaced, and the words that
-- cost.
CREATE OR REPLACE TABLE rx.utility_surfaces AS
SELECT surface, label, reason, count(*) AS replacements, CAST(sum(words) AS BIGINT) AS words
FROM utility_replaced
GROUP BY surface, label, reason;

-- One row for the whole release (scope 'all'), one per label and one per reason: replacements,
-- the words they replaced and the share of the original texts' words that is, and the three
-- most replaced surfaces ('i' (PERSON) 11146x, ...). The row of scope 'all' has the words kept.
CREATE OR REPLACE TABLE rx.utility AS
WITH totals AS (
    SELECT CAST(coalesce(sum(words), 0) AS BIGINT) AS words,
           CAST(coalesce(sum(words) FILTER (WHERE NOT changed), 0) AS BIGINT) AS unchanged_words
    FROM utility_texts
),
groups AS (
    SELECT 'all' AS scope, CAST(NULL AS VARCHAR) AS name, surface, label, sum(replacements) AS replacements,
           sum(words) AS words
    FROM rx.utility_surfaces GROUP BY surface, label
    UNION ALL
    SELECT 'label', label, surface, label, sum(replacements), sum(words)
    FROM rx.utility_surfaces GROUP BY surface, label
    UNION ALL
    SELECT 'reason', reason, surface, label, sum(replacements), sum(words)
    FROM rx.utility_surfaces GROUP BY reason, surface, label
),
ranked AS (
    SELECT *, row_number() OVER (PARTITION BY scope, name ORDER BY replacements DESC, surface, label) AS place
    FROM groups
),
scopes AS (
    SELECT scope, name, CAST(sum(replacements) AS BIGINT) AS replacements, CAST(sum(words) AS BIGINT) AS words_replaced,
           max(CASE WHEN place = 1 THEN '''' || surface || ''' (' || label || ') ' || CAST(replacements AS VARCHAR) || 'x' END)
           || coalesce(max(CASE WHEN place = 2 THEN ', ''' || surface || ''' (' || label || ') '
                                                     || CAST(replacements AS VARCHAR) || 'x' END), '')
           || coalesce(max(CASE WHEN place = 3 THEN ', ''' || surface || ''' (' || label || ') '
                                                     || CAST(replacements AS VARCHAR) || 'x' END), '') AS most_replaced
    FROM ranked
    GROUP BY scope, name
),
everything AS (
    -- (the row of scope 'all' also when nothing is replaced)
    SELECT 'all' AS scope, CAST(NULL AS VARCHAR) AS name
    UNION ALL
    SELECT scope, name FROM scopes WHERE scope <> 'all'
)
SELECT e.scope, e.name, coalesce(s.replacements, 0) AS replacements, coalesce(s.words_replaced, 0) AS words_replaced,
       CAST(coalesce(s.words_replaced, 0) AS DOUBLE) / nullif(t.words, 0) AS share_replaced,
       s.most_replaced,
       CASE WHEN e.scope = 'all' THEN t.words END AS words,
       CASE WHEN e.scope = 'all' THEN t.unchanged_words + k.kept_in_changed END AS words_kept,
       CASE WHEN e.scope = 'all' THEN CAST(t.unchanged_words + k.kept_in_changed AS DOUBLE) / nullif(t.words, 0)
            END AS share_kept
FROM everything AS e
LEFT JOIN scopes AS s ON s.scope = e.scope AND s.name IS NOT DISTINCT FROM e.name
CROSS JOIN totals AS t
CROSS JOIN utility_kept AS k
ORDER BY CASE e.scope WHEN 'all' THEN 0 WHEN 'reason' THEN 1 ELSE 2 END, s.words_replaced DESC, e.name;
