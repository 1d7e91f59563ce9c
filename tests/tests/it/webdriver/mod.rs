//! A tiny client of chromedriver's WebDriver HTTP API for the browser
//! test: one HTTP/1.1 request per connection over std's TcpStream, JSON
//! bodies, screenshots decoded from base64. No npm, no downloads.

#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Command, Stdio};

use serde_json::{json, Value};

use crate::arena_support::Running;

const ELEMENT: &str = "element-6066-11e4-a52e-4f735466cecf";

/// A chromedriver process and one headless Chromium session.
pub struct Driver {
    base: String,
    session: String,
    _process: Running,
    _profile: tempfile::TempDir,
}

impl Driver {
    pub fn start(chromedriver: &Path, chromium: &Path) -> Driver {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let mut child = Command::new(chromedriver)
            .arg(format!("--port={port}"))
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("chromedriver starts");
        let stdout = BufReader::new(child.stdout.take().unwrap());
        let ready = stdout
            .lines()
            .map_while(Result::ok)
            .any(|line| line.contains("started successfully"));
        assert!(ready, "chromedriver did not start");
        let base = format!("127.0.0.1:{port}");
        let profile = tempfile::tempdir().unwrap();
        let capabilities = json!({"capabilities": {"alwaysMatch": {"browserName": "chrome", "goog:chromeOptions": {
            "binary": chromium,
            "args": ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1280,1100",
                     format!("--user-data-dir={}", profile.path().display())],
        }}}});
        let answer = webdriver(&base, "POST", "/session", Some(&capabilities));
        let session = answer["sessionId"]
            .as_str()
            .unwrap_or_else(|| panic!("no session: {answer}"))
            .to_string();
        let driver = Driver {
            base,
            session,
            _process: Running(child),
            _profile: profile,
        };
        // Finding an element waits up to this long for it to appear.
        driver.call("POST", "/timeouts", Some(&json!({"implicit": 20_000})));
        driver
    }

    fn call(&self, method: &str, path: &str, body: Option<&Value>) -> Value {
        webdriver(
            &self.base,
            method,
            &format!("/session/{}{path}", self.session),
            body,
        )
    }

    pub fn go(&self, url: &str) {
        self.call("POST", "/url", Some(&json!({ "url": url })));
    }

    pub fn find(&self, css: &str) -> String {
        let found = self.call(
            "POST",
            "/element",
            Some(&json!({"using": "css selector", "value": css})),
        );
        found[ELEMENT]
            .as_str()
            .unwrap_or_else(|| panic!("no element {css}: {found}"))
            .to_string()
    }

    pub fn find_all(&self, css: &str) -> Vec<String> {
        let found = self.call(
            "POST",
            "/elements",
            Some(&json!({"using": "css selector", "value": css})),
        );
        found
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e[ELEMENT].as_str().unwrap().to_string())
            .collect()
    }

    pub fn text(&self, element: &str) -> String {
        self.call("GET", &format!("/element/{element}/text"), None)
            .as_str()
            .unwrap()
            .to_string()
    }

    pub fn attribute(&self, element: &str, name: &str) -> String {
        self.call("GET", &format!("/element/{element}/property/{name}"), None)
            .as_str()
            .unwrap()
            .to_string()
    }

    pub fn click(&self, element: &str) {
        self.call(
            "POST",
            &format!("/element/{element}/click"),
            Some(&json!({})),
        );
    }

    /// Presses and releases one key (a WebDriver key code) on the page.
    pub fn key(&self, key: &str) {
        let actions = json!({"actions": [{"type": "key", "id": "keyboard", "actions": [
            {"type": "keyDown", "value": key}, {"type": "keyUp", "value": key}]}]});
        self.call("POST", "/actions", Some(&actions));
    }

    pub fn run(&self, script: &str) -> Value {
        self.call(
            "POST",
            "/execute/sync",
            Some(&json!({"script": script, "args": []})),
        )
    }

    pub fn screenshot(&self, path: &Path) {
        let png = self.call("GET", "/screenshot", None);
        std::fs::write(path, base64_decode(png.as_str().unwrap())).unwrap();
        println!("screenshot: {}", path.display());
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.call("DELETE", "", None);
    }
}

