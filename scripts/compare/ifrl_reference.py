"""Differential test of cascade's `ifeval` env on NeMo Gym `instruction_following`
rows against the Python reference Gym's server imports (the
`verifiable_instructions` package, public repository
abukharin-nv/verifiable-instructions, not on PyPI).

Usage: ifrl_reference.py write N SEED OUT.jsonl VI_CHECKOUT
       ifrl_reference.py check ROWS.jsonl OURS.jsonl VI_CHECKOUT

`write` generates Gym rows (current layout: `verifier_metadata`,
`responses_create_params`) for every id of the registry but the three that call
a language detector: random texts built from tricky fragments, and texts built
to sit on each check's edge (a copy with one change, a count one off, a keyword
one position over). Many rows hold two or three instructions, some with an
unknown id or a bad argument, and a `grading_mode`.

`check` grades each row as Gym's `instruction_following` server does
(`build_description(**kwargs without None)`, `check_following(text)`, any
exception is False, reward by `grading_mode`) and compares per instruction and
per row with cascade's result lines. Instructions whose arguments the reference
would redraw at random (0, "" or [] for an argument it tests with `not x`) are
left out of the per-id figures.
"""

import json
import os
import random
import re
import sys

sys.path.insert(0, os.path.dirname(__file__))
from ifeval_fuzz import text as fuzz_text  # noqa: E402

PHRASES = [
    "Dance like nobody is watching you",
    "The early bird catches the worm",
    "Time flies when having fun",
    "Every cloud has a silver lining",
    "Actions speak louder than words",
    "All that glitters is not gold",
]
WORDS = ["apple", "banana", "cat", "dog", "egg", "fish", "goat", "hat", "ice", "jam", "kite",
         "lamp", "moon", "nest", "owl", "pen", "queen", "rose", "sun", "tree", "Umbrella",
         "Violin", "Whale", "Xray", "Yak", "Zebra", "level", "noon", "a", "I", "radar", "café", "über"]
ENDS = [".", "!", "?", ". ", "...", "", ".\"", "!\"", "?”", "."]
LANGUAGE_IDS = {"language:response_language", "change_case:english_capital", "change_case:english_lowercase"}


def load(vi):
    sys.path.insert(0, vi)
    import logging

    logging.disable(logging.CRITICAL)
    from verifiable_instructions import instructions_registry, instructions_util

    return instructions_registry.INSTRUCTION_DICT, instructions_util


def words(rng, n, pool=WORDS):
    return [rng.choice(pool) for _ in range(n)]


def case(rng, w):
    return rng.choice([w, w.lower(), w.upper(), w.capitalize()])


def sentence(rng, n=None):
    return " ".join(words(rng, n or rng.randint(1, 6))) + rng.choice(ENDS)


def sentences(rng, k):
    return [sentence(rng) for _ in range(k)]


def mutate(rng, t):
    """A small edit: case, outer space, one character, or nothing."""
    choice = rng.randrange(7)
    if choice == 0:
        return t.upper()
    if choice == 1:
        return "  " + t + "\n"
    if choice == 2 and t:
        i = rng.randrange(len(t))
        return t[:i] + t[i + 1:]
    if choice == 3:
        return t + " Sure."
    return t


def near(rng, count):
    return max(1, count + rng.choice([-1, 0, 0, 1]))


def gen_copy(rng, iid, u):
    p = rng.choice([fuzz_text(rng), sentence(rng), " ".join(sentences(rng, 3))])
    if iid == "copy:copying_multiple":
        n = rng.randint(2, 3)
        k = rng.choice([n, n, n - 1, n + 1])
        sep = rng.choice(["******", "\n******\n", " ****** ", "*****"])
        return {"prompt_to_repeat": p, "N": n}, sep.join(mutate(rng, p) if rng.random() < 0.2 else p for _ in range(k))
    if iid == "new:copy_span_idx":
        if len(p) < 4:
            p = p + " tail words here"
        s = rng.randint(1, len(p) - 3)
        e = rng.randint(s + 1, len(p) - 1)
        span = p[s + rng.choice([0, 0, -1, 1]):e + rng.choice([0, 0, 1])]
        return {"prompt_to_repeat": p, "n_start": s, "n_end": e}, mutate(rng, span)
    return {"prompt_to_repeat": p}, mutate(rng, p)


