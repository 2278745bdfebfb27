//! Secrets (D5): neither the API secret nor a token reaches the logs (captured at TRACE) or any
//! `Debug` output, and no document body is logged.

mod submit_fake;

use invoicedrop::model::{DocumentKind, Secret, example};
use invoicedrop::submit::{ApiSettings, Backoff, Ledger, Outcome, Outgoing, Submitter};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use submit_fake::{Action, SECRET, USER, VAT, start};

const ID: &str = "YWJj/ZGVm+Z2hp==";

fn settings(base: &str) -> ApiSettings {
    let mut s = ApiSettings::new(base, VAT, USER, Secret::new(SECRET));
    s.rate_per_second = None;
    s.backoff = Backoff {
        min_delay: Duration::from_millis(10),
        max_delay: Duration::from_millis(80),
        give_up_after: Duration::from_secs(20),
    };
    s
}

fn docs(prefix: &str, n: usize) -> Vec<Outgoing> {
    (0..n)
        .map(|i| Outgoing {
            document: example::standard_invoice(&format!("{prefix}-{i}")),
            tag: i as u64,
        })
        .collect()
}

async fn connect(base: &str, dir: &std::path::Path) -> Submitter {
    Submitter::connect(settings(base), ID.into(), Ledger::open(dir).unwrap())
        .await
        .unwrap()
}

#[tokio::test]
async fn neither_secret_nor_token_reaches_logs_or_debug_output() {
    use tracing_subscriber::fmt::MakeWriter;
    #[derive(Clone, Default)]
    struct Buf(Arc<Mutex<Vec<u8>>>);
    impl std::io::Write for Buf {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    impl<'a> MakeWriter<'a> for Buf {
        type Writer = Buf;
        fn make_writer(&'a self) -> Buf {
            self.clone()
        }
    }
    let buf = Buf::default();
    let subscriber = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::TRACE)
        .with_writer(buf.clone())
        .with_ansi(false)
        .finish();
    let _guard = tracing::subscriber::set_default(subscriber);

    let server = start(ID).await;
    let dir = tempfile::tempdir().unwrap();
    let sub = connect(&server.base_url, dir.path()).await;
    let fake = server.fake.clone();
    server.fake.set_script(move |r| {
        if r.nth_for_key == 1 && fake.documents().len() == 2 {
            fake.revoke_tokens();
        }
        match r.nth_for_key {
            1 => Action::Status(500, String::new()),
            _ => Action::Normal,
        }
    });
    let outcomes = sub.submit_all(docs("S", 4), |_| {}).await.unwrap();
    assert!(outcomes.iter().all(Outcome::is_accepted));
    let debug = format!("{sub:?} {:?}", settings(&server.base_url));
    let logs = String::from_utf8(buf.0.lock().unwrap().clone()).unwrap();
    assert!(logs.contains("sending"), "TRACE output was captured:\n{logs}");
    let tokens: Vec<String> = server
        .fake
        .documents()
        .iter()
        .filter_map(|r| r.authorization.clone())
        .map(|a| a.trim_start_matches("Bearer ").to_string())
        .collect();
    assert!(tokens.len() >= 8);
    for needle in tokens.iter().map(String::as_str).chain([SECRET, "tok-SENSITIVE"]) {
        assert!(!logs.contains(needle), "the logs hold {needle}");
        assert!(!debug.contains(needle), "Debug output holds {needle}");
    }
    assert!(!logs.contains("Maximum Speed Tech"), "no document body in the logs");
    assert_eq!(DocumentKind::Invoice.path_segment(), "invoices");
}
