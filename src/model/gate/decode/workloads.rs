//! The component gates' workload decoders: a DaemonSet or Deployment read by name, or a
//! Deployment list, reduced to each container's image (its tag is the version), Rook's
//! `rook-version` labels and the ready counts. A named object of another kind, or a tag
//! that is no version, is a failed read (its rule undecided), never "not installed".

use super::list;
use super::raw::RawWorkload;
use crate::error::{Error, Result};
use crate::model::gate::facts::{RookLabel, WorkloadImage};
use crate::model::gate::version::Version;

/// (ready, desired): a DaemonSet counts scheduled pods, a Deployment replicas (default 1).
fn pods(kind: &str, w: &RawWorkload) -> (i64, i64) {
    if kind == "DaemonSet" {
        (w.status.number_ready, w.status.desired_number_scheduled)
    } else {
        (w.status.ready_replicas, w.spec.replicas.unwrap_or(1))
    }
}

fn images(kind: &str, w: RawWorkload) -> Vec<WorkloadImage> {
    let workload = format!("{kind} {}/{}", w.metadata.namespace, w.metadata.name);
    let pods = pods(kind, &w);
    w.spec
        .template
        .spec
        .containers
        .into_iter()
        .map(|c| WorkloadImage {
            workload: workload.clone(),
            container: c.name,
            image: c.image,
            pods,
        })
        .collect()
}

/// DaemonSetList or DeploymentList (`kind`): every container image of every workload.
pub fn workload_images(text: &str, kind: &str) -> Result<Vec<WorkloadImage>> {
    list(text, "apps", kind, |w: RawWorkload| images(kind, w))
}

/// One object of `kind` as the API server serves a GET by name (its `kind` says so).
fn object(text: &str, kind: &str) -> Result<RawWorkload> {
    let bad = |detail: String| {
        Error::input(
            format!("malformed {kind}: {detail}"),
            format!("expected one JSON {kind} object, as the API server serves it"),
        )
    };
    let w: RawWorkload = serde_json::from_str(text).map_err(|e| bad(e.to_string()))?;
    match w.kind.as_deref() {
        Some(k) if k == kind => Ok(w),
        other => Err(bad(format!(
            "an object of kind `{}`",
            crate::term::escape(other.unwrap_or_default())
        ))),
    }
}

/// A DaemonSet or Deployment read by name: its container images.
pub fn workload_object(text: &str, kind: &str) -> Result<Vec<WorkloadImage>> {
    Ok(images(kind, object(text, kind)?))
}

/// DeploymentList of the Rook namespace: each Deployment's `rook-version` label.
pub fn rook_versions(text: &str) -> Result<Vec<RookLabel>> {
    list(text, "apps", "Deployment", |w: RawWorkload| {
        vec![RookLabel {
            rook_version: w.metadata.labels.get("rook-version").cloned(),
            from_image: false,
            pods: pods("Deployment", &w),
            deployment: w.metadata.name,
        }]
    })
}

/// The Rook operator's Deployment read by name: its version is its image's tag
/// (`docker.io/rook/ceph:v1.16.4`; Rook labels its daemons, not its operator).
pub fn rook_operator(text: &str) -> Result<RookLabel> {
    let w = object(text, "Deployment")?;
    let tag = w
        .spec
        .template
        .spec
        .containers
        .iter()
        .find(|c| c.name == "rook-ceph-operator")
        .or_else(|| w.spec.template.spec.containers.first())
        .and_then(|c| {
            let no_digest = c.image.split('@').next().unwrap_or_default();
            let last = no_digest.rsplit('/').next().unwrap_or_default();
            last.split_once(':').map(|(_, t)| t.to_string())
        });
    Ok(RookLabel {
        rook_version: tag,
        from_image: true,
        pods: pods("Deployment", &w),
        deployment: w.metadata.name,
    })
}

/// A component's version from its workload read by name (`kind`): the tag of the container
/// named `container` (or of the first one). An image without a version tag is an error.
pub fn component_version(text: &str, kind: &str, container: Option<&str>) -> Result<Version> {
    let imgs = workload_object(text, kind)?;
    let img = match container {
        Some(name) => imgs.iter().find(|i| i.container == name),
        None => imgs.first(),
    };
    let Some(img) = img else {
        return Err(Error::input(
            format!(
                "{kind} has no container `{}`",
                crate::term::escape(container.unwrap_or("(any)"))
            ),
            "nestor reads the version from the container the upstream chart names",
        ));
    };
    Version::of_image(&img.image).ok_or_else(|| {
        Error::input(
            format!(
                "{}: image `{}` carries no version tag",
                img.workload,
                crate::term::escape(&img.image)
            ),
            "nestor reads a component's version from its image tag (name:v1.2.3)",
        )
    })
}