def gen_repeat_phrase(rng, iid, u):
    phrase = rng.choice(PHRASES)
    n = rng.randint(2, 3)
    reps = []
    for _ in range(n + rng.choice([0, 0, 0, -1, 1])):
        w = phrase.split()
        changes = rng.choice([1, 1, 1, 0, 2])
        for j in rng.sample(range(1, len(w) - 1), changes):
            w[j] = rng.choice(WORDS)
        reps.append(" ".join(w))
    sep = rng.choice([". ", "\n", "; ", " and "])
    return {"phrase": phrase, "small_n": n}, sep.join(reps) + rng.choice(["", ".", " " + sentence(rng)])


def gen_keywords(rng, iid, u):
    kw = rng.choice(WORDS[:26])
    k = rng.randint(0, 4)
    parts = sentences(rng, rng.randint(1, 4))
    for _ in range(k):
        parts.insert(rng.randrange(len(parts) + 1), case(rng, kw) + rng.choice([" ", ", ", "s "]))
    t = " ".join(parts)
    count = len(re.findall(kw, t, flags=re.IGNORECASE))
    if iid == "keywords:word_once":
        return {"keyword": rng.choice([kw, " " + kw + " "])}, t
    if iid == "keywords:word_count_different_numbers":
        rel = rng.choice(["at least", "less than"])
        return {"keyword": kw, "frequency": near(rng, count), "relation": rel}, t
    if iid == "keywords:exclude_word_harder":
        return {"keyword": kw, "instruction": "Do not say it."}, t
    kw2 = rng.choice(WORDS[:26])
    t += " " + " ".join(case(rng, kw2) for _ in range(rng.randint(0, 3)))
    return {"keyword1": kw, "keyword2": kw2}, t


def gen_first_last(rng, iid, u):
    w = rng.choice(WORDS[:26])
    ss = []
    for _ in range(rng.randint(1, 4)):
        body = " ".join(words(rng, rng.randint(0, 4)))
        if iid.startswith("first_word"):
            first = case(rng, w) if rng.random() < 0.8 else rng.choice(WORDS)
            ss.append((first + rng.choice(["", ",", ":"]) + " " + body).strip() + rng.choice(ENDS))
        else:
            last = case(rng, w) if rng.random() < 0.8 else rng.choice(WORDS)
            ss.append((body + " " + rng.choice(["", "\"", "*"]) + last).strip() + rng.choice(ENDS + [",", "!!", ")."]))
    t = rng.choice([" ", "\n", "  "]).join(ss)
    key = "first_word" if iid.startswith("first_word") else "last_word"
    value = w if rng.random() < 0.9 or iid != "last_word:last_word_sent" else [w, "other"]
    return {key: value}, t


def gen_format(rng, iid, u):
    ws = words(rng, rng.randint(1, 8))
    if iid == "detectable_format:square_brackets":
        t = " ".join(f"[{w}]" if rng.random() < 0.9 else w for w in ws)
        return {}, rng.choice([t, t + ".", "[" + " ".join(ws) + "]"])
    if iid == "detectable_format:bigram_wrapping":
        pairs = [ws[i:i + 2] for i in range(0, len(ws), 2)]
        t = " ".join(f"<<{' '.join(p)}>>" if rng.random() < 0.85 else " ".join(p) for p in pairs)
        return {}, t
    ss = sentences(rng, rng.randint(1, 4))
    sep = rng.choice(["-", "-", "- ", " -", " "])
    return {}, sep.join(s.strip() for s in ss)


