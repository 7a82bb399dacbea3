"""What a configuration key is: one declaration each (after datasette's SETTINGS), read by the
parser, the checks, reuse (which keys only retune) and docs/configuration.md's table.

A key of the core is declared on its `Config` field (config.py, `setting(...)`); a key that only
one text operator reads is declared by that operator (`Operator.settings`, operators/*.py) and
held in `Config.options`, so that an operator with a setting is one file.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Callable

from .errors import ConfigError

# The value types of the keys, as the docs name them.
STRING, INTEGER, NUMBER, BOOLEAN = "string", "integer", "number", "boolean"
STRINGS = "list of strings"
TABLE_OF_STRINGS, TABLE_OF_NUMBERS, TABLE_OF_LISTS = "table of strings", "table of numbers", "table of lists of strings"


@dataclass(frozen=True)
class Setting:
    key: str                    # the dotted TOML path: "anonymization.lambda"
    type: str                   # one of the types above
    default: Any
    help: str                   # one line for the docs' table
    # What a valid value is, as a predicate and the phrase its error says after "KEY must ":
    # ("lie in [0, 1]"). Checked on the file's value and on every override (the command line).
    check: tuple[Callable[[Any], bool], str] | None = None
    retune: bool = False        # a change reruns only partitioning onward (reuse.py); else it rebuilds
    attr: str = ""              # the Config attribute, when it is not the key's last part
    parse: Callable[[Any, str], Any] | None = None   # instead of the type's own reading
    default_doc: str | None = None                   # the docs' default, when not repr(default)
    # Never stored (rx.runs.config, rx.operator_settings): the surrogates' secret.
    private: bool = False

    @property
    def section(self) -> str:
        return self.key.split(".")[0]

    @property
    def name(self) -> str:
        return self.key.split(".", 1)[1]

    @property
    def field(self) -> str:
        return self.attr or self.name

    def read(self, value: Any) -> Any:
        """The file's value, type-checked and converted (an error names the key)."""
        return self.parse(value, self.key) if self.parse else READERS[self.type](value, self.key)

    def validate(self, value: Any) -> None:
        if self.check is not None and value is not None and not self.check[0](value):
            raise ConfigError(f"{self.key} must {self.check[1]}, got {value!r}")


# The column type of an operator's setting in rx.operator_settings.
SQL_TYPES = {STRING: "VARCHAR", INTEGER: "BIGINT", NUMBER: "DOUBLE", BOOLEAN: "BOOLEAN"}


def expect(value, kind, path: str):
    kinds = kind if isinstance(kind, tuple) else (kind,)
    if float in kinds and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    if isinstance(value, bool) and bool not in kinds:
        raise ConfigError(f"{path} must be {' or '.join(k.__name__ for k in kinds)}, got {value!r}")
    if not isinstance(value, kinds):
        raise ConfigError(f"{path} must be {' or '.join(k.__name__ for k in kinds)}, got {value!r}")
    return value


def str_list(value, path: str) -> tuple[str, ...]:
    expect(value, list, path)
    for i, v in enumerate(value):
        expect(v, str, f"{path}[{i}]")
    return tuple(value)


def per_label(read: Callable[[Any, str], Any]) -> Callable[[Any, str], dict]:
    """A table whose keys are labels (upper-cased) and whose values `read` reads."""
    return lambda value, path: {label.upper(): read(v, f"{path}.{label}")
                                for label, v in expect(value, dict, path).items()}


READERS: dict[str, Callable[[Any, str], Any]] = {
    STRING: lambda v, path: expect(v, str, path),
    INTEGER: lambda v, path: expect(v, int, path),
    NUMBER: lambda v, path: expect(v, float, path),
    BOOLEAN: lambda v, path: expect(v, bool, path),
    STRINGS: str_list,
    TABLE_OF_STRINGS: per_label(lambda v, path: expect(v, str, path)),
    TABLE_OF_NUMBERS: per_label(lambda v, path: expect(v, float, path)),
    TABLE_OF_LISTS: per_label(str_list),
}


def setting(key: str, type: str, default: Any = dataclasses.MISSING, help: str = "", *,
            default_factory: Any = dataclasses.MISSING, **kw) -> Any:
    """A Config field that is a configuration key: the dataclass field, with its Setting as metadata."""
    shown = default_factory() if default is dataclasses.MISSING else default
    s = Setting(key, type, shown, help, **kw)
    return dataclasses.field(default=default, default_factory=default_factory, metadata={"setting": s})


# Settings declared by the text operators (operators/__init__.py's register), by attribute.
DECLARED: dict[str, Setting] = {}


def declare(s: Setting, owner: str) -> None:
    known = DECLARED.get(s.field)
    if known is not None and known != s:
        raise ConfigError(f"{owner}: setting {s.key} is declared twice, differently")
    DECLARED[s.field] = s


def undeclare(s: Setting) -> None:
    DECLARED.pop(s.field, None)


def core(config_class) -> list[Setting]:
    return [f.metadata["setting"] for f in dataclasses.fields(config_class) if "setting" in f.metadata]


def all_settings(config_class) -> list[Setting]:
    """Every key a file may hold: the core's, then the registered operators'."""
    ours = core(config_class)
    taken = {s.field for s in ours} | {f.name for f in dataclasses.fields(config_class)}
    for s in DECLARED.values():
        if s.field in taken:
            raise ConfigError(f"setting {s.key} of a text operator is a name of the core configuration")
    return [*ours, *DECLARED.values()]


def _default(s: Setting) -> str:
    if s.default_doc is not None:
        return s.default_doc
    if s.default is None:
        return "(none)"
    if isinstance(s.default, bool):
        return str(s.default).lower()
    if isinstance(s.default, (tuple, list)):
        return "[" + ", ".join(f'"{v}"' for v in s.default) + "]"
    if isinstance(s.default, dict):
        return "{}"
    if isinstance(s.default, str):
        return f'"{s.default}"'
    return f"{s.default:_}" if isinstance(s.default, int) and s.default >= 10_000 else repr(s.default)


def table(settings: list[Setting]) -> str:
    """docs/configuration.md's table of keys (between its `settings` markers)."""
    lines = ["| key | type | default | a change | what it does |", "| --- | --- | --- | --- | --- |"]
    for s in settings:
        shown = s.default_doc if s.default_doc is not None else f"`{_default(s)}`"
        lines.append(f"| `{s.key}` | {s.type} | {shown} | {'retunes' if s.retune else 'rebuilds'} | "
                     f"{s.help.replace('|', '/')} |")
    return "\n".join(lines) + "\n"
