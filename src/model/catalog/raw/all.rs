//! An `all:` check: every object of a selection satisfies one predicate (a field's
//! expectation, a condition True or not False, none of some conditions), none is fine.

use super::*;

impl RawAll {
    pub(super) fn into_check(self) -> std::result::Result<AllCheck, String> {
        let a = self;
        let objs = objects(a.resource, a.kind, a.namespace, a.name)?;
        let field = a.field.as_deref().map(FieldPath::parse).transpose()?;
        let expect = expectation(
            field.as_ref(),
            Given {
                in_: a.in_,
                not_in: a.not_in,
                equals: a.equals,
                equals_field: a.equals_field,
                exists: a.exists,
                min_validity: a.min_validity,
                max_age: a.max_age,
            },
        )?;
        let no_conditions = match a.no_conditions {
            Some(ts) if ts.is_empty() || ts.iter().any(|t| t.trim().is_empty()) => {
                return Err(
                    "`noConditions:` needs condition types such as `[ComparisonError]`".to_string(),
                )
            }
            other => other,
        };
        let not_false = a.not_false.filter(|t| !t.trim().is_empty());
        let predicate = match (field, expect, a.condition, no_conditions, not_false) {
            (Some(f), Some(e), None, None, None) => Predicate::Field(f, e),
            (None, None, Some(t), None, None) if !t.trim().is_empty() => Predicate::Condition(t),
            (None, None, None, Some(ts), None) => Predicate::NoConditions(ts),
            (None, None, None, None, Some(t)) => Predicate::NotFalse(t),
            _ => {
                return Err(
                    "`all:` needs one of `field:` with its expectation, `condition: \
                     TYPE`, `notFalse: TYPE` or `noConditions: [TYPE, ...]`"
                        .to_string(),
                )
            }
        };
        let quote = a.quote.as_deref().map(FieldPath::parse).transpose()?;
        let with_field = a.with_field.as_deref().map(FieldPath::parse).transpose()?;
        Ok(AllCheck {
            objects: objs,
            predicate,
            quote,
            with_field,
        })
    }
}