def gen_paragraphs(rng, iid, u):
    ps = [" ".join(sentences(rng, rng.randint(1, 2))) for _ in range(rng.randint(1, 3))]
    if rng.random() < 0.15:
        ps.insert(rng.randrange(len(ps) + 1), "")
    if iid == "paragraphs:paragraphs":
        sep = rng.choice(["\n***\n", " *** ", "***", "\n\n***\n\n", "\n* * *\n"])
    else:
        sep = rng.choice(["\n\n", "\n\n", "\n", "\n\n\n", " \n\n "])
    return {}, sep.join(ps)


def gen_counts(rng, iid, u):
    t = rng.choice([fuzz_text(rng), " ".join(sentences(rng, rng.randint(1, 5)))])
    if iid == "count:lowercase_counting":
        return {"N": near(rng, len(re.findall(r"\b[a-z]+\b", t)))}, t
    if iid == "letters:letter_counting":
        rel = rng.choice(["at least", "less than"])
        return {"N": near(rng, len(re.findall(r"[a-zA-Z]", t))), "relation": rel}, t
    if iid == "letters:letter_counting2":
        letter = rng.choice("aeiostAEZ")
        rel = rng.choice(["at least", "less than"])
        return {"letter": letter, "let_frequency": near(rng, t.lower().count(letter.lower())), "let_relation": rel}, t
    if iid == "count:count_unique":
        ws = words(rng, rng.randint(1, 8))
        return {}, rng.choice([" ".join(ws) + ".", " ".join(dict.fromkeys(ws)), t])
    if iid == "keywords:palindrome":
        ws = [w for w in words(rng, rng.randint(1, 6)) if len(w) > 1 or rng.random() < 0.2]
        return {}, rng.choice([" ".join(ws), t])
    if iid == "keywords:no_adjacent_consecutive":
        return {}, " ".join(words(rng, rng.randint(1, 6)))
    if iid == "keywords:start_end":
        ws = words(rng, rng.randint(1, 6))
        if rng.random() < 0.5:
            ws.append(case(rng, ws[0]))
        return {}, " ".join(ws) + rng.choice(["", "", ".", "!"])
    return {}, t


def gen_composition(rng, iid, u):
    n_sent, n_words = rng.randint(1, 3), rng.randint(2, 4)
    ps = []
    for _ in range(rng.choice([3, 3, 3, 2, 4])):
        ss = [" ".join(words(rng, n_words - 1 + rng.choice([0, 0, 0, 0, 1]), WORDS[:26])) + "." for _ in range(n_sent)]
        ps.append(" ".join(ss))
    sep = rng.choice(["\n***\n", " *** ", "\n\n***\n\n", "***"])
    t = sep.join(ps)
    if rng.random() < 0.1:
        t = "***\n" + t
    return {"n_sent": n_sent, "n_words": n_words}, t


def gen_position(rng, iid, u):
    import nltk

    t = " ".join(sentences(rng, rng.randint(1, 4)))
    ss = u.split_into_sentences(t)
    n = rng.randint(1, len(ss) + 1) if ss else 1
    toks = nltk.word_tokenize(ss[n - 1]) if n <= len(ss) else []
    m = rng.randint(1, len(toks) + 1) if toks else 1
    kw = toks[m - 1] if m <= len(toks) and rng.random() < 0.7 else rng.choice(WORDS)
    return {"keyword": rng.choice([kw, kw, [kw]]), "n": n, "m": m}, t


def gen_punct(rng, iid, u):
    return {}, rng.choice([fuzz_text(rng), " ".join(words(rng, 5)), sentence(rng)])


