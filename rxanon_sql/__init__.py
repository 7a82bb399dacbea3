"""rxanon-sql: joint k-anonymization of relational attributes and free text inside DuckDB."""
from .version import __version__  # noqa: F401


def register(con, cfg=None):
    """Register rxanon-sql's SQL functions on a DuckDB connection: rx_find(text, needles) and
    rx_entities(text), which recognizes as `apply` would with cfg (default: the default
    configuration); its spaCy pipeline is loaded on first use."""
    # (here for start-up time: every module of the package imports this one first)
    from .entities import register_entities
    from .udf import register_find
    register_find(con)
    register_entities(con, cfg)
