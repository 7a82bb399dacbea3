"""`mask`: one fixed string for every term (anonymization.mask, default XXXXX)."""
from sqlglot import exp

from .registry import register
from ..settings import STRING, Setting
from .base import Operator, setting


@register
class Mask(Operator):
    name = "mask"
    settings = (Setting("anonymization.mask", STRING, "XXXXX", "the mask operator's fixed string", retune=True),)

    def replacement(self) -> exp.Expression:
        return setting("mask")
