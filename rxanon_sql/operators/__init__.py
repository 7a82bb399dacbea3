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

from .registry import (REGISTRY, expansions, fallback_names, get, names, register,  # noqa: F401
                       unregister)

# Every module of this package, so that a new operator's file registers itself: the built-in
# operators first, in the order the configuration errors and --help list them.
_BUILT_IN = ("label", "mask", "tag", "pseudonymize", "generalize")
for _module in (*_BUILT_IN, *sorted(m.name for m in pkgutil.iter_modules(__path__) if m.name not in _BUILT_IN)):
    importlib.import_module(f"{__name__}.{_module}")
from .hierarchy import geo_chain, geo_kind, hierarchy_rows  # noqa: E402,F401
from .stage import apply_operators  # noqa: E402,F401
