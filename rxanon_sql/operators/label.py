"""`label`: the term's label, as in the paper: [PERSON]."""
from sqlglot import exp

from .registry import register
from .base import Operator, bracketed, occurrence


@register
class Label(Operator):
    name = "label"

    def replacement(self) -> exp.Expression:
        return bracketed(occurrence("label"))
