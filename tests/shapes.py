"""Seeded files in the shape of real data the tool was not tuned on, for the tests (test_unseen_shapes.py).

`hotel_reviews`: the 17 columns of the public "515K Hotel Reviews Data in Europe", one review per
hotel, so that every hotel name and address is a direct identifier of one person. The names share
landmark words ("Hotel du Louvre", "Louvre Opera Suites"), which the reviews of other hotels
write too ("a short walk to the Louvre"); the addresses hold postcodes of four digits, which the
numeric columns (review counts) may equal.

`blog_posts`: the columns of the Blog Authorship Corpus (id, gender, age, topic, sign, date,
text), with what its real files hold beside plain English: UTF-8 decoded as cp1252 ("Iâ€™m"),
Shift-JIS decoded as Latin-1 (letters with C1 controls between them), phrases many bloggers
write ("about 15 minutes"), rare words spelt out as "name dot name at gmx dot de", chat handles.
"""
from __future__ import annotations

import csv
import random
from pathlib import Path

LANDMARKS = {
    "Paris": ("Louvre", "Eiffel", "Gare du Nord", "Bastille", "Parc Monceau", "Montmartre", "Opera", "Marais"),
    "London": ("Hyde Park", "Covent Garden", "Kensington", "Paddington", "Westminster", "Tower Bridge"),
    "Amsterdam": ("Vondelpark", "Dam Square", "Rembrandtplein", "Jordaan", "Leidseplein"),
    "Vienna": ("Stephansdom", "Belvedere", "Prater", "Naschmarkt", "Hofburg"),
    "Barcelona": ("Sagrada Familia", "Ramblas", "Barceloneta", "Eixample", "Park Guell"),
    "Milan": ("Duomo", "Navigli", "Brera", "Sforzesco", "Porta Romana"),
}
COUNTRIES = {"Paris": "France", "London": "United Kingdom", "Amsterdam": "Netherlands", "Vienna": "Austria",
             "Barcelona": "Spain", "Milan": "Italy"}
STREETS = ("Rue de Rivoli", "Rue Saint Honore", "Boulevard Haussmann", "Park Lane", "Sussex Gardens",
           "Damrak", "Prinsengracht", "Karntner Strasse", "Ringstrasse", "Carrer de Balmes", "Gran Via",
           "Via Torino", "Corso Buenos Aires", "Avenue de l Opera", "Oxford Street", "Keizersgracht")
BRANDS = ("Hotel", "Grand Hotel", "Best Western", "Mercure", "Ibis", "Novotel", "Holiday Inn", "Residence",
          "Le Petit", "Royal", "Park Plaza", "NH", "Radisson Blu", "Citadines", "Pullman", "Hilton")
INVENTED = ("Speria", "Marsollier", "Batty Langley's", "Ambassade", "Vendome", "Albion", "Excelsior", "Artus",
            "Ducs", "Verneuil", "Lenox", "Bedford", "Clarendon", "Amstelzicht", "Sacher", "Kaiserhof", "Cram",
            "Majestic", "Gallia", "Principe")
NATIONALITIES = ("United Kingdom", "United States of America", "Australia", "Ireland", "Germany", "Canada",
                 "Netherlands", "France", "Israel", "Switzerland", "Italy", "Belgium", "Spain", "India")
STAFF = ("Maria", "Jean", "Ahmed", "Sofia", "Luca", "Pieter", "Olga", "Tomasz", "Fatima", "Kenji")
POSITIVE = ("the staff were friendly and helpful", "great location {walk} to the {landmark}",
            "breakfast was excellent with lots of choice", "the room was clean and quiet",
            "{staff} at reception was very helpful", "lovely view of the {landmark} from our room",
            "we loved {hotel} and will come back", "about 15 minutes walk to {landmark}",
            "the bed was very comfortable", "close to the metro and the {landmark}")
NEGATIVE = ("the room was small", "wifi did not work well", "breakfast was expensive",
            "noisy at night because of the street", "the shower was cold", "nothing",
            "our room {number} was not ready at check in", "no air conditioning in the room",
            "the lift at {hotel} was broken", "Nothing to complain about")
TAGS = ("Leisure trip", "Business trip", "Couple", "Solo traveler", "Family with young children",
        "Group", "Double Room", "Standard Twin Room", "Stayed 1 night", "Stayed 2 nights", "Stayed 3 nights",
        "Submitted from a mobile device")
HOTEL_COLUMNS = ("Hotel_Address", "Additional_Number_of_Scoring", "Review_Date", "Average_Score", "Hotel_Name",
                 "Reviewer_Nationality", "Negative_Review", "Review_Total_Negative_Word_Counts",
                 "Total_Number_of_Reviews", "Positive_Review", "Review_Total_Positive_Word_Counts",
                 "Total_Number_of_Reviews_Reviewer_Has_Given", "Reviewer_Score", "Tags", "days_since_review",
                 "lat", "lng")


def _postcode(city: str, rng: random.Random) -> str:
    if city == "Paris":
        return f"750{rng.randint(1, 20):02d}"
    if city == "London":
        return f"W{rng.randint(1, 12)} {rng.randint(1, 9)}{rng.choice('ABDEFGHJ')}{rng.choice('LNPQRSTU')}"
    if city == "Amsterdam":
        return f"10{rng.randint(11, 99)} {rng.choice('ABCDEHJKLMNPRST')}{rng.choice('ABCDEHJKLMNPRST')}"
    if city == "Barcelona":
        return f"080{rng.randint(1, 42):02d}"
    return f"{rng.randint(1010, 1230) if city == 'Vienna' else rng.randint(20121, 20162)}"


