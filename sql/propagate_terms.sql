-- Propagation, continued after resolve_matches.sql: the resolved matches are the chosen
-- occurrences. None of them cuts through a tagged span or lies inside one (resolve_matches.sql);
-- one that covers tagged spans whole, and is longer, replaces them ("Dena how" of another post
-- over "Dena" here). (A second search of the texts with their tagged spans blanked out once found
-- what a match cutting through a span hid; such a match is no candidate any more, and the
-- automaton's key form read a blanked word as a space, so "New ░░░ York" matched "new york".)
--
-- An occurrence's norm is its own surface's (case folded, white space collapsed, as terms.sql
-- makes it), not the needle's: the automaton reads "it.&nbsp" and "it!&nbsp", or the mojibake
-- of ’ and ‘ in "iâ\x80\x99ve", as one key, and the needle that won at a place was whichever of
-- that key's norms sorts first. A person's "it.&nbsp" then counted as the term "it!&nbsp",
-- kept where the partition shares that one, while the person's tagged "it.&nbsp" was suppressed:
-- the release left the surface of a suppressed term as written, and its check (which compares
-- norms, as the definition of a term does) found the leak.
--
-- A text of more than 4,096 bytes is cut into its matches once, by rx_cut, as terms.sql cuts it:
-- substring() walks a text beyond ASCII from its start for each match (3.4 s for the 12,000
-- matches of one mixed 1 MB text).
CREATE OR REPLACE TEMP TABLE chosen AS
SELECT row_id, person, attribute, start_pos, end_pos, term,
       lower(regexp_replace(term, '\s+', ' ', 'g')) AS norm, needle
FROM (
    SELECT t.row_id, t.person, t.attribute, f.start_pos, f.end_pos,
           substring(t.text, f.start_pos + 1, f.end_pos - f.start_pos) AS term, f.needle
    FROM resolved_matches AS f
    JOIN rx.texts AS t ON t.text_id = f.text_id
    WHERE octet_length(encode(t.text)) <= 4096
    UNION ALL
    SELECT t.row_id, t.person, t.attribute, unnest(f.starts) AS start_pos, unnest(f.ends) AS end_pos,
           unnest(rx_cut(t.text, f.starts, f.ends)) AS term, unnest(f.needles) AS needle
    FROM (SELECT text_id, list(start_pos) AS starts, list(end_pos) AS ends, list(needle) AS needles
          FROM resolved_matches GROUP BY text_id) AS f
    JOIN rx.texts AS t ON t.text_id = f.text_id
    WHERE octet_length(encode(t.text)) > 4096
) AS m;

-- The label each chosen surface takes (see propagate.sql), counted before the replacements.
CREATE OR REPLACE TEMP TABLE surface_labels AS
WITH own AS (
    SELECT person, norm, label
    FROM (
        SELECT person, norm, label,
               row_number() OVER (PARTITION BY person, norm
                                  ORDER BY label IN (SELECT label FROM rx.labels) DESC, count(*) DESC, label) AS rn
        FROM terms_found
        WHERE (person, norm) IN (SELECT person, norm FROM chosen)
        GROUP BY person, norm, label
    ) AS ranked
    WHERE rn = 1
)
-- (the person's own label if it is sensitive; a CARDINAL "4,000" of theirs is another person's
-- MONEY, and as a CARDINAL that states nothing it would be dropped, leaving the "4" of a MONEY
-- "4" readable)
-- (a surface the person never had tagged takes its needle's label; the needles of one surface,
-- all of one key, rarely differ in label, and then the least label name decides)
SELECT c.person, c.norm,
       coalesce(CASE WHEN o.label IN (SELECT label FROM rx.labels) THEN o.label END, c.label, o.label) AS label
FROM (
    SELECT m.person, m.norm, min(n.label) AS label
    FROM chosen AS m
    LEFT JOIN corpus_needles AS n ON n.norm = m.needle
    GROUP BY m.person, m.norm
) AS c
LEFT JOIN own AS o ON o.person = c.person AND o.norm = c.norm;

-- The chosen occurrences replace every span they overlap (the tagged spans they cover, and
-- spans of labels that only may state an attribute).
DELETE FROM terms_found AS f
WHERE f.row_id IN (SELECT row_id FROM chosen)
  AND EXISTS (
    SELECT 1 FROM chosen AS m
    WHERE m.row_id = f.row_id AND m.attribute = f.attribute AND f.start_pos < m.end_pos AND m.start_pos < f.end_pos
);

INSERT INTO terms_found
SELECT m.row_id, m.person, m.attribute, m.start_pos, m.end_pos, m.term, m.norm, l.label, 'match'
FROM chosen AS m
JOIN surface_labels AS l ON l.person = m.person AND l.norm = m.norm;
