//! `oneVersion:` (issue 34 item 5): the components of one layer run one version. Each entry
//! selects workloads (as a `workload:` check does) and says where their version is: the
//! tag of a named container's image (`container: cilium-agent`) or a version label Rook
//! writes on its Deployments (`label: rook-version`). A mix is "upgrade half done".

use super::WorkloadCheck;
pub use crate::model::observation::VERSION_LABELS;

/// Where a selected workload's version is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum VersionFrom {
    /// The tag of this container's image.
    Container(String),
    /// This label's value (one of [`VERSION_LABELS`]).
    Label(String),
}

/// One selection and where its workloads' version is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Versioned {
    pub workload: WorkloadCheck,
    pub from: VersionFrom,
}

/// `oneVersion: [{kind, namespace, name|namePrefix, container|label}, ...]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OneVersionCheck {
    pub each: Vec<Versioned>,
}