def _hotel_names(n: int, rng: random.Random) -> list[tuple[str, str]]:
    """n distinct (name, city), many sharing a landmark word."""
    names: dict[str, str] = {}
    while len(names) < n:
        city = rng.choice(tuple(LANDMARKS))
        landmark = rng.choice(LANDMARKS[city])
        shape = rng.random()
        if shape < 0.45:
            name = f"{rng.choice(BRANDS)} {landmark}"
        elif shape < 0.75:
            name = f"{rng.choice(BRANDS)} {rng.choice(INVENTED)} {landmark}"
        elif shape < 0.9:
            name = f"{rng.choice(INVENTED)} {rng.choice(('Suites', 'Inn', 'Apartments', 'Palace'))}"
        else:
            name = f"Hotel du {landmark}"
        if name in names:
            name = f"{name} {rng.choice(('Opera', 'Centre', 'City', 'Residence', 'Boutique'))} {len(names)}"
        names[name] = city
    return list(names.items())


def hotel_reviews(path: str | Path, n: int = 1000, seed: int = 0) -> Path:
    """Write n hotel reviews (one per hotel) to a CSV at `path`."""
    rng = random.Random(seed)
    path = Path(path)
    with path.open("w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(HOTEL_COLUMNS)
        for name, city in _hotel_names(n, rng):
            landmark = rng.choice(LANDMARKS[city])
            fill = dict(landmark=landmark, hotel=name, staff=rng.choice(STAFF), number=rng.randint(100, 1299),
                        walk=rng.choice(("a short walk", "5 minutes", "close")))
            pos = " ".join(rng.choice(POSITIVE).format(**fill) for _ in range(rng.randint(1, 4)))
            neg = " ".join(rng.choice(NEGATIVE).format(**fill) for _ in range(rng.randint(1, 3)))
            reviews = rng.randint(80, 9000)
            w.writerow((f"{rng.randint(1, 120)} {rng.choice(STREETS)} {_postcode(city, rng)} {city} {COUNTRIES[city]}",
                        rng.randint(10, 1200), f"{rng.randint(1, 12)}/{rng.randint(1, 28)}/{rng.randint(15, 17)}",
                        round(rng.uniform(6.5, 9.6), 1), name, f" {rng.choice(NATIONALITIES)} ", f" {neg} ",
                        len(neg.split()), reviews, f" {pos} ", len(pos.split()), rng.randint(1, 40),
                        round(rng.uniform(3, 10), 1), str([f" {t} " for t in rng.sample(TAGS, 3)]),
                        f"{rng.randint(0, 730)} days", round(rng.uniform(41, 52.5), 7), round(rng.uniform(-0.2, 16.4), 7)))
    return path


# Text as the corpus' files hold it: UTF-8 (or Shift-JIS) bytes decoded with the wrong code page.
def _mojibake(text: str, encoding: str, as_: str) -> str:
    return text.encode(encoding).decode(as_, errors="replace")


BLOG_SENTENCES = (
    "I went to the store today and it took about 15 minutes to get there.",
    "I’m so tired of school, my teacher Mr. {name} gave us more homework.",
    "We watched a movie with {name} last night, it was kinda boring haha.",
    "Today I love the café in {city}, it’s so nice.",
    "My friend {name} said I should write more often.",
    "I can’t believe it’s already {month}, time flies.",
    "Hope you all have a great weekend, I will post again soon.",
    "Work was long today, I need a vacation in {city}.",
)
JAPANESE = ("今日は学校に行きました", "友達と映画を見ました", "東京はとても暑いです")
HANDLES = ("necromononoke", "finalsaturnian07", "xXdarkangelXx", "sk8erboi99")
MONTH_NAMES = ("January", "March", "May", "July", "September", "November")
CITIES = ("Chicago", "Boston", "Toronto", "Sydney", "London", "Dallas")
FIRST = ("Ashley", "Brandon", "Kayla", "Tyler", "Megan", "Justin", "Olaf", "Priya")
SIGNS = ("Aries", "Taurus", "Gemini", "Cancer", "Leo", "Virgo", "Libra", "Scorpio", "Sagittarius",
         "Capricorn", "Aquarius", "Pisces")
TOPICS = ("indUnk", "Student", "Technology", "Arts", "Education", "Internet")


def blog_posts(path: str | Path, bloggers: int = 60, posts: int = 4, seed: int = 0) -> Path:
    """Write the posts of `bloggers` bloggers to a CSV at `path` (one row per post)."""
    rng = random.Random(seed)
    path = Path(path)
    with path.open("w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(("id", "gender", "age", "topic", "sign", "date", "text"))
        for b in range(bloggers):
            who = (str(1000000 + b), rng.choice(("male", "female")), rng.choice((15, 16, 17, 23, 24, 25, 33, 34)),
                   rng.choice(TOPICS), rng.choice(SIGNS))
            for _ in range(posts):
                text = " ".join(rng.choice(BLOG_SENTENCES).format(name=rng.choice(FIRST), city=rng.choice(CITIES),
                                                                 month=rng.choice(MONTH_NAMES))
                                for _ in range(rng.randint(2, 5)))
                roll = rng.random()
                if roll < 0.2:
                    text = _mojibake(text, "utf-8", "cp1252")
                elif roll < 0.3:
                    text = _mojibake(text, "utf-8", "latin-1")
                elif roll < 0.45:
                    text += " " + _mojibake(rng.choice(JAPANESE), "shift_jis", "latin-1")
                elif roll < 0.55:
                    text += f" my handle is {rng.choice(HANDLES)}"
                elif roll < 0.6:
                    first = rng.choice(FIRST).lower()
                    text += f" mail me at {first} dot brekke{b % 7} at gmx dot de"
                w.writerow((*who, f"{rng.randint(1, 28)},{rng.choice(MONTH_NAMES)},{rng.choice((2003, 2004))}", text))
    return path
