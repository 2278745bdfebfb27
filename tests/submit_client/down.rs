//! An API that stops answering or goes away: one probe at a time, the run given up on without
//! burning the backlog, and documents that nothing of reached the API told apart from those that
//! may be issued.

use super::*;

#[tokio::test]
async fn while_the_api_is_down_only_one_probe_goes_at_a_time() {
    let server = start(ID).await;
    let dir = tempfile::tempdir().unwrap();
    let sub = connect(&server.base_url, dir.path()).await;
    let fake = server.fake.clone();
    // Down for the first wave and three probes, then up.
    server.fake.set_script(move |_| {
        if fake.documents().len() <= 8 + 3 {
            Action::SlowStatus(Duration::from_millis(50), 503)
        } else {
            Action::Normal
        }
    });
    let (seen, sink) = events();
    let outcomes = sub.submit_all(docs("P", 40), sink).await.unwrap();
    assert!(outcomes.iter().all(Outcome::is_accepted), "{outcomes:?}");
    let requests = server.fake.documents();
    assert!(
        requests[..8].iter().any(|r| r.concurrent > 1),
        "the first wave went side by side"
    );
    for r in &requests[8..=11] {
        assert_eq!(r.concurrent, 1, "probes go alone");
    }
    let events = seen.lock().unwrap().clone();
    assert!(events.iter().any(|e| matches!(e, SubmitEvent::Paused { .. })));
    assert!(events.contains(&SubmitEvent::Resumed));
    assert_eq!(server.fake.accepted_count(), 40);
}

#[tokio::test]
async fn an_api_that_stays_down_ends_the_run_without_burning_the_backlog() {
    let server = start(ID).await;
    let dir = tempfile::tempdir().unwrap();
    let mut s = settings(&server.base_url);
    s.backoff.give_up_after = Duration::from_millis(300);
    let sub = Submitter::connect(s, ID.into(), Ledger::open(dir.path()).unwrap())
        .await
        .unwrap();
    server
        .fake
        .set_script(|_| Action::Status(502, "<html>Bad Gateway</html>".into()));
    let outcomes = sub.submit_all(docs("Z", 200), |_| {}).await.unwrap();
    assert!(outcomes.iter().all(|o| matches!(o, Outcome::Failed { .. })));
    let sent = server.fake.documents().len();
    assert!(
        sent <= 8 + 10,
        "{sent} requests for 200 documents while the API was down"
    );
    let never_sent = outcomes.iter().filter(|o| o.attempts() == 0).count();
    assert!(never_sent >= 190, "{never_sent}");
    let Outcome::Failed {
        reason, sent: false, ..
    } = &outcomes[199]
    else {
        panic!("{:?}", outcomes[199])
    };
    assert!(
        reason.starts_with("not issued: nothing of it reached the API (the API at ")
            && reason.contains("stopped answering")
            && reason.contains("; the next run sends it; if the API stays down, "),
        "{reason}"
    );
    // A document sent without an answer (a 502 may come after the document was handled) says
    // once what the next run does with it.
    let tried = outcomes.iter().find(|o| o.attempts() > 0).expect("one was sent");
    let Outcome::Failed { reason, sent: true, .. } = tried else {
        panic!("{tried:?}")
    };
    assert!(reason.contains("outcome unknown"), "{reason}");
    assert_eq!(reason.matches("the next run repeats it").count(), 1, "{reason}");
}

#[tokio::test]
async fn documents_tried_only_into_refused_connections_are_not_sent_and_one_sent_before_stays_maybe_issued() {
    let server = start(ID).await;
    let dir = tempfile::tempdir().unwrap();
    let mut s = settings(&server.base_url);
    s.max_attempts = 1;
    s.backoff.give_up_after = Duration::from_millis(300);
    let sub = Submitter::connect(s, ID.into(), Ledger::open(dir.path()).unwrap())
        .await
        .unwrap();
    // R-0 is sent and gets a 504: it may be issued.
    server.fake.set_script(|_| Action::Status(504, String::new()));
    let first = sub.submit_all(docs("R", 1), |_| {}).await.unwrap();
    assert!(matches!(first[0], Outcome::Failed { sent: true, .. }), "{first:?}");
    // The API goes away: every connection is refused, so nothing of a request reaches it.
    server.stop().await;
    let outcomes = sub.submit_all(docs("R", 3), |_| {}).await.unwrap();
    let state = |o: &Outgoing| {
        let key = DocumentKey {
            onboard_id: ID.into(),
            kind: o.document.kind,
            number: o.document.number.clone(),
        };
        sub.ledger().get(&key).unwrap().unwrap().state
    };
    let all = docs("R", 3);
    // R-0 stays maybe issued (its ledger row too: the refused repeat does not make it `pending`,
    // which the next run would take for never sent).
    assert!(
        matches!(
            &outcomes[0],
            Outcome::Failed {
                sent: true,
                attempts: 2,
                ..
            }
        ),
        "{:?}",
        outcomes[0]
    );
    assert_eq!(outcomes[0].errors()[0].code.as_deref(), Some("INV-SUBMIT-UNKNOWN"));
    assert_eq!(state(&all[0]), LedgerState::Unknown);
    // were tried (their connections refused), yet nothing of them reached the API.
    for (o, d) in outcomes[1..].iter().zip(&all[1..]) {
        let Outcome::Failed {
            sent: false, reason, ..
        } = o
        else {
            panic!("{o:?}")
        };
        assert!(
            reason.starts_with("not issued: nothing of it reached the API"),
            "{reason}"
        );
        assert_eq!(o.errors()[0].code.as_deref(), Some("INV-SUBMIT-NOT-SENT"));
        assert_eq!(state(d), LedgerState::Pending, "the next run sends it");
    }
    assert!(
        outcomes[1..].iter().any(|o| o.attempts() > 0),
        "the attempts do not tell: {outcomes:?}"
    );
}
