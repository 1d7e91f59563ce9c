//! A throwaway PostgreSQL server for tests and benchmarks: Debian's
//! `postgresql` package, `initdb` in a temporary folder, a free port on
//! 127.0.0.1, trust authentication for one user, stopped (and its folder
//! removed) when dropped. It never touches a server it did not start.
//!
//! PostgreSQL refuses to run as root; when the tests run as root the server
//! runs as `nobody` (through `setpriv`), which owns only the temporary folder.
//!
//! A machine without the package is not an error here:
//! [`Postgres::start`] says what is missing and [`Postgres::start_or_skip`]
//! applies the project's rule (skip loudly outside CI, fail in CI).

use std::fs;
use std::net::TcpListener;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;

/// The one user the server trusts.
const USER: &str = "cairn";

/// Where Debian puts each installed major version's programs.
const DEBIAN_ROOT: &str = "/usr/lib/postgresql";

/// A running PostgreSQL server owned by this process.
#[derive(Debug)]
pub struct Postgres {
    bin: PathBuf,
    data: PathBuf,
    port: u16,
    run_as_nobody: bool,
    // Held for its `Drop`: removes the data folder after the server stops.
    _dir: tempfile::TempDir,
    databases: AtomicUsize,
    /// Stops the server when this process ends without dropping it
    /// (killed, or a static); see [`Postgres::watch`].
    watcher: Option<Child>,
}

impl Postgres {
    /// Starts a fresh server, or says why it cannot (package missing, or
    /// `initdb` / `pg_ctl` failing, with their output).
    pub fn start() -> Result<Postgres, String> {
        let bin = server_programs()?;
        let run_as_nobody = is_root();
        let dir = tempfile::Builder::new()
            .prefix("cairn-postgres-")
            .tempdir()
            .map_err(|e| format!("cannot create a folder for the server: {e}"))?;
        let data = dir.path().join("data");
        if run_as_nobody {
            // The temporary folder is the server's and nobody else's.
            fs::set_permissions(dir.path(), fs::Permissions::from_mode(0o700))
                .map_err(|e| format!("cannot restrict {}: {e}", dir.path().display()))?;
            chown_nobody(dir.path())?;
        }
        let server = Postgres {
            bin,
            data,
            port: 0,
            run_as_nobody,
            _dir: dir,
            databases: AtomicUsize::new(0),
            watcher: None,
        };
        server.initdb()?;
        let mut server = server.start_on_free_port()?;
        // Dropping `server` on failure stops it.
        server.watcher = Some(server.watch()?);
        Ok(server)
    }

    /// [`Postgres::start`], or `None` after saying loudly what is skipped
    /// when not in CI. In CI (`CI` set) a server that cannot start fails the
    /// caller: nothing skips there.
    pub fn start_or_skip(what: &str) -> Option<Postgres> {
        match Postgres::start() {
            Ok(server) => Some(server),
            Err(reason) => {
                assert!(
                    std::env::var_os("CI").is_none(),
                    "{reason}; CI must run {what} on PostgreSQL"
                );
                eprintln!("SKIPPED {what} on PostgreSQL: {reason}");
                None
            }
        }
    }

