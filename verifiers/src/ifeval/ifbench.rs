//! IFBench's 58 out-of-distribution constraints (allenai/IFBench, graded by NeMo
//! Gym's `ifbench` server), which share the `ifeval` env with IFEval's ids.
//!
//! None is checked yet: each is a known id that parses to a per-instruction
//! error ("not yet supported"), so a row mixing them with supported ids is still
//! graded, the unsupported ones counting as not followed. Many need resources the
//! reference loads at run time (spaCy's `en_core_web_sm`, `syllapy`, `emoji`),
//! which is why they are not approximated here.

/// IFBench's own ids, in its registry's order.
pub const IDS: [&str; 58] = [
    "count:word_count_range",
    "count:unique_word_count",
    "ratio:stop_words",
    "ratio:sentence_type",
    "ratio:sentence_balance",
    "count:conjunctions",
    "count:person_names",
    "ratio:overlap",
    "count:numbers",
    "words:alphabet",
    "words:vowel",
    "words:consonants",
    "sentence:alliteration_increment",
    "words:palindrome",
    "count:punctuation",
    "format:parentheses",
    "format:quotes",
    "words:prime_lengths",
    "format:options",
    "format:newline",
    "format:emoji",
    "ratio:sentence_words",
    "count:words_japanese",
    "words:start_verb",
    "words:repeats",
    "sentence:keyword",
    "count:pronouns",
    "words:odd_even_syllables",
    "words:last_first",
    "words:paragraph_last_first",
    "sentence:increment",
    "words:no_consecutive",
    "format:line_indent",
    "format:quote_unquote",
    "format:list",
    "format:thesis",
    "format:sub-bullets",
    "format:no_bullets_bullets",
    "custom:multiples",
    "custom:mcq_count_length",
    "custom:reverse_newline",
    "custom:word_reverse",
    "custom:character_reverse",
    "custom:sentence_alphabet",
    "custom:european_capitals_sort",
    "custom:csv_city",
    "custom:csv_special_character",
    "custom:csv_quotes",
    "custom:date_format_list",
    "count:keywords_multiple",
    "words:keywords_specific_position",
    "words:words_position",
    "repeat:repeat_change",
    "repeat:repeat_simple",
    "repeat:repeat_span",
    "format:title_case",
    "format:output_template",
    "format:no_whitespace",
];

/// Whether `id` is one of IFBench's constraints.
pub fn is_ifbench(id: &str) -> bool {
    IDS.contains(&id)
}
