//! What tonic answers before a handler runs, made right for the caller: a
//! request that does not decode is `INVALID_ARGUMENT` (tonic says
//! `INTERNAL`), one past the size limit `RESOURCE_EXHAUSTED` (tonic says
//! `OUT_OF_RANGE`), and no status message quotes more than
//! [`MAX_STATUS_MESSAGE_BYTES`] of anything.

use tonic::codegen::http::{HeaderValue, Response};

/// The longest `grpc-message` sent (percent-encoded bytes).
pub const MAX_STATUS_MESSAGE_BYTES: usize = 1024;

const DECODE_FAILURE: &str = "failed to decode Protobuf message";
const TOO_LARGE: &str = "Error, decoded message length too large";

/// Rewrites a trailers-only answer's status (unary calls, and streams
/// refused before they start).
pub fn correct_status<B>(mut response: Response<B>) -> Response<B> {
    let headers = response.headers_mut();
    let code = headers
        .get("grpc-status")
        .and_then(|value| value.to_str().ok())
        .map(str::to_string);
    let message = headers
        .get("grpc-message")
        .and_then(|value| value.to_str().ok())
        .unwrap_or("")
        .to_string();
    let decoded = percent_decoded_prefix(&message, 64);
    let corrected = match code.as_deref() {
        Some("13") if decoded.starts_with(DECODE_FAILURE) => Some("3"),
        Some("11") if decoded.starts_with(TOO_LARGE) => Some("8"),
        _ => None,
    };
    if let Some(corrected) = corrected {
        headers.insert("grpc-status", HeaderValue::from_static(corrected));
    }
    if let Some(cut) = bounded(&message) {
        if let Ok(value) = HeaderValue::from_str(&cut) {
            headers.insert("grpc-message", value);
        }
    }
    response
}

/// The first `max` characters of a percent-encoded text, decoded loosely
/// (enough to read a known prefix).
fn percent_decoded_prefix(message: &str, max: usize) -> String {
    let bytes = message.as_bytes();
    let mut out = Vec::new();
    let mut at = 0;
    while at < bytes.len() && out.len() < max {
        match bytes[at] {
            b'%' if at + 2 < bytes.len() => {
                let hex = std::str::from_utf8(&bytes[at + 1..at + 3]).unwrap_or("");
                out.push(u8::from_str_radix(hex, 16).unwrap_or(b'?'));
                at += 3;
            }
            byte => {
                out.push(byte);
                at += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// `message` cut to [`MAX_STATUS_MESSAGE_BYTES`] (never inside a `%XX`
/// escape), `...` marking the cut; `None` when it is short enough.
fn bounded(message: &str) -> Option<String> {
    if message.len() <= MAX_STATUS_MESSAGE_BYTES {
        return None;
    }
    let mut cut = MAX_STATUS_MESSAGE_BYTES - 3;
    let bytes = message.as_bytes();
    // Back off from an escape cut in half.
    for back in 1..=2 {
        if cut >= back && bytes[cut - back] == b'%' {
            cut -= back;
            break;
        }
    }
    Some(format!("{}...", &message[..cut]))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(code: &str, message: &str) -> Response<()> {
        let mut response = Response::new(());
        let headers = response.headers_mut();
        headers.insert("grpc-status", HeaderValue::from_str(code).unwrap());
        headers.insert("grpc-message", HeaderValue::from_str(message).unwrap());
        response
    }

    fn status_of(response: &Response<()>) -> (&str, &str) {
        let headers = response.headers();
        let read = |name| headers.get(name).unwrap().to_str().unwrap();
        (read("grpc-status"), read("grpc-message"))
    }

    #[test]
    fn a_request_that_does_not_decode_is_an_invalid_argument() {
        let fixed = correct_status(answer(
            "13",
            "failed%20to%20decode%20Protobuf%20message:%20invalid%20wire%20type",
        ));
        assert_eq!(status_of(&fixed).0, "3");
    }

    #[test]
    fn a_request_past_the_limit_is_resource_exhausted() {
        let fixed = correct_status(answer(
            "11",
            "Error,%20decoded%20message%20length%20too%20large:%20found%209%20bytes",
        ));
        assert_eq!(status_of(&fixed).0, "8");
    }

    #[test]
    fn other_statuses_are_left_alone() {
        let kept = correct_status(answer("13", "internal%20error"));
        assert_eq!(status_of(&kept), ("13", "internal%20error"));
        let kept = correct_status(answer("5", "bot%20`x`%20not%20found"));
        assert_eq!(status_of(&kept).0, "5");
    }

    #[test]
    fn a_huge_message_is_cut_to_a_bounded_prefix_never_inside_an_escape() {
        let huge = "%41".repeat(1_000_000);
        let fixed = correct_status(answer("3", &huge));
        let message = status_of(&fixed).1;
        assert!(
            message.len() <= MAX_STATUS_MESSAGE_BYTES,
            "{}",
            message.len()
        );
        let body = message.trim_end_matches("...");
        assert!(
            body.len() % 3 == 0 && body.ends_with("%41"),
            "{}",
            &body[body.len() - 6..]
        );
    }
}