    /// One server for the whole test binary, started on first use (or
    /// skipped as [`Postgres::start_or_skip`] says). A static is never
    /// dropped: its watcher stops the server and removes its folder when
    /// this process exits.
    pub fn shared(what: &str) -> Option<&'static Postgres> {
        static SHARED: OnceLock<Option<Postgres>> = OnceLock::new();
        SHARED
            .get_or_init(|| Postgres::start_or_skip(what))
            .as_ref()
    }

    /// Starts the watcher: `sh`, which waits for its standard input to
    /// close and then stops the server and removes its folder. This
    /// process holds the pipe's other end, which the kernel closes when
    /// the process ends however it ends (SIGKILL included), so a killed
    /// test or benchmark leaves no server behind. The watcher keeps this
    /// process's standard output until it is done, so whoever reads that
    /// output to its end has waited for the server to stop.
    fn watch(&self) -> Result<Child, String> {
        let folder = self
            .data
            .parent()
            .ok_or("the server's folder has no parent")?;
        // Signals ignored: Ctrl-C or `timeout` signal the test's whole
        // process group, the watcher too, which must outlive the test.
        let script = r#"trap '' INT TERM HUP; cat >/dev/null; "$0" -D "$1" -m immediate -w stop >/dev/null 2>&1; rm -rf "$2""#;
        let mut command = if self.run_as_nobody {
            let mut command = Command::new("setpriv");
            command.args([
                "--reuid=nobody",
                "--regid=nogroup",
                "--clear-groups",
                "--",
                "sh",
            ]);
            command
        } else {
            Command::new("sh")
        };
        command
            .arg("-c")
            .arg(script)
            .arg(self.bin.join("pg_ctl"))
            .arg(&self.data)
            .arg(folder)
            .stdin(Stdio::piped())
            .stdout(Stdio::inherit())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("cannot start the watcher: {e}"))
    }

    /// The server's port on 127.0.0.1.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The CPU time (user and system, µs) its processes have used so far:
    /// the postmaster (the first line of its `postmaster.pid`) and every
    /// process it forked that is still running (the backends, the writers
    /// and workers). A backend that ended is no longer counted, so callers
    /// that compare two readings keep their connections open in between.
    pub fn cpu_us(&self) -> f64 {
        let pid_file = fs::read_to_string(self.data.join("postmaster.pid")).unwrap_or_default();
        let Some(postmaster): Option<u32> = pid_file
            .lines()
            .next()
            .and_then(|line| line.trim().parse().ok())
        else {
            return 0.0;
        };
        let Ok(entries) = fs::read_dir("/proc") else {
            return 0.0;
        };
        entries
            .flatten()
            .filter_map(|entry| {
                let pid: u32 = entry.file_name().to_str()?.parse().ok()?;
                let (parent, us) =
                    process_cpu_us(&fs::read_to_string(entry.path().join("stat")).ok()?)?;
                (pid == postmaster || parent == postmaster).then_some(us)
            })
            .sum()
    }

    /// The URL of a new, empty database on this server (each call makes
    /// another, so tests sharing a server never share data).
    pub fn fresh_database(&self) -> Result<String, String> {
        let n = self.databases.fetch_add(1, Ordering::Relaxed);
        let name = format!("cairn_{}_{n}", std::process::id());
        let output = Command::new(self.bin.join("createdb"))
            .args(["-h", "127.0.0.1", "-p", &self.port.to_string(), "-U", USER])
            .arg(&name)
            .output()
            .map_err(|e| format!("cannot run createdb: {e}"))?;
        check(&output, "createdb")?;
        Ok(self.url(&name))
    }

    /// The URL of database `name` on this server.
    pub fn url(&self, name: &str) -> String {
        format!("postgres://{USER}@127.0.0.1:{}/{name}", self.port)
    }

    fn initdb(&self) -> Result<(), String> {
        let mut command = self.command("initdb");
        command
            .arg("-D")
            .arg(&self.data)
            .args(["-U", USER, "-A", "trust", "-E", "UTF8", "--no-sync"])
            .args(["--locale", "C.UTF-8", "--no-instructions"]);
        let output = command
            .output()
            .map_err(|e| format!("cannot run initdb: {e}"))?;
        check(&output, "initdb")
    }

    /// Picks a free port and starts the server there; another process can
    /// take the port between the pick and the start, so a failed start is
    /// tried again on a new port a few times.
    fn start_on_free_port(mut self) -> Result<Postgres, String> {
        let mut last = String::new();
        for _ in 0..5 {
            self.port = free_port()?;
            let options = format!(
                "-c listen_addresses=127.0.0.1 -p {} -k {} -c fsync=off \
                 -c synchronous_commit=off -c full_page_writes=off -c max_connections=400",
                self.port,
                self.socket_dir().display()
            );
            let output = self
                .command("pg_ctl")
                .arg("-D")
                .arg(&self.data)
                .args(["-o", &options, "-l"])
                .arg(self.data.join("server.log"))
                .args(["-w", "-t", "60", "start"])
                .output()
                .map_err(|e| format!("cannot run pg_ctl: {e}"))?;
            match check(&output, "pg_ctl start") {
                Ok(()) => return Ok(self),
                Err(e) => last = format!("{e}; server log: {}", self.log_tail()),
            }
        }
        Err(last)
    }

    /// The folder of the server's Unix socket: inside its own data folder,
    /// so it never meets a system server's socket.
    fn socket_dir(&self) -> PathBuf {
        self.data.clone()
    }

    fn log_tail(&self) -> String {
        let log = fs::read_to_string(self.data.join("server.log")).unwrap_or_default();
        let start = log.len().saturating_sub(2_000);
        log.get(start..).unwrap_or(&log).trim().to_string()
    }

    /// A command for one of the server's programs, run as `nobody` when
    /// this process is root.
    fn command(&self, program: &str) -> Command {
        let path = self.bin.join(program);
        if self.run_as_nobody {
            let mut command = Command::new("setpriv");
            command
                .args(["--reuid=nobody", "--regid=nogroup", "--clear-groups", "--"])
                .arg(path);
            command
        } else {
            Command::new(path)
        }
    }
}

