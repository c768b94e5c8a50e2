//! The read pipeline of a stack, once for every command (SPEC §5, §9, §14): the read plan
//! from the stack's catalog, the hosts decided before any process, the target opened
//! ([`Opened`]), the reads (kube and hosts in parallel, limactl beside them for a bench), the
//! reachability rule, and the judgment. `preview`, `preview --all` and `diff -` ask for
//! [`preview`]; `wait` for a [`Watch`] and its polls; `discover` for a [`Survey`]. A command
//! renders what it is given; it composes none of this.

use std::borrow::Cow;
use std::path::Path;
use std::time::Instant;

use crate::error::{Error, Result};
use crate::model::catalog::{Catalog, ReadPlan, Workloads};
use crate::model::observation::host::HostObservation;
use crate::model::observation::{LimaInstance, Observation, ReadRequest};
use crate::model::plan::{self, Plan};
use crate::model::snapshot::TargetRef;
use crate::model::state::{self, LayerReport};
use crate::output::report::{self, Preview, Real, Source, StackRef};
use crate::read::hosts::HostPlan;
use crate::read::reader::{self, Reader};
use crate::stack::{TargetKind, Topology};
use crate::target::Chosen;

use super::{replay, resolve, Ground, Hosts, Opened, Resolved, Session};

/// One stack, read (or replayed) and judged; nothing printed but the target's notices and,
/// with a prompt, the confirmation.
pub struct Observed {
    pub preview: Preview,
    /// What was read, as a snapshot would hold it.
    pub observation: Observation,
    /// The hosts read over ssh, when some were (for `--explain`).
    pub hosts: Option<HostPlan>,
}

/// What was read, from where.
struct Reading {
    obs: Observation,
    target: Option<TargetRef>,
    vms: Option<Vec<LimaInstance>>,
    source: Source,
    /// Why there is no cluster to judge (a bench not bootstrapped).
    no_cluster: Option<String>,
}

/// Read `stack` under the target policy of `ground` (live), or replay `snapshot`, and judge
/// it: the `Preview` of `preview`, each stack of `preview --all`, and `diff -`'s live side.
pub fn preview(
    ground: Ground,
    stack: &Topology,
    snapshot: Option<&Path>,
    no_ssh: bool,
) -> Result<Observed> {
    let catalog = &stack.catalog;
    let layer_ids = stack.layer_ids();
    // Workloads only in the namespaces the checks name: the same verdicts for a fraction of
    // the bytes (every deployment of a big cluster weighs megabytes). The nodes are always
    // shown, and read for the confirmation.
    let mut plan = catalog
        .read_plan(&layer_ids, Workloads::InTheirNamespaces)
        .first(ReadRequest::Nodes);
    // In the second round: the Warning Events of the degraded layers' failing objects (SPEC
    // §6 v0.4 "Warnings explain"), named by what the first round read (SPEC §11); none when
    // no layer is degraded. The states are decided again once everything is read.
    plan.scope.events = true;
    let declared = stack.declared_nodes();
    let events = |o: &Observation| {
        state::events::event_reads(&state::evaluate(catalog, &layer_ids, &declared, o), o)
    };
    let (opened, hosts) = match (stack.kind(), snapshot) {
        (TargetKind::Prod, Some(file)) => (replay(stack, file)?, Hosts::None),
        (TargetKind::Lima, Some(_)) => {
            return Err(Error::input(
                format!(
                    "stack {} is a lima bench: --snapshot replays prod observations only",
                    stack.name()
                ),
                "drop --snapshot: the bench is read live (limactl and its own kubeconfig)",
            ))
        }
        (TargetKind::Prod, None) => {
            // Validated before any process runs: a hostile inventory never reaches ssh.
            let hosts = Hosts::prepare(ground, stack, &plan.host_layers, no_ssh)?;
            (resolve(ground, Some(stack))?.open(Some(&plan))?, hosts)
        }
        (TargetKind::Lima, None) => {
            let hosts = Hosts::skipped_if_any(
                &plan.host_layers,
                "not read: host-level layers are read on prod stacks only",
            );
            (resolve(ground, Some(stack))?.open(Some(&plan))?, hosts)
        }
    };
    let reading = match opened {
        Opened::Replay(r) => Reading {
            target: Some(r.target),
            vms: None,
            source: Source::Snapshot {
                file: r.file.display().to_string(),
                taken_at: r.snapshot.taken_at.clone(),
            },
            obs: r.snapshot.observation,
            no_cluster: None,
        },
        Opened::Live(session) => match stack.kind() {
            TargetKind::Prod => {
                // No result is printed before the confirmation; the hosts are read over ssh
                // in parallel.
                let obs = session.read_then(&plan, &hosts, &events)?;
                session.reachable(&obs)?;
                Reading {
                    target: Some(session.target_ref()),
                    obs,
                    vms: None,
                    source: Source::Live,
                    no_cluster: None,
                }
            }
            TargetKind::Lima => {
                // limactl and the bench's reads in parallel.
                let (vms, kube) = crate::pool::beside(
                    || reader::lima_instances(ground.runner, &stack.instance_names()),
                    || session.read_then(&plan, &hosts, &events),
                );
                let vms =
                    vms.unwrap_or_else(|| Err(Error::internal("the limactl thread panicked")));
                Reading {
                    obs: kube?,
                    target: Some(session.target_ref()),
                    vms: Some(vms?),
                    source: Source::Live,
                    no_cluster: None,
                }
            }
        },
        Opened::NoCluster(none) => {
            let mut obs = none.observation();
            obs.hosts = hosts.read(ground.runner);
            Reading {
                obs,
                target: None,
                vms: Some(reader::lima_instances(
                    ground.runner,
                    &stack.instance_names(),
                )?),
                source: Source::Live,
                no_cluster: Some(none.evidence()),
            }
        }
    };
    let mut reports = judge(catalog, &layer_ids, &declared, &reading);
    super::acks::apply(&stack.raw.acknowledged, &mut reports, &reading.obs);
    let instances = stack.instance_names();
    let (vm_plan, vm_rows) = match &reading.vms {
        Some(found) => (
            plan::vm_plan(&instances, found),
            Some(report::vm_rows(&instances, found)),
        ),
        None => (plan::VmPlan::default(), None),
    };
    let plan = Plan::build(catalog, &reports, vm_plan);
    let preview = Preview::new(
        StackRef {
            name: stack.name().to_string(),
            target_kind: stack.kind().as_str(),
            file: stack.file.display().to_string(),
        },
        reading.source,
        reading.target,
        Real::new(vm_rows, declared.len(), &reading.obs, reports),
        plan,
    );
    Ok(Observed {
        preview,
        observation: reading.obs,
        hosts: hosts.into_plan(),
    })
}

