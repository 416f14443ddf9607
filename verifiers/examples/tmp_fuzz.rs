use cascade_verifiers::math::{check, equivalent};
use std::time::Instant;
fn main() {
    let atoms = ["\\frac", "{", "}", "\\sqrt", "[", "]", "(", ")", "^", "_", "x", "y", "2", "10", "3", "0", "\\pi",
        "e", "i", ",", "=", "<", "\\le", "\\pm", "!", "\\%", "\\left(", "\\right)", "\\{", "\\}", "\\cup", "&", "\\\\",
        "\\begin{pmatrix}", "\\end{pmatrix}", "\\text{", "|", "\\infty", "-", "+", "\\cdot", "/", "0.5", "\\ln", "\\sin",
        "^{", "\\boxed{", "$", " ", "\\log_", "\\binom", "99", "1.5e3", "\\,", ",\\!", "000", "cm", " and ", "\\in", ">", "!=", "°", "π", "√", "\\exp", "ab"];
    let mut seed = 12345u64;
    let mut next = || { seed ^= seed << 13; seed ^= seed >> 7; seed ^= seed << 17; seed };
    let mut worst = (0u128, String::new(), String::new());
    let t0 = Instant::now();
    let n = 300_000;
    for _ in 0..n {
        let len = (next() % 40) as usize;
        let a: String = (0..len).map(|_| atoms[(next() % atoms.len() as u64) as usize]).collect();
        let len = (next() % 20) as usize;
        let g: String = (0..len).map(|_| atoms[(next() % atoms.len() as u64) as usize]).collect();
        let t = Instant::now();
        let _ = equivalent(&a, &g);
        let _ = check(&a, &g);
        let dt = t.elapsed().as_micros();
        if dt > worst.0 { worst = (dt, a.clone(), g.clone()); }
    }
    println!("{n} pairs in {:?}; worst {} us: {:?} vs {:?}", t0.elapsed(), worst.0, worst.1, worst.2);
}
