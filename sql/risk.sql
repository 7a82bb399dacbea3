-- Re-identification risk of the release, as views over rx.classes (so that they always describe
-- the release they sit beside). The prosecutor model (ARX's): an attacker who knows that a person
-- is in the release and knows their released quasi-identifiers and kept terms finds them among the
-- |class| persons of their equivalence class, so picks them with probability 1 / |class|. A
-- record is a person (the method makes each person one record), whatever their number of rows.

-- Per equivalence class.
CREATE OR REPLACE VIEW rx.risk_classes AS
SELECT key, kept_terms, size, 1.0 / size AS prosecutor_risk
FROM rx.classes;

-- The release: the highest risk (1 / the smallest class), the average over the records (the
-- number of classes over the number of persons), and the share of the records whose risk
-- exceeds the threshold. The threshold is fixed at 0.2 (one in five), ARX's usual default for
-- "records at risk": a release with k >= 5 has none, and one with k < 5 shows how many persons
-- sit in classes smaller than five.
CREATE OR REPLACE VIEW rx.risk AS
WITH t AS (SELECT CAST(0.2 AS DOUBLE) AS threshold)
SELECT max(1.0 / c.size) AS highest,
       count(*) / sum(c.size) AS average,
       coalesce(sum(c.size) FILTER (WHERE 1.0 / c.size > t.threshold), 0) / sum(c.size) AS share_above,
       any_value(t.threshold) AS threshold,
       CAST(sum(c.size) AS BIGINT) AS records,
       count(*) AS classes
FROM rx.classes AS c
CROSS JOIN t;
