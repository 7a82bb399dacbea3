-- Text (docs/text-operators.md): what replaces which span. rx.kept_terms, rx.generalized_terms,
-- rx.operator_terms and rx.surrogates come from the operator_*.sql files (rxanon_sql/operators/).
CREATE OR REPLACE TABLE rx.replacements AS
-- A redundant term's stating part becomes the recoded value of its attribute, unless that value
-- is the stated text itself (a partition with one age keeps "36 years old" as written).
SELECT t.row_id, t.person, t.attribute, t.stated_start AS start_pos, t.stated_end AS end_pos,
       r.value AS replacement, 'recoded' AS reason, t.label, t.norm, 'recode' AS operator
FROM rx.terms AS t
JOIN rx.partitions AS p ON p.person = t.person
JOIN rx.recoded_values AS r ON r.partition_id = p.partition_id AND r.attribute = t.linked_attribute
WHERE t.linked_attribute IS NOT NULL
  AND lower(r.value) <> lower(substring(t.term, t.stated_start - t.start_pos + 1, t.stated_end - t.stated_start))
UNION ALL
-- A non-redundant term that not every person of the partition has is replaced by its operator;
-- so is a direct identifier, always. A generalized term shows the node its partition shares.
-- Three calls stand for SQL built from the registered operators (rxanon_sql/operators/): the
-- replacement is CASE t.operator WHEN (each name) THEN (its expression) END; the reason is
-- generalized for an operator that generalizes, else suppressed; the tag is joined for the
-- operators whose replacement reads it.
SELECT t.row_id, t.person, t.attribute, t.start_pos, t.end_pos,
       rx_operator_replacement(),
       rx_operator_reason(),
       t.label, t.norm, t.operator
-- (replaced_occurrences: operator_suppressed.sql. Only a tag needs rx.operator_terms' row, so
-- only the operators that show one join it: joining every occurrence with it cost 0.8 s and
-- 250 MB on the blog corpus shape.)
FROM replaced_occurrences AS t
LEFT JOIN (
    SELECT person, label, norm, tag FROM rx.operator_terms WHERE rx_operator_numbered()
) AS n ON n.person = t.person AND n.label = t.label AND n.norm = t.norm
LEFT JOIN rx.surrogates AS u ON u.person = t.person AND u.label = t.label AND u.norm = t.norm AND u.surface = t.term;
