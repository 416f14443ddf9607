//! YAML through `serde_yaml_ng`, with the expanded size of the document bounded while
//! it is built.
//!
//! An alias (`*a`) repeats its anchor's whole subtree, so a short text can stand for a
//! huge document ("billion laughs", or one long list referenced many times). The
//! parser's own guard counts alias *jumps* (up to 100 per event), not what they expand
//! to: a 17 KB answer could expand to hundreds of MiB. Here every node the parser hands
//! over is charged to a budget as it is built: 1 per node plus the bytes of each scalar.
//! The budget is [`EXPANSION_FACTOR`] × the text's length + [`EXPANSION_FLOOR`], so
//! the work and memory of any YAML answer are linear in its length. A document without
//! aliases costs at most about 2 per byte of text (a node needs at least one byte of
//! syntax around it), so aliases may add about as much again and never refuse it.
//!
//! The budget alone still pays for what it refuses: serde_yaml_ng replays an alias's
//! events one by one, so a 17 KB list-of-references document cost tens of ms before
//! the budget ran out, and one such answer in 35 cut a batch's throughput twentyfold.
//! So the expansion is first counted on the events themselves ([`expanded_nodes`]:
//! an alias adds its anchor's node count in O(1)), and a document whose node count
//! alone is over the budget is refused after one linear pass, before anything is
//! replayed. The count is a lower bound of what the budget charges (1 per node, plus
//! the bytes of the scalars that can only be strings), so it refuses nothing the
//! budget would accept.

use std::cell::Cell;
use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, EnumAccess, MapAccess, SeqAccess, Visitor};
use serde_yaml_ng::{Mapping, Value as Yaml};

/// The expanded size a YAML answer may reach, per byte of its text.
pub const EXPANSION_FACTOR: usize = 4;
/// The expanded size any YAML answer may reach, whatever its length.
pub const EXPANSION_FLOOR: usize = 1024;

/// The document as a `serde_yaml_ng` value, or the parse error; an expansion past the
/// budget is refused as soon as the budget runs out.
pub(super) fn load(text: &str) -> Result<Yaml, String> {
    let cap = text
        .len()
        .saturating_mul(EXPANSION_FACTOR)
        .saturating_add(EXPANSION_FLOOR);
    if expanded_nodes(text, cap).is_none() {
        return Err(over_budget(cap));
    }
    load_within(text, cap).map(|(value, _)| value)
}

/// The document built under a budget of `cap`, and what it spent.
fn load_within(text: &str, cap: usize) -> Result<(Yaml, usize), String> {
    let budget = Budget {
        left: Cell::new(cap),
        exhausted: Cell::new(false),
    };
    match Node(&budget).deserialize(serde_yaml_ng::Deserializer::from_str(text)) {
        Ok(value) => Ok((value, cap - budget.left.get())),
        Err(_) if budget.exhausted.get() => Err(over_budget(cap)),
        Err(e) => Err(format!("invalid YAML: {e}")),
    }
}

fn over_budget(cap: usize) -> String {
    format!(
        "YAML aliases expand the document past {cap} nodes and bytes \
         ({EXPANSION_FACTOR} per byte of text + {EXPANSION_FLOOR})"
    )
}

/// What the budget charges at least for a scalar: 1, plus its bytes when it can only
/// be a string (the budget charges a number, bool or null 1). Quoted and block scalars
/// are strings; a plain one is a string when it is longer than any bool, null or
/// special float (`false`, `-.inf`) and has a byte no number has.
fn scalar_charge(value: &str, style: yaml_rust2::scanner::TScalarStyle) -> usize {
    use yaml_rust2::scanner::TScalarStyle;
    let numeric = |b: u8| b.is_ascii_hexdigit() || b"+-._xXoO".contains(&b);
    let string = match style {
        TScalarStyle::Plain => value.len() > 5 && !value.bytes().all(numeric),
        _ => true,
    };
    if string {
        1 + value.len()
    } else {
        1
    }
}

/// The number of nodes `text` expands to, aliases resolved, counted on the event
/// stream in one pass (an alias costs its anchor's count, looked up, not replayed);
/// `None` once the count passes `cap`. A text the event parser cannot read counts as
/// within: serde_yaml_ng then gives the verdict, under the budget.
fn expanded_nodes(text: &str, cap: usize) -> Option<usize> {
    use yaml_rust2::parser::{Event, Parser};
    let mut parser = Parser::new_from_str(text);
    // Anchor id → its charge; the open collections' (anchor, charge so far).
    let mut anchors = std::collections::HashMap::new();
    let mut open: Vec<(usize, usize)> = Vec::new();
    let mut spent = 0usize;
    loop {
        let Ok((event, _)) = parser.next_token() else {
            return Some(spent);
        };
        let finished = match event {
            Event::StreamEnd => return Some(spent),
            Event::SequenceStart(anchor, _) | Event::MappingStart(anchor, _) => {
                open.push((anchor, 1));
                spent += 1;
                None
            }
            Event::SequenceEnd | Event::MappingEnd => open.pop(),
            Event::Scalar(value, style, anchor, _) => {
                let nodes = scalar_charge(&value, style);
                spent = spent.saturating_add(nodes);
                Some((anchor, nodes))
            }
            Event::Alias(id) => {
                let nodes = anchors.get(&id).copied().unwrap_or(1);
                spent = spent.saturating_add(nodes);
                Some((0, nodes))
            }
            _ => None,
        };
        if spent > cap {
            return None;
        }
        if let Some((anchor, nodes)) = finished {
            if anchor != 0 {
                anchors.insert(anchor, nodes);
            }
            if let Some((_, parent)) = open.last_mut() {
                *parent = parent.saturating_add(nodes);
            }
        }
    }
}

