"""`tag`: the label with a number, [PERSON_3]: the same number for every occurrence of a term of
one person, and a number no other person's term has (sql/operator_suppressed.sql counts them)."""
from sqlglot import exp

from .registry import register
from .base import Operator, numbered_label


@register
class Tag(Operator):
    name = "tag"
    numbered = True

    def replacement(self) -> exp.Expression:
        return numbered_label()
