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
    let budget = Budget {
        left: Cell::new(cap),
        exhausted: Cell::new(false),
    };
    match Node(&budget).deserialize(serde_yaml_ng::Deserializer::from_str(text)) {
        Ok(value) => Ok(value),
        Err(_) if budget.exhausted.get() => Err(format!(
            "YAML aliases expand the document past {cap} nodes and bytes \
             ({EXPANSION_FACTOR} per byte of text + {EXPANSION_FLOOR})"
        )),
        Err(e) => Err(format!("invalid YAML: {e}")),
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
