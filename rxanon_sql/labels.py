"""The label schemes of spaCy pipelines, mapped onto rxanon-sql's labels (OntoNotes' names plus
those of the rule recognizers).

Sensitivity (`text.labels`), linking (`emap`), propagation and the guards all speak OntoNotes
("PERSON", "GPE", "DATE"). A pipeline of another scheme (WikiNER's "PER", "LOC", "ORG", "MISC" of
the French, German, Spanish, Portuguese ... pipelines) would otherwise emit labels none of them
know, and its names would be released without a word. So every label a pipeline can emit is
mapped here, or named in a one-line error (label_check.py): a label never passes unmapped and
unnoticed. This module is vocabulary: it imports nothing of the project, so the recognizers
(udfs/ner.py) can read the maps.
"""
from __future__ import annotations


ONTONOTES = ("PERSON", "NORP", "FAC", "ORG", "GPE", "LOC", "PRODUCT", "EVENT", "WORK_OF_ART", "LAW", "LANGUAGE",
             "DATE", "TIME", "PERCENT", "MONEY", "QUANTITY", "ORDINAL", "CARDINAL")
# Pipeline label -> rxanon-sql label. WikiNER/CoNLL (fr, de, es, it, pt, ca, ... news pipelines),
# the Norwegian NorNE scheme and the Polish NKJP one. `text.label_map` extends and overrides it.
DEFAULT_LABEL_MAP = {
    **{label: label for label in ONTONOTES},
    "PER": "PERSON", "MISC": "MISC",
    "GPE_LOC": "GPE", "GPE_ORG": "GPE", "PROD": "PRODUCT", "EVT": "EVENT", "DRV": "MISC",
    "persName": "PERSON", "placeName": "GPE", "geogName": "LOC", "orgName": "ORG", "date": "DATE", "time": "TIME",
}


def label_map(labels, user: dict[str, str] | None = None) -> dict[str, str]:
    """Pipeline label -> rxanon-sql label, for the labels given: the user's map first, then
    DEFAULT_LABEL_MAP. A label in neither is left out (`check_labels` reports it)."""
    user = user or {}
    return {label: user.get(label, DEFAULT_LABEL_MAP.get(label)) for label in labels
            if label in user or label in DEFAULT_LABEL_MAP}
