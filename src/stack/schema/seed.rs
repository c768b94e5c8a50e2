//! The topology file's strict decoding with its per-parse context (the file's stem, the
//! catalog's layer ids, the nodes and layers already seen) passed explicitly as serde seeds
//! down the tree, no thread-local state. The checks still run inside the scalars' own
//! visitors, so yaml_serde attaches the offending value's line and column to a refusal; keys,
//! missing and duplicate fields fail with serde's own words, as a derive would.

use std::cell::RefCell;
use std::collections::BTreeSet;
use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};

use super::{
    check_layer_id, check_node_name, check_stack_name, validated, LayerId, NodeDecl, NodeName,
    RawTopology, StackName, NODE_KEYS, TOPOLOGY_KEYS,
};

/// What the context-dependent checks need to know during one parse.
#[derive(Default)]
pub(super) struct ParseContext {
    pub(super) expected_stem: Option<String>,
    /// `None`: layer ids are not checked (first pass, before the catalog is known).
    pub(super) known_layers: Option<BTreeSet<String>>,
    pub(super) seen_nodes: BTreeSet<String>,
    pub(super) seen_layers: BTreeSet<String>,
}

type Ctx<'a> = &'a RefCell<ParseContext>;

/// Decode a whole topology with `ctx`.
pub(super) fn topology<'de, D: Deserializer<'de>>(
    d: D,
    ctx: Ctx<'_>,
) -> Result<RawTopology, D::Error> {
    d.deserialize_struct("RawTopology", TOPOLOGY_KEYS, Topology(ctx))
}

/// A key of a struct: one of `keys`, else serde's "unknown field" raised inside the key's
/// own deserialization (so it carries the key's position), as `deny_unknown_fields` does.
struct Key(&'static [&'static str]);

impl<'de> DeserializeSeed<'de> for Key {
    type Value = &'static str;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<&'static str, D::Error> {
        d.deserialize_identifier(self)
    }
}

impl<'de> Visitor<'de> for Key {
    type Value = &'static str;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("field identifier")
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<&'static str, E> {
        let known = self.0.iter().copied().find(|k| *k == v);
        known.ok_or_else(|| E::unknown_field(v, self.0))
    }
}

/// A string validated by its check inside its own scalar visitor.
struct Checked<F>(F);

impl<'de, F: FnOnce(&str) -> super::Check> DeserializeSeed<'de> for Checked<F> {
    type Value = String;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<String, D::Error> {
        validated(d, self.0)
    }
}

/// Refuse a key seen twice in one mapping, as a derive does.
fn first_time<E: de::Error>(seen: &mut BTreeSet<&'static str>, key: &'static str) -> Result<(), E> {
    match seen.insert(key) {
        true => Ok(()),
        false => Err(E::duplicate_field(key)),
    }
}

struct Topology<'a>(Ctx<'a>);

impl<'de> Visitor<'de> for Topology<'_> {
    type Value = RawTopology;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("struct RawTopology")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<RawTopology, A::Error> {
        let ctx = self.0;
        let mut seen = BTreeSet::new();
        let (mut name, mut target_kind) = (None, None);
        let (mut kubeconfig, mut endpoint, mut inventory) = (None, None, None);
        let mut context = None;
        let (mut control_group, mut admin_conf, mut catalog, mut lima) = (None, None, None, None);
        let (mut nodes, mut layers) = (Vec::new(), Vec::new());
        let mut acknowledged = Vec::new();
        while let Some(key) = map.next_key_seed(Key(TOPOLOGY_KEYS))? {
            first_time(&mut seen, key)?;
            match key {
                "name" => {
                    let stem = ctx.borrow().expected_stem.clone();
                    let check = |s: &str| check_stack_name(s, stem.as_deref());
                    name = Some(StackName(map.next_value_seed(Checked(check))?));
                }
                "target_kind" => target_kind = Some(map.next_value()?),
                "kubeconfig" => kubeconfig = map.next_value()?,
                "endpoint" => endpoint = map.next_value()?,
                "context" => context = Some(map.next_value_seed(Checked(super::check_context))?),
                "inventory" => inventory = map.next_value()?,
                "control_group" => control_group = map.next_value()?,
                "admin_conf" => admin_conf = map.next_value()?,
                "nodes" => nodes = map.next_value_seed(Nodes(ctx))?,
                "layers" => layers = map.next_value_seed(Layers(ctx))?,
                "catalog" => catalog = map.next_value()?,
                "lima" => lima = map.next_value()?,
                "acknowledged" => {
                    acknowledged =
                        super::acks::from_raw(map.next_value::<Vec<super::acks::RawAck>>()?)
                }
                other => return Err(de::Error::unknown_field(other, TOPOLOGY_KEYS)),
            }
        }
        Ok(RawTopology {
            name: name.ok_or_else(|| de::Error::missing_field("name"))?,
            target_kind: target_kind.ok_or_else(|| de::Error::missing_field("target_kind"))?,
            kubeconfig,
            endpoint,
            context,
            inventory,
            control_group,
            admin_conf,
            nodes,
            layers,
            catalog,
            lima,
            acknowledged,
        })
    }
}

