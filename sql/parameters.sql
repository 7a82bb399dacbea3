-- The run's parameters as tables, so that every later stage is a static SQL file that reads
-- them instead of having values pasted into its text.
CREATE OR REPLACE TABLE rx.params (
    k INTEGER, lam DOUBLE, strategy VARCHAR, nominal_order VARCHAR, operator VARCHAR, w_a DOUBLE, w_x DOUBLE,
    fingerprint VARCHAR
);
CREATE OR REPLACE TABLE rx.attributes (
    attribute VARCHAR, kind VARCHAR, position INTEGER, bias DOUBLE, match_values BOOLEAN, hierarchy BOOLEAN
);
-- The user hierarchies (attributes.X.hierarchy): one row per leaf and level of its path to the
-- root, level 0 being the leaf itself.
CREATE OR REPLACE TABLE rx.hierarchies (attribute VARCHAR, leaf VARCHAR, level INTEGER, node VARCHAR);
CREATE OR REPLACE TABLE rx.emap (attribute VARCHAR, label VARCHAR);
CREATE OR REPLACE TABLE rx.labels (label VARCHAR, bias DOUBLE);
CREATE OR REPLACE TABLE rx.ordinal_order (attribute VARCHAR, value VARCHAR, position DOUBLE);
CREATE OR REPLACE TABLE rx.month_names (name VARCHAR, month INTEGER, english VARCHAR);
CREATE OR REPLACE TABLE rx.weekday_names (name VARCHAR, weekday INTEGER);
CREATE OR REPLACE TABLE rx.number_words (word VARCHAR, value INTEGER, ordinal BOOLEAN);
