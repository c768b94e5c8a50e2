//! `nestor-replay`: run the replay API server from the command line, or print a built-in
//! fixture.
//!
//! ```text
//! nestor-replay (--fixture FILE | --generate NAME) [--listen ADDR | --unix-socket PATH] [--latency-ms N]
//!               [--fault 'GET /apis/ceph.rook.io=403']... [--audit FILE] [--port-file FILE]
//!               [--user NAME] [--no-aggregated-discovery] [--exit-on-stdin-eof]
//! nestor-replay --generate NAME            # no server option: print the fixture JSON
//! ```
//!
//! Serving prints `listening on http://127.0.0.1:PORT` on stdout and runs until killed
//! (SIGTERM/SIGINT), or until stdin reaches EOF with `--exit-on-stdin-eof`. With
//! `--unix-socket PATH` it answers on that socket instead (what `kubectl proxy
//! --unix-socket` offers: the tests/cli stub kubectl execs this for its `proxy` call), prints
//! `listening on unix:PATH` and runs until killed.

use nestor_replay::{fixtures, Config, Fixture, Server};
use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;

const USAGE: &str = "\
usage: nestor-replay (--fixture FILE | --generate NAME) [options]
       nestor-replay --generate NAME          print the fixture as JSON and exit
                                              (any server option makes it serve instead)

  --fixture FILE              serve this fixture file
  --generate NAME             built-in fixture: dirqual, dirqual-full, dirqual-gates, dirqual-gates-ec, dirqual-half-upgraded, degraded, bench, big
  --listen ADDR               listen address (default 127.0.0.1:0)
  --unix-socket PATH          listen on a unix socket at PATH instead (created; runs
                              until killed; no --port-file, no --exit-on-stdin-eof)
  --latency-ms N              delay every answer by N ms
  --fault 'METHOD /PREFIX=ACTION'
                              ACTION: 401|403|404|500|<4xx/5xx>|hang:SECS|delay:MS|
                              redirect:URL|serve:PATH|items-null|proxy-error:TEXT;
                              METHOD optional (any); repeatable, first match wins
  --audit FILE                append every request as a JSON line to FILE
  --port-file FILE            write the bound port (digits + newline) to FILE, atomically
  --user NAME                 user named in 403 messages (default nestor)
  --no-aggregated-discovery   serve only legacy discovery (/api, /apis, /apis/G/V)
  --exit-on-stdin-eof         stop when stdin is closed (default: run until killed)
  -h, --help                  this help
";

#[derive(Default)]
struct Args {
    fixture: Option<PathBuf>,
    generate: Option<String>,
    listen: Option<String>,
    unix_socket: Option<PathBuf>,
    latency_ms: u64,
    faults: Vec<String>,
    audit: Option<PathBuf>,
    port_file: Option<PathBuf>,
    user: Option<String>,
    no_aggregated: bool,
    exit_on_stdin_eof: bool,
}

impl Args {
    /// True when any server option was given (with `--generate`, that means serve).
    fn serves(&self) -> bool {
        self.listen.is_some()
            || self.unix_socket.is_some()
            || self.latency_ms > 0
            || !self.faults.is_empty()
            || self.audit.is_some()
            || self.port_file.is_some()
            || self.user.is_some()
            || self.no_aggregated
            || self.exit_on_stdin_eof
    }
}