struct Nodes<'a>(Ctx<'a>);

impl<'de> DeserializeSeed<'de> for Nodes<'_> {
    type Value = Vec<NodeDecl>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Vec<NodeDecl>, D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for Nodes<'_> {
    type Value = Vec<NodeDecl>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a sequence")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<NodeDecl>, A::Error> {
        let mut out = Vec::new();
        while let Some(node) = seq.next_element_seed(Node(self.0))? {
            out.push(node);
        }
        Ok(out)
    }
}

struct Node<'a>(Ctx<'a>);

impl<'de> DeserializeSeed<'de> for Node<'_> {
    type Value = NodeDecl;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<NodeDecl, D::Error> {
        d.deserialize_struct("NodeDecl", NODE_KEYS, self)
    }
}

impl<'de> Visitor<'de> for Node<'_> {
    type Value = NodeDecl;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("struct NodeDecl")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<NodeDecl, A::Error> {
        let mut seen = BTreeSet::new();
        let (mut name, mut role) = (None, None);
        while let Some(key) = map.next_key_seed(Key(NODE_KEYS))? {
            first_time(&mut seen, key)?;
            match key {
                "name" => {
                    let check = |s: &str| check_node_name(s, &mut self.0.borrow_mut().seen_nodes);
                    name = Some(NodeName(map.next_value_seed(Checked(check))?));
                }
                "role" => role = Some(map.next_value()?),
                other => return Err(de::Error::unknown_field(other, NODE_KEYS)),
            }
        }
        Ok(NodeDecl {
            name: name.ok_or_else(|| de::Error::missing_field("name"))?,
            role: role.ok_or_else(|| de::Error::missing_field("role"))?,
        })
    }
}

struct Layers<'a>(Ctx<'a>);

impl<'de> DeserializeSeed<'de> for Layers<'_> {
    type Value = Vec<LayerId>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Vec<LayerId>, D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for Layers<'_> {
    type Value = Vec<LayerId>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a sequence")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<LayerId>, A::Error> {
        let mut out = Vec::new();
        loop {
            let check = |s: &str| {
                let mut ctx = self.0.borrow_mut();
                let ParseContext {
                    known_layers,
                    seen_layers,
                    ..
                } = &mut *ctx;
                check_layer_id(s, known_layers.as_ref(), seen_layers)
            };
            match seq.next_element_seed(Checked(check))? {
                Some(id) => out.push(LayerId(id)),
                None => return Ok(out),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::parse;
    use std::collections::BTreeSet;
    use std::path::Path;

    fn refusal(text: &str, known: Option<&BTreeSet<String>>) -> String {
        match parse(text, Path::new("a.yaml"), "a", known) {
            Ok(_) => String::new(),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn each_parse_has_its_own_context() {
        let known: BTreeSet<String> = ["k8s".to_string()].into();
        let text = "name: a\ntarget_kind: prod\nnodes: [{name: n1, role: worker}]\nlayers: [k8s]\n";
        // The same nodes and layers parsed again: nothing was left behind by the first parse.
        for _ in 0..2 {
            assert_eq!(refusal(text, Some(&known)), "");
        }
        assert!(refusal("name: b\ntarget_kind: prod\n", None)
            .contains("a.yaml:1:7: stack name `b` differs"));
        assert!(
            refusal("name: a\ntarget_kind: prod\nlayers: [cni]\n", Some(&known))
                .contains("a.yaml:3:10: unknown layer `cni`")
        );
        assert_eq!(
            refusal("name: a\ntarget_kind: prod\nlayers: [cni]\n", None),
            ""
        );
    }

    #[test]
    fn keys_fail_in_serdes_words() {
        assert!(refusal("name: a\nname: a\ntarget_kind: prod\n", None)
            .contains("duplicate field `name`"));
        assert!(refusal("name: a\n", None).contains("missing required key `target_kind`"));
        assert!(
            refusal("name: a\ntarget_kind: prod\nnodes: [{name: n1}]\n", None)
                .contains("missing required key `role`")
        );
        assert!(refusal("name: a\ntarget_kind: prod\nnodse: []\n", None)
            .contains("a.yaml:3:1: unknown key `nodse` (did you mean `nodes`?)"));
        assert!(refusal(
            "name: a\ntarget_kind: prod\nnodes: [{name: n1, rol: worker}]\n",
            None
        )
        .contains("unknown key `rol` (did you mean `role`?)"));
    }
}
