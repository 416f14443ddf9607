use cascade_verifiers::math::equivalent;
use std::time::Instant;
fn time(a: &str, g: &str) {
    let mut best = u128::MAX; let mut v = None;
    for _ in 0..5 { let t = Instant::now(); v = Some(equivalent(a, g)); best = best.min(t.elapsed().as_micros()); }
    let v = v.unwrap();
    println!("{:>7} us {} {} | {}..", best, v.verdict, v.reason, &a[..a.len().min(60)]);
}
fn main() {
    let g: Vec<String> = (1..60).map(|k| format!("\\sin({k})")).collect();
    let r: Vec<String> = (1..60).rev().map(|k| format!("\\sin({k})")).collect();
    time(&format!("\\{{{}\\}}", r.join(",")), &format!("\\{{{}\\}}", g.join(",")));
    let g: Vec<String> = (1..60).map(|k| format!("\\frac{{{k}}}{{\\sqrt{{{}}}}}", k + 1)).collect();
    let r: Vec<String> = (1..60).rev().map(|k| format!("\\frac{{{k}\\sqrt{{{}}}}}{{{}}}", k + 1, k + 1)).collect();
    time(&r.join(","), &g.join(","));
    let m = |v: i32| format!("\\begin{{pmatrix}}{}\\end{{pmatrix}}", (0..8).map(|i| (0..8).map(|j| format!("\\sin({})", i * 8 + j + v)).collect::<Vec<_>>().join("&")).collect::<Vec<_>>().join("\\\\"));
    time(&m(0), &m(0).replace(' ', "  "));
    time(&m(1), &m(0));
    let deep = "x+".repeat(500) + "1";
    time(&deep, "500x+1");
    let prod = "(x+1)".repeat(30);
    time(&prod, "(x+1)^{30}");
    let s = (0..200).map(|k| format!("\\sqrt{{{}}}", k + 2)).collect::<Vec<_>>().join("+");
    time(&s, &s.replace("+", " + "));
    time(&format!("({s})^2"), "1");
    time(&("\\sqrt{".repeat(20) + "2" + &"}".repeat(20)), "2^{1/1048576}");
    time("\\sin(\\sin(\\sin(\\sin(\\sin(\\sin(\\sin(x)))))))", "\\sin(\\sin(\\sin(\\sin(\\sin(\\sin(\\sin(y)))))))");
}
