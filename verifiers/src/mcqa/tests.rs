use super::*;
use GradingMode::{
    LenientAnswerColon as Colon, LenientBoxed as Lenient, StrictSingleLetterBoxed as Strict,
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

#[test]
fn strict_reads_one_boxed_letter_through_wrappers() {
    for (response, letter) in [
        ("so \\boxed{B}", 'B'),
        ("\\boxed{(B)}", 'B'),
        ("\\boxed{ [C] }.", 'C'),
        ("$\\boxed{\\text{D}}$", 'D'),
        ("\\boxed{\\textbf{(B)}}", 'B'),
        ("\\boxed{\\mathrm{A}}", 'A'),
        ("\\fbox{C}", 'C'),
        ("\\boxed{\\boxed{A}}", 'A'),
    ] {
        assert_eq!(read(response, Strict), Ok(letter), "{response}");
    }
}

#[test]
fn strict_rejects_what_is_not_one_option_letter() {
    let five = Choices::new(vec![('A', "x".into()), ('E', "y".into())]).unwrap();
    assert_eq!(extract("\\boxed{\\text{E}}", &five, Strict).answer, Ok('E'));
    for (response, reason) in [
        ("\\boxed{E}", NoAnswer::NotAnOption),
        ("\\boxed{\\text{E}}", NoAnswer::NotAnOption),
        ("\\boxed{b}", NoAnswer::NotAnOption),
        ("\\boxed{AB}", NoAnswer::NotAnOption),
        ("\\boxed{(B) Square}", NoAnswer::NotAnOption),
        ("\\boxed{b) Square}", NoAnswer::NotAnOption),
        ("\\boxed{E: Square}", NoAnswer::NotAnOption),
        ("\\boxed{Square}", NoAnswer::NotAnOption),
        ("\\boxed{}", NoAnswer::NotAnOption),
        ("The answer is A.", NoAnswer::NoBox),
        ("A", NoAnswer::NoBox),
        ("\\boxed{B", NoAnswer::NoBox),
        ("Answer: B", NoAnswer::NoBox),
    ] {
        assert_eq!(read(response, Strict), Err(reason), "{response}");
    }
}

/// NeMo Gym 0.7.0's strict mode reads a leading letter label (`BOXED_LETTER_LABEL_PATTERN`),
/// whatever text follows it, as Gym does.
#[test]
fn strict_reads_a_labelled_box_as_gym_0_7_does() {
    for (response, letter) in [
        ("\\boxed{B) Gold}", 'B'),
        ("\\boxed{B: Gold}", 'B'),
        ("\\boxed{ C . Square root}", 'C'),
        ("\\boxed{D - PCR}", 'D'),
        ("\\boxed{\\text{A: Circle}}", 'A'),
        ("\\boxed{A) Square}", 'A'),
    ] {
        assert_eq!(read(response, Strict), Ok(letter), "{response}");
    }
}

#[test]
fn the_last_answer_wins_and_drafts_are_no_fallback() {
    let corrected = "So \\boxed{A}. Wait, A ignores the diagonal. The answer is \\boxed{C}.";
    assert_eq!(read(corrected, Strict), Ok('C'));
    assert_eq!(
        read("\\boxed{B}. Hmm, no: \\boxed{E}", Strict),
        Err(NoAnswer::NotAnOption)
    );
    assert_eq!(
        read("Answer: A\nOn reflection:\nFinal answer: (C)", Colon),
        Ok('C')
    );
    assert_eq!(
        read("Answer: A\nFinal Answer: E", Colon),
        Err(NoAnswer::NotAnOption)
    );
    // A closed box inside an unclosed one still counts; the unclosed one does not.
    assert_eq!(
        read("\\boxed{B} then \\boxed{ oops \\boxed{C}", Strict),
        Ok('C')
    );
}

#[test]
fn side_by_side_boxes_are_one_answer_and_must_agree() {
    for hedge in [
        "\\boxed{A} or \\boxed{B}",
        "\\boxed{A}, \\boxed{B}",
        "$\\boxed{A}$ \\quad \\text{and} \\quad $\\boxed{B}$",
        "\\boxed{A}\n\\boxed{B}",
    ] {
        assert_eq!(
            read(hedge, Strict),
            Err(NoAnswer::Ambiguous("A, B".into())),
            "{hedge}"
        );
    }
    assert_eq!(read("\\boxed{B} \\boxed{B}", Strict), Ok('B'));
    assert_eq!(
        read("\\boxed{B} or \\boxed{x}", Strict),
        Err(NoAnswer::NotAnOption)
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
fn lenient_boxed_reads_the_letter_or_one_option_text() {
    for (response, letter) in [
        ("\\boxed{B}", 'B'),
        ("\\boxed{square}", 'B'),
        ("\\boxed{\\text{Square root}}", 'C'),
        ("\\boxed{B) Square}", 'B'),
        ("\\boxed{(D) PCR}", 'D'),
        ("\\boxed{D: Polymerase Chain Reaction}", 'D'),
        ("\\boxed{It is a circle}", 'A'),
        ("\\boxed{polymerase  chain reaction (PCR).}", 'D'),
    ] {
        assert_eq!(read(response, Lenient), Ok(letter), "{response}");
    }
    for response in [
        "\\boxed{A) Square}",        // label and text disagree
        "\\boxed{Circle or Square}", // two options' texts
        "\\boxed{triangle}",
        "\\boxed{E}",
        "Square",
    ] {
        assert!(read(response, Lenient).is_err(), "{response}");
    }
}

#[test]
fn answer_colon_survives_markdown_and_latex() {
    for (response, letter) in [
        ("Answer: C", 'C'),
        ("answer: c", 'C'),
        ("**Answer: C**", 'C'),
        ("**Answer:** (C)", 'C'),
        ("**Answer**: C.", 'C'),
        ("Answer: (C)", 'C'),
        ("Answer: \\boxed{C}", 'C'),
        ("Answer: $\\textbf{(B)}$", 'B'),
        ("Final Answer: B) Square", 'B'),
        ("Answer: square root", 'C'),
        ("**Answer:**\n\n**D**", 'D'),
    ] {
        assert_eq!(read(response, Colon), Ok(letter), "{response}");
    }
    for (response, reason) in [
        ("The answer is C", NoAnswer::NoAnswerLine),
        ("\\boxed{C}", NoAnswer::NoAnswerLine),
        (
            "Answer: A careful look shows it is B",
            NoAnswer::NotAnOption,
        ),
        ("Answer: E", NoAnswer::NotAnOption),
        ("Answer: Squares", NoAnswer::NotAnOption),
        ("Answers: C", NoAnswer::NoAnswerLine),
    ] {
        assert_eq!(read(response, Colon), Err(reason), "{response}");
    }
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
    assert_eq!(GradingMode::parse("lenient_answer_colon_md"), Some(Colon));
    assert_eq!(GradingMode::parse("strict"), None);
}

#[test]
fn row_patterns_come_first_and_fall_back_to_the_mode() {
    let option_selected = [compile_output_regex(r"Option Selected:\s*([A-Za-z])").unwrap()];
    let read = |response: &str| extract_with_patterns(response, &abcd(), Strict, &option_selected);
    let found = read("option selected: a\n... Option Selected: c");
    assert_eq!((found.answer, found.by_pattern), (Ok('C'), true));
    // No match, or a letter that is no option: the grading mode decides.
    let found = read("Option Selected: E but \\boxed{B}");
    assert_eq!((found.answer, found.by_pattern), (Ok('B'), false));
    assert_eq!(
        read("<think>Option Selected: A</think>none").answer,
        Err(NoAnswer::NoBox)
    );
    let whole = [compile_output_regex(r"square root").unwrap()];
    assert_eq!(
        extract_with_patterns("SQUARE ROOT", &abcd(), Strict, &whole).answer,
        Ok('C')
    );
    let lookahead = [compile_output_regex(r"Answer\s*:\s*(?!Answer)\s*([A-Za-z])").unwrap()];
    let found = extract_with_patterns("answer: b\nAnswer: d", &abcd(), Strict, &lookahead);
    assert_eq!(found.answer, Ok('D'));
    assert!(matches!(
        compile_output_regex(r"(unclosed"),
        Err(PatternError::Invalid(_))
    ));
    // Catastrophic backtracking stops at the limit: no match, so the mode decides.
    let blowup = [compile_output_regex(r"(a+)+\1b").unwrap()];
    let text = format!("{} \\boxed{{B}}", "a".repeat(40));
    assert_eq!(
        extract_with_patterns(&text, &abcd(), Strict, &blowup).answer,
        Ok('B')
    );
    assert_eq!(
        compile_output_regex(&"a".repeat(MAX_PATTERN_BYTES + 1)).unwrap_err(),
        PatternError::TooLong
    );
}
