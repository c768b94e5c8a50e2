//! A gate read's answer (SPEC §17, §9 "Bounded per run"): how each [`GateRead`] is decoded
//! while it arrives ([`decode`]), what it kept ([`Answer`]), how a fact is taken out of it
//! (a 404 that is the cluster's answer, a removed API not served, Rook's pools from three
//! kinds), and the pure evaluation of the facts (`gated`). Used by the one gate read path
//! (`gate.rs`) and the named workloads' facts (`gate_components.rs`).

use std::collections::BTreeMap;

use crate::error::Result;
use crate::model::gate::explain::{Gated, Made};
use crate::model::gate::facts::{
    Ceph, CephPool, CnpgCluster, Crd, Node, ObjectRef, Pdb, Pod, Pv, ReadyzCheck, Resources,
};
use crate::model::gate::{self, decode as decoders, Facts, Request};
use crate::model::observation::{FailureKind, Read, ReadFailure};
use crate::pool::Budget;
use crate::read::apiread::gate::GateRead;

/// One gate read's answer, decoded while it arrived into the facts its rules use (SPEC §9
/// "Bounded per run": no answer's text is held but a small named object's or `/readyz`'s,
/// and that charged to the run's budget as it arrives), and for each kind the accessor that
/// takes it out (`None`: the answer is of another kind).
macro_rules! answers {
    ($($variant:ident($t:ty) => $take:ident,)*) => {
        pub(super) enum Answer {
            $($variant($t),)*
        }

        impl Answer {
            $(pub(super) fn $take(self) -> Option<$t> {
                if let Answer::$variant(v) = self {
                    Some(v)
                } else {
                    None
                }
            })*
        }
    };
}

answers! {
    Nodes(Vec<Node>) => nodes,
    Pods(Vec<Pod>) => pods,
    Requests(BTreeMap<String, Resources>) => requests,
    Named(Vec<ObjectRef>) => named,
    Cnpg(Vec<CnpgCluster>) => cnpg,
    Pdbs(Vec<Pdb>) => pdbs,
    Pvs(Vec<Pv>) => pvs,
    Crds(Vec<Crd>) => crds,
    Ceph(Vec<Ceph>) => ceph,
    Count(usize) => count,
    Text(String) => text,
}

/// Decode `body`, the answer to `read` (`GET target`), charging what is kept to `budget` (a
/// read that would cross it fails naming it): the lists as they arrive; `/readyz`, Rook's
/// few pools and the named workloads as the small texts they are.
pub(super) fn decode(
    read: &GateRead,
    target: &str,
    body: &mut dyn std::io::Read,
    budget: &Budget,
) -> Result<Answer> {
    let what = format!("GET {target}");
    let to = decoders::Charged {
        what: &what,
        budget,
    };
    Ok(match read {
        GateRead::Nodes => Answer::Nodes(decoders::read_nodes(body, to)?),
        GateRead::ApiserverPods
        | GateRead::NodePods(_)
        | GateRead::MonPods
        | GateRead::EtcdPods
        | GateRead::OsdPods => Answer::Pods(decoders::read_pods(body, to)?),
        GateRead::ClusterPods => Answer::Requests(decoders::read_requests_per_node(body, to)?),
        GateRead::DaemonSets => Answer::Named(decoders::read_daemonsets(body, to)?),
        GateRead::CnpgClusters => Answer::Cnpg(decoders::read_cnpg_clusters(body, to)?),
        GateRead::Pdbs => Answer::Pdbs(decoders::read_pdbs(body, to)?),
        GateRead::Pvs => Answer::Pvs(decoders::read_pvs(body, to)?),
        GateRead::Crds => Answer::Crds(decoders::read_crds(body, to)?),
        GateRead::CephClusters => Answer::Ceph(decoders::read_ceph_clusters(body, to)?),
        GateRead::RemovedApi { .. } => Answer::Count(decoders::read_count_items(body)?),
        GateRead::Readyz
        | GateRead::CephBlockPools
        | GateRead::CephFilesystems
        | GateRead::CephObjectStores
        | GateRead::CiliumAgent
        | GateRead::CiliumOperator
        | GateRead::RookOperator
        | GateRead::RookDaemons
        | GateRead::CertManager
        | GateRead::CnpgOperator => Answer::Text(decoders::text_from(body, to)?),
    })
}

/// Every answer of a gate, by read.
pub(super) type Answers = BTreeMap<GateRead, Result<Answer, ReadFailure>>;

fn not_sent() -> ReadFailure {
    ReadFailure::new(FailureKind::ApiError, "not sent")
}

/// The answer to `read`, taken out, as `pick` wants it (a read never sent is a failed read).
pub(super) fn take<T>(
    answers: &mut Answers,
    read: &GateRead,
    pick: fn(Answer) -> Option<T>,
) -> Read<T> {
    match answers.remove(read) {
        Some(Ok(a)) => pick(a).ok_or_else(|| {
            ReadFailure::new(FailureKind::ApiError, "decoded as another kind of answer")
        }),
        Some(Err(f)) => Err(f),
        None => Err(not_sent()),
    }
}

/// A list whose 404 is the cluster's answer (the API server does not serve the type: no
/// Rook, no CNPG), which holds nothing: not a failed read.
pub(super) fn or_none_served<T>(read: Read<Vec<T>>) -> Read<Vec<T>> {
    match read {
        Err(f) if f.kind == FailureKind::NotFound => Ok(vec![]),
        other => other,
    }
}

/// A removed API's list: how many objects it holds, `None` when the server does not serve
/// it (404).
pub(super) fn removed_count(read: Read<usize>) -> Read<Option<usize>> {
    match read {
        Err(f) if f.kind == FailureKind::NotFound => Ok(None),
        other => other.map(Some),
    }
}

/// `/readyz?verbose`'s text decoded.
pub(super) fn readyz(read: Read<String>) -> Read<Vec<ReadyzCheck>> {
    read.and_then(|t| {
        decoders::readyz(&t).map_err(|e| ReadFailure::new(FailureKind::BadOutput, e.to_string()))
    })
}

/// Rook's pools from its three pool-holding kinds: a 404 is a kind the API server does not
/// serve (no Rook, or an older one), which holds no pool; any other failed read fails all.
pub(super) fn ceph_pools(answers: &mut Answers) -> Read<Vec<CephPool>> {
    type PoolDecoder = fn(&str) -> Result<Vec<CephPool>>;
    let kinds: [(GateRead, PoolDecoder); 3] = [
        (GateRead::CephBlockPools, decoders::block_pools),
        (GateRead::CephFilesystems, decoders::filesystem_pools),
        (GateRead::CephObjectStores, decoders::object_store_pools),
    ];
    let mut all = Vec::new();
    for (read, decode) in kinds {
        match take(answers, &read, Answer::text) {
            Err(f) if f.kind == FailureKind::NotFound => {}
            Err(f) => return Err(f),
            Ok(t) => all.extend(
                decode(&t).map_err(|e| ReadFailure::new(FailureKind::BadOutput, e.to_string()))?,
            ),
        }
    }
    Ok(all)
}

/// The gate's answer from its facts and requests: the pure evaluation of `request`.
pub(super) fn gated(request: &Request, facts: Facts, made: Vec<Made>) -> Gated {
    Gated {
        evaluation: gate::evaluate(request, &facts, gate::builtin()),
        facts,
        made,
    }
}
