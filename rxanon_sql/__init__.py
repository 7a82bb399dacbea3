"""rxanon-sql: joint k-anonymization of relational attributes and free text inside DuckDB."""
__version__ = "0.1.0"


def register(con):
    """Register rxanon-sql's SQL functions (rx_find, and rx_entities) on a DuckDB connection."""
    from .udf import register_find
    register_find(con)
