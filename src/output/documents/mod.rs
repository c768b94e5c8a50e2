//! Every `nestor/v1` document nestor prints, in one place so that the output contract
//! (docs/output.md) is read in one module: serde field names are the contract, and the
//! commands in `cmd/` only fill these structs. One file per command family:
//!
//! | kind | struct | file |
//! |---|---|---|
//! | `Preview` | `output::report::Preview` | `report.rs` (with its tables) |
//! | `PreviewList` | `PreviewList` (`Item`, `Total`, `ErrorDoc`, `SharedEndpoint`) | `fleet.rs` |
//! | `Discovery` | `Discovery` | `discover.rs` |
//! | `Target` | `TargetDoc` | `target.rs` |
//! | `Wait` | `WaitDoc` (`LayerDoc`) | `wait.rs` |
//! | `Diff` | `DiffDoc` (`Side`) | `diff.rs` |
//! | `Catalog`, `CatalogLayer` | `CatalogDoc`, `CatalogLayerDoc` (`Source`, `LayerDoc`, `HostDoc`, `CheckDoc`) | `catalog.rs` |
//! | `StackList`, `Stack`, `StackCurrent` | `StackList` (`StackRow`), `StackDoc` (`NodeRow`), `StackCurrent` | `stack.rs` |
//! | `Version` | `Version` | `version.rs` |
//! | `Gate`, `GateRules` | `GateDoc` (`VerdictDoc`, `OutcomeDoc`, `FindingDoc`), `GateRulesDoc` (`RuleDoc`) | `gate.rs` |
//! | `Snapshot` | `model::snapshot::Snapshot` (read back as well as written: model) | — |
//!
//! The `target` block every document shares is `model::snapshot::TargetRef`. Every struct
//! here also derives `JsonSchema`: `output::schema` lists each kind, `docs/schema/` holds
//! the generated schemas (a field added here changes them: regenerate, docs/testing.md).

pub(crate) mod catalog;
pub(crate) mod diff;
pub(crate) mod discover;
pub(crate) mod fleet;
pub(crate) mod gate;
pub(crate) mod stack;
pub(crate) mod target;
pub(crate) mod version;
pub(crate) mod wait;
