"""The registry of text operators: each operator's file enters its class here with `@register`;
the configuration, the CLI and sql/recode_text.sql read the names and classes from it."""
from __future__ import annotations

from sqlglot import exp

from ..errors import ConfigError
from ..settings import declare, undeclare
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
    for s in cls.settings:
        if s.section != "anonymization":
            raise ConfigError(f"text operator {name!r}: setting {s.key} must be anonymization.NAME")
        declare(s, f"text operator {name!r}")
    REGISTRY[name] = cls
    return cls


def unregister(name: str) -> None:
    """Take an operator and its settings out again (a test's, or a plugin's being reloaded)."""
    cls = REGISTRY.pop(name)
    for s in cls.settings:
        undeclare(s)


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
