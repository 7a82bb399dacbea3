"""One vocabulary for the stages (rxanon_sql/stages.py): the pipeline runs them under these names,
in this order, rx.runs.timings and the progress callback use them, and the docs' tables are
generated from the list."""
from __future__ import annotations

import json
import re
from pathlib import Path

import duckdb
import pytest

from helpers import demo_config
from rxanon_sql import stages
from rxanon_sql.demo import write_demo_database
from rxanon_sql.pipeline import RunReport, apply

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("name, make", stages.DOCS)
def test_the_docs_tables_are_generated_from_the_list(name, make):
    text = (ROOT / "docs" / name).read_text()
    assert stages.docs_with_table(text, make) == text, f"docs/{name} is stale: python -m rxanon_sql.stages"


def test_the_pipeline_names_its_stages_in_the_lists_order():
    source = (ROOT / "rxanon_sql" / "pipeline.py").read_text()
    assert tuple(re.findall(r'report\.stage\("(\w+)"\)', source)) == stages.NAMES


def test_a_runs_timings_use_the_names(demo_con):
    # (every stage but the check, which runs after the run's row is written: apply prints its time)
    timings = json.loads(demo_con.execute("SELECT timings FROM rx.runs ORDER BY run_id DESC LIMIT 1").fetchall()[0][0])
    assert tuple(timings) == stages.NAMES[:-1] and stages.NAMES[-1] == "check"


def test_the_progress_callback_is_told_each_stage_and_counted_task():
    seen = []
    con = duckdb.connect()
    write_demo_database(con)
    apply(con, demo_config(), progress=lambda task, done, total: seen.append((task, total is None)))
    assert tuple(dict.fromkeys(t for t, started in seen if started)) == stages.NAMES
    assert {t for t, started in seen if not started} <= set(stages.COUNTED)


def test_a_stage_outside_the_list_is_refused():
    with pytest.raises(ValueError, match="no stage 'nosuch'"):
        with RunReport().stage("nosuch"):
            pass
