//! Strict decoding of `apiServices: {available: true}`, the one form the check has.

use serde::Deserialize;

use crate::model::catalog::check::ApiServicesCheck;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(in crate::model::catalog) struct RawApiServices {
    available: bool,
}

impl RawApiServices {
    pub(super) fn into_check(self) -> Result<ApiServicesCheck, String> {
        if self.available {
            Ok(ApiServicesCheck::new())
        } else {
            Err("`apiServices:` checks `available: true` (every APIService Available=True)".into())
        }
    }
}
