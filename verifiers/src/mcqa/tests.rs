use super::*;
use GradingMode::{
    LenientAnswerColon as Colon, LenientAnswerColonMd as ColonMd, LenientBoxed as Lenient,
    StrictSingleLetterBoxed as Strict,
};

fn abcd() -> Choices {
    Choices::new(vec![
        ('A', "Circle".into()),
        ('B', "Square".into()),
        ('C', "Square root".into()),
        ('D', "Polymerase Chain Reaction (PCR)".into()),
    ])
    .unwrap()
}

fn read(response: &str, mode: GradingMode) -> Result<char, NoAnswer> {
    extract(response, &abcd(), mode).answer
}

/// Every case here was read by NeMo Gym 0.7.0's own functions (`app.py`) with the
/// same options, and gave the same letter or none.
#[test]
fn strict_reads_the_last_box_as_gym_0_7_does() {
    for (response, letter) in [
        ("so \\boxed{B}", 'B'),
        ("\\boxed{(B)}", 'B'),
        ("\\boxed{ [C] }.", 'C'),
        ("$\\boxed{\\text{D}}$", 'D'),
        ("\\boxed{\\text{ \\text{A} }}", 'A'),
        ("\\boxed{1B}", 'B'),
        ("\\boxed{\\boxed{A}}", 'A'),
        ("\\boxed{B) Gold}", 'B'),
        ("\\boxed{B: Gold}", 'B'),
        ("\\boxed{ C . Square root}", 'C'),
        ("\\boxed{D - PCR}", 'D'),
        ("\\boxed{\\text{A: Circle}}", 'A'),
        ("\\boxed{A) Square}", 'A'),
        // The last box decides, whatever came before it.
        ("So \\boxed{A}. Wait, no. The answer is \\boxed{C}.", 'C'),
        ("\\boxed{A} or \\boxed{B}", 'B'),
    ] {
        assert_eq!(read(response, Strict), Ok(letter), "{response}");
    }
    let five = Choices::new(vec![('A', "x".into()), ('E', "y".into())]).unwrap();
    assert_eq!(extract("\\boxed{\\text{E}}", &five, Strict).answer, Ok('E'));
}

#[test]
fn strict_gives_no_answer_for_anything_else() {
    for (response, reason) in [
        ("\\boxed{E}", NoAnswer::NotAnOption),
        ("\\boxed{b}", NoAnswer::NotAnOption),
        ("\\boxed{AB}", NoAnswer::NotAnOption),
        ("\\boxed{(B) Square}", NoAnswer::NotAnOption),
        ("\\boxed{\\textbf{B}}", NoAnswer::NotAnOption),
        ("\\boxed{\\mathrm{A}}", NoAnswer::NotAnOption),
        ("\\boxed{Square}", NoAnswer::NotAnOption),
        ("\\boxed{}", NoAnswer::NotAnOption),
        ("\\boxed{B}. Hmm, no: \\boxed{E}", NoAnswer::NotAnOption),
        ("The answer is A.", NoAnswer::NoBox),
        ("\\fbox{C}", NoAnswer::NoBox),
        ("Answer: B", NoAnswer::NoBox),
        ("\\boxed{B", NoAnswer::UnclosedBox),
        ("\\boxed{B} then \\boxed{ oops", NoAnswer::UnclosedBox),
    ] {
        assert_eq!(read(response, Strict), Err(reason), "{response}");
    }
}

#[test]
fn lenient_boxed_reads_the_letter_or_one_contained_option_text() {
    for (response, letter) in [
        ("\\boxed{B}", 'B'),
        ("\\boxed{circle}", 'A'),
        ("\\boxed{\\text{Polymerase  Chain Reaction (PCR)}}", 'D'),
        ("\\boxed{B) Square}", 'B'),
        ("\\boxed{A) Square}", 'A'),
        ("\\boxed{It is a circle}", 'A'),
    ] {
        assert_eq!(read(response, Lenient), Ok(letter), "{response}");
    }
    for (response, reason) in [
        // "square root" contains "square": two options' texts.
        ("\\boxed{Square root}", NoAnswer::Ambiguous("B, C".into())),
        ("\\boxed{(D) PCR}", NoAnswer::NotAnOption),
        ("\\boxed{triangle}", NoAnswer::NotAnOption),
        ("\\boxed{E}", NoAnswer::NotAnOption),
        ("Square", NoAnswer::NoBox),
    ] {
        assert_eq!(read(response, Lenient), Err(reason), "{response}");
    }
}

