-- The sensitive attributes' values (docs/privacy.md, "Sensitive attributes"), read from the
-- temporary view sensitive_source (person, attribute, value, sort_key, ordered) that
-- diversity.py writes over rx.dataset (for the partitioner) or rx.audit (for the check).
-- A person counts once per distinct value they hold (the aggregation `set` of D*); a NULL is a
-- value of its own, since the release shows it as one.

-- rank: the value's place in the attribute's order (numeric: by number; ordinal: by the
-- configured order; nominal: by text, an order the equal distance ignores), from 1.
CREATE OR REPLACE TEMP TABLE sensitive_values AS
SELECT DISTINCT person, attribute, value, ordered,
       dense_rank() OVER (PARTITION BY attribute ORDER BY sort_key NULLS LAST, value NULLS LAST) AS rank
FROM sensitive_source;

-- The whole dataset's distribution of each attribute (the q of t-closeness), over its domain
-- of m values.
CREATE OR REPLACE TEMP TABLE sensitive_domain AS
SELECT attribute, rank, any_value(value) AS value, bool_or(ordered) AS ordered, count(*) AS persons,
       count(*) / sum(count(*)) OVER (PARTITION BY attribute) AS q,
       count(*) OVER (PARTITION BY attribute) AS m
FROM sensitive_values
GROUP BY attribute, rank;