IFEVAL_KWARGS = {
    "keywords:existence": lambda r: {"keywords": words(r, 2)},
    "keywords:frequency": lambda r: {"keyword": r.choice(WORDS), "frequency": r.randint(1, 3), "relation": r.choice(["at least", "less than"])},
    "keywords:forbidden_words": lambda r: {"forbidden_words": words(r, 2)},
    "keywords:letter_frequency": lambda r: {"letter": r.choice("aeiost"), "let_frequency": r.randint(1, 6), "let_relation": r.choice(["at least", "less than"])},
    "length_constraints:number_sentences": lambda r: {"num_sentences": r.randint(1, 5), "relation": r.choice(["at least", "less than"])},
    "length_constraints:number_paragraphs": lambda r: {"num_paragraphs": r.randint(1, 3)},
    "length_constraints:number_words": lambda r: {"num_words": r.randint(1, 20), "relation": r.choice(["at least", "less than"])},
    "length_constraints:nth_paragraph_first_word": lambda r: {"num_paragraphs": 2, "nth_paragraph": r.randint(1, 2), "first_word": r.choice(WORDS)},
    "detectable_content:number_placeholders": lambda r: {"num_placeholders": r.randint(1, 2)},
    "detectable_content:postscript": lambda r: {"postscript_marker": r.choice(["P.S.", "P.P.S"])},
    "detectable_format:number_bullet_lists": lambda r: {"num_bullets": r.randint(1, 3)},
    "detectable_format:number_highlighted_sections": lambda r: {"num_highlights": r.randint(1, 2)},
    "detectable_format:multiple_sections": lambda r: {"section_spliter": r.choice(["Section", "SECTION"]), "num_sections": r.randint(1, 2)},
    "combination:repeat_prompt": lambda r: {"prompt_to_repeat": sentence(r)},
    "startend:end_checker": lambda r: {"end_phrase": r.choice(["Any other questions?", "The end."])},
    "change_case:capital_word_frequency": lambda r: {"capital_frequency": r.randint(1, 3), "capital_relation": r.choice(["at least", "less than"])},
}

GENERATORS = {
    "copy:copy": gen_copy, "copy:copying_simple": gen_copy, "copy:copying_multiple": gen_copy,
    "new:copy_span_idx": gen_copy, "copy:repeat_phrase": gen_repeat_phrase,
    "keywords:word_once": gen_keywords, "keywords:word_count_different_numbers": gen_keywords,
    "keywords:exclude_word_harder": gen_keywords, "count:count_increment_word": gen_keywords,
    "first_word:first_word_sent": gen_first_last, "first_word:first_word_answer": gen_first_last,
    "last_word:last_word_sent": gen_first_last, "last_word:last_word_answer": gen_first_last,
    "detectable_format:square_brackets": gen_format, "detectable_format:bigram_wrapping": gen_format,
    "detectable_format:sentence_hyphens": gen_format,
    "paragraphs:paragraphs": gen_paragraphs, "paragraphs:paragraphs2": gen_paragraphs,
    "count:lowercase_counting": gen_counts, "letters:letter_counting": gen_counts,
    "letters:letter_counting2": gen_counts, "count:count_unique": gen_counts,
    "keywords:palindrome": gen_counts, "keywords:no_adjacent_consecutive": gen_counts,
    "keywords:start_end": gen_counts, "count:counting_composition": gen_composition,
    "keywords:keyword_specific_position": gen_position,
    "punctuation:punctuation_dot": gen_punct, "punctuation:punctuation_exclamation": gen_punct,
}


def instruction(rng, iid, u):
    if iid in GENERATORS:
        return GENERATORS[iid](rng, iid, u)
    kw = IFEVAL_KWARGS.get(iid, lambda r: {})(rng)
    return kw, rng.choice([fuzz_text(rng), " ".join(sentences(rng, 3)), "\n\n".join(sentences(rng, 2))])