fn parse_args(argv: &[String]) -> Result<Option<Args>, String> {
    let mut a = Args::default();
    let mut it = argv.iter();
    while let Some(arg) = it.next() {
        let (flag, inline) = match arg.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f, Some(v.to_string())),
            _ => (arg.as_str(), None),
        };
        let mut value = |name: &str| -> Result<String, String> {
            match &inline {
                Some(v) => Ok(v.clone()),
                None => it
                    .next()
                    .cloned()
                    .ok_or_else(|| format!("{name} needs a value")),
            }
        };
        match flag {
            "-h" | "--help" => return Ok(None),
            "--fixture" => a.fixture = Some(value(flag)?.into()),
            "--generate" => a.generate = Some(value(flag)?),
            "--listen" => a.listen = Some(value(flag)?),
            "--unix-socket" => a.unix_socket = Some(value(flag)?.into()),
            "--latency-ms" => {
                let v = value(flag)?;
                a.latency_ms = v
                    .parse()
                    .map_err(|_| format!("--latency-ms: not a number: {v:?}"))?;
            }
            "--fault" => a.faults.push(value(flag)?),
            "--audit" => a.audit = Some(value(flag)?.into()),
            "--port-file" => a.port_file = Some(value(flag)?.into()),
            "--user" => a.user = Some(value(flag)?),
            "--no-aggregated-discovery" => a.no_aggregated = true,
            "--exit-on-stdin-eof" => a.exit_on_stdin_eof = true,
            _ => return Err(format!("unknown argument {arg:?}")),
        }
    }
    for f in &a.faults {
        nestor_replay::FaultRule::parse(f)?;
    }
    if a.unix_socket.is_some()
        && (a.listen.is_some() || a.port_file.is_some() || a.exit_on_stdin_eof)
    {
        return Err(
            "--unix-socket goes with none of --listen, --port-file, --exit-on-stdin-eof".into(),
        );
    }
    if a.fixture.is_some() == a.generate.is_some() {
        return Err("give exactly one of --fixture FILE and --generate NAME".into());
    }
    Ok(Some(a))
}

fn write_port_file(path: &PathBuf, port: u16) -> std::io::Result<()> {
    let tmp = path.with_extension("tmp-nestor-replay");
    std::fs::write(&tmp, format!("{port}\n"))?;
    std::fs::rename(&tmp, path)
}

fn run(a: Args) -> Result<(), String> {
    let fixture: Fixture = match (&a.fixture, &a.generate) {
        (Some(path), _) => Fixture::load(path)?,
        (None, Some(name)) => fixtures::by_name(name).ok_or_else(|| {
            format!(
                "unknown fixture {name:?}; known: {}",
                fixtures::NAMES.join(", ")
            )
        })?,
        (None, None) => unreachable!("checked by parse_args"),
    };
    if a.generate.is_some() && !a.serves() {
        let mut out = std::io::stdout().lock();
        out.write_all(fixture.to_json_pretty().as_bytes())
            .map_err(|e| format!("cannot write the fixture: {e}"))?;
        return Ok(());
    }
    let mut config = Config::new(fixture)
        .listen(a.listen.as_deref().unwrap_or("127.0.0.1:0"))
        .latency_ms(a.latency_ms)
        .aggregated_discovery(!a.no_aggregated);
    for f in &a.faults {
        config = config.fault(f)?;
    }
    if let Some(p) = &a.audit {
        config = config.audit_file(p);
    }
    if let Some(u) = &a.user {
        config = config.user(u);
    }
    if let Some(socket) = &a.unix_socket {
        return Server::serve_unix(config, socket, || {
            let mut out = std::io::stdout().lock();
            let _ = writeln!(out, "listening on unix:{}", socket.display());
            let _ = out.flush();
        });
    }
    let mut server = Server::start(config)?;
    if let Some(p) = &a.port_file {
        write_port_file(p, server.addr().port())
            .map_err(|e| format!("cannot write port file {}: {e}", p.display()))?;
    }
    {
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "listening on {}", server.url());
        let _ = out.flush();
    }
    if a.exit_on_stdin_eof {
        let mut sink = [0u8; 4096];
        let mut stdin = std::io::stdin().lock();
        while matches!(stdin.read(&mut sink), Ok(n) if n > 0) {}
        server.stop();
        Ok(())
    } else {
        loop {
            std::thread::park();
        }
    }
}

fn main() -> ExitCode {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    let args = match parse_args(&argv) {
        Ok(Some(a)) => a,
        Ok(None) => {
            print!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            eprintln!("nestor-replay: {e}\n\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    match run(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("nestor-replay: {e}");
            ExitCode::FAILURE
        }
    }
}
