-- Generalization (operator generalize, rxanon_sql/operators/generalize.py): the nodes each term
-- of a generalized label could show: any node above a term that is not kept (rx.term_hierarchy
-- holds only the labels whose operator is generalize). A kept term shows nothing but its own
-- written form, so it never makes a node shared: "la" kept in a partition does not let another
-- person's "Los Angeles" through.
CREATE OR REPLACE TEMP TABLE gen_options AS
SELECT p.partition_id, t.person, t.label, t.norm, false AS kept,
       h.level, h.node, h.display, h.share
FROM rx.person_terms AS t
JOIN rx.partitions AS p ON p.person = t.person
JOIN rx.term_hierarchy AS h ON h.label = t.label AND h.norm = t.norm
LEFT JOIN rx.kept_terms AS k ON k.partition_id = p.partition_id AND k.label = t.label AND k.norm = t.norm
WHERE k.norm IS NULL;

-- The candidates of a partition: nodes that every person of the partition could show. The
-- passes of operator_generalize.sql shrink this set until every candidate is shown by all.
CREATE OR REPLACE TEMP TABLE gen_candidates AS
SELECT o.partition_id, o.label, o.node
FROM gen_options AS o
JOIN rx.partition_sizes AS s ON s.partition_id = o.partition_id
GROUP BY o.partition_id, o.label, o.node, s.size
HAVING count(DISTINCT o.person) = s.size;
