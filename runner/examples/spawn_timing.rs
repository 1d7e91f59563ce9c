use cairn_runner::sandbox::*;
use std::time::Instant;
fn median(mut v: Vec<f64>) -> (f64, f64) {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    (v[v.len() / 2], v[0])
}
fn main() {
    let t = Instant::now();
    let sandbox = Sandbox::detect();
    println!("detect {:?}", t.elapsed());
    let dir = std::env::temp_dir().join("cairn-timing");
    std::fs::create_dir_all(&dir).unwrap();
    {
        let spec = SandboxSpec::new(vec!["cat".into()], dir.clone());
        let mut p = sandbox.spawn(&spec).unwrap();
        let t = Instant::now();
        let mut total = std::time::Duration::ZERO;
        for _ in 0..10000 {
            total += p.cpu_time();
        }
        println!(
            "cpu_time() {:.2} us per call ({total:?})",
            t.elapsed().as_secs_f64() * 1e6 / 10000.0
        );
        let t = Instant::now();
        for _ in 0..10000 {
            let _ = p.try_status();
        }
        println!(
            "try_status() {:.2} us per call",
            t.elapsed().as_secs_f64() * 1e6 / 10000.0
        );
    }
    for cmd in [
        vec!["true"],
        vec!["python3", "-c", "pass"],
        vec!["node", "-e", "0"],
    ] {
        let spec = SandboxSpec::new(cmd.iter().map(|s| s.to_string()).collect(), dir.clone());
        let resolved = resolve_command(&spec.command, &dir).unwrap();
        let (mut sandboxed, mut raw) = (vec![], vec![]);
        for _ in 0..20 {
            let t = Instant::now();
            let o = sandbox.spawn(&spec).unwrap().wait();
            sandboxed.push(t.elapsed().as_secs_f64() * 1000.0);
            assert_eq!(o.ending, Ending::Exited(0), "{cmd:?}");
            let t = Instant::now();
            std::process::Command::new(&resolved.program)
                .args(&resolved.argv[1..])
                .status()
                .unwrap();
            raw.push(t.elapsed().as_secs_f64() * 1000.0);
        }
        let (s, smin) = median(sandboxed);
        let (r, rmin) = median(raw);
        println!("{cmd:?}: sandboxed median {s:.1} ms (min {smin:.1}), raw median {r:.1} ms (min {rmin:.1})");
    }
}
