use cascade_verifiers::math::equivalent;
fn main() {
    let text = std::fs::read_to_string("/tmp/probe.txt").unwrap();
    for line in text.lines() {
        let parts: Vec<&str> = line.split(" ||| ").collect();
        if parts.len() < 2 {
            continue;
        }
        let v = equivalent(parts[1], parts[0]);
        println!(
            "{:5} {:12} gold {:?} answer {:?}: {}",
            v.correct, v.verdict, parts[0], parts[1], v.reason
        );
    }
}
