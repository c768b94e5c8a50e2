//! Issue 31 item 7 through kubectl's real plugin dispatch (`kubectl nestor ...`): a usage
//! error with `-o json|yaml` (clap's own included) is a `kind: Error` document on stdout, with
//! exit 1 and the hint: kubectl hands the plugin's stdout, stderr and exit code through, so
//! they are exactly what `kubectl-nestor` run directly prints (whose words
//! tests/cli/usage_errors.rs fixes).

use crate::bed_or_skip;
use crate::support::*;

#[test]
fn usage_errors_through_kubectl_are_the_plugins_error_documents() {
    let bed = bed_or_skip!(E2e::dirqual());
    let cases: [&[&str]; 5] = [
        &["preview", "-o", "json", "--request-timeout", "5x"],
        &["preview", "--bogus", "--output=json"],
        &["preview", "--bogus", "-o", "yaml"],
        &["-o", "json", "wait"],
        &["preview", "-ojson", "--detailed-exitcode=yes"],
    ];
    for args in cases {
        let through = run(&bed.through_kubectl("nestor", args));
        let direct = bed.run(args);
        through.code(1);
        direct.code(1);
        let doc = if args.contains(&"yaml") {
            yaml_serde::from_str(&through.stdout).expect("a YAML document")
        } else {
            through.json()
        };
        crate::doc_schema::check(&doc);
        assert_eq!(
            (doc["kind"].as_str(), doc["exitCode"].as_i64()),
            (Some("Error"), Some(1)),
            "{args:?}: {doc:#}"
        );
        let (message, hint) = (
            doc["message"].as_str().unwrap_or_default(),
            doc["hint"].as_str().unwrap_or_default(),
        );
        assert!(!message.is_empty() && !hint.is_empty(), "{args:?}: {doc:#}");
        through.stderr_eq(&format!("kubectl-nestor: error: {message}\nhint: {hint}\n"));
        through.stdout_eq(&direct.stdout);
        through.stderr_eq(&direct.stderr);
    }
}