impl Drop for Postgres {
    fn drop(&mut self) {
        // `immediate`: the data is thrown away, so there is nothing to flush.
        let stopped = self
            .command("pg_ctl")
            .arg("-D")
            .arg(&self.data)
            .args(["-m", "immediate", "-w", "stop"])
            .output();
        if let Err(e) = stopped {
            eprintln!("cannot stop the test PostgreSQL server: {e}");
        }
        // The server is stopped: the watcher finds nothing to do, and is
        // waited for so it is no zombie.
        if let Some(mut watcher) = self.watcher.take() {
            drop(watcher.stdin.take());
            let _ = watcher.wait();
        }
    }
}

/// A `/proc/PID/stat` line's parent pid and CPU time (user plus system,
/// µs; Linux counts in ticks of 10 ms for user space).
fn process_cpu_us(stat: &str) -> Option<(u32, f64)> {
    const TICK_US: f64 = 10_000.0;
    // The command name, in parentheses, may hold spaces: fields follow its last `)`.
    let (_, rest) = stat.rsplit_once(") ")?;
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let parent = fields.get(1)?.parse().ok()?;
    let user: f64 = fields.get(11)?.parse().ok()?;
    let system: f64 = fields.get(12)?.parse().ok()?;
    Some((parent, (user + system) * TICK_US))
}

/// The folder holding `initdb` and `pg_ctl` of the newest installed
/// PostgreSQL, or what to install.
fn server_programs() -> Result<PathBuf, String> {
    let missing = || {
        format!(
            "no PostgreSQL server programs under {DEBIAN_ROOT} \
             (install the Debian package `postgresql`)"
        )
    };
    let versions = fs::read_dir(DEBIAN_ROOT).map_err(|_| missing())?;
    versions
        .filter_map(|entry| entry.ok())
        .filter_map(|entry| {
            let major: u32 = entry.file_name().to_str()?.parse().ok()?;
            let bin = entry.path().join("bin");
            (bin.join("initdb").is_file() && bin.join("pg_ctl").is_file()).then_some((major, bin))
        })
        .max_by_key(|(major, _)| *major)
        .map(|(_, bin)| bin)
        .ok_or_else(missing)
}

/// Whether this process runs as root: `/proc/self` belongs to the process's
/// user (no libc binding needed).
fn is_root() -> bool {
    use std::os::unix::fs::MetadataExt;
    fs::metadata("/proc/self").is_ok_and(|meta| meta.uid() == 0)
}

fn chown_nobody(path: &Path) -> Result<(), String> {
    let output = Command::new("chown")
        .arg("nobody:nogroup")
        .arg(path)
        .output()
        .map_err(|e| format!("cannot run chown: {e}"))?;
    check(&output, "chown")
}

fn free_port() -> Result<u16, String> {
    let listener = TcpListener::bind("127.0.0.1:0")
        .map_err(|e| format!("cannot find a free port on 127.0.0.1: {e}"))?;
    listener
        .local_addr()
        .map(|addr| addr.port())
        .map_err(|e| format!("cannot read the free port: {e}"))
}

