-- Distinct l-diversity and t-closeness per equivalence class and sensitive attribute (ARX's
-- definitions; docs/privacy.md, "Sensitive attributes"). Reads the temporary tables
-- class_members (class_id, key, kept_terms, person) and sensitive_values, sensitive_domain
-- (sensitive_values.sql); $l and $t are the configured thresholds (NULL: not set).
--
-- p = the class's distribution: of its persons' (person, value) pairs, the share of each value;
-- q = the same over the whole dataset. distance: for an ordered attribute (numeric, or with an
-- order) the ordered EMD, sum over the m values of |cumulative (p - q)| / (m - 1); for a nominal
-- one the equal-distance EMD, sum |p - q| / 2.

CREATE OR REPLACE TEMP TABLE class_values AS
SELECT m.class_id, v.attribute, v.rank, count(DISTINCT m.person) AS persons
FROM class_members AS m
JOIN sensitive_values AS v ON v.person = m.person
GROUP BY m.class_id, v.attribute, v.rank;

CREATE OR REPLACE TEMP TABLE class_diversity AS
WITH totals AS (
    SELECT class_id, attribute, sum(persons) AS pairs, count(*) AS distinct_values
    FROM class_values
    GROUP BY class_id, attribute
),
grid AS (
    SELECT t.class_id, t.attribute, t.distinct_values, d.rank, d.ordered, d.m,
           coalesce(cv.persons, 0) / t.pairs - d.q AS diff
    FROM totals AS t
    JOIN sensitive_domain AS d ON d.attribute = t.attribute
    LEFT JOIN class_values AS cv ON cv.class_id = t.class_id AND cv.attribute = t.attribute AND cv.rank = d.rank
),
steps AS (
    SELECT *, sum(diff) OVER (PARTITION BY class_id, attribute ORDER BY rank) AS cumulative
    FROM grid
),
measured AS (
    SELECT class_id, attribute, any_value(distinct_values) AS distinct_values, bool_or(ordered) AS ordered,
           CASE WHEN NOT bool_or(ordered) THEN sum(abs(diff)) / 2
                WHEN max(m) > 1 THEN sum(abs(cumulative)) / (max(m) - 1)
                ELSE 0 END AS distance
    FROM steps
    GROUP BY class_id, attribute
),
sizes AS (
    SELECT class_id, any_value(key) AS key, any_value(kept_terms) AS kept_terms, count(DISTINCT person) AS size
    FROM class_members
    GROUP BY class_id
)
-- (the tolerance: the partitioner's numpy sums and these add the same shares in other orders)
SELECT s.class_id, s.key, s.kept_terms, s.size, m.attribute, m.distinct_values,
       CASE WHEN m.ordered THEN 'ordered' ELSE 'equal' END AS distance_kind,
       greatest(m.distance, 0) AS distance,
       (m.distinct_values >= coalesce(CAST($l AS BIGINT), 1)
        AND m.distance <= coalesce(CAST($t AS DOUBLE), 1) + 1e-9) AS ok
FROM measured AS m
JOIN sizes AS s ON s.class_id = m.class_id
ORDER BY s.class_id, m.attribute;
