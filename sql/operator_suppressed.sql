-- The terms that are not kept: the generalized ones, and every other with its operator.

-- A term that is not kept and shows a node its whole partition shows: replaced by that node.
-- share: the part of the hierarchy the node covers (0 at level 0, the term in canonical form).
CREATE OR REPLACE TABLE rx.generalized_terms AS
SELECT partition_id, person, label, norm, level, node, display, share
FROM gen_choice
WHERE NOT kept;

-- One row per replaced term (person, label, norm): its operator (the label's, else the default;
-- generalize falls back when no node is shared) and its tag number. Tags are numbered per label
-- over the whole release, so that no two persons share one: "[PERSON_1]" in two persons' texts
-- would read as the same person. The persons come in partition order and, inside a partition,
-- in the order of a hash keyed with a per-run salt (the input order would tell how the rows were
-- stored); a person's terms in order of first occurrence (alphabetical order would tell
-- something of the term).
CREATE OR REPLACE TABLE rx.operator_terms AS
WITH occurrences AS (
    SELECT t.person, p.partition_id, t.label, t.norm, t.row_id, t.attribute, t.start_pos
    FROM rx.terms AS t
    JOIN rx.partitions AS p ON p.person = t.person
    LEFT JOIN rx.kept_terms AS k ON k.partition_id = p.partition_id AND k.label = t.label AND k.norm = t.norm
    WHERE t.linked_attribute IS NULL AND (k.norm IS NULL OR t.source = 'identifier')
),
-- The first occurrence by a grouped min, and the salted hash once per person rather than once
-- per term: with a row_number over every occurrence and a hash in the sort key of the tags, the
-- statement took twice as long on the blog corpus shape.
firsts AS (
    SELECT person, label, norm,
           min(struct_pack(row_id := row_id, attribute := attribute, start_pos := start_pos)) AS first_occurrence
    FROM occurrences
    GROUP BY person, label, norm
),
person_order AS (
    SELECT person, row_number() OVER (ORDER BY partition_id, md5($salt || CAST(person AS VARCHAR))) AS person_rank
    FROM rx.partitions
),
labelled AS (
    SELECT f.person, f.label, f.norm, f.first_occurrence, r.person_rank,
           g.display AS generalized, coalesce(o.operator, s.operator) AS configured, s.fallback
    FROM firsts AS f
    JOIN person_order AS r ON r.person = f.person
    CROSS JOIN rx.operator_settings AS s
    LEFT JOIN rx.label_operators AS o ON o.label = f.label
    LEFT JOIN rx.generalized_terms AS g ON g.person = f.person AND g.label = f.label AND g.norm = f.norm
)
-- (recode_text.sql derives the operator of each occurrence the same way.)
SELECT person, label, norm,
       CASE WHEN generalized IS NOT NULL THEN 'generalize'
            WHEN configured = 'generalize' THEN fallback
            ELSE configured END AS operator,
       generalized,
       row_number() OVER (PARTITION BY label, generalized IS NULL ORDER BY person_rank, first_occurrence) AS tag
FROM labelled;
