-- Recognize one chunk of the texts the cache does not hold yet (see recognize.py).
INSERT INTO rx.ner_cache
SELECT $fingerprint, text_hash, rx_ner(text)
FROM ner_todo
WHERE n > $lo AND n <= $hi;
