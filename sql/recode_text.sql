-- Text (DESIGN.md, recoding): what replaces which span. rx.kept_terms, rx.generalized_terms,
-- rx.operator_terms and rx.surrogates come from the operator_*.sql files (rxanon_sql/operators.py).
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
SELECT t.row_id, t.person, t.attribute, t.start_pos, t.end_pos,
       CASE o.operator
           WHEN 'generalize' THEN o.generalized
           WHEN 'mask' THEN (SELECT mask FROM rx.operator_settings)
           WHEN 'tag' THEN '[' || t.label || '_' || CAST(o.tag AS VARCHAR) || ']'
           WHEN 'pseudonymize' THEN coalesce(s.surrogate, '[' || t.label || '_' || CAST(o.tag AS VARCHAR) || ']')
           ELSE '[' || t.label || ']'
       END,
       CASE WHEN o.operator = 'generalize' THEN 'generalized' ELSE 'suppressed' END,
       t.label, t.norm, o.operator
FROM rx.terms AS t
JOIN rx.partitions AS p ON p.person = t.person
JOIN rx.operator_terms AS o ON o.person = t.person AND o.label = t.label AND o.norm = t.norm
LEFT JOIN rx.kept_terms AS k ON k.partition_id = p.partition_id AND k.label = t.label AND k.norm = t.norm
LEFT JOIN rx.surrogates AS s ON s.person = t.person AND s.label = t.label AND s.norm = t.norm AND s.surface = t.term
WHERE t.linked_attribute IS NULL AND (k.norm IS NULL OR t.source = 'identifier');