def rows(n, seed, vi):
    """N generated Gym rows (with `response`), seeded."""
    registry, u = load(vi)
    ids = sorted(i for i in registry if i not in LANGUAGE_IDS)
    missing = sorted(set(GENERATORS) - set(registry))
    if missing:
        sys.exit(f"generators for ids the reference lacks: {missing}")
    rng = random.Random(seed)
    out = []
    for i in range(n):
        first = ids[i % len(ids)]
        kwargs, response = instruction(rng, first, u)
        iids, kws = [first], [kwargs]
        for _ in range(rng.choice([0, 0, 1, 2])):
            extra = rng.choice(ids)
            iids.append(extra)
            kws.append(instruction(rng, extra, u)[0])
        if rng.random() < 0.03:
            iids.append(rng.choice(["punctuation:no_semicolon", "count:word_count_range"]))
            kws.append({})
        if rng.random() < 0.03:
            response = rng.choice(["", " ", "\n"])
        vm = {"prompt": "p", "instruction_id_list": iids, "kwargs": kws}
        if rng.random() < 0.5:
            vm["grading_mode"] = rng.choice(["binary", "fraction"])
        out.append({"id": f"g{i:05d}", "response": response,
                    "responses_create_params": {"input": [{"role": "user", "content": "p"}]},
                    "verifier_metadata": vm})
    return out


def write(n, seed, out, vi):
    with open(out, "w", encoding="utf-8") as f:
        for row in rows(n, seed, vi):
            f.write(json.dumps(row, ensure_ascii=False) + "\n")


def reference_verdicts(registry, vm, text):
    """Gym's `verify` loop."""
    out = []
    for iid, kwargs in zip(vm["instruction_id_list"], vm["kwargs"]):
        try:
            ins = registry[iid](iid)
            ins.build_description(**{k: v for k, v in (kwargs or {}).items() if v is not None})
            out.append(bool(ins.check_following(text)))
        except Exception:
            out.append(False)
    return out


def redrawn(kwargs):
    """Arguments the reference treats as absent and draws at random."""
    return any(v is not None and not v and not isinstance(v, bool) for v in (kwargs or {}).values())


def check(rows_path, ours_path, vi):
    registry, _ = load(vi)
    rows = [json.loads(line) for line in open(rows_path, encoding="utf-8")]
    ours = [json.loads(line) for line in open(ours_path, encoding="utf-8")]
    stats, diffs, row_agree, row_n = {}, [], 0, 0
    for row, mine in zip(rows, ours):
        vm = row["verifier_metadata"]
        ref = reference_verdicts(registry, vm, row["response"])
        got = mine.get("details", {}).get("strict") or [None] * len(ref)
        for k, iid in enumerate(vm["instruction_id_list"]):
            if redrawn(vm["kwargs"][k]):
                continue
            s = stats.setdefault(iid, [0, 0, 0])
            s[0] += 1
            s[1] += got[k] == ref[k]
            s[2] += ref[k]
            if got[k] != ref[k]:
                diffs.append({"id": row["id"], "instruction": iid, "kwargs": vm["kwargs"][k],
                              "reference": ref[k], "cascade": got[k], "response": row["response"][:200]})
        if not any(redrawn(kw) for kw in vm["kwargs"]):
            mode = vm.get("grading_mode", "binary")
            want = float(all(ref)) if mode == "binary" else (sum(ref) / len(ref) if ref else 0.0)
            row_n += 1
            row_agree += abs(mine.get("reward", -1) - want) < 1e-12
    print(f"rows: {len(rows)}; reward agreement {row_agree}/{row_n} ({100 * row_agree / max(row_n, 1):.2f}%)")
    print(f"{'instruction id':48} {'n':>5} {'agree':>8} {'ref true':>8}")
    total = [0, 0]
    for iid in sorted(stats):
        n, a, t = stats[iid]
        total = [total[0] + n, total[1] + a]
        print(f"{iid:48} {n:5} {100 * a / n:7.2f}% {100 * t / n:7.1f}%")
    print(f"{'all':48} {total[0]:5} {100 * total[1] / max(total[0], 1):7.2f}%")
    print(f"differences: {len(diffs)}")
    for d in diffs:
        print(json.dumps(d, ensure_ascii=False))


if __name__ == "__main__":
    if sys.argv[1] == "write":
        write(int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5])
    else:
        check(sys.argv[2], sys.argv[3], sys.argv[4])
