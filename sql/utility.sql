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
-- Only the words around the replacements are counted one by one. A replacement's window is its
-- span widened over the letters, digits and underscores beside it, to the word's ends: no word
-- crosses a window's edge, in the original text or in the released one (which has the same
-- characters outside the windows). A person's released multiset R is then their original one O
-- less the words of the original windows (A) plus those of the released windows (B), and
-- min(O, O - A + B) = O - max(0, A - B): the words kept are every original word less, per person
-- and word, max(0, A - B). A text whose windows overlap or touch (two replacements in one word), or
-- longer than 4,096 bytes (where a substring walks the text up to its offset, once per
-- replacement), is one window, whole, read from the release.

CREATE OR REPLACE TEMP TABLE utility_windows AS
WITH bounds AS (
    SELECT r.row_id, r.attribute, r.person, r.start_pos, r.end_pos, r.replacement, o.text,
           -- (most replacements are whole words: where the character beside a bound is no word
           -- character, the bound stays, and the text before it is not read again: the search back
           -- over the text before each replacement: 0.43 -> 0.28 CPU s on the blog sample)
           CASE WHEN r.start_pos = 0 OR NOT regexp_matches(substring(o.text, r.start_pos, 1), '[\pL\pN_]') THEN r.start_pos
                ELSE r.start_pos - length(regexp_extract(substring(o.text, 1, r.start_pos), '[\pL\pN_]*$')) END
               AS window_start,
           CASE WHEN NOT regexp_matches(substring(o.text, r.end_pos + 1, 1), '[\pL\pN_]') THEN r.end_pos
                ELSE r.end_pos + length(regexp_extract(substring(o.text, r.end_pos + 1), '^[\pL\pN_]*')) END
               AS window_end
    FROM rx.replacements AS r
    JOIN rx.texts AS o ON o.row_id = r.row_id AND o.attribute = r.attribute
    WHERE octet_length(encode(o.text)) <= 4096
),
-- (each window cut from its text at once: kept with its text, the windows held a copy of the
-- text per replacement, 575 MB on the blog sample)
edges AS MATERIALIZED (
    SELECT row_id, attribute, person, window_start, window_end,
           substring(text, window_start + 1, window_end - window_start) AS original,
           substring(text, window_start + 1, start_pos - window_start) || replacement
               || substring(text, end_pos + 1, window_end - end_pos) AS released
    FROM bounds
),
-- (windows that overlap or touch, in the order of their starts: beside a touching window the
-- released text has the other's replacement, not the original character that ended the window)
overlapping AS (
    SELECT DISTINCT row_id, attribute
    FROM (SELECT row_id, attribute, window_start <= max(window_end) OVER (
                     PARTITION BY row_id, attribute ORDER BY window_start, window_end
                     ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS overlaps
          FROM edges) AS w
    WHERE overlaps
)
SELECT e.person, e.original, e.released
FROM edges AS e
ANTI JOIN overlapping AS x ON x.row_id = e.row_id AND x.attribute = e.attribute
UNION ALL
SELECT o.person, o.text, r.text
FROM (SELECT row_id, attribute FROM overlapping
      UNION
      SELECT o.row_id, o.attribute
      FROM rx.texts AS o
      SEMI JOIN rx.replacements AS p ON p.row_id = o.row_id AND p.attribute = o.attribute
      WHERE octet_length(encode(o.text)) > 4096) AS w
JOIN rx.texts AS o ON o.row_id = w.row_id AND o.attribute = w.attribute
JOIN rx.audit_texts AS r ON r.row_id = w.row_id AND r.attribute = w.attribute;

-- Per person and word, what the release takes away and does not give back elsewhere. (Each
-- distinct window cut into words once: on the corpus shape 2.7 million windows are 31,752
-- distinct original ones and 2,198 released ones, most the same few surfaces and their
-- replacements; cut one by one, they took 3 CPU s.)
CREATE OR REPLACE TEMP TABLE utility_kept AS
WITH original_windows AS (
    SELECT person, original AS piece, count(*) AS n FROM utility_windows GROUP BY ALL
),
released_windows AS (
    SELECT person, released AS piece, count(*) AS n FROM utility_windows GROUP BY ALL
),
-- (the words of each distinct window as a list, joined to its persons' windows and unnested
-- there: a window that is a whole long text is joined once, not once for each of its words)
window_words AS (
    SELECT piece, regexp_extract_all(lower(piece), $token) AS words
    FROM (SELECT piece FROM original_windows UNION SELECT piece FROM released_windows) AS w
),
removed AS (
    SELECT person, word, sum(n) AS n
    FROM (SELECT o.person, o.n, unnest(w.words) AS word
          FROM original_windows AS o
          JOIN window_words AS w ON w.piece = o.piece) AS u
    GROUP BY person, word
),
added AS (
    SELECT person, word, sum(n) AS n
    FROM (SELECT r.person, r.n, unnest(w.words) AS word
          FROM released_windows AS r
          JOIN window_words AS w ON w.piece = r.piece) AS u
    GROUP BY person, word
)
SELECT CAST(coalesce(sum(greatest(a.n - coalesce(b.n, 0), 0)), 0) AS BIGINT) AS lost
FROM removed AS a
LEFT JOIN added AS b ON b.person = a.person AND b.word = a.word;

-- The replacements, counted by the reason a user knows them by, label and the surface they
-- replaced (utility_surfaces below lowers it and counts its words, the words of the original
-- texts it replaced):
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
-- (Each kind of replacement joined to the terms on its own key, one branch each: with both joins
-- of every replacement in one CTE, the statement could not spill, and ran out of memory at a 650 MB
-- limit on the blog corpus shape, 2.7 million replacements against 3.7 million terms.)
WITH placed AS (
    SELECT r.row_id, r.attribute, r.start_pos, r.end_pos, r.label,
           CASE WHEN t.source IS NULL THEN 'sweep'
                WHEN r.label = 'RARE' THEN 'rare guard'
                WHEN t.source = 'match' THEN 'propagation'
                ELSE t.source END AS reason,
           t.term AS surface
    FROM rx.replacements AS r
    LEFT JOIN rx.terms AS t
        ON t.row_id = r.row_id AND t.attribute = r.attribute
       AND t.start_pos = r.start_pos AND t.end_pos = r.end_pos AND t.label = r.label AND t.norm = r.norm
    WHERE r.reason IN ('suppressed', 'generalized')
    UNION ALL
    SELECT r.row_id, r.attribute, r.start_pos, r.end_pos, r.label, r.reason,
           substring(l.term, r.start_pos - l.start_pos + 1, r.end_pos - r.start_pos)
    FROM rx.replacements AS r
    LEFT JOIN rx.terms AS l
        ON l.row_id = r.row_id AND l.attribute = r.attribute
       AND l.stated_start = r.start_pos AND l.stated_end = r.end_pos AND l.label = r.label AND l.norm = r.norm
    WHERE r.reason = 'recoded'
    UNION ALL
    SELECT row_id, attribute, start_pos, end_pos, label,
           CASE WHEN reason = 'repaired' THEN 'repaired' ELSE 'sweep' END, CAST(NULL AS VARCHAR)
    FROM rx.replacements
    WHERE reason IS NULL OR reason NOT IN ('suppressed', 'generalized', 'recoded')
),
surfaces AS (
    SELECT label, reason, surface FROM placed WHERE surface IS NOT NULL
    UNION ALL
    SELECT p.label, p.reason, substring(o.text, p.start_pos + 1, p.end_pos - p.start_pos)
    FROM placed AS p
    JOIN rx.texts AS o ON o.row_id = p.row_id AND o.attribute = p.attribute
    WHERE p.surface IS NULL
)
SELECT label, reason, surface
FROM surfaces;

-- Every replaced surface, per label and reason: how often it was replaced, and the words that
-- cost.
CREATE OR REPLACE TABLE rx.utility_surfaces AS
-- (each surface as written cut into words once: the 2.7 million replacements of the corpus
-- shape are 33,237 surfaces, labels and reasons, and cut one by one they took 1 s. Grouped where
-- utility_replaced is made, the joins and the grouping together could not spill: out of memory
-- at 60 MB in tests/test_utility.py.)
SELECT lower(surface) AS surface, label, reason, CAST(sum(n) AS BIGINT) AS replacements,
       CAST(sum(n * array_length(regexp_extract_all(surface, $token))) AS BIGINT) AS words
FROM (SELECT surface, label, reason, count(*) AS n FROM utility_replaced GROUP BY ALL) AS r
GROUP BY lower(surface), label, reason;

-- One row for the whole release (scope 'all'), one per label and one per reason: replacements,
-- the words they replaced and the share of the original texts' words that is, and the three
-- most replaced surfaces ('i' (PERSON) 11146x, ...). The row of scope 'all' has the words kept.
CREATE OR REPLACE TABLE rx.utility AS
WITH totals AS (
    -- (the number of words of the original texts, counted where corpus_needles.sql cuts them)
    SELECT words FROM rx.text_words
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
       CASE WHEN e.scope = 'all' THEN t.words - k.lost END AS words_kept,
       CASE WHEN e.scope = 'all' THEN CAST(t.words - k.lost AS DOUBLE) / nullif(t.words, 0) END AS share_kept
FROM everything AS e
LEFT JOIN scopes AS s ON s.scope = e.scope AND s.name IS NOT DISTINCT FROM e.name
CROSS JOIN totals AS t
CROSS JOIN utility_kept AS k
ORDER BY CASE e.scope WHEN 'all' THEN 0 WHEN 'reason' THEN 1 ELSE 2 END, s.words_replaced DESC, e.name;
