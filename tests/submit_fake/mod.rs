//! A small fake of the e-invoicing API for the submit tests: auth with expiring tokens, onboarding,
//! the three document endpoints with idempotent replays (D17), and a script that decides, per
//! request, whether to answer normally or inject a fault. Every request is recorded.

#![allow(dead_code)]

use axum::Router;
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU32, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::{Notify, oneshot};

pub const VAT: &str = "399999999900003";
pub const USER: &str = "fake-user";
pub const SECRET: &str = "fake-SECRET-never-logged-42";

/// One request as the server saw it.
#[derive(Debug, Clone)]
pub struct Recorded {
    pub at: Instant,
    pub raw_path: String,
    pub onboard_id: String,
    pub kind: String,
    pub authorization: Option<String>,
    pub idempotency_key: Option<String>,
    pub body: Vec<u8>,
    /// Requests being handled at once when this one arrived (itself included).
    pub concurrent: usize,
    /// This key's request count so far (1 for the first).
    pub nth_for_key: u32,
}

/// What to do with a document request.
pub enum Action {
    /// Behave like the API.
    Normal,
    /// Answer with this status and body; nothing is stored.
    Status(u16, String),
    /// Wait, then answer with this status; nothing is stored.
    SlowStatus(Duration, u16),
    /// 429 with this Retry-After.
    TooMany(&'static str),
    /// Accept (store) it, then drop the connection without an answer.
    AcceptThenDrop,
    /// Accept it, then answer after this delay.
    AcceptThenDelay(Duration),
    /// Accept it, then never answer.
    AcceptThenHang,
    /// 401 regardless of the token.
    Unauthorized,
}

type Script = Box<dyn Fn(&Recorded) -> Action + Send + Sync>;
/// Body and answer of a stored document.
type Stored = (Vec<u8>, Vec<u8>);
/// (onboard_id, kind, number).
type NumberKey = (String, String, String);

pub struct Fake {
    pub requests: Mutex<Vec<Recorded>>,
    per_key: Mutex<HashMap<Option<String>, u32>>,
    pub auths: AtomicU32,
    pub answered_401: AtomicU32,
    pub token_ttl: AtomicU32,
    pub onboard_id: Mutex<String>,
    script: Mutex<Script>,
    tokens: Mutex<HashMap<String, Instant>>,
    /// idempotency key → (body, answer)
    accepted: Mutex<HashMap<String, Stored>>,
    /// (onboard_id, kind, number) → body of the accepted document
    numbers: Mutex<HashMap<NumberKey, Vec<u8>>>,
    pub replays: AtomicU32,
    in_flight: AtomicUsize,
    arrived: Notify,
}

impl Fake {
    pub fn set_script(&self, f: impl Fn(&Recorded) -> Action + Send + Sync + 'static) {
        *self.script.lock().unwrap() = Box::new(f);
    }

    pub fn revoke_tokens(&self) {
        self.tokens.lock().unwrap().clear();
    }

    pub fn documents(&self) -> Vec<Recorded> {
        self.requests.lock().unwrap().clone()
    }

    /// Documents stored as accepted (each once).
    pub fn accepted_count(&self) -> usize {
        self.accepted.lock().unwrap().len()
    }

