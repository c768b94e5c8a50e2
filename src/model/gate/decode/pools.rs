//! Rook's pools (`ceph.rook.io/v1` `PoolSpec`): a CephBlockPool's spec is one, a
//! CephFilesystem holds a `metadataPool` and `dataPools` (each named), a CephObjectStore a
//! `metadataPool` and a `dataPool`. Each reduced to its failure domain (Rook's default
//! `host`) and how many failure domains its copies need. A PoolSpec with neither
//! `replicated.size` nor erasure-coded chunks declares no pool (an object store of a
//! multisite zone takes its pools from the zone) and is left out.

use serde::Deserialize;

use super::list;
use super::raw::Meta;
use crate::error::Result;
use crate::model::gate::facts::CephPool;

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct RawPoolSpec {
    failure_domain: String,
    replicated: RawReplicated,
    erasure_coded: RawErasure,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct RawReplicated {
    size: u32,
    replicas_per_failure_domain: u32,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct RawErasure {
    data_chunks: u32,
    coding_chunks: u32,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct RawNamedPool {
    name: String,
    #[serde(flatten)]
    spec: RawPoolSpec,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct RawStoreSpec {
    metadata_pool: RawPoolSpec,
    data_pools: Vec<RawNamedPool>,
    data_pool: RawPoolSpec,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct RawPoolOwner<S> {
    metadata: Meta,
    spec: S,
}

fn pool(owner: String, s: &RawPoolSpec) -> Option<CephPool> {
    let failure_domain = match s.failure_domain.as_str() {
        "" => "host".to_string(),
        d => d.to_string(),
    };
    let r = &s.replicated;
    let e = &s.erasure_coded;
    let (domains_needed, layout) = if r.size > 0 {
        let per = r.replicas_per_failure_domain.max(1);
        let layout = match per {
            1 => format!("replicated size {}", r.size),
            n => format!("replicated size {}, {n} per {failure_domain}", r.size),
        };
        (r.size.div_ceil(per), layout)
    } else if e.data_chunks + e.coding_chunks > 0 {
        (
            e.data_chunks + e.coding_chunks,
            format!("erasure-coded {}+{}", e.data_chunks, e.coding_chunks),
        )
    } else {
        return None;
    };
    Some(CephPool {
        owner,
        failure_domain,
        domains_needed,
        layout,
    })
}

fn subject(kind: &str, m: &Meta) -> String {
    format!("{kind} {}/{}", m.namespace, m.name)
}

/// CephBlockPoolList.
pub fn block_pools(text: &str) -> Result<Vec<CephPool>> {
    list(
        text,
        "ceph.rook.io",
        "CephBlockPool",
        |p: RawPoolOwner<RawPoolSpec>| {
            pool(subject("CephBlockPool", &p.metadata), &p.spec)
                .into_iter()
                .collect()
        },
    )
}

/// CephFilesystemList: each filesystem's metadata pool and data pools.
pub fn filesystem_pools(text: &str) -> Result<Vec<CephPool>> {
    list(
        text,
        "ceph.rook.io",
        "CephFilesystem",
        |fs: RawPoolOwner<RawStoreSpec>| {
            let who = subject("CephFilesystem", &fs.metadata);
            let mut out: Vec<CephPool> = Vec::new();
            out.extend(pool(format!("{who} metadata pool"), &fs.spec.metadata_pool));
            for (i, d) in fs.spec.data_pools.iter().enumerate() {
                let name = match d.name.as_str() {
                    "" => format!("#{i}"),
                    n => n.to_string(),
                };
                out.extend(pool(format!("{who} data pool {name}"), &d.spec));
            }
            out
        },
    )
}

/// CephObjectStoreList: each store's metadata pool and data pool.
pub fn object_store_pools(text: &str) -> Result<Vec<CephPool>> {
    list(
        text,
        "ceph.rook.io",
        "CephObjectStore",
        |s: RawPoolOwner<RawStoreSpec>| {
            let who = subject("CephObjectStore", &s.metadata);
            let mut out: Vec<CephPool> = Vec::new();
            out.extend(pool(format!("{who} metadata pool"), &s.spec.metadata_pool));
            out.extend(pool(format!("{who} data pool"), &s.spec.data_pool));
            out
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Shaped as Rook's examples (deploy/examples/pool.yaml, pool-ec.yaml, filesystem.yaml,
    /// object.yaml) as the API server serves them.
    #[test]
    fn rooks_pools_as_the_api_server_serves_them() {
        let blocks = r#"{"apiVersion":"ceph.rook.io/v1","kind":"CephBlockPoolList","metadata":{"resourceVersion":"81"},"items":[
          {"apiVersion":"ceph.rook.io/v1","kind":"CephBlockPool","metadata":{"name":"replicapool","namespace":"rook-ceph"},
           "spec":{"failureDomain":"host","replicated":{"size":3,"requireSafeReplicaSize":true}},"status":{"phase":"Ready"}},
          {"apiVersion":"ceph.rook.io/v1","kind":"CephBlockPool","metadata":{"name":"ec-data-pool","namespace":"rook-ceph"},
           "spec":{"erasureCoded":{"dataChunks":2,"codingChunks":1},"deviceClass":"hdd"}},
          {"apiVersion":"ceph.rook.io/v1","kind":"CephBlockPool","metadata":{"name":"stretched","namespace":"rook-ceph"},
           "spec":{"failureDomain":"zone","replicated":{"size":4,"replicasPerFailureDomain":2,"subFailureDomain":"host"}}}]}"#;
        let p = block_pools(blocks).expect("decodes");
        let got: Vec<(&str, &str, u32, &str)> = p
            .iter()
            .map(|p| {
                (
                    p.owner.as_str(),
                    p.failure_domain.as_str(),
                    p.domains_needed,
                    p.layout.as_str(),
                )
            })
            .collect();
        assert_eq!(
            got,
            [
                (
                    "CephBlockPool rook-ceph/replicapool",
                    "host",
                    3,
                    "replicated size 3"
                ),
                (
                    "CephBlockPool rook-ceph/ec-data-pool",
                    "host",
                    3,
                    "erasure-coded 2+1"
                ),
                (
                    "CephBlockPool rook-ceph/stretched",
                    "zone",
                    2,
                    "replicated size 4, 2 per zone"
                ),
            ]
        );
        let fs = r#"{"apiVersion":"ceph.rook.io/v1","kind":"CephFilesystemList","items":[
          {"metadata":{"name":"myfs","namespace":"rook-ceph"},
           "spec":{"metadataPool":{"replicated":{"size":3}},"dataPools":[{"name":"replicated","failureDomain":"host","replicated":{"size":3}}],
                   "preserveFilesystemOnDelete":true,"metadataServer":{"activeCount":1,"activeStandby":true}}}]}"#;
        let p = filesystem_pools(fs).expect("decodes");
        assert_eq!(
            p.iter().map(|p| p.owner.as_str()).collect::<Vec<_>>(),
            [
                "CephFilesystem rook-ceph/myfs metadata pool",
                "CephFilesystem rook-ceph/myfs data pool replicated"
            ]
        );
        let os = r#"{"apiVersion":"ceph.rook.io/v1","kind":"CephObjectStoreList","items":[
          {"metadata":{"name":"my-store","namespace":"rook-ceph"},
           "spec":{"metadataPool":{"failureDomain":"host","replicated":{"size":3}},"dataPool":{"failureDomain":"host","erasureCoded":{"dataChunks":2,"codingChunks":1}},"gateway":{"port":80,"instances":1}}},
          {"metadata":{"name":"zone-b-store","namespace":"rook-ceph"},"spec":{"zone":{"name":"zone-b"},"gateway":{"port":80}}}]}"#;
        let p = object_store_pools(os).expect("decodes");
        assert_eq!(p.len(), 2, "{p:?}");
        assert_eq!(p[1].layout, "erasure-coded 2+1");
    }

    #[test]
    fn a_list_of_another_kind_is_a_failed_read() {
        let pods = r#"{"apiVersion":"v1","kind":"PodList","items":[]}"#;
        assert!(block_pools(pods).is_err());
        assert!(filesystem_pools(pods).is_err());
        assert!(object_store_pools("{}").is_err());
    }
}
