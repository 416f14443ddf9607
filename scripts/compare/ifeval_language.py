"""Language-detection agreement on natural text: the reference (langdetect,
seeded) against cascade (whatlang) for language:response_language and the
English checks of change_case.

Texts are real translations taken from the machine's gettext catalogs
(/usr/share/locale/*/LC_MESSAGES/*.mo): several messages of one catalog are
joined until the text has at least 20 words (Thai, Japanese: 60 characters).
Nothing is stored in the repository; the rows are built at run time.

Usage: ifeval_language.py write OUT.jsonl     (system python is enough)
       ifeval_language.py check ROWS.jsonl OURS.jsonl   (in the reference venv)
"""

import gettext
import glob
import json
import os
import re
import sys

LANGS = ["en", "es", "pt", "ar", "hi", "fr", "ru", "de", "ja", "it", "bn", "uk", "th", "ur", "ta", "te",
         "bg", "ko", "pl", "he", "fa", "vi", "ne", "sw", "kn", "mr", "gu", "pa", "ml", "fi"]
PER_LANG = 25


def clean(s):
    s = re.sub(r"%[-+ #0-9.*]*[a-zA-Z]|\{[^}]*\}|<[^>]*>|&\w+;|_(?=\w)|\\[nt]", " ", s)
    s = re.sub(r"[\s]+", " ", s)
    return s.strip()


def long_enough(text, lang):
    if lang in ("th", "ja"):
        return len(text) >= 60
    return len(text.split()) >= 20


def texts_for(lang):
    out = []
    # English: the msgids of the German catalogs.
    source = "de" if lang == "en" else lang
    for mo in sorted(glob.glob(f"/usr/share/locale/{source}/LC_MESSAGES/*.mo")):
        try:
            catalog = gettext.GNUTranslations(open(mo, "rb"))._catalog
        except Exception:
            continue
        pieces = []
        for key in sorted(catalog, key=str):
            msgid = key[0] if isinstance(key, tuple) else key
            value = msgid if lang == "en" else catalog[key]
            if not isinstance(value, str) or not msgid or value == msgid and lang != "en":
                continue
            v = clean(value)
            if len(v) < 25 or not re.search(r"\w{3}", v):
                continue
            pieces.append(v if v[-1:] in ".!?。" else v + ".")
            text = " ".join(pieces)
            if long_enough(text, lang):
                out.append(text)
                pieces = []
                break
        if len(out) >= PER_LANG:
            break
    return out


def write(out_path):
    rows = []
    for lang in LANGS:
        for i, t in enumerate(texts_for(lang)):
            rows.append({"id": f"lang-{lang}-{i}", "prompt": "", "instruction_id_list": ["language:response_language"],
                         "kwargs": [{"language": lang}], "response": t})
            if lang == "en":
                rows.append({"id": f"lower-{i}", "prompt": "", "instruction_id_list": ["change_case:english_lowercase"],
                             "kwargs": [{}], "response": t.lower()})
                rows.append({"id": f"upper-{i}", "prompt": "", "instruction_id_list": ["change_case:english_capital"],
                             "kwargs": [{}], "response": t.upper()})
    with open(out_path, "w", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")


def check(rows_path, ours_path):
    sys.path.insert(0, os.path.dirname(__file__))
    from ifeval_reference import load_reference

    load_reference()
    from lm_eval.tasks.ifeval import instructions_registry as reg

    ours = {r["id"]: r for r in map(json.loads, open(ours_path, encoding="utf-8"))}
    per = {}
    diffs = []
    for row in map(json.loads, open(rows_path, encoding="utf-8")):
        iid = row["instruction_id_list"][0]
        ins = reg.INSTRUCTION_DICT[iid](iid)
        ins.build_description(**row["kwargs"][0])
        ref = bool(row["response"].strip()) and ins.check_following(row["response"])
        mine = ours[row["id"]]["details"]["strict"][0]
        key = row["kwargs"][0].get("language") or iid.split(":")[1]
        s = per.setdefault(key, [0, 0])
        s[0] += 1
        s[1] += ref == mine
        if ref != mine:
            import langdetect

            diffs.append({"id": row["id"], "reference": ref, "cascade": mine,
                          "langdetect": langdetect.detect(row["response"]), "text": row["response"][:120]})
    total = [sum(v[0] for v in per.values()), sum(v[1] for v in per.values())]
    print(f"language agreement on gettext texts (>= 20 words): {total[1]}/{total[0]} = {100 * total[1] / total[0]:.1f}%")
    print("  " + "  ".join(f"{k}:{v[1]}/{v[0]}" for k, v in sorted(per.items())))
    for d in diffs:
        print(json.dumps(d, ensure_ascii=False))


if __name__ == "__main__":
    if sys.argv[1] == "write":
        write(sys.argv[2])
    else:
        check(sys.argv[2], sys.argv[3])