/// What is left of the expanded size; `exhausted` tells the refusal from other errors.
struct Budget {
    left: Cell<usize>,
    exhausted: Cell<bool>,
}

impl Budget {
    fn take<E: de::Error>(&self, cost: usize) -> Result<(), E> {
        match self.left.get().checked_sub(cost) {
            Some(left) => {
                self.left.set(left);
                Ok(())
            }
            None => {
                self.exhausted.set(true);
                Err(E::custom("expansion budget exhausted"))
            }
        }
    }
}

/// One node, built as `serde_yaml_ng::Value` is (duplicate keys refused), charged to
/// the budget before it is kept.
#[derive(Clone, Copy)]
struct Node<'b>(&'b Budget);

impl<'de> DeserializeSeed<'de> for Node<'_> {
    type Value = Yaml;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Yaml, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Node<'_> {
    type Value = Yaml;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any YAML value")
    }

    fn visit_bool<E: de::Error>(self, b: bool) -> Result<Yaml, E> {
        self.0.take(1)?;
        Ok(Yaml::Bool(b))
    }

    fn visit_i64<E: de::Error>(self, i: i64) -> Result<Yaml, E> {
        self.0.take(1)?;
        Ok(Yaml::Number(i.into()))
    }

    fn visit_u64<E: de::Error>(self, u: u64) -> Result<Yaml, E> {
        self.0.take(1)?;
        Ok(Yaml::Number(u.into()))
    }

    fn visit_f64<E: de::Error>(self, x: f64) -> Result<Yaml, E> {
        self.0.take(1)?;
        Ok(Yaml::Number(x.into()))
    }

    fn visit_str<E: de::Error>(self, s: &str) -> Result<Yaml, E> {
        self.0.take(1 + s.len())?;
        Ok(Yaml::String(s.to_owned()))
    }

    fn visit_string<E: de::Error>(self, s: String) -> Result<Yaml, E> {
        self.0.take(1 + s.len())?;
        Ok(Yaml::String(s))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Yaml, E> {
        self.0.take(1)?;
        Ok(Yaml::Null)
    }

    fn visit_none<E: de::Error>(self) -> Result<Yaml, E> {
        self.visit_unit()
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<Yaml, D::Error> {
        self.deserialize(deserializer)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Yaml, A::Error> {
        self.0.take(1)?;
        let mut items = Vec::new();
        while let Some(item) = seq.next_element_seed(self)? {
            items.push(item);
        }
        Ok(Yaml::Sequence(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Yaml, A::Error> {
        self.0.take(1)?;
        let mut mapping = Mapping::new();
        while let Some(key) = map.next_key_seed(self)? {
            if mapping.contains_key(&key) {
                return Err(de::Error::custom(duplicate(&key)));
            }
            let value = map.next_value_seed(self)?;
            mapping.insert(key, value);
        }
        Ok(Yaml::Mapping(mapping))
    }

    /// A tagged node: no tag has a JSON value, so it is refused without reading on.
    fn visit_enum<A: EnumAccess<'de>>(self, data: A) -> Result<Yaml, A::Error> {
        let (tag, _) = data.variant::<String>()?;
        let bang = if tag.starts_with('!') { "" } else { "!" };
        Err(de::Error::custom(format!(
            "YAML tag {bang}{tag} has no JSON value"
        )))
    }
}

/// `serde_yaml_ng`'s message for a repeated mapping key.
fn duplicate(key: &Yaml) -> String {
    match key {
        Yaml::Null => "duplicate entry with null key".to_owned(),
        Yaml::Bool(b) => format!("duplicate entry with key `{b}`"),
        Yaml::Number(n) => format!("duplicate entry with key {n}"),
        Yaml::String(s) => format!("duplicate entry with key {s:?}"),
        _ => "duplicate entry in YAML map".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The event count never exceeds what the budget charges, so the early refusal
    /// refuses nothing the budget would accept; on the list-of-references shape it
    /// refuses without building anything.
    #[test]
    fn the_event_count_is_a_lower_bound_of_the_budget() {
        let items = vec!["1"; 100].join(", ");
        let mut docs = vec![
            "a: 1\nb: [x, 'y', \"z\"]\n".to_owned(),
            "k: |\n  block text\n  more\nn: ~\nf: -.inf\nt: false\nh: 0x1F\n".to_owned(),
            "base: &b {x: 1, y: [2, 3]}\nmerged:\n  <<: *b\n  z: 4\n".to_owned(),
            format!("s: &s '{}'\nr: [*s, *s]\n", "q".repeat(300)),
            format!("s: &s {}\nr: [*s, *s, *s]\n", "plain words ".repeat(30)),
        ];
        for refs in [1, 5, 9, 10, 11, 20] {
            docs.push(format!(
                "base: &b [{items}]\nrefs:\n{}",
                "  - *b\n".repeat(refs)
            ));
        }
        for doc in &docs {
            let Ok((_, spent)) = load_within(doc, usize::MAX) else {
                continue;
            };
            let counted = expanded_nodes(doc, usize::MAX).unwrap();
            assert!(counted <= spent, "{counted} > {spent}: {doc}");
        }
        let list = format!(
            "base: &b [{}]\nrefs:\n{}",
            vec!["1"; 1000].join(", "),
            "  - *b\n".repeat(2000)
        );
        assert_eq!(expanded_nodes(&list, 4 * list.len() + 1024), None);
    }
}
