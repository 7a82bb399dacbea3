"""rxanon-sql: joint k-anonymization of relational attributes and free text inside DuckDB."""
__version__ = "0.1.0"


def register(con, cfg=None):
    """Register rxanon-sql's SQL functions on a DuckDB connection: rx_find(text, needles) and
    rx_entities(text), which recognizes as `apply` would with cfg (default: the default
    configuration); its spaCy pipeline is loaded on first use."""
    from .entities import register_entities
    from .udf import register_find
    register_find(con)
    register_entities(con, cfg)