#[test]
fn answer_colon_reads_the_first_answer_line() {
    for (response, letter) in [
        ("Answer: C", 'C'),
        ("answer: c", 'C'),
        ("Final Answer: B", 'B'),
        ("The answer:\n\nD", 'D'),
        ("Answer: \\text{B}", 'B'),
        ("Answer: square root", 'C'),
        ("Answer: A\nOn reflection:\nFinal answer: C", 'A'),
    ] {
        assert_eq!(read(response, Colon), Ok(letter), "{response}");
    }
    for (response, reason) in [
        ("The answer is C", NoAnswer::NoAnswerLine),
        ("\\boxed{C}", NoAnswer::NoAnswerLine),
        ("**Answer: C**", NoAnswer::NotAnOption),
        ("**Answer:** C", NoAnswer::NotAnOption),
        ("Answer: (C)", NoAnswer::NotAnOption),
        ("Answer: C) Square root", NoAnswer::NotAnOption),
        ("Answer: E", NoAnswer::NotAnOption),
        (
            "Answer: A careful look shows it is B",
            NoAnswer::NotAnOption,
        ),
    ] {
        assert_eq!(read(response, Colon), Err(reason), "{response}");
    }
}

#[test]
fn answer_colon_md_reads_the_last_payload_naming_one_option() {
    for (response, letter) in [
        ("**Answer: C**", 'C'),
        ("**Answer:** (C)", 'C'),
        ("__Answer__: c.", 'C'),
        ("Answer: C) Square root", 'C'),
        ("Answer: b because it is square", 'B'),
        ("Answer: the option is D", 'D'),
        ("Answer: A\nOn reflection:\nFinal answer: C", 'C'),
        ("Answer: C\nAnswer: E", 'C'),
        ("Answer: Ｂ", 'B'),
    ] {
        assert_eq!(read(response, ColonMd), Ok(letter), "{response}");
    }
    for (response, reason) in [
        ("Answer: A or B", NoAnswer::NotAnOption),
        ("Answer: A, C", NoAnswer::NotAnOption),
        ("Answer: E", NoAnswer::NotAnOption),
        ("\\boxed{C}", NoAnswer::NoAnswerLine),
    ] {
        assert_eq!(read(response, ColonMd), Err(reason), "{response}");
    }
    let with_prefix = |response: &str, prefix: &str| {
        let row = RowRules::<Regex> {
            patterns: &[],
            answer_prefix: Some(prefix),
        };
        extract_with_patterns(response, &abcd(), ColonMd, &row).answer
    };
    assert_eq!(
        with_prefix("The correct option is B.", "The correct option is"),
        Ok('B')
    );
    assert_eq!(
        with_prefix("nothing here \\boxed{D}", "The correct option is"),
        Ok('D')
    );
}

#[test]
fn thinking_is_never_graded() {
    let think = "<think>It must be \\boxed{A}. Answer: A</think>The answer is \\boxed{B}.";
    assert_eq!(read(think, Strict), Ok('B'));
    assert_eq!(read(think, Colon), Err(NoAnswer::NoAnswerLine));
    // A template that opens the thinking in the prompt: the response only closes it.
    assert_eq!(
        read("draft \\boxed{A}\n</think>\n\\boxed{D}", Strict),
        Ok('D')
    );
    for unclosed in [
        "<think>so \\boxed{B}",
        "\\boxed{A}</think> x <think>\\boxed{B}",
    ] {
        assert_eq!(
            read(unclosed, Strict),
            Err(NoAnswer::Truncated(Truncation::UnclosedThink)),
            "{unclosed}"
        );
    }
    assert_eq!(
        read("<think>\\boxed{B}</think>  ", Strict),
        Err(NoAnswer::Empty)
    );
    assert_eq!(read("", Lenient), Err(NoAnswer::Empty));
}