/// One state per layer: from what was read, or, without a cluster, absent for that reason.
fn judge(
    catalog: &Catalog,
    ids: &[String],
    declared: &[state::DeclaredNode],
    reading: &Reading,
) -> Vec<LayerReport> {
    match &reading.no_cluster {
        Some(why) => state::without_cluster(catalog, ids, &reading.obs, why),
        None => state::evaluate(catalog, ids, declared, &reading.obs),
    }
}

/// `wait`: a stack's Kubernetes layers, polled through one kept proxy after one confirmation.
pub struct Watch<'r, 's> {
    ground: Ground<'r>,
    stack: &'s Topology,
    ids: Vec<String>,
    plan: ReadPlan,
    opened: Opened<'r>,
}

impl<'r, 's> Watch<'r, 's> {
    /// The target policy (SPEC §5: the endpoint checked before any kubectl without a prompt,
    /// or the prompt, once, before the first poll) and kubectl's own reading of the file;
    /// every poll is pinned to the result. `ids`: layers of the stack's catalog read
    /// through Kubernetes.
    pub fn open(ground: Ground<'r>, stack: &'s Topology, ids: &[String]) -> Result<Self> {
        // The nodes are read every poll: they answer "is the cluster there at all".
        let plan = stack
            .catalog
            .read_plan(ids, Workloads::InTheirNamespaces)
            .first(ReadRequest::Nodes);
        let opened = resolve(ground, Some(stack))?.open(Some(&plan))?;
        Ok(Watch {
            ground,
            stack,
            ids: ids.to_vec(),
            plan,
            opened,
        })
    }

    /// The target in the document's shape (`None`: a bench without a cluster).
    pub fn target(&self) -> Option<TargetRef> {
        match &self.opened {
            Opened::Live(session) => Some(session.target_ref()),
            Opened::NoCluster(_) | Opened::Replay(_) => None,
        }
    }

    /// The polls, through one proxy kept until they are dropped.
    pub fn polls(&self) -> Polls<'_, 'r, 's> {
        let reader = match &self.opened {
            Opened::Live(session) => Some(session.polling_reader()),
            Opened::NoCluster(_) | Opened::Replay(_) => None,
        };
        Polls {
            watch: self,
            reader,
            count: 0,
        }
    }
}

/// [`Watch::polls`]: each [`Polls::poll`] reads and judges the layers once.
pub struct Polls<'w, 'r, 's> {
    watch: &'w Watch<'r, 's>,
    reader: Option<Reader<'w>>,
    count: u64,
}

