"""What a Spark error says, in one line: the engine's errors (EngineError) carry it."""
from __future__ import annotations


def first_line(e: Exception) -> str:
    """The line of a Spark error that says what failed (a Java error's own line, not py4j's)."""
    text = str(e)
    if "Python worker" in text:     # the UDF's own error, the last line of its traceback
        raised = [l for l in text.splitlines() if l and not l[0].isspace() and ("Error" in l or "Exception" in l)
                  and "Python worker" not in l]
        if raised:
            return "a UDF failed: " + raised[-1]
    java = getattr(e, "java_exception", None)
    if java is not None:
        while java.getCause() is not None:
            java = java.getCause()
        return str(java.toString()).splitlines()[0]
    lines = [l for l in text.splitlines() if l.strip()]
    for line in lines:
        if "Exception" in line.split(":")[0] or line.startswith("["):
            return line.lstrip(": ")
    return lines[0] if lines else type(e).__name__
