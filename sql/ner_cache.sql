-- The NER cache outlives runs: a text is recognized once per recognizer fingerprint (pipeline,
-- its version, rules, term lists, patterns), so a rerun with another k or lambda runs no NER.
CREATE TABLE IF NOT EXISTS rx.ner_cache (
    fingerprint VARCHAR,
    text_hash VARCHAR,
    entities STRUCT(start_pos INTEGER, end_pos INTEGER, term VARCHAR, "label" VARCHAR, "source" VARCHAR)[]
);
