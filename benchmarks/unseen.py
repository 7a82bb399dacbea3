"""The README path, unedited, on public data of other shapes than the ones it was tuned on.

    python benchmarks/unseen.py [run] [--data-dir DIR] [--sets hotel,blogs,...] [--workdir DIR] [--keep]
    python benchmarks/unseen.py prepare --raw DIR [--data-dir DIR]
    python benchmarks/unseen.py shapes [--workdir DIR]

`run` takes each data set of DATASETS (below) through exactly the steps of the README's
"Anonymize your own tables", as a user types them, each a subprocess of `python -m rxanon_sql`
in a fresh folder:

    load DB FILE [FILE ...]; init DB --out cfg.toml; apply DB --config cfg.toml --k 5;
    verify DB --strict; export DB out.parquet

and prints one Markdown row per data set: rows and persons, released or not (with the first
line that says why not), repairs (apply's lines that mention one; blank when it prints none),
words kept (privacy.py's WORDS_KEPT), suspects (verify's residual audit: strings / persons) and
the wall time of the five steps. Each step's output stays in --workdir/NAME/*.log (with the
database and the configuration) for a diagnosis. A data set whose files are missing is skipped.

The files are not part of the repository. --data-dir (or RXANON_UNSEEN_DATA; default
/work/data/unseen) holds them as `prepare` writes them from the raw files of their public
sources (listed per data set below: repository, commit and path); `prepare` only selects rows,
flattens and converts them, with the seeds given.

`shapes` writes, for each failure seen on these data sets, the smallest made-up input of the
same shape (10 rows or fewer) and takes it through the same path: one row per shape.
"""
from __future__ import annotations

import argparse
import csv
import gzip
import html
import json
import os
import random
import re
import shutil
import subprocess
import sys
import time
import tomllib
from pathlib import Path

import duckdb

sys.path.insert(0, str(Path(__file__).resolve().parent))
from privacy import WORDS_KEPT  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "data"
DEFAULT_DATA = Path(os.environ.get("RXANON_UNSEEN_DATA", "/work/data/unseen"))
K = 5

# name: files (relative to the data directory, loaded in this order), shape, source and licence,
# extra options of `load` (none so far: the README path as it is).
DATASETS = {
    "hotel": {
        "files": ["hotel/hotel_reviews_unseen_501.csv"],
        "shape": "CSV, 501 rows of the 515K Hotel Reviews not in ../shared's 499 (rows 500-1000 of the "
                 "Kaggle file: 3 hotels), all 17 columns, dates as 8/3/2017",
        "source": "github benitomartin/de-hotel-reviews@041d86d data/hotel_reviews_test.csv (first 1,000 rows of "
                  "Kaggle jiashenliu/515k-hotel-reviews-data-in-europe, CC0 per Kaggle; scraped from Booking.com)",
    },
    "hotel-london": {
        "files": ["hotel/hotel_reviews_britannia_1000.csv"],
        "shape": "CSV, 1,000 of the 4,789 rows of the 515K Hotel Reviews' most reviewed hotel (Britannia "
                 "International Hotel Canary Wharf, London; not in ../shared's 499), all 17 columns, drawn with "
                 "DuckDB's setseed(0.6)",
        "source": "github juliabarrufet/NLP-project@83a63da Hotel_Reviews.csv (that hotel's rows of Kaggle "
                  "jiashenliu/515k-hotel-reviews-data-in-europe)",
    },
    "blogs": {
        "files": ["blogs/blog_unseen_300.csv.gz"],
        "shape": "CSV.gz, 300 bloggers of the Blog Authorship Corpus not in ../shared's blog_dev_300, their first "
                 "5 posts each (1,338 posts, 1.9 MB); the dev file's columns id,gender,age,topic,sign,date,text",
        "source": "github muhwagua/color-bert@8db0aa3 blogs/*.xml (the corpus' 19,320 files; Schler et al. 2006, "
                  "non-commercial research use); bloggers drawn with random.Random(6)",
    },
    "blogs-whole": {
        "files": ["blogs/blog_unseen_whole.csv.gz"],
        "shape": "CSV.gz, 62 of the same 300 bloggers with all their posts (1,496 posts, 1.8 MB): drawn with "
                 "random.Random(7), each taken while the total stays within 1,500 posts and 4 MB of XML (so "
                 "shorter blogs are favoured)",
        "source": "as blogs",
    },
    "bios": {
        "files": ["bios/people_wiki.parquet"],
        "shape": "Parquet (converted from CSV by DuckDB), 1,470 Wikipedia biographies: URI, name, text "
                 "(lower-cased, no punctuation); the text names the person",
        "source": "github TheNewStat1/Machine_Learning_Specialization_UW@f178864 people_wiki.csv (UW/Coursera "
                  "course data from Wikipedia/DBpedia, CC BY-SA)",
    },
    "tickets": {
        "files": ["tickets/support_tickets_1000.jsonl"],
        "shape": "JSON lines, the first 1,000 of 8,469 synthetic support tickets: Customer Name, Customer Email, "
                 "age, gender, product, dates, subject, description with {product_purchased} placeholders, "
                 "resolution, ratings (column names with spaces)",
        "source": "github andkuster/customer-support-ticket@fb44e63 customer_support_tickets.csv (Kaggle "
                  "suraj520/customer-support-ticket-dataset; repository MIT)",
    },
    "clinical": {
        "files": ["clinical/syngp500_notes.json"],
        "shape": "JSON array, 500 synthetic Australian GP notes: note_id, snomed_code, condition (from the file "
                 "name), note (abbreviated clinical text, times, doses)",
        "source": "github pisong314/syngp500@7cedf3c notes/*.txt (CC BY-NC-SA 4.0)",
    },
    "forum": {
        "files": ["forum/history_se_users.parquet", "forum/history_se_comments.jsonl"],
        "shape": "two tables joined on user_id: 300 users of History Stack Exchange (Parquet: user_id, "
                 "display_name, location, reputation, member_since, about_me as HTML) and up to 5 comments each, 867 in all "
                 "(JSON lines: comment_id, post_id, user_id, score, posted, text)",
        "source": "github VanAnDuong/Text-analysis-for-the-History-Stack-Exchange@5fb45f8 Users.xml, Comments.xml "
                  "(Stack Exchange data dump, CC BY-SA); users drawn with random.Random(6)",
    },
}


