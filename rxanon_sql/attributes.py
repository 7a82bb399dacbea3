"""The quasi-identifiers and sensitive attributes of the configuration ([attributes.NAME]): their
keys, declared as the other keys are (settings.py), and how a table of them is read."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .errors import ConfigError
from .hierarchy import Hierarchy, read_hierarchy
from .settings import BOOLEAN, NUMBER, STRING, STRINGS, Setting, expect, str_list

ATTRIBUTE_TYPES = ("numeric", "nominal", "ordinal", "date")
# Not a quasi-identifier: released unchanged, and each class's values are checked for
# l-diversity and t-closeness (docs/privacy.md, "Sensitive attributes").
SENSITIVE = "sensitive"
DEFAULT_EMAP = {
    "numeric": ("DATE", "CARDINAL", "QUANTITY"),
    "date": ("DATE",),
    "nominal": (),
    "ordinal": (),
}

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


# The keys of an attribute's table ([attributes.NAME]), read by parse_config itself.
ATTRIBUTE_SETTINGS = (
    Setting("attributes.*.type", STRING, "", default_doc="(required)",
            help="numeric, nominal, ordinal, date: a quasi-identifier; or sensitive"),
    Setting("attributes.*.emap", STRINGS, None, "labels whose terms can state this attribute",
            default_doc="numeric: DATE, CARDINAL, QUANTITY; date: DATE"),
    Setting("attributes.*.format", STRING, None, "strptime format of a date stored as text"),
    Setting("attributes.*.order", STRINGS, (), "ordinal (and sensitive): the values from lowest to highest"),
    Setting("attributes.*.bias", NUMBER, 0.0, "added to its split priority", retune=True),
    Setting("attributes.*.match_values", BOOLEAN, True, "the row's own value mentioned in its text is redundant"),
    Setting("attributes.*.hierarchy", STRING, None, "a generalization hierarchy (CSV), relative to the file"),
    Setting("attributes.*.hierarchy_delimiter", STRING, ";", "its column separator"),
)
_ATTRIBUTE_KEYS = {s.key.rsplit(".", 1)[1] for s in ATTRIBUTE_SETTINGS}


def check_known(table: dict, allowed: set, path: str) -> None:
    for key in table:
        if key not in allowed:
            raise ConfigError(f"unknown configuration key {path}{key!r} (allowed: {', '.join(sorted(allowed))})")


def _hierarchy(spec: dict, typ: str, path: str, base: Path) -> Hierarchy | None:
    if "hierarchy" not in spec:
        if "hierarchy_delimiter" in spec:
            raise ConfigError(f"{path}.hierarchy_delimiter is given without {path}.hierarchy")
        return None
    file = expect(spec["hierarchy"], str, path + ".hierarchy")
    delimiter = expect(spec.get("hierarchy_delimiter", ";"), str, path + ".hierarchy_delimiter")
    if len(delimiter) != 1 or delimiter in "\r\n\"":
        raise ConfigError(f"{path}.hierarchy_delimiter must be one character (not a quote or line break), "
                          f"got {delimiter!r}")
    if typ == "date":
        raise ConfigError(f"{path}.hierarchy is for numeric, nominal and ordinal attributes; a date has its own "
                          "hierarchy (day, month, year, years)")
    return read_hierarchy(base / file, delimiter, path + ".hierarchy", numeric=typ == "numeric")


def parse_attributes(table: dict, base: Path) -> tuple[tuple[Attribute, ...], tuple[Attribute, ...]]:
    """The quasi-identifiers and the sensitive attributes of [attributes]."""
    attrs, sensitive = [], []
    for name, spec in table.items():
        path = f"attributes.{name}"
        expect(spec, dict, path)
        check_known(spec, _ATTRIBUTE_KEYS, path + ".")
        typ = expect(spec.get("type", ""), str, path + ".type")
        if typ == SENSITIVE:
            sensitive.append(_sensitive(name, spec, path))
            continue
        if typ not in ATTRIBUTE_TYPES:
            raise ConfigError(f"{path}.type must be one of {(*ATTRIBUTE_TYPES, SENSITIVE)}, got {typ!r}")
        emap = str_list(spec["emap"], path + ".emap") if "emap" in spec else DEFAULT_EMAP[typ]
        order = str_list(spec.get("order", []), path + ".order")
        if typ == "ordinal" and not order:
            raise ConfigError(f"{path}.order is required for an ordinal attribute")
        if len(set(order)) != len(order):
            raise ConfigError(f"{path}.order lists a value twice")
        fmt = spec.get("format")
        if fmt is not None:
            expect(fmt, str, path + ".format")
            if typ != "date":
                raise ConfigError(f"{path}.format is only for date attributes")
        attrs.append(Attribute(
            name=name, type=typ, emap=emap, format=fmt, order=order,
            bias=expect(spec.get("bias", 0.0), float, path + ".bias"),
            match_values=expect(spec.get("match_values", True), bool, path + ".match_values"),
            hierarchy=_hierarchy(spec, typ, path, base),
        ))
    return tuple(attrs), tuple(sensitive)


def _sensitive(name: str, spec: dict, path: str) -> Attribute:
    """A sensitive attribute: only `order` (its values from lowest to highest, for the ordered
    distance of t-closeness) applies; the other keys concern quasi-identifiers."""
    for key in spec:
        if key not in ("type", "order"):
            raise ConfigError(f"{path}.{key} does not apply to a sensitive attribute (allowed: order, type)")
    order = str_list(spec.get("order", []), path + ".order")
    if len(set(order)) != len(order):
        raise ConfigError(f"{path}.order lists a value twice")
    return Attribute(name=name, type=SENSITIVE, emap=(), order=order, match_values=False)
