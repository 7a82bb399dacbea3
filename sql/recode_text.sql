-- Text (DESIGN.md, recoding): what replaces which span of which text.

-- A non-redundant term is kept in a partition when every person of the partition has it in X'.
CREATE OR REPLACE TABLE rx.kept_terms AS
SELECT p.partition_id, t.label, t.norm
FROM rx.person_terms AS t
JOIN rx.partitions AS p ON p.person = t.person
JOIN rx.partition_sizes AS s ON s.partition_id = p.partition_id
GROUP BY p.partition_id, t.label, t.norm, s.size
HAVING count(*) = s.size;

CREATE OR REPLACE TABLE rx.replacements AS
-- A redundant term's stating part becomes the recoded value of its attribute, unless that value
-- is the stated text itself (a partition with one age keeps "36 years old" as written).
SELECT t.row_id, t.person, t.attribute, t.stated_start AS start_pos, t.stated_end AS end_pos,
       r.value AS replacement, 'recoded' AS reason, t.label, t.norm
FROM rx.terms AS t
JOIN rx.partitions AS p ON p.person = t.person
JOIN rx.recoded_values AS r ON r.partition_id = p.partition_id AND r.attribute = t.linked_attribute
WHERE t.linked_attribute IS NOT NULL
  AND lower(r.value) <> lower(substring(t.term, t.stated_start - t.start_pos + 1, t.stated_end - t.stated_start))
UNION ALL
-- A non-redundant term that not every person of the partition has is replaced by the operator;
-- so is a direct identifier, always.
SELECT t.row_id, t.person, t.attribute, t.start_pos, t.end_pos,
       CASE (SELECT operator FROM rx.params) WHEN 'label' THEN '[' || t.label || ']' END,
       'suppressed', t.label, t.norm
FROM rx.terms AS t
JOIN rx.partitions AS p ON p.person = t.person
LEFT JOIN rx.kept_terms AS k ON k.partition_id = p.partition_id AND k.label = t.label AND k.norm = t.norm
WHERE t.linked_attribute IS NULL AND (k.norm IS NULL OR t.source = 'identifier');