# --- run -----------------------------------------------------------------------------------------

def _cli(args: list[str], cwd: Path, log: Path) -> tuple[int, str, str, float]:
    started = time.perf_counter()
    out = subprocess.run([sys.executable, "-m", "rxanon_sql", *args], cwd=cwd, capture_output=True, text=True,
                         env={**os.environ, "PYTHONPATH": str(ROOT)})
    seconds = time.perf_counter() - started
    log.write_text(f"$ rxanon-sql {' '.join(args)}\nexit {out.returncode} after {seconds:.1f} s\n"
                   f"--- stdout\n{out.stdout}--- stderr\n{out.stderr}", encoding="utf-8")
    return out.returncode, out.stdout, out.stderr, seconds


def _why(stdout: str, stderr: str) -> str:
    """The first line that says what failed: a LEAK, FAIL or SUSPECT line, else the error."""
    lines = [l.strip() for l in (stderr + stdout).splitlines() if l.strip()]
    for marks in (("LEAK", "FAIL", "SUSPECT"), ("error",)):
        for line in lines:
            if any(line.startswith(m) or f": {m}" in line for m in marks):
                return line
    return lines[-1] if lines else ""


def _persons(db: Path, cfg: Path) -> str:
    """The number of persons the configuration's person column counts (apply's own count when it
    prints one is preferred)."""
    try:
        source = tomllib.loads(cfg.read_text(encoding="utf-8"))["source"]
        con = duckdb.connect(str(db), read_only=True)
        try:
            relations = ", ".join(f'"{r}"' for r in source["relations"])
            joined = f"SELECT * FROM {relations.replace(', ', ' NATURAL JOIN ')}"
            return str(con.execute(f'SELECT count(DISTINCT "{source["person"]}") FROM ({joined})').fetchone()[0])
        finally:
            con.close()
    except Exception as e:  # (a configuration init did not write, a relation missing: said in the logs)
        return f"? ({type(e).__name__})"


