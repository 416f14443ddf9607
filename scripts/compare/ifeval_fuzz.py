"""Fuzz check of the tokenizer-heavy IFEval counts: sentences (NLTK Punkt),
all-capital words (NLTK word_tokenize), words (\\w+) and keyword regex matches.

Writes random texts built from tricky fragments (abbreviations, initials,
quotes, contractions, ellipses, Unicode) as `ifeval` rows whose thresholds are
the reference's exact counts ("at least c" and "less than c + 1"), so cascade
passes a row only if it counts exactly as the reference does.

Usage: ifeval_fuzz.py write N SEED OUT.jsonl   (needs nltk + lm-eval, see ifeval_reference.sh)
       ifeval_fuzz.py check ROWS.jsonl OURS.jsonl
"""

import json
import random
import re
import sys

WORDS = ["the", "cat", "Smith", "went", "home", "IT", "WAS", "LATE", "apple", "Paris", "she", "He",
         "However", "they", "data", "model", "OK", "NASA", "café", "naïve", "ΣΟΦΙΑ", "привет", "München"]
ABBREV = ["Dr.", "Mr.", "Mrs.", "e.g.", "i.e.", "U.S.", "p.m.", "a.m.", "etc.", "Inc.", "vs.", "No.",
          "Jan.", "St.", "Prof.", "Co.", "Ltd.", "U.S.A.", "Ph.D."]
NUMBERS = ["3.5", "12", "1,000", "4.", "2020", "-7", "0.25%", "1st"]
PUNCT = [".", "!", "?", "...", "!!", "?!", ",", ";", ":", "--", "-", "…", ". . ."]
QUOTES = ['"', "'", "“", "”", "‘", "’", "«", "»", "(", ")", "[", "]", "{", "}", "`", "``", "''"]
CONTRACTIONS = ["can't", "DON'T", "it's", "'s", "wanna", "gonna", "cannot", "'tis", "I'm", "WE'LL", "won't", "o'clock"]
INITIALS = ["J.", "A.", "K.", "x."]
MARKDOWN = ["*", "**", "#", "- ", "* ", "***", "<<", ">>"]
SEPS = [" "] * 12 + ["", "  ", "\n", "\n\n", "\t", "\u00a0", " \n "]

POOLS = [(WORDS, 30), (ABBREV, 8), (NUMBERS, 5), (PUNCT, 12), (QUOTES, 8), (CONTRACTIONS, 6),
         (INITIALS, 3), (MARKDOWN, 3)]

PATTERNS = [r"\bthe\b", r"\w+'\w+", r"[A-Z]{2,}", r"\s\s", r"e\.g\.", r"[^\w\s]", r"caf\w", r"\d+"]


def text(rng):
    parts = []
    for _ in range(rng.randint(3, 40)):
        pool = rng.choices([p for p, _ in POOLS], weights=[w for _, w in POOLS])[0]
        parts.append(rng.choice(pool))
        parts.append(rng.choice(SEPS))
    t = "".join(parts)
    return t if t.strip() else "x"


def write(n, seed, out):
    from lm_eval.tasks.ifeval import instructions_util as u  # noqa: registered by the caller
    import nltk

    rng = random.Random(seed)
    with open(out, "w", encoding="utf-8") as f:
        for i in range(n):
            t = text(rng)
            sentences = u.count_sentences(t)
            capitals = sum(1 for w in nltk.word_tokenize(t) if w.isupper())
            words = u.count_words(t)
            pattern = rng.choice(PATTERNS)
            matches = len(re.findall(pattern, t, flags=re.IGNORECASE))
            ids, kwargs = [], []
            for iid, key, rel_key, count, extra in (
                ("length_constraints:number_sentences", "num_sentences", "relation", sentences, {}),
                ("change_case:capital_word_frequency", "capital_frequency", "capital_relation", capitals, {}),
                ("length_constraints:number_words", "num_words", "relation", words, {}),
                ("keywords:frequency", "frequency", "relation", matches, {"keyword": pattern}),
            ):
                # 0 would be redrawn at random by the reference; cascade keeps it.
                ids += [iid, iid]
                kwargs += [dict(extra, **{key: count, rel_key: "at least"}),
                           dict(extra, **{key: count + 1, rel_key: "less than"})]
            row = {"id": f"f{i:05d}", "prompt": "", "instruction_id_list": ids, "kwargs": kwargs,
                   "response": t, "counts": [sentences, capitals, words, matches]}
            f.write(json.dumps(row, ensure_ascii=False) + "\n")


def check(rows_path, ours_path):
    rows = {r["id"]: r for r in map(json.loads, open(rows_path, encoding="utf-8"))}
    names = ["sentences", "capital words", "words", "keyword matches"]
    bad = {n: 0 for n in names}
    examples = []
    for line in open(ours_path, encoding="utf-8"):
        r = json.loads(line)
        strict = r["details"].get("strict") or [False] * 8
        for k, name in enumerate(names):
            if not (strict[2 * k] and strict[2 * k + 1]):
                bad[name] += 1
                if len(examples) < 15:
                    row = rows[r["id"]]
                    examples.append({"id": r["id"], "count": name, "reference": row["counts"][k],
                                     "text": row["response"]})
    n = len(rows)
    print(f"fuzz: {n} random texts")
    for name in names:
        print(f"  {name:16} {100 * (n - bad[name]) / n:6.2f}% exact ({bad[name]} differ)")
    for e in examples:
        print(json.dumps(e, ensure_ascii=False))


if __name__ == "__main__":
    if sys.argv[1] == "write":
        sys.path.insert(0, __import__("os").path.dirname(__file__))
        from ifeval_reference import load_reference

        load_reference()
        write(int(sys.argv[2]), int(sys.argv[3]), sys.argv[4])
    else:
        check(sys.argv[2], sys.argv[3])
