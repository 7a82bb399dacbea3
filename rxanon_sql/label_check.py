"""Whether a configuration's labels can all be produced and every label its pipeline emits is
mapped (labels.py holds the maps): checked before a run, and what the mapping adds to the NER
cache key."""
from __future__ import annotations

import functools
from typing import TYPE_CHECKING

from udfs import recognizers

from .common_words import pipeline_meta
from .errors import ConfigError
from .labels import ONTONOTES, label_map

if TYPE_CHECKING:
    from .config import Config


def _meta(pipeline: str) -> dict:
    """The pipeline's meta.json, read without loading spaCy; {} when there is none."""
    return pipeline_meta(pipeline)


@functools.lru_cache(maxsize=8)
def _loaded_labels(pipeline: str) -> tuple[str, ...]:
    from udfs.ner import load_pipeline  # (here for start-up time: spaCy loads with it)
    nlp = load_pipeline(pipeline)
    return tuple(nlp.get_pipe("ner").labels) if "ner" in nlp.component_names else ()


def pipeline_labels(pipeline: str) -> tuple[str, ...]:
    """The entity labels the pipeline can emit: from its meta.json, or, where that does not list
    them, from the loaded pipeline's `ner` component."""
    labels = _meta(pipeline).get("labels", {})
    if isinstance(labels, dict) and "ner" in labels:
        return tuple(labels["ner"])
    return _loaded_labels(pipeline)


def produced_labels(cfg: Config, pipeline_labels_: tuple[str, ...]) -> set[str]:
    """Every label a term of this configuration can carry: the pipeline's (mapped), the registered rule
    recognizers', the language rules' where the pipeline lacks dates, the term lists' and
    patterns', and RARE."""
    from udfs.language_rules import LABELS as LANGUAGE_RULE_LABELS  # (here for start-up time: Babel loads with it)
    mapped = set(label_map(pipeline_labels_, cfg.label_map).values())
    rules = set(recognizers.labels()) | set(LANGUAGE_RULE_LABELS)
    return mapped | rules | set(cfg.terms) | set(cfg.patterns) | {"RARE"}


def check_labels(cfg: Config) -> None:
    """A pipeline label that maps to nothing, or a configured label that nothing produces, is a
    one-line ConfigError: either would leave terms unsuppressed without a word. A pipeline that
    is not installed is not checked here: a run whose texts are all in the NER cache needs none,
    and fill_cache names it where it is needed."""
    from udfs.ner import PipelineNotFound  # (here for start-up time: spaCy loads with it)
    try:
        labels = pipeline_labels(cfg.pipeline)
    except PipelineNotFound:
        return
    # (a label listed in text.labels is its own mapping: the user made it sensitive as it is)
    unknown = [l for l in labels if l not in label_map(labels, cfg.label_map) and l not in cfg.labels]
    if unknown:
        raise ConfigError(
            f"text.pipeline {cfg.pipeline!r} emits the label {unknown[0]!r}, which rxanon-sql does not know; map it "
            f"in [text.label_map] (e.g. {unknown[0]} = \"PERSON\") or list it in text.labels")
    if cfg.labels_given:
        produced = produced_labels(cfg, labels) | set(labels)
        for label in cfg.labels:
            if label not in produced:
                raise ConfigError(
                    f"text.labels: no recognizer produces {label!r}: the pipeline {cfg.pipeline!r} emits "
                    f"{', '.join(labels) or 'no labels'} and no rule, term list or pattern gives it; map a pipeline "
                    f"label onto it in [text.label_map] or remove it")


# The version of language_rules.py's output, in the NER cache key of the pipelines it serves.
LANGUAGE_RULES_VERSION = 1


def label_scheme_fingerprint(cfg: Config) -> dict | None:
    """What the label mapping and the language rules add to the NER cache key; None for an
    OntoNotes pipeline without a text.label_map, whose cached spans they do not change."""
    from udfs.ner import PipelineNotFound  # (here for start-up time: spaCy loads with it)
    try:
        labels = pipeline_labels(cfg.pipeline)
    except PipelineNotFound:
        return None         # (fill_cache names the missing pipeline)
    mapping = label_map(labels, cfg.label_map)
    if set(labels) <= set(ONTONOTES) and not cfg.label_map:
        return None
    rules = None if "DATE" in mapping.values() else LANGUAGE_RULES_VERSION
    return {"map": mapping, "language_rules": rules}


def label_note(cfg: Config) -> str | None:
    """For `rxanon-sql entities`: how the pipeline's labels are read, where that is not as they
    are (a scheme other than OntoNotes, or a text.label_map)."""
    scheme = label_scheme_fingerprint(cfg)
    if scheme is None:
        return None
    mapped = ", ".join(k if k == v else f"{k} -> {v}" for k, v in scheme["map"].items())
    rules = "" if scheme["language_rules"] is None else \
        f"; DATE and CARDINAL from the rules of language {cfg.lang!r} (the pipeline has no DATE)"
    return f"labels of {cfg.pipeline}: {mapped}{rules}"