#[test]
fn prose_letters_are_never_answers() {
    let prose = "A square has four sides, so B is tempting, but a circle has none.";
    for mode in GradingMode::ALL {
        assert!(read(prose, mode).is_err(), "{mode}");
    }
}

#[test]
fn long_answers_are_read_from_their_end() {
    let long = format!("{}\\boxed{{A}}", "é".repeat(MAX_ANSWER_BYTES));
    let found = extract(&long, &abcd(), Strict);
    assert_eq!((found.answer, found.capped), (Ok('A'), true));
    let early = format!("\\boxed{{A}}{}", "x ".repeat(MAX_ANSWER_BYTES));
    assert_eq!(
        extract(&early, &abcd(), Strict).answer,
        Err(NoAnswer::NoBox)
    );
    let braces = "{".repeat(200_000) + "\\boxed{B}";
    assert_eq!(read(&braces, Strict), Ok('B'));
}

#[test]
fn choices_are_checked() {
    assert_eq!(Choices::new(vec![]), Err(ChoiceError::Empty));
    assert_eq!(
        Choices::new(vec![('A', "x".into()), ('A', "y".into())]),
        Err(ChoiceError::Duplicate('A'))
    );
    assert_eq!(
        Choices::new(vec![('a', "x".into())]),
        Err(ChoiceError::NotALetter('a'))
    );
    assert_eq!(abcd().letters(), "A, B, C, D");
}

#[test]
fn modes_have_gyms_names() {
    for mode in GradingMode::ALL {
        assert_eq!(GradingMode::parse(mode.as_str()), Some(mode));
        let json = serde_json::to_string(&mode).unwrap();
        assert_eq!(json, format!("\"{mode}\""));
    }
    assert_eq!(GradingMode::parse("lenient_answer_colon_md"), Some(ColonMd));
    assert_eq!(GradingMode::parse("strict"), None);
}

fn with_patterns(response: &str, patterns: &[Regex]) -> Extraction {
    let row = RowRules {
        patterns,
        answer_prefix: None,
    };
    extract_with_patterns(response, &abcd(), Strict, &row)
}

#[test]
fn row_patterns_come_first_and_fall_back_to_the_mode() {
    let option_selected = [compile_output_regex(r"Option Selected:\s*([A-Za-z])").unwrap()];
    let found = with_patterns(
        "option selected: a\n... Option Selected: c",
        &option_selected,
    );
    assert_eq!((found.answer, found.by_pattern), (Ok('C'), true));
    // Gym trusts the pattern: a letter no option has is the answer (a wrong one).
    let found = with_patterns("Option Selected: E but \\boxed{B}", &option_selected);
    assert_eq!((found.answer, found.by_pattern), (Ok('E'), true));
    // No match: the grading mode decides.
    let found = with_patterns("I pick \\boxed{B}", &option_selected);
    assert_eq!((found.answer, found.by_pattern), (Ok('B'), false));
    assert_eq!(
        with_patterns("<think>Option Selected: A</think>none", &option_selected).answer,
        Err(NoAnswer::NoBox)
    );
    let whole = [compile_output_regex(r"square root").unwrap()];
    assert_eq!(with_patterns("SQUARE ROOT", &whole).answer, Ok('C'));
    let lookahead = [compile_output_regex(r"Answer\s*:\s*(?!Answer)\s*([A-Za-z])").unwrap()];
    assert_eq!(
        with_patterns("answer: b\nAnswer: d", &lookahead).answer,
        Ok('D')
    );
    assert!(matches!(
        compile_output_regex(r"(unclosed"),
        Err(PatternError::Invalid(_))
    ));
    // Catastrophic backtracking stops at the limit: no match, so the mode decides.
    let blowup = [compile_output_regex(r"(a+)+\1b").unwrap()];
    let text = format!("{} \\boxed{{B}}", "a".repeat(40));
    assert_eq!(with_patterns(&text, &blowup).answer, Ok('B'));
    assert_eq!(
        compile_output_regex(&"a".repeat(MAX_PATTERN_BYTES + 1)).unwrap_err(),
        PatternError::TooLong
    );
}
