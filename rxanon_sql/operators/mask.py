"""`mask`: one fixed string for every term (anonymization.mask, default XXXXX)."""
from sqlglot import exp

from . import register
from .base import Operator, setting


@register
class Mask(Operator):
    name = "mask"

    def replacement(self) -> exp.Expression:
        return setting("mask")