def run_one(name: str, spec: dict, data_dir: Path, workdir: Path) -> dict | None:
    files = [data_dir / f for f in spec["files"]]
    missing = [str(f) for f in files if not f.exists()]
    if missing:
        print(f"{name}: {', '.join(missing)} not found, skipped", file=sys.stderr)
        return None
    here = workdir / name
    shutil.rmtree(here, ignore_errors=True)
    here.mkdir(parents=True)
    db, cfg, out = here / "data.duckdb", here / "cfg.toml", here / "out.parquet"
    steps = [(f"load{i}", ["load", str(db), str(f)]) for i, f in enumerate(files, 1)]
    steps += [("init", ["init", str(db), "--out", str(cfg)]),
              ("apply", ["apply", str(db), "--config", str(cfg), "--k", str(K)]),
              ("verify", ["verify", str(db), "--strict"]),
              ("export", ["export", str(db), str(out)])]
    result = {"name": name, "rows": "", "persons": "", "released": "", "repairs": "", "kept": "", "suspects": "",
              "seconds": 0.0, "steps": {}}
    failed = None
    for step, args in steps:
        rc, stdout, stderr, seconds = _cli(args, here, here / f"{step}.log")
        result["seconds"] += seconds
        result["steps"][step] = rc
        if step == "apply":
            m = re.search(r"^(\d+) rows, (\d+) persons ->", stdout, re.M)
            if m:
                result["rows"], result["persons"] = m.group(1), m.group(2)
            repairs = [l.strip() for l in (stdout + stderr).splitlines() if "repair" in l.lower()]
            result["repairs"] = "; ".join(repairs)
        if step == "verify":
            m = re.search(r"residual audit: (\d+) suspect strings .*? in the released texts of (\d+) person", stdout)
            if m:
                result["suspects"] = f"{m.group(1)} / {m.group(2)}"
        if rc and failed is None:
            failed = f"{step}: {_why(stdout, stderr)}"
        if step.startswith("load") and rc:
            break                   # (nothing to configure)
    if not result["rows"] and db.exists():
        con = duckdb.connect(str(db), read_only=True)
        tables = [t for (t,) in con.execute("SELECT table_name FROM information_schema.tables "
                                            "WHERE table_schema = 'main'").fetchall()]
        result["rows"] = " + ".join(str(con.execute(f'SELECT count(*) FROM "{t}"').fetchone()[0]) for t in tables)
        con.close()
        if cfg.exists():
            result["persons"] = _persons(db, cfg)
    if db.exists() and result["steps"].get("apply") == 0:
        con = duckdb.connect(str(db), read_only=True)
        try:
            result["kept"] = f"{con.execute(WORDS_KEPT).fetchone()[0]:.3f}"
        except duckdb.Error as e:
            result["kept"] = f"? ({str(e).splitlines()[0][:60]})"
        con.close()
    released = failed is None and out.exists()
    result["released"] = "yes" if released else f"no ({failed})"
    return result


def run(args) -> None:
    results = []
    for name in args.sets:
        r = run_one(name, DATASETS[name], args.data_dir, args.workdir)
        if r is None:
            continue
        results.append(r)
        print(f"{name}: {r['released']} in {r['seconds']:.0f} s (steps {r['steps']})", file=sys.stderr, flush=True)
    print(f"k = {K}; one run each; logs in {args.workdir}/NAME/\n")
    print("| data | rows | persons | released | repairs | words kept | suspects (strings / persons) | time s |")
    print("| --- | ---: | ---: | --- | --- | ---: | ---: | ---: |")
    for r in results:
        why = r["released"].replace("|", "\\|")
        print(f"| {r['name']} | {r['rows']} | {r['persons']} | {why} | {r['repairs']} | {r['kept']} | "
              f"{r['suspects']} | {r['seconds']:.0f} |")


# --- shapes: the smallest generated inputs that fail as the data sets above did -------------------

_NAMES = ["Bak1139", "Quorvex", "Zandril", "Miltoq", "Pravena", "Tesk77", "Yorbin", "Caldro", "Nuvim", "Oskarel"]
_PLAIN = "I agree with the answer above, thanks for the sources."


def _jsonl(path: Path, rows: list[dict]) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