    /// Wait until at least `n` document requests have arrived.
    pub async fn wait_for_requests(&self, n: usize) {
        loop {
            let notified = self.arrived.notified();
            if self.requests.lock().unwrap().len() >= n {
                return;
            }
            notified.await;
        }
    }
}

pub struct FakeServer {
    pub base_url: String,
    pub fake: Arc<Fake>,
    shutdown: Option<oneshot::Sender<()>>,
    served: Option<tokio::task::JoinHandle<()>>,
}

impl FakeServer {
    /// Go away: stop listening (a new connection is refused), close every connection, and return
    /// once the server has ended and a connection to its address is refused.
    pub async fn stop(mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
        if let Some(served) = self.served.take() {
            let _ = served.await;
        }
        let addr = self.base_url.trim_start_matches("http://").to_string();
        while tokio::net::TcpStream::connect(&addr).await.is_ok() {
            tokio::task::yield_now().await;
        }
    }
}

impl Drop for FakeServer {
    fn drop(&mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
    }
}

pub async fn start(onboard_id: &str) -> FakeServer {
    let fake = Arc::new(Fake {
        requests: Mutex::new(Vec::new()),
        per_key: Mutex::new(HashMap::new()),
        auths: AtomicU32::new(0),
        answered_401: AtomicU32::new(0),
        token_ttl: AtomicU32::new(3600),
        onboard_id: Mutex::new(onboard_id.to_string()),
        script: Mutex::new(Box::new(|_| Action::Normal)),
        tokens: Mutex::new(HashMap::new()),
        accepted: Mutex::new(HashMap::new()),
        numbers: Mutex::new(HashMap::new()),
        replays: AtomicU32::new(0),
        in_flight: AtomicUsize::new(0),
        arrived: Notify::new(),
    });
    let app = Router::new()
        .route("/v1/e-invoicing/auth", post(auth))
        .route("/v1/e-invoicing/onboardings", post(onboarding))
        .route("/v1/e-invoicing/{onboard_id}/{kind}", post(document))
        .with_state(fake.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (tx, rx) = oneshot::channel::<()>();
    let served = tokio::spawn(async move {
        let _ = axum::serve(listener, app)
            .with_graceful_shutdown(async move {
                let _ = rx.await;
            })
            .await;
    });
    FakeServer {
        base_url: format!("http://{addr}"),
        fake,
        shutdown: Some(tx),
        served: Some(served),
    }
}

/// A local address where nothing listens.
pub async fn dead_url() -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    drop(listener);
    format!("http://{addr}")
}

fn json_response(status: u16, body: Vec<u8>) -> Response {
    (
        StatusCode::from_u16(status).unwrap(),
        [("content-type", "application/json")],
        body,
    )
        .into_response()
}

async fn auth(State(fake): State<Arc<Fake>>, body: Bytes) -> Response {
    let v: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    if v["vat_number"] != VAT || v["username"] != USER || v["secret"] != SECRET {
        return json_response(
            401,
            br#"{"status":"Failure","message":"invalid VAT number, username or secret"}"#.to_vec(),
        );
    }
    let n = fake.auths.fetch_add(1, Ordering::SeqCst) + 1;
    let ttl = fake.token_ttl.load(Ordering::SeqCst);
    let token = format!("tok-SENSITIVE-{n}-{}", rand_suffix());
    fake.tokens
        .lock()
        .unwrap()
        .insert(token.clone(), Instant::now() + Duration::from_secs(ttl as u64));
    json_response(200, json!({"token": token, "expires_in": ttl}).to_string().into_bytes())
}

fn rand_suffix() -> u64 {
    use std::hash::{BuildHasher, RandomState};
    RandomState::new().hash_one(Instant::now())
}

fn token_valid(fake: &Fake, headers: &HeaderMap) -> bool {
    let Some(token) = headers
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
    else {
        return false;
    };
    fake.tokens
        .lock()
        .unwrap()
        .get(token)
        .is_some_and(|exp| *exp > Instant::now())
}

async fn onboarding(State(fake): State<Arc<Fake>>, headers: HeaderMap, body: Bytes) -> Response {
    if !token_valid(&fake, &headers) {
        fake.answered_401.fetch_add(1, Ordering::SeqCst);
        return json_response(401, br#"{"status":"Failure","message":"invalid token"}"#.to_vec());
    }
    let v: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    if v["otp"] != "123456" {
        return json_response(
            400,
            br#"{"status":"Failure","message":"Invalid or expired OTP"}"#.to_vec(),
        );
    }
    if v["device_id"] == "taken" {
        return json_response(
            409,
            br#"{"status":"Failure","message":"device already onboarded"}"#.to_vec(),
        );
    }
    let id = fake.onboard_id.lock().unwrap().clone();
    json_response(
        200,
        json!({"onboard_id": id, "status": "success"}).to_string().into_bytes(),
    )
}

struct InFlight<'a>(&'a AtomicUsize);
impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

async fn document(
    State(fake): State<Arc<Fake>>,
    Path((onboard_id, kind)): Path<(String, String)>,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let concurrent = fake.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
    let _guard = InFlight(&fake.in_flight);
    let header = |name: &str| headers.get(name).and_then(|v| v.to_str().ok()).map(str::to_string);
    let idem = header("idempotency-key");
    let recorded = {
        let mut all = fake.requests.lock().unwrap();
        let nth_for_key = {
            let mut counts = fake.per_key.lock().unwrap();
            let n = counts.entry(idem.clone()).or_insert(0);
            *n += 1;
            *n
        };
        let r = Recorded {
            at: Instant::now(),
            raw_path: uri.path().to_string(),
            onboard_id: onboard_id.clone(),
            kind: kind.clone(),
            authorization: header("authorization"),
            idempotency_key: idem.clone(),
            body: body.to_vec(),
            concurrent,
            nth_for_key,
        };
        all.push(r.clone());
        r
    };
    fake.arrived.notify_waiters();
    let action = (fake.script.lock().unwrap())(&recorded);
    match action {
        Action::Status(s, b) => return json_response(s, b.into_bytes()),
        Action::SlowStatus(d, s) => {
            tokio::time::sleep(d).await;
            return json_response(s, b"{}".to_vec());
        }
        Action::TooMany(after) => {
            return (StatusCode::TOO_MANY_REQUESTS, [("retry-after", after)], "slow down").into_response();
        }
        Action::Unauthorized => {
            fake.answered_401.fetch_add(1, Ordering::SeqCst);
            return json_response(401, b"{}".to_vec());
        }
        _ => {}
    }
    if !token_valid(&fake, &headers) {
        fake.answered_401.fetch_add(1, Ordering::SeqCst);
        return json_response(
            401,
            br#"{"status":"Failure","message":"invalid or expired token"}"#.to_vec(),
        );
    }
    if onboard_id != *fake.onboard_id.lock().unwrap() {
        return json_response(404, br#"{"status":"Failure","message":"unknown device"}"#.to_vec());
    }
    let (status, answer) = process(&fake, &onboard_id, &kind, idem, &body);
    match action {
        Action::AcceptThenDrop => std::panic::resume_unwind(Box::new("drop the connection")),
        Action::AcceptThenDelay(d) => tokio::time::sleep(d).await,
        Action::AcceptThenHang => std::future::pending::<()>().await,
        _ => {}
    }
    json_response(status, answer)
}

fn process(fake: &Fake, onboard_id: &str, kind: &str, idem: Option<String>, body: &[u8]) -> (u16, Vec<u8>) {
    let Some(idem) = idem else {
        return (
            400,
            br#"{"status":"Failure","errors":["missing Idempotency-Key"]}"#.to_vec(),
        );
    };
    let v: Value = match serde_json::from_slice(body) {
        Ok(v) => v,
        Err(_) => return (400, br#"{"status":"Failure","errors":["body is not JSON"]}"#.to_vec()),
    };
    let number = ["invoice_number", "creditnote_number", "debitnote_number"]
        .iter()
        .find_map(|k| v[k].as_str())
        .unwrap_or_default()
        .to_string();
    let mut accepted = fake.accepted.lock().unwrap();
    if let Some((stored_body, answer)) = accepted.get(&idem) {
        if stored_body == body {
            fake.replays.fetch_add(1, Ordering::SeqCst);
            return (200, answer.clone());
        }
        return (
            409,
            br#"{"status":"Failure","errors":[{"type":"ERROR","code":"DUPLICATE-DOCUMENT","message":"already accepted with other content"}]}"#.to_vec(),
        );
    }
    if number.starts_with("BAD") {
        return (
            422,
            json!({"status":"Failure","invoice_number":number,"errors":[{"type":"ERROR","code":"BR-KSA-40","category":"KSA","message":"the seller VAT number must be 15 digits","status":"ERROR"}],"warnings":null})
                .to_string()
                .into_bytes(),
        );
    }
    let n = accepted.len() + 1;
    let answer = json!({
        "status": "Success",
        "invoice_number": number,
        "invoice": "PD94bWw+",
        "id": format!("00000000-0000-4000-8000-{n:012}"),
        "qr_code": "AQ==",
        "message": format!("{kind} {number} accepted"),
        "warnings": null,
        "errors": null,
    })
    .to_string()
    .into_bytes();
    accepted.insert(idem, (body.to_vec(), answer.clone()));
    fake.numbers
        .lock()
        .unwrap()
        .insert((onboard_id.to_string(), kind.to_string(), number), body.to_vec());
    (200, answer)
}
