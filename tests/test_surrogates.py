"""udfs/surrogates.py under concurrent calls: DuckDB calls a UDF from several threads at once."""
import sys
from concurrent.futures import ThreadPoolExecutor

from udfs.surrogates import Surrogates

TERMS = [(f"p{i}", label, f"{word} {i}", f"{word.title()} {i}")
         for i in range(150) for label, word in (("ORG", "acme"), ("GPE", "springfield"), ("JOB", "engineer"),
                                                 ("FAC", "main street"), ("PERSON", "ann"))]


def test_a_draw_depends_on_its_key_alone_when_threads_call_at_once():
    alone = [Surrogates("secret").surrogate(*t) for t in TERMS]
    s = Surrogates("secret")
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)     # switch threads as often as possible, to interleave the calls
    try:
        with ThreadPoolExecutor(4) as pool:
            together = list(pool.map(lambda t: s.surrogate(*t), TERMS * 4))
    finally:
        sys.setswitchinterval(interval)
    assert together == alone * 4
    assert len(set(alone)) > len(TERMS) // 2      # (the draws differ from term to term)
