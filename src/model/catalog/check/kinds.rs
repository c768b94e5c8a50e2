//! The machinery behind the one table of check kinds (`check_kinds!` in `check.rs`, issue 30
//! item 2): the table is written once, as a macro that hands its rows to a callback, and
//! every place that must treat each kind is one of these callbacks, so a new row reaches
//! them all without editing them.
//!
//! - [`define_check_kind`] writes `CheckKind` itself (one variant per row, its typed check
//!   inside), with `CheckKey` derived from it;
//! - [`match_kind!`] is an exhaustive `match` over `CheckKind` with one body for every
//!   variant (`match_kind!(kind, |c| Reads::reads(c, &mut r))`): the body is checked by
//!   the compiler for each kind's typed check, so a kind that lacks a trait is a compile
//!   error naming it, never a silent default.
//!
//! What each kind provides is a trait implemented on its typed check: `Decode` (its raw
//! form, `raw.rs`), `Reads` (`reads.rs`), `Display` (its words, `describe.rs`), and above
//! this module `state::Judge` and `state::ShowByHand`. Hand-written rather than a crate:
//! `enum_dispatch` does this for one trait per enum through state kept between proc-macro
//! invocations (fragile under incremental builds, and it cannot reach a trait defined in a
//! layer above the enum's); these twenty lines of `macro_rules!` are the whole mechanism.

/// Writes the `CheckKind` enum from the table's rows (the callback of `check_kinds!`).
macro_rules! define_check_kind {
    ({ $(#[$enum_meta:meta])* } $( $(#[$meta:meta])* $variant:ident($check:ty), )*) => {
        $(#[$enum_meta])*
        pub enum CheckKind {
            $( $(#[$meta])* $variant($check), )*
        }
    };
}
pub(crate) use define_check_kind;

/// An exhaustive `match` over a `&CheckKind`: `match_kind!(kind, |c| body)` runs `body`
/// with `c` bound to the kind's typed check, whichever it is.
macro_rules! match_kind {
    ($kind:expr, |$check:ident| $body:expr) => {
        $crate::model::catalog::check_kinds!($crate::model::catalog::kind_arms {
            $kind,
            $check,
            $body
        })
    };
}
pub(crate) use match_kind;

/// The arms of [`match_kind!`] (a callback of `check_kinds!`).
macro_rules! kind_arms {
    ({ $kind:expr, $check:ident, $body:expr } $( $(#[$meta:meta])* $variant:ident($ty:ty), )*) => {
        match $kind {
            $( $crate::model::catalog::CheckKind::$variant($check) => $body, )*
        }
    };
}
pub(crate) use kind_arms;
