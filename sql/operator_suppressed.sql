-- The terms that are not kept: the generalized ones, and every other with its operator.

-- A term that is not kept and shows a node its whole partition shows: replaced by that node.
-- share: the part of the hierarchy the node covers (0 at level 0, the term in canonical form).
CREATE OR REPLACE TABLE rx.generalized_terms AS
SELECT partition_id, person, label, norm, level, node, display, share
FROM gen_choice
WHERE NOT kept;

-- Every occurrence of a replaced term (not kept, or a direct identifier) with its operator:
-- the label's, else the default; generalize falls back when no node is shared. A view, read
-- here and by recode_text.sql, so that the rule is written once.
CREATE OR REPLACE TEMP VIEW replaced_occurrences AS
SELECT t.person, p.partition_id, t.label, t.norm, t.term, t.row_id, t.attribute, t.start_pos, t.end_pos,
       g.display AS generalized,
       CASE WHEN g.display IS NOT NULL THEN 'generalize'
            WHEN coalesce(o.operator, s.operator) = 'generalize' THEN s.fallback
            ELSE coalesce(o.operator, s.operator) END AS operator
FROM rx.terms AS t
JOIN rx.partitions AS p ON p.person = t.person
LEFT JOIN rx.kept_terms AS k ON k.partition_id = p.partition_id AND k.label = t.label AND k.norm = t.norm
CROSS JOIN rx.operator_settings AS s
LEFT JOIN rx.label_operators AS o ON o.label = t.label
LEFT JOIN rx.generalized_terms AS g ON g.person = t.person AND g.label = t.label AND g.norm = t.norm
WHERE t.linked_attribute IS NULL AND (k.norm IS NULL OR t.source = 'identifier');

-- One row per replaced term (person, label, norm): its operator and its tag number. Tags are
-- numbered per label over the whole release, so that no two persons share one: "[PERSON_1]" in
-- two persons' texts would read as the same person. The persons come in partition order and,
-- inside a partition, in the order of a hash keyed with a per-run salt (the input order would
-- tell how the rows were stored); a person's terms in order of first occurrence (alphabetical
-- order would tell something of the term).
CREATE OR REPLACE TABLE rx.operator_terms AS
WITH
-- The first occurrence by a grouped min, and the salted hash once per person rather than once
-- per term: with a row_number over every occurrence and a hash in the sort key of the tags, the
-- statement took twice as long on the blog corpus shape. The place (row_id, attribute,
-- start_pos) is one HUGEINT in the same order (row_id in the high 64 bits, the attribute's rank
-- among the attributes and start_pos below): a min and a sort over a struct compare field by
-- field, and took a sixth as long again.
attributes AS (
    SELECT list_sort(list(DISTINCT attribute)) AS names FROM rx.terms
),
firsts AS (
    SELECT o.person, o.label, o.norm, any_value(o.operator) AS operator, any_value(o.generalized) AS generalized,
           min(CAST(o.row_id AS HUGEINT) * 18446744073709551616
               + CAST(list_position(a.names, o.attribute) AS HUGEINT) * 4294967296 + o.start_pos) AS first_occurrence
    FROM replaced_occurrences AS o
    CROSS JOIN attributes AS a
    GROUP BY o.person, o.label, o.norm
),
person_order AS (
    SELECT person, row_number() OVER (ORDER BY partition_id, md5($salt || CAST(person AS VARCHAR))) AS person_rank
    FROM rx.partitions
)
-- (operator and generalized depend on the person, label and norm alone: any_value)
SELECT f.person, f.label, f.norm, f.operator, f.generalized,
       row_number() OVER (PARTITION BY f.label, f.generalized IS NULL ORDER BY r.person_rank, f.first_occurrence) AS tag
FROM firsts AS f
JOIN person_order AS r ON r.person = f.person;