def _write_shapes(d: Path) -> dict[str, dict]:
    """Each failure of the data sets, rebuilt from its shape with made-up values (10 rows or fewer)."""
    d.mkdir(parents=True, exist_ok=True)
    with open(d / "hotel_reviews.csv", "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)      # hotel-london: one hotel, whose name holds a place the reviews mention
        w.writerow(["Hotel_Name", "Reviewer_Score", "Positive_Review"])
        for i in range(10):
            w.writerow(["Britannia International Hotel Canary Wharf", 7 + i % 2,
                        "Great location near Canary Wharf, the staff were friendly." if i < 6 else
                        "The room was clean and the staff were friendly."])
    with open(d / "bios.csv", "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)      # bios: a name and a text, no other column
        w.writerow(["name", "text"])
        for n in ["Ann Berg", "Bo Lind", "Cy Moss", "Di Holt", "Ed Voss", "Flo Kerr"]:
            w.writerow([n, f"{n.lower()} is an american painter born in 1950 who lives in new york"])
    # tickets: a date held as text, empty ('') where there is none
    _jsonl(d / "tickets.jsonl", [{"Ticket ID": str(i), "Customer Gender": "Male" if i % 2 else "Female",
                                  "First Response Time": "" if i < 3 else "2023-06-01 12:15:36",
                                  "Ticket Description": "My printer stopped working after the update, please help."}
                                 for i in range(1, 11)])
    # forum: two users' names in one URL's path, joined by hyphens (Stack Exchange's chat rooms)
    _jsonl(d / "users.jsonl", [{"user_id": i, "display_name": n, "location": ["Ohio", "Texas"][i % 2]}
                               for i, n in enumerate(_NAMES, 1)])
    _jsonl(d / "comments.jsonl", [{"comment_id": i, "user_id": i, "text": _PLAIN if i != 2 else
                                   "Let us continue this in chat http://chat.example.com/rooms/16298/"
                                   "discussion-between-quorvex-and-bak1139 please."} for i in range(1, 11)])
    # forum: a quasi-identifier's value that holds a direct identifier's value
    _jsonl(d / "profiles.jsonl", [{"user_id": i, "display_name": n,
                                   "location": "/home/bak1139" if i == 1 else ["Ohio", "Texas"][i % 2], "text": _PLAIN}
                                  for i, n in enumerate(_NAMES, 1)])
    return {"shape-hotel-name-place": {"files": ["hotel_reviews.csv"]},
            "shape-no-quasi-identifier": {"files": ["bios.csv"]},
            "shape-empty-date-text": {"files": ["tickets.jsonl"]},
            "shape-names-in-url": {"files": ["users.jsonl", "comments.jsonl"]},
            "shape-name-in-qi-value": {"files": ["profiles.jsonl"]}}


def shapes(args) -> None:
    d = args.workdir / "shapes-input"
    specs = _write_shapes(d)
    print("| shape | released |")
    print("| --- | --- |")
    for name, spec in specs.items():
        r = run_one(name, spec, d, args.workdir)
        print(f"| {name} | {r['released'].replace('|', '/')} |", flush=True)


# --- prepare: the data sets from their sources' raw files ----------------------------------------

def _blogs(raw: Path, out: Path, whole: bool = False) -> None:
    seen = set()
    dev = SHARED / "blogs" / "blog_dev_300.csv.gz"
    if dev.exists():
        with gzip.open(dev, "rt", encoding="utf-8") as f:
            seen = {r["id"] for r in csv.DictReader(f)}
    files = sorted(p for p in (raw / "blogs").glob("*.xml") if p.name.split(".")[0] not in seen)
    if whole:
        random.Random(7).shuffle(files)
        chosen, posts, size = [], 0, 0
        for p in files:
            n = len(re.findall(r"<post>", p.read_bytes().decode("latin-1")))
            if posts + n <= 1500 and size + p.stat().st_size <= 4e6:
                chosen.append(p)
                posts, size = posts + n, size + p.stat().st_size
        files = sorted(chosen)
    with gzip.open(out, "wt", encoding="utf-8", newline="") as f:
        w = csv.writer(f)
        w.writerow(["id", "gender", "age", "topic", "sign", "date", "text"])
        for p in files:
            blogger, gender, age, topic, sign = p.name.split(".")[:5]
            body = p.read_bytes().decode("latin-1")
            posts = re.findall(r"<date>(.*?)</date>\s*<post>(.*?)</post>", body, re.S)
            for date, text in (posts if whole else posts[:5]):
                text = " ".join(text.split())
                if text:
                    w.writerow([blogger, gender, age, topic, sign, date.strip(), text])


def _hotel(raw: Path, out: Path) -> None:
    con = duckdb.connect()
    con.execute("CREATE TABLE a AS SELECT row_number() OVER () AS n, * FROM read_csv(?, header=true, all_varchar=true)",
                [str(raw / "benitomartin_hotel_reviews_test.csv")])
    seen = SHARED / "hotel" / "hotel_reviews_499.csv"
    where = ""
    if seen.exists():
        con.execute("CREATE TABLE b AS SELECT * FROM read_csv(?, header=true, all_varchar=true)", [str(seen)])
        where = "WHERE (Negative_Review, Positive_Review) NOT IN (SELECT (Negative_Review, Positive_Review) FROM b)"
    con.execute(f"COPY (SELECT * EXCLUDE (n) FROM a {where} ORDER BY n) TO '{out}' (HEADER, DELIMITER ',')")


def _hotel_london(raw: Path, out: Path) -> None:
    con = duckdb.connect()
    con.execute("SELECT setseed(0.6)")
    con.execute("CREATE TABLE a AS SELECT row_number() OVER () AS n, random() AS r, * "
                "FROM read_csv(?, header=true, all_varchar=true)", [str(raw / "juliabarrufet_Hotel_Reviews.csv")])
    con.execute(f"COPY (SELECT * EXCLUDE (n, r) FROM (SELECT * FROM a ORDER BY r LIMIT 1000) ORDER BY n) "
                f"TO '{out}' (HEADER, DELIMITER ',')")


def _bios(raw: Path, out: Path) -> None:
    duckdb.connect().execute(f"COPY (SELECT * FROM read_csv('{raw / 'people_wiki.csv'}', header=true)) "
                             f"TO '{out}' (FORMAT parquet)")


def _tickets(raw: Path, out: Path) -> None:
    with open(raw / "customer_support_tickets.csv", encoding="utf-8", newline="") as f, open(out, "w") as o:
        for i, row in enumerate(csv.DictReader(f)):
            if i == 1000:
                break
            o.write(json.dumps(row, ensure_ascii=False) + "\n")


def _clinical(raw: Path, out: Path) -> None:
    notes = []
    for p in sorted((raw / "syngp500" / "notes").glob("*.txt")):
        code, number, condition = p.stem.split("_", 2)
        notes.append({"note_id": int(number), "snomed_code": code, "condition": condition.replace("_", " ").strip(),
                      "note": p.read_text(encoding="utf-8")})
    out.write_text(json.dumps(sorted(notes, key=lambda n: n["note_id"]), ensure_ascii=False, indent=1),
                   encoding="utf-8")


def _forum(raw: Path, users_out: Path, comments_out: Path) -> None:
    import xml.etree.ElementTree as ET
    comments: dict[str, list[dict]] = {}
    for row in ET.parse(raw / "history_se_Comments.xml").getroot():
        a = row.attrib
        if "UserId" in a:
            comments.setdefault(a["UserId"], []).append(a)
    users = {row.attrib["Id"]: row.attrib for row in ET.parse(raw / "history_se_Users.xml").getroot()}
    chosen = sorted(u for u in comments if u in users and int(u) > 0)
    random.Random(6).shuffle(chosen)
    chosen = sorted(chosen[:300], key=int)
    con = duckdb.connect()
    con.execute("CREATE TABLE u (user_id BIGINT, display_name VARCHAR, location VARCHAR, reputation INTEGER, "
                "member_since TIMESTAMP, about_me VARCHAR)")
    con.executemany("INSERT INTO u VALUES (?, ?, ?, ?, ?, ?)",
                    [(int(u), users[u].get("DisplayName"), users[u].get("Location"), int(users[u]["Reputation"]),
                      users[u]["CreationDate"], users[u].get("AboutMe")) for u in chosen])
    con.execute(f"COPY u TO '{users_out}' (FORMAT parquet)")
    with open(comments_out, "w", encoding="utf-8") as o:
        for u in chosen:
            for a in comments[u][:5]:
                o.write(json.dumps({"comment_id": int(a["Id"]), "post_id": int(a["PostId"]), "user_id": int(u),
                                    "score": int(a["Score"]), "posted": a["CreationDate"],
                                    "text": html.unescape(a["Text"])}, ensure_ascii=False) + "\n")


def prepare(args) -> None:
    raw, d = args.raw, args.data_dir
    for sub in ("hotel", "blogs", "bios", "tickets", "clinical", "forum"):
        (d / sub).mkdir(parents=True, exist_ok=True)
    _hotel(raw, d / DATASETS["hotel"]["files"][0])
    _hotel_london(raw, d / DATASETS["hotel-london"]["files"][0])
    _blogs(raw, d / DATASETS["blogs"]["files"][0])
    _blogs(raw, d / DATASETS["blogs-whole"]["files"][0], whole=True)
    _bios(raw, d / DATASETS["bios"]["files"][0])
    _tickets(raw, d / DATASETS["tickets"]["files"][0])
    _clinical(raw, d / DATASETS["clinical"]["files"][0])
    _forum(raw, *(d / f for f in DATASETS["forum"]["files"]))
    for name, spec in DATASETS.items():
        print(name, ", ".join(f"{f} ({(d / f).stat().st_size / 1e6:.1f} MB)" for f in spec["files"]))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("command", nargs="?", default="run", choices=("run", "prepare", "shapes"))
    ap.add_argument("--data-dir", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--sets", type=lambda s: s.split(","), default=list(DATASETS))
    ap.add_argument("--workdir", type=Path, default=Path("/tmp/rxanon-unseen"))
    ap.add_argument("--raw", type=Path, help="prepare: the sources' raw files (see DATASETS)")
    args = ap.parse_args()
    if args.command == "prepare":
        if args.raw is None:
            ap.error("prepare needs --raw")
        prepare(args)
    elif args.command == "shapes":
        shapes(args)
    else:
        run(args)


if __name__ == "__main__":
    main()