fn check(output: &Output, what: &str) -> Result<(), String> {
    if output.status.success() {
        return Ok(());
    }
    Err(format!(
        "{what} failed ({}): {}{}",
        output.status,
        String::from_utf8_lossy(&output.stdout).trim(),
        String::from_utf8_lossy(&output.stderr).trim()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The server starts, serves a fresh database, and is gone (port closed,
    /// folder removed) once dropped.
    #[test]
    fn a_throwaway_server_starts_serves_and_leaves_nothing_behind() {
        let Some(server) = Postgres::start_or_skip("the throwaway server test") else {
            return;
        };
        let url = server.fresh_database().expect("a fresh database");
        let second = server.fresh_database().expect("a second database");
        assert_ne!(url, second, "each call makes its own database");
        let port = server.port();
        let psql = server.bin.join("psql");
        let output = Command::new(psql)
            .arg(&url)
            .args(["-tAc", "select 40 + 2"])
            .output()
            .expect("psql runs");
        assert_eq!(String::from_utf8_lossy(&output.stdout).trim(), "42");
        let folder = server.data.clone();
        drop(server);
        assert!(!folder.exists(), "the data folder is removed");
        assert!(
            std::net::TcpStream::connect(("127.0.0.1", port)).is_err(),
            "the server no longer listens"
        );
    }

    #[test]
    fn a_stat_line_gives_its_parent_and_cpu_time_whatever_the_command_name() {
        let stat =
            "4242 (postgres: cairn db) S 4200 4200 4200 0 -1 4194560 900 0 0 0 7 3 0 0 20 0 1 0";
        assert_eq!(process_cpu_us(stat), Some((4200, 100_000.0)));
        assert_eq!(process_cpu_us("4242 (cut"), None);
    }

    /// Set in the process [`a_server_whose_owner_is_killed_stops`] starts:
    /// that process owns a server and waits to be killed.
    const OWNER: &str = "CAIRN_TEST_POSTGRES_OWNER";

    /// A process that owns a server dies by SIGKILL (no destructor runs):
    /// its watcher stops the server and removes its folder.
    #[test]
    fn a_server_whose_owner_is_killed_stops() {
        use std::io::{BufRead, Read, Write};
        use std::os::fd::AsFd;
        if std::env::var_os(OWNER).is_some() {
            let server = Postgres::start().expect("the owner's server starts");
            let folder = server.data.parent().expect("a folder").to_owned();
            // Straight to the file descriptor: the test harness may
            // capture what `println!` writes until the test ends.
            let stdout = std::io::stdout().as_fd().try_clone_to_owned();
            let mut stdout = fs::File::from(stdout.expect("stdout"));
            writeln!(stdout, "owner: {} {}", server.port(), folder.display()).expect("stdout");
            // Until killed: the test holds this pipe open.
            let _ = std::io::stdin().read(&mut [0_u8; 1]);
            unreachable!("the owner is killed before its input ends");
        }
        if let Err(reason) = server_programs() {
            assert!(std::env::var_os("CI").is_none(), "{reason}");
            eprintln!("SKIPPED the killed-owner test on PostgreSQL: {reason}");
            return;
        }
        let test = "testkit::postgres::tests::a_server_whose_owner_is_killed_stops";
        let mut owner = Command::new(std::env::current_exe().expect("this test binary"))
            .args([test, "--exact", "--nocapture", "--test-threads=1"])
            .env(OWNER, "1")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("the owner starts");
        let mut output = std::io::BufReader::new(owner.stdout.take().expect("stdout"));
        let mut line = String::new();
        let (port, folder) = loop {
            line.clear();
            let read = output.read_line(&mut line).expect("the owner's output");
            assert!(read > 0, "the owner ended without starting a server");
            // The harness may have written the test's name on the line.
            if let Some((_, started)) = line.trim().split_once("owner: ") {
                let (port, folder) = started.split_once(' ').expect("port and folder");
                break (port.parse::<u16>().expect("a port"), PathBuf::from(folder));
            }
        };
        assert!(std::net::TcpStream::connect(("127.0.0.1", port)).is_ok());
        owner.kill().expect("SIGKILL");
        owner.wait().expect("the owner is gone");
        // The output ends when its last writer, the watcher, is done.
        let mut rest = Vec::new();
        output
            .read_to_end(&mut rest)
            .expect("the output to its end");
        assert!(
            std::net::TcpStream::connect(("127.0.0.1", port)).is_err(),
            "the server no longer listens"
        );
        assert!(!folder.exists(), "the server's folder is removed");
    }
}
