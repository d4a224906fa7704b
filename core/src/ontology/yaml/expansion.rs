//! A budget on what anchors and aliases expand to.
//!
//! The YAML reader follows an alias by reading its anchored node again, and
//! every node read becomes an owned value. Nested aliases ("billion laughs")
//! hit the reader's own repetition limit, but one large anchored scalar or list
//! repeated a few thousand times does not, and allocates gigabytes. So before
//! the real read, one pass walks the document as it would be read, counting
//! nodes and scalar bytes without keeping any, and stops once they exceed what
//! text of this size can hold without repetition.

use serde::de::{self, DeserializeSeed, Deserializer, EnumAccess, MapAccess, SeqAccess, Visitor};
use std::cell::Cell;
use std::fmt;

/// Walks `text` as the ontology reader would and fails when it expands to more
/// nodes or scalar bytes than its own size allows.
pub(crate) fn check(text: &str) -> Result<(), serde_yaml_ng::Error> {
    let budget = Budget {
        // Every node takes at least one byte of the text; an escape such as
        // `\L` turns two bytes into three, so scalars may grow by half.
        nodes: Cell::new(text.len() + 64),
        bytes: Cell::new(text.len() * 3 / 2 + 64),
    };
    let deserializer = serde_yaml_ng::Deserializer::from_str(text);
    Walk(&budget).deserialize(deserializer)
}

struct Budget {
    nodes: Cell<usize>,
    bytes: Cell<usize>,
}

impl Budget {
    fn spend<E: de::Error>(&self, bytes: usize) -> Result<(), E> {
        let nodes = self.nodes.get().checked_sub(1);
        let bytes = self.bytes.get().checked_sub(bytes);
        match (nodes, bytes) {
            (Some(nodes), Some(bytes)) => {
                self.nodes.set(nodes);
                self.bytes.set(bytes);
                Ok(())
            }
            _ => Err(E::custom(
                "anchors and aliases repeat more than the document holds; \
                 write the ontology out without them",
            )),
        }
    }
}

#[derive(Clone, Copy)]
struct Walk<'a>(&'a Budget);

impl<'de> DeserializeSeed<'de> for Walk<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Walk<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any YAML node")
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<(), E> {
        self.0.spend(0)
    }

    fn visit_i64<E: de::Error>(self, _: i64) -> Result<(), E> {
        self.0.spend(0)
    }

    fn visit_u64<E: de::Error>(self, _: u64) -> Result<(), E> {
        self.0.spend(0)
    }

    fn visit_i128<E: de::Error>(self, _: i128) -> Result<(), E> {
        self.0.spend(0)
    }

    fn visit_u128<E: de::Error>(self, _: u128) -> Result<(), E> {
        self.0.spend(0)
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<(), E> {
        self.0.spend(0)
    }

    fn visit_str<E: de::Error>(self, value: &str) -> Result<(), E> {
        self.0.spend(value.len())
    }

    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        self.0.spend(0)
    }

    fn visit_none<E: de::Error>(self) -> Result<(), E> {
        self.0.spend(0)
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        self.0.spend(0)?;
        while seq.next_element_seed(self)?.is_some() {}
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        self.0.spend(0)?;
        while map.next_entry_seed(self, self)?.is_some() {}
        Ok(())
    }

    fn visit_enum<A: EnumAccess<'de>>(self, data: A) -> Result<(), A::Error> {
        // A tagged node (`!tag value`): the tag, then its value.
        let ((), variant) = data.variant_seed(self)?;
        de::VariantAccess::newtype_variant_seed(variant, self)
    }
}

#[cfg(test)]
mod tests {
    use super::check;

    #[test]
    fn plain_documents_pass() {
        let f1 = include_str!("../../../../examples/f1/ontology.yaml");
        assert!(check(f1).is_ok());
        assert!(check("a: [1, 2, {b: c}]\nd: !tag e\n\"\\L\\L\": \"\\P\\P\\P\"\n").is_ok());
        // An alias that repeats a little is still YAML an editor may write.
        assert!(check("base: &b {type: text}\nx: *b\ny: *b\n").is_ok());
    }

    #[test]
    fn a_large_scalar_repeated_by_aliases_is_refused() {
        let mut text = format!("a: &big \"{}\"\nb: [", "x".repeat(100_000));
        text.push_str(&vec!["*big"; 1_000].join(", "));
        text.push_str("]\n");
        let error = check(&text).unwrap_err().to_string();
        assert!(error.contains("anchors and aliases"), "{error}");
    }

    #[test]
    fn nested_aliases_are_refused() {
        let mut text = String::from("l0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n");
        for level in 1..9 {
            let aliases = vec![format!("*l{}", level - 1); 9].join(", ");
            text.push_str(&format!("l{level}: &l{level} [{aliases}]\n"));
        }
        assert!(check(&text).is_err());
    }
}
