"""A French example (`rxanon-sql demo --lang fr`): eight patients and their consultation notes,
with names, visit dates written out, ages in digits and in words, and phone numbers, as a new
user's notes would hold them. Run with the French pipeline (`pip install "rxanon-sql[fr]"`)."""
from __future__ import annotations

import duckdb

from .demo import write_example

PATIENTS = [
    (1, "F", 38, "Nantes"),
    (2, "M", 29, "Toulouse"),
    (3, "F", 45, "Lyon"),
    (4, "M", 52, "Lyon"),
    (5, "F", 67, "Bordeaux"),
    (6, "M", 71, "Bordeaux"),
    (7, "F", 33, "Toulouse"),
    (8, "M", 41, "Nantes"),
]
NOTES = [
    (1, 1, "2021-07-08", "Camille Vasseur habite à Nantes. Vu en consultation le 8 juillet 2021."),
    (2, 1, "2021-07-20", "Camille a 38 ans et travaille à l'usine. Joignable au 06 12 34 56 78."),
    (3, 2, "2021-03-15", "Julien Fontaine, âgé de 29 ans, consulte le 15 mars 2021 pour une douleur au genou."),
    (4, 2, "2021-03-29", "Mme/M. Fontaine rappellera le secrétariat au 01 45 67 89 10."),
    (5, 3, "2021-06-03", "Nathalie Lemaire, quarante-cinq ans, revue le 3 juin pour son traitement."),
    (6, 3, "2021-06-17", "Nathalie Lemaire signale une amélioration depuis le 03/06/2021."),
    (7, 4, "2021-02-01", "Patrick Garnier (52 ans) vu en février 2021 pour une toux persistante."),
    (8, 5, "2021-09-12", "Monique Chevallier, soixante-sept ans, hospitalisée le 12 septembre 2021."),
    (9, 5, "2021-09-20", "Mme Chevallier sortira dès que possible ; sa fille Sophie est prévenue au 07 98 76 54 32."),
    (10, 6, "2021-11-05", "Bernard Rousseau a 71 ans. Consultation du 5 novembre 2021, tension stable."),
    (11, 7, "2021-04-22", "Élodie Marchand, 33 ans, vue le 22 avril 2021 ; prochain rendez-vous en mai."),
    (12, 8, "2021-10-14", "Thomas Girard, âgé de quarante et un ans, consulte le 14 octobre 2021."),
    (13, 8, "2021-10-28", "Thomas revient le 28 octobre ; joindre M. Girard au 06 55 44 33 22."),
]

CONFIG = """\
# Eight patients and their consultation notes, in French.
[source]
relations = ["patients", "notes"]
person = "id"
insensitive = ["note_id"]

[attributes.sexe]
type = "nominal"

[attributes.age]
type = "numeric"

[attributes.ville]
type = "nominal"

[attributes.date_visite]
type = "date"

[text]
columns = ["texte"]
pipeline = "fr_core_news_sm"
phone_regions = ["FR"]

[anonymization]
k = 2
lambda = 0.5
"""


def write_demo_database(con: duckdb.DuckDBPyConnection) -> None:
    """The two relations, in schema main (refused over tables of those names that are not the
    example's: demo.write_example)."""
    write_example(con, _write, ("patients", "notes"))


def _write(con: duckdb.DuckDBPyConnection) -> None:
    con.execute("CREATE OR REPLACE TABLE patients (id INTEGER, sexe VARCHAR, age INTEGER, ville VARCHAR)")
    con.execute("CREATE OR REPLACE TABLE notes (note_id INTEGER, id INTEGER, date_visite DATE, texte VARCHAR)")
    con.executemany("INSERT INTO patients VALUES (?, ?, ?, ?)", PATIENTS)
    con.executemany("INSERT INTO notes VALUES (?, ?, ?, ?)", NOTES)
