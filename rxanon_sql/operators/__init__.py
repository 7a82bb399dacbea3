"""Text operators: what replaces a term that cannot be kept, found by name.

A term that not every person of its partition has is replaced by the operator of its label
(`[text.operators]`, else `anonymization.operator`). Each operator is one class in one file of
this package (`base.Operator`: its name, its configuration check, the SQL expression it
contributes to `sql/recode_text.sql`), entered here by `@register`; the configuration accepts
the registered names and `recode_text.sql` is assembled from them. An operator from elsewhere
registers the same way (docs/text-operators.md, "Adding an operator").

Everything but the hierarchy lookup and the surrogates themselves is SQL: `sql/operator_terms.sql`
(kept terms), `sql/operator_generalize*.sql` (generalization), `sql/operator_suppressed.sql` (each
replaced term's operator and tag number), `sql/operator_surrogates*.sql` (the draws) and
`sql/recode_text.sql` (the replaced spans).
"""
from __future__ import annotations

import importlib
import pkgutil

from sqlglot import exp

from ..errors import ConfigError
from .base import REASONS, Operator

REGISTRY: dict[str, type[Operator]] = {}


def register(cls: type[Operator]) -> type[Operator]:
    """Class decorator: make the operator available under its name."""
    name = getattr(cls, "name", None)
    if not (isinstance(cls, type) and issubclass(cls, Operator)):
        raise ConfigError(f"text operator {cls!r} is not a subclass of rxanon_sql.operators.base.Operator")
    if not isinstance(name, str) or not name.isidentifier() or name != name.lower():
        raise ConfigError(f"text operator {cls.__qualname__}: name must be a lower-case identifier, got {name!r}")
    if name in REGISTRY and REGISTRY[name] is not cls:
        raise ConfigError(f"text operator {name!r} is registered twice ({REGISTRY[name].__qualname__}, {cls.__qualname__})")
    if cls.reason not in REASONS:
        raise ConfigError(f"text operator {name!r}: reason must be one of {REASONS}, got {cls.reason!r}")
    REGISTRY[name] = cls
    return cls


def get(name: str) -> Operator:
    try:
        return REGISTRY[name]()
    except KeyError:
        raise ConfigError(f"no text operator {name!r}; registered: {names()}") from None


def names() -> tuple[str, ...]:
    return tuple(REGISTRY)


def fallback_names() -> tuple[str, ...]:
    return tuple(n for n, cls in REGISTRY.items() if cls.fallback)


def expansions() -> tuple[tuple[str, str], ...]:
    """The calls of sql/recode_text.sql that stand for the registry, with the SQL that replaces
    them (as text: the rendered statements are cached under it)."""
    op = exp.column("operator", table="t")
    replacement = exp.Case(this=op, ifs=[exp.If(this=exp.Literal.string(n), true=get(n).replacement()) for n in REGISTRY])
    generalizing = [n for n, cls in REGISTRY.items() if cls.reason != "suppressed"]
    reason = exp.Case(this=op, ifs=[exp.If(this=exp.Literal.string(n), true=exp.Literal.string(REGISTRY[n].reason))
                                    for n in generalizing], default=exp.Literal.string("suppressed")) \
        if generalizing else exp.Literal.string("suppressed")
    numbered = [exp.Literal.string(n) for n, cls in REGISTRY.items() if cls.numbered]
    shows_tag = exp.column("operator").isin(*numbered) if numbered else exp.false()
    return tuple((name, e.sql(dialect="duckdb")) for name, e in (
        ("rx_operator_replacement", replacement), ("rx_operator_reason", reason), ("rx_operator_numbered", shows_tag)))


# Every module of this package, so that a new operator's file registers itself: the built-in
# operators first, in the order the configuration errors and --help list them.
_BUILT_IN = ("label", "mask", "tag", "pseudonymize", "generalize")
for _module in (*_BUILT_IN, *sorted(m.name for m in pkgutil.iter_modules(__path__) if m.name not in _BUILT_IN)):
    importlib.import_module(f"{__name__}.{_module}")
from .hierarchy import geo_chain, geo_kind, hierarchy_rows  # noqa: E402,F401
from .stage import apply_operators  # noqa: E402,F401
