"""The registry of rule recognizers: one class per kind of identifier, one file per class.

Every module of this package is imported the first time the registry is read, and each class it
decorates with `@register` is run by every `RuleRecognizer` (rules.py) made after that. So a new
recognizer is one new file here (and its test); the labels it gives become default sensitive
labels (config.py), labels the configuration accepts (labels.py), and its `surrogate` is what
`pseudonymize` writes for them (surrogates.py). See docs/recognizers.md, "Adding a recognizer".

A class registered from elsewhere (a test, a user's module) is run in this process only: NER
worker processes (text.workers > 1) start afresh and import this package, not the caller's
modules.
"""
from __future__ import annotations

import importlib
import pkgutil

from rxanon_sql.errors import ConfigError

from .base import PatternRecognizer, Recognizer, Scan

__all__ = ["PatternRecognizer", "Recognizer", "Scan", "register", "unregister", "registered", "labels",
           "surrogate_of", "fingerprint"]

_registry: dict[str, type[Recognizer]] = {}
_loaded = False
_cache: dict[str, object] = {}


def _key(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


def register(cls: type[Recognizer]) -> type[Recognizer]:
    """Class decorator: run this recognizer from now on. Its label must be upper case, as the
    configuration's labels are. A class it cannot run is refused as the text operators' registry
    refuses one: a ConfigError, which the command line prints as one line."""
    if not (isinstance(cls, type) and issubclass(cls, Recognizer)):
        raise ConfigError(f"rule recognizer {cls!r} is not a subclass of udfs.recognizers.Recognizer")
    label = cls.label
    if not isinstance(label, str) or not label or label != label.upper() or not label.replace("_", "").isalnum():
        raise ConfigError(f"rule recognizer {cls.__qualname__}: label must be an upper-case word, got {label!r}")
    if cls.find is Recognizer.find:
        raise ConfigError(f"rule recognizer {cls.__qualname__} does not define find")
    _registry[_key(cls)] = cls
    _cache.clear()
    return cls


def unregister(cls: type[Recognizer]) -> None:
    _registry.pop(_key(cls), None)
    _cache.clear()


def _load() -> None:
    global _loaded
    if not _loaded:
        _loaded = True      # (first: a module that reads the registry while imported must not recurse)
        for module in pkgutil.iter_modules(__path__):
            importlib.import_module(f"{__name__}.{module.name}")


def registered() -> tuple[type[Recognizer], ...]:
    """The registered classes in the order they run."""
    _load()
    if "classes" not in _cache:
        _cache["classes"] = tuple(sorted(_registry.values(), key=lambda c: (c.order, c.priority, _key(c))))
    return _cache["classes"]


def labels() -> tuple[str, ...]:
    """The labels the recognizers give, by priority."""
    return tuple(dict.fromkeys(c.label for c in sorted(registered(), key=lambda c: (c.priority, c.order, _key(c)))))


def surrogate_of(label: str):
    """The surrogate function (surface, rng) -> str | None of the first recognizer of label, or None."""
    table = _cache.get("surrogates")
    if table is None:
        table = {}
        for cls in registered():
            table.setdefault(cls.label, cls.surrogate)
        _cache["surrogates"] = table
    return table.get(label)


def fingerprint() -> list[str]:
    """What the registry adds to the NER cache key: each recognizer and its version."""
    return sorted(f"{_key(c)}:{c.version}" for c in registered())