impl Polls<'_, '_, '_> {
    /// Read and judge. Unreachable at the first poll is exit 4; later, a blip makes the
    /// layers unknown (never reached) and the wait goes on.
    pub fn poll(&mut self) -> Result<Vec<LayerReport>> {
        self.count += 1;
        let w = self.watch;
        let reading = match (&w.opened, &self.reader) {
            (Opened::Live(session), Some(reader)) => {
                let started = Instant::now();
                let obs = session.read_with(reader, &w.plan, &Hosts::None, &|_| Vec::new())?;
                w.ground.runner.trace(&format!(
                    "wait: poll {} read in {:.3}s",
                    self.count,
                    started.elapsed().as_secs_f64()
                ));
                if self.count == 1 {
                    session.reachable(&obs)?;
                }
                live_reading(obs)
            }
            (Opened::NoCluster(none), _) => Reading {
                obs: none.observation(),
                no_cluster: Some(none.evidence()),
                ..live_reading(Observation::skipped("not read"))
            },
            (Opened::Live(_), None) | (Opened::Replay(_), _) => {
                return Err(Error::internal("a wait without its reader"))
            }
        };
        let declared = w.stack.declared_nodes();
        let mut reports = judge(&w.stack.catalog, &w.ids, &declared, &reading);
        // Acknowledged findings are marked on every poll, warned about at the first only.
        let first = self.count == 1;
        super::acks::mark(&w.stack.raw.acknowledged, &mut reports, &reading.obs, first);
        Ok(reports)
    }

    /// How many polls were made.
    pub fn count(&self) -> u64 {
        self.count
    }
}

fn live_reading(obs: Observation) -> Reading {
    Reading {
        obs,
        target: None,
        vms: None,
        source: Source::Live,
        no_cluster: None,
    }
}

/// `discover`: a cluster's whole inventory and every catalog layer detected, read through a
/// confirmed session.
pub struct Survey<'r, 's> {
    ground: Ground<'r>,
    stack: Option<&'s Topology>,
    catalog: Cow<'s, Catalog>,
    ids: Vec<String>,
    plan: ReadPlan,
    pub session: Session<'r>,
}

/// What a [`Survey`] found.
pub struct Surveyed {
    pub observation: Observation,
    /// Every catalog layer, judged with the registered nodes as the declared ones.
    pub layers: Vec<LayerReport>,
    pub target: TargetRef,
    pub chosen: Chosen,
}

impl<'r, 's> Survey<'r, 's> {
    /// Open `resolved` for the survey (its proxy starting while kubectl's view is checked);
    /// a bench without its kubeconfig is refused: nothing to discover.
    pub fn open(resolved: Resolved<'r, 's>) -> Result<Self> {
        let (ground, stack) = (resolved.ground, resolved.stack);
        let catalog = match stack {
            Some(s) => Cow::Borrowed(&s.catalog),
            None => Cow::Owned(Catalog::builtin()?),
        };
        let ids: Vec<String> = catalog.ids().into_iter().map(String::from).collect();
        // Whole lists, no namespace scope: a saved snapshot may be judged by another catalog.
        let plan = catalog.read_plan(&ids, Workloads::Everywhere).also(&[
            ReadRequest::Nodes,
            ReadRequest::ApiGroups,
            ReadRequest::Namespaces,
            ReadRequest::StorageClasses,
        ]);
        let session = resolved.open_live(Some(&plan), "nothing to discover")?;
        Ok(Survey {
            ground,
            stack,
            catalog,
            ids,
            plan,
            session,
        })
    }

    /// Read and judge. A prod stack's declared host-level layers are read too, so that a
    /// saved snapshot replays them; only when the cluster is the stack's own (its declared
    /// endpoint), and with the inventory validated before any process runs.
    pub fn read(self, no_ssh: bool) -> Result<Surveyed> {
        let server = &self.session.agreed.server;
        let own_cluster = self.session.declared_endpoint().is_some_and(|(_, m)| m);
        let hosts = match self.stack.filter(|s| s.kind() == TargetKind::Prod) {
            Some(s) if own_cluster => Hosts::prepare(self.ground, s, &host_layers(s), no_ssh)?,
            Some(s) => Hosts::skipped_if_any(
                &host_layers(s),
                format!(
                    "not read: {server} is not the declared endpoint of stack {}",
                    s.name()
                ),
            ),
            None => Hosts::None,
        };
        let mut obs = self.session.read(&self.plan, &hosts)?;
        if obs.hosts.is_empty() {
            // No stack's hosts were read: say so, rather than "group not read".
            obs.hosts = HostObservation::skipped(
                "not read: host-level, read over ssh on the hosts of a prod stack's inventory",
            );
        }
        self.session.reachable(&obs)?;
        // Detection judges the cluster as found: its registered nodes are the declared ones.
        let registered: Vec<state::DeclaredNode> = obs
            .nodes
            .as_ref()
            .map(|n| {
                n.iter()
                    .map(|n| state::DeclaredNode::named(&n.name))
                    .collect()
            })
            .unwrap_or_default();
        let layers = state::evaluate(&self.catalog, &self.ids, &registered, &obs);
        Ok(Surveyed {
            target: self.session.target_ref(),
            observation: obs,
            layers,
            chosen: self.session.chosen,
        })
    }
}

/// The stack's declared host-level layers (read over ssh), by id: the one rule of
/// [`crate::read::hosts::host_layers`].
fn host_layers(stack: &Topology) -> Vec<String> {
    crate::read::hosts::host_layers(&stack.catalog, &stack.layer_ids())
        .into_iter()
        .map(|l| l.id.clone())
        .collect()
}
