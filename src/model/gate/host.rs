//! What the gates' host reads answer (SPEC §17), parsed by pure functions: `timedatectl
//! show` (systemd's `show` format: one `Key=value` line per property of
//! `org.freedesktop.timedate1`, booleans written `yes`/`no`) and the cgroup probe (the
//! section 13 `find -printf` form on `/sys/fs/cgroup`, looking for `cgroup.controllers`,
//! which only the unified cgroup v2 hierarchy mounted there has). An answer that is not
//! that shape is an error, never a "yes" or a "no".

/// The `find` of the cgroup probe looks in this directory...
pub const CGROUP_DIR: &str = "/sys/fs/cgroup";
/// ...for this file: present exactly when `/sys/fs/cgroup` is the cgroup v2 hierarchy.
pub const CGROUP_FILE: &str = "cgroup.controllers";

/// One host's clock as `timedatectl show` reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TimeSync {
    /// `NTPSynchronized=`: the kernel says the clock is synchronised (`adjtimex`).
    pub synchronized: bool,
    /// `NTP=`: a network time service is enabled (`None`: not printed).
    pub ntp: Option<bool>,
    /// `TimeUSec=`: the host's clock when it answered, as timedatectl wrote it.
    pub time: Option<String>,
}

impl TimeSync {
    /// A synchronised host with NTP on (fixtures).
    pub fn synced() -> TimeSync {
        TimeSync {
            synchronized: true,
            ntp: Some(true),
            time: None,
        }
    }
}

fn yes_no(key: &str, value: &str) -> Result<bool, String> {
    match value {
        "yes" => Ok(true),
        "no" => Ok(false),
        other => Err(format!(
            "timedatectl show: `{key}={}` is neither yes nor no",
            crate::term::escape_capped(other, 40)
        )),
    }
}

/// `timedatectl show`'s answer → the clock facts. `NTPSynchronized=` must be there, once,
/// `yes` or `no`; a line that is not `Key=value` is refused (it is not that command's output).
pub fn parse_timedatectl(text: &str) -> Result<TimeSync, String> {
    let mut synchronized = None;
    let mut ntp = None;
    let mut time = None;
    for line in text.lines().filter(|l| !l.is_empty()) {
        let Some((key, value)) = line.split_once('=') else {
            return Err(format!(
                "timedatectl show: `{}` is not a Key=value line",
                crate::term::escape_capped(line, 60)
            ));
        };
        match key {
            "NTPSynchronized" if synchronized.is_some() => {
                return Err("timedatectl show: NTPSynchronized is printed twice".into());
            }
            "NTPSynchronized" => synchronized = Some(yes_no(key, value)?),
            "NTP" => ntp = Some(yes_no(key, value)?),
            "TimeUSec" => time = Some(crate::term::escape_capped(value, 60)),
            _ => {}
        }
    }
    let Some(synchronized) = synchronized else {
        return Err("timedatectl show printed no NTPSynchronized= line".into());
    };
    Ok(TimeSync {
        synchronized,
        ntp,
        time,
    })
}

/// The cgroup probe's `find -printf '%T@ %s %p\n'` answer → whether `/sys/fs/cgroup` is
/// cgroup v2: one line naming `/sys/fs/cgroup/cgroup.controllers`, or nothing (v1, or the
/// hybrid layout where v2 is only under `unified/`). Anything else is refused.
pub fn parse_cgroup(text: &str) -> Result<bool, String> {
    let wanted = format!("{CGROUP_DIR}/{CGROUP_FILE}");
    let lines: Vec<&str> = text.lines().filter(|l| !l.is_empty()).collect();
    match lines.as_slice() {
        [] => Ok(false),
        [line] => {
            let mut parts = line.splitn(3, ' ');
            let (mtime, size, path) = (parts.next(), parts.next(), parts.next());
            let numbers = mtime.is_some_and(|m| m.parse::<f64>().is_ok())
                && size.is_some_and(|s| s.parse::<u64>().is_ok());
            if numbers && path == Some(wanted.as_str()) {
                Ok(true)
            } else {
                Err(format!(
                    "the cgroup probe printed `{}`, not `MTIME SIZE {wanted}`",
                    crate::term::escape_capped(line, 80)
                ))
            }
        }
        more => Err(format!(
            "the cgroup probe printed {} lines for one file name",
            more.len()
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What systemd 252's `timedatectl show` prints, in its vtable's order.
    const SYNCED: &str = "Timezone=Etc/UTC\nLocalRTC=no\nCanNTP=yes\nNTP=yes\nNTPSynchronized=yes\nTimeUSec=Wed 2026-12-02 00:48:53 UTC\nRTCTimeUSec=Wed 2026-12-02 00:48:53 UTC\n";

    #[test]
    fn timedatectl_show_synced_and_not() {
        assert_eq!(
            parse_timedatectl(SYNCED),
            Ok(TimeSync {
                synchronized: true,
                ntp: Some(true),
                time: Some("Wed 2026-12-02 00:48:53 UTC".into()),
            })
        );
        let off = SYNCED
            .replace("NTPSynchronized=yes", "NTPSynchronized=no")
            .replace("NTP=yes", "NTP=no");
        let t = parse_timedatectl(&off).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!((t.synchronized, t.ntp), (false, Some(false)));
    }

    #[test]
    fn timedatectl_answers_that_are_not_its_shape_are_refused() {
        let cases = [
            ("", "timedatectl show printed no NTPSynchronized= line"),
            (
                "Timezone=Etc/UTC\nNTP=yes\n",
                "timedatectl show printed no NTPSynchronized= line",
            ),
            (
                "NTPSynchronized=maybe\n",
                "timedatectl show: `NTPSynchronized=maybe` is neither yes nor no",
            ),
            (
                "NTPSynchronized=yes\nNTPSynchronized=no\n",
                "timedatectl show: NTPSynchronized is printed twice",
            ),
            (
                "Local time: Wed 2026-12-02\nNTPSynchronized=yes\n",
                "timedatectl show: `Local time: Wed 2026-12-02` is not a Key=value line",
            ),
            (
                "NTPSynchronized=\x1b[31myes\n",
                "timedatectl show: `NTPSynchronized=\\x1b[31myes` is neither yes nor no",
            ),
        ];
        for (text, want) in cases {
            assert_eq!(parse_timedatectl(text), Err(want.to_string()), "{text:?}");
        }
    }

    #[test]
    fn cgroup_probe_v2_v1_and_refused() {
        assert_eq!(
            parse_cgroup("1764633600.0000000000 0 /sys/fs/cgroup/cgroup.controllers\n"),
            Ok(true)
        );
        assert_eq!(parse_cgroup(""), Ok(false));
        assert_eq!(
            parse_cgroup("1 0 /sys/fs/cgroup/unified/cgroup.controllers\n"),
            Err("the cgroup probe printed `1 0 /sys/fs/cgroup/unified/cgroup.controllers`, not `MTIME SIZE /sys/fs/cgroup/cgroup.controllers`".into())
        );
        assert_eq!(
            parse_cgroup(
                "1 0 /sys/fs/cgroup/cgroup.controllers\n1 0 /sys/fs/cgroup/cgroup.controllers\n"
            ),
            Err("the cgroup probe printed 2 lines for one file name".into())
        );
        assert!(parse_cgroup("x 0 /sys/fs/cgroup/cgroup.controllers").is_err());
    }
}
