use std::net::{IpAddr, Ipv4Addr};

use super::*;

fn peer(last: u8) -> Client {
    Client::Peer(IpAddr::V4(Ipv4Addr::new(10, 0, 0, last)))
}

fn limits() -> AdmissionLimits {
    AdmissionLimits {
        client_cost: 6,
        client_cost_per_s: 1.0,
        client_burst: 20.0,
        total_cost: 10,
        client_streams: 2,
        total_streams: 3,
    }
}

#[test]
fn a_client_past_its_running_units_is_shed_and_told_when_to_retry() {
    let admission = Admission::new(limits());
    let _first = admission.admit(peer(1), 4).unwrap();
    let refused = admission.admit(peer(1), 4).unwrap_err();
    assert!(
        matches!(
            refused,
            Refusal::ClientBusy {
                limit: 6,
                running: 4,
                ..
            }
        ),
        "{refused:?}"
    );
    assert!(refused.retry_after() > Duration::ZERO);
    assert!(!refused.is_overall());
    assert!(refused.to_string().contains("retry in"), "{refused}");
}

#[test]
fn a_dropped_ticket_gives_its_units_back() {
    let admission = Admission::new(limits());
    let first = admission.admit(peer(1), 6).unwrap();
    assert!(admission.admit(peer(1), 1).is_err());
    drop(first);
    let _admitted = admission.admit(peer(1), 6).unwrap();
}

#[test]
fn the_total_sheds_a_crowd_of_clients_each_within_its_own_limit() {
    let admission = Admission::new(limits());
    let _a = admission.admit(peer(1), 6).unwrap();
    let _b = admission.admit(peer(2), 4).unwrap();
    let refused = admission.admit(peer(3), 1).unwrap_err();
    assert!(
        matches!(refused, Refusal::Shed { limit: 10, .. }),
        "{refused:?}"
    );
    assert!(refused.is_overall());
}

#[test]
fn a_client_that_spent_its_bucket_waits_for_it_to_refill() {
    let admission = Admission::new(limits());
    for _ in 0..20 {
        drop(admission.admit(peer(1), 1).unwrap());
    }
    let refused = admission.admit(peer(1), 1).unwrap_err();
    let Refusal::ClientRate {
        per_s: 1,
        retry_after,
    } = refused
    else {
        panic!("{refused:?}");
    };
    assert!(retry_after <= Duration::from_secs(1), "{retry_after:?}");
    // Another client still has its whole bucket.
    let _admitted = admission.admit(peer(2), 6).unwrap();
}

#[test]
fn a_read_dearer_than_a_clients_limit_runs_alone_rather_than_never() {
    let admission = Admission::new(limits());
    let alone = admission.admit(peer(1), 9).unwrap();
    assert!(admission.admit(peer(1), 1).is_err());
    drop(alone);
    let _admitted = admission.admit(peer(1), 1).unwrap();
}

#[test]
fn an_owner_and_a_runner_count_apart_from_the_address_they_call_from() {
    let admission = Admission::new(limits());
    let _anonymous = admission.admit(peer(1), 6).unwrap();
    let _owner = admission.admit(Client::Owner(1), 4).unwrap();
    assert!(
        admission.admit(Client::Runner(1), 1).is_err(),
        "the total holds"
    );
}

#[test]
fn watch_streams_are_capped_per_client_and_in_total() {
    let admission = Admission::new(limits());
    let _one = admission.admit_stream(peer(1)).unwrap();
    let two = admission.admit_stream(peer(1)).unwrap();
    let refused = admission.admit_stream(peer(1)).unwrap_err();
    assert!(
        matches!(
            refused,
            Refusal::Streams {
                scope: "client",
                limit: 2,
                ..
            }
        ),
        "{refused:?}"
    );
    let _three = admission.admit_stream(peer(2)).unwrap();
    let refused = admission.admit_stream(peer(3)).unwrap_err();
    assert!(
        matches!(
            refused,
            Refusal::Streams {
                scope: "arena",
                limit: 3,
                ..
            }
        ),
        "{refused:?}"
    );
    drop(two);
    let _admitted = admission.admit_stream(peer(3)).unwrap();
}

#[test]
fn streams_take_nothing_from_the_reads_units() {
    let admission = Admission::new(limits());
    let _stream = admission.admit_stream(peer(1)).unwrap();
    let _admitted = admission.admit(peer(1), 6).unwrap();
}
