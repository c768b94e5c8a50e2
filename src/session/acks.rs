//! The topology's acknowledgements applied to a stack's judgment (SPEC §6 v0.4), the same
//! for every command that judges a stack: each failing check they cover is marked, and each
//! one that does not apply (expired, too far, matching nothing, on an unknown or absent
//! layer) is a warning on stderr with its `hint:`, on every run.

use crate::model::ack::{self, Acknowledgement};
use crate::model::observation::Observation;
use crate::model::state::LayerReport;
use crate::output::render;

/// Mark `reports`, each acknowledgement's expiry judged on the day of the run (a replayed
/// snapshot never revives an expired one; the warning names the day it was read), printing
/// the warnings.
pub(super) fn apply(acks: &[Acknowledgement], reports: &mut [LayerReport], obs: &Observation) {
    mark(acks, reports, obs, true);
}

/// [`apply`], the warnings printed only when `warn`: a wait judges every poll, and says
/// once (at its first) which acknowledgements do not apply.
pub(super) fn mark(
    acks: &[Acknowledgement],
    reports: &mut [LayerReport],
    obs: &Observation,
    warn: bool,
) {
    let now = crate::clock::now_secs();
    let days = ack::Days {
        today: now.div_euclid(86_400),
        read: obs.observed_at.unwrap_or(now).div_euclid(86_400),
    };
    let warnings = ack::apply(acks, reports, days);
    if !warn {
        return;
    }
    for w in warnings {
        render::notice(&format!("warning: {}", w.message));
        render::hint(&w.hint);
    }
}