/// One WebDriver command; panics on a WebDriver error.
fn webdriver(base: &str, method: &str, path: &str, body: Option<&Value>) -> Value {
    let (status, text) = http(base, method, path, body);
    let answer: Value =
        serde_json::from_str(&text).unwrap_or_else(|_| panic!("{method} {path}: {status} {text}"));
    assert!(
        status == 200 || method == "DELETE",
        "{method} {path}: {status} {answer}"
    );
    answer["value"].clone()
}

pub fn http_get(url: &str) -> Value {
    let rest = url.trim_start_matches("http://");
    let (host, path) = rest.split_at(rest.find('/').unwrap());
    let (status, body) = http(host, "GET", path, None);
    assert_eq!(status, 200, "{url}: {body}");
    serde_json::from_str(&body).unwrap()
}

/// A minimal HTTP/1.1 client: one request per connection, `Connection: close`.
fn http(host: &str, method: &str, path: &str, body: Option<&Value>) -> (u16, String) {
    let body = body.map(Value::to_string).unwrap_or_default();
    let mut stream = TcpStream::connect(host).unwrap();
    write!(
        stream,
        "{method} {path} HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    // chromedriver may keep the connection open: read up to the end of
    // the body (its length, or the last chunk), never waiting for a close.
    stream
        .set_read_timeout(Some(std::time::Duration::from_secs(120)))
        .unwrap();
    let mut raw = Vec::new();
    let mut buffer = [0_u8; 64 * 1024];
    let (split, head) = loop {
        let n = stream.read(&mut buffer).expect("an answer in time");
        assert!(
            n > 0,
            "{method} {path}: the connection closed before the header"
        );
        raw.extend_from_slice(&buffer[..n]);
        if let Some(split) = raw.windows(4).position(|w| w == b"\r\n\r\n") {
            break (
                split,
                String::from_utf8_lossy(&raw[..split]).to_ascii_lowercase(),
            );
        }
    };
    let length: Option<usize> = head
        .lines()
        .find_map(|line| line.strip_prefix("content-length:"))
        .and_then(|n| n.trim().parse().ok());
    let chunked = head.contains("transfer-encoding: chunked");
    loop {
        let body = &raw[split + 4..];
        let complete = match length {
            Some(length) => body.len() >= length,
            None => chunked && body.ends_with(b"0\r\n\r\n"),
        };
        if complete {
            break;
        }
        let n = stream
            .read(&mut buffer)
            .expect("the rest of the answer in time");
        if n == 0 {
            break;
        }
        raw.extend_from_slice(&buffer[..n]);
    }
    let status = head.split(' ').nth(1).unwrap().parse().unwrap();
    let mut payload = raw[split + 4..].to_vec();
    if chunked {
        payload = dechunk(&payload);
    }
    (status, String::from_utf8(payload).unwrap())
}

fn dechunk(mut data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let line_end = data.windows(2).position(|w| w == b"\r\n").unwrap();
        let size =
            usize::from_str_radix(std::str::from_utf8(&data[..line_end]).unwrap().trim(), 16)
                .unwrap();
        if size == 0 {
            return out;
        }
        out.extend_from_slice(&data[line_end + 2..line_end + 2 + size]);
        data = &data[line_end + 4 + size..];
    }
}

fn base64_decode(text: &str) -> Vec<u8> {
    let value = |c: u8| match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' => 62,
        b'/' => 63,
        _ => panic!("not base64: {c}"),
    };
    let digits: Vec<u8> = text
        .bytes()
        .filter(|c| !c.is_ascii_whitespace() && *c != b'=')
        .map(value)
        .collect();
    let mut out = Vec::with_capacity(digits.len() * 3 / 4);
    for chunk in digits.chunks(4) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, &d)| n | u32::from(d) << (18 - 6 * i));
        out.extend_from_slice(&n.to_be_bytes()[1..chunk.len()]);
    }
    out
}
