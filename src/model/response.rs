//! Responses of the submission endpoints (api.md 2.6, D14) and error bodies (D15).
//!
//! Parsing is tolerant: `errors` and `warnings` may be `null`, a string, an array of strings or of
//! message objects, or the authority's nested `validationResults`; unknown fields are ignored.

use serde::de::Deserializer;
use serde::{Deserialize, Serialize, Serializer};
use serde_json::Value;

/// A validation message `{type, code, category, message, status}` (D14).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Message {
    /// `ERROR`, `WARNING` or `INFO`.
    #[serde(rename = "type", default)]
    pub kind: String,
    /// The rule id (`BR-KSA-40`) or another code.
    #[serde(default)]
    pub code: Option<String>,
    /// `KSA`, `EN_16931`, ...
    #[serde(default)]
    pub category: Option<String>,
    /// Text for a person.
    #[serde(default)]
    pub message: String,
    /// `ERROR`, `WARNING`, `PASS`.
    #[serde(default)]
    pub status: Option<String>,
}

impl Message {
    /// An error message.
    pub fn error(code: &str, category: &str, message: impl Into<String>) -> Self {
        Message {
            kind: "ERROR".into(),
            code: Some(code.into()),
            category: Some(category.into()),
            message: message.into(),
            status: Some("ERROR".into()),
        }
    }

    /// A warning message.
    pub fn warning(code: &str, category: &str, message: impl Into<String>) -> Self {
        Message {
            kind: "WARNING".into(),
            code: Some(code.into()),
            category: Some(category.into()),
            message: message.into(),
            status: Some("WARNING".into()),
        }
    }

    fn from_value(v: &Value, default_kind: &str) -> Option<Message> {
        match v {
            Value::Null => None,
            Value::String(s) => Some(Message {
                kind: default_kind.into(),
                code: None,
                category: None,
                message: s.clone(),
                status: None,
            }),
            Value::Object(o) => {
                let text = |k: &str| {
                    o.get(k).and_then(|x| match x {
                        Value::String(s) => Some(s.clone()),
                        Value::Null => None,
                        other => Some(other.to_string()),
                    })
                };
                Some(Message {
                    kind: text("type").unwrap_or_else(|| default_kind.to_string()),
                    code: text("code"),
                    category: text("category"),
                    message: text("message").unwrap_or_default(),
                    status: text("status"),
                })
            }
            other => Some(Message {
                kind: default_kind.into(),
                code: None,
                category: None,
                message: other.to_string(),
                status: None,
            }),
        }
    }
}

/// A list of messages; `null` on the wire when there are none.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Messages(pub Vec<Message>);

impl Messages {
    /// Read messages from any of the shapes D14 allows. `key` is `errors` or `warnings` and picks
    /// `errorMessages` or `warningMessages` inside a nested `validationResults`.
    pub fn from_value(v: &Value, default_kind: &str) -> Messages {
        let nested_key = if default_kind == "ERROR" {
            "errorMessages"
        } else {
            "warningMessages"
        };
        let mut out = Vec::new();
        match v {
            Value::Array(items) => out.extend(items.iter().filter_map(|i| Message::from_value(i, default_kind))),
            Value::Object(o) if o.contains_key("validationResults") || o.contains_key(nested_key) => {
                let inner = o.get("validationResults").unwrap_or(v);
                if let Some(Value::Array(items)) = inner.get(nested_key) {
                    out.extend(items.iter().filter_map(|i| Message::from_value(i, default_kind)));
                }
            }
            other => out.extend(Message::from_value(other, default_kind)),
        }
        Messages(out)
    }

    /// True when there are no messages.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl Serialize for Messages {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        if self.0.is_empty() {
            serializer.serialize_none()
        } else {
            self.0.serialize(serializer)
        }
    }
}

/// The body of every submission endpoint answer (api.md 2.6).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SubmissionResponse {
    /// `Success` or `Failure`.
    pub status: String,
    /// The echoed document number.
    pub invoice_number: Option<String>,
    /// Base64 of the signed UBL XML.
    pub invoice: Option<String>,
    /// The UUID the authority assigned.
    pub id: Option<String>,
    /// Base64 QR payload (TLV).
    pub qr_code: Option<String>,
    /// Text for a person.
    pub message: Option<String>,
    /// Non-blocking findings.
    pub warnings: Messages,
    /// Blocking findings.
    pub errors: Messages,
}

impl SubmissionResponse {
    /// Parse any JSON body tolerantly (D14); `None` when it is not JSON at all.
    pub fn parse(body: &[u8]) -> Option<SubmissionResponse> {
        let v: Value = serde_json::from_slice(body).ok()?;
        Some(Self::from_value(&v))
    }

    /// Read a response from a JSON value, whatever its shape.
    pub fn from_value(v: &Value) -> SubmissionResponse {
        let text = |k: &str| v.get(k).and_then(|x| x.as_str()).map(str::to_string);
        let number = text("invoice_number")
            .or_else(|| text("creditnote_number"))
            .or_else(|| text("debitnote_number"));
        let mut errors = v
            .get("errors")
            .map(|e| Messages::from_value(e, "ERROR"))
            .unwrap_or_default();
        let mut warnings = v
            .get("warnings")
            .map(|w| Messages::from_value(w, "WARNING"))
            .unwrap_or_default();
        if let Some(vr) = v.get("validationResults") {
            errors.0.extend(Messages::from_value(vr, "ERROR").0);
            warnings.0.extend(Messages::from_value(vr, "WARNING").0);
        }
        SubmissionResponse {
            status: text("status").unwrap_or_default(),
            invoice_number: number,
            invoice: text("invoice").or_else(|| text("clearedInvoice")),
            id: text("id").or_else(|| text("uuid")),
            qr_code: text("qr_code"),
            message: text("message"),
            warnings,
            errors,
        }
    }

    /// True when the status says `Success` (any case).
    pub fn is_success(&self) -> bool {
        self.status.eq_ignore_ascii_case("success")
    }
}

impl<'de> Deserialize<'de> for SubmissionResponse {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let v = Value::deserialize(deserializer)?;
        Ok(SubmissionResponse::from_value(&v))
    }
}

/// The body of a non-2xx answer from auth and onboarding (D15), and of 400/404/409 answers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FailureBody {
    /// Always `Failure`.
    pub status: String,
    /// Text for a person.
    pub message: String,
    /// The details.
    pub errors: Messages,
}

impl FailureBody {
    /// A failure with a message and details.
    pub fn new(message: impl Into<String>, errors: Vec<Message>) -> Self {
        FailureBody {
            status: "Failure".into(),
            message: message.into(),
            errors: Messages(errors),
        }
    }

    /// Parse any body; a body that is not JSON (an HTML page from a proxy) becomes its first
    /// 200 characters as the message.
    pub fn parse(body: &[u8]) -> FailureBody {
        match serde_json::from_slice::<Value>(body) {
            Ok(v) => FailureBody {
                status: v.get("status").and_then(Value::as_str).unwrap_or("Failure").to_string(),
                message: v.get("message").and_then(Value::as_str).unwrap_or_default().to_string(),
                errors: v
                    .get("errors")
                    .map(|e| Messages::from_value(e, "ERROR"))
                    .unwrap_or_default(),
            },
            Err(_) => {
                let text: String = String::from_utf8_lossy(body).chars().take(200).collect();
                FailureBody {
                    status: "Failure".into(),
                    message: text,
                    errors: Messages::default(),
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_in_every_shape() {
        let shapes = [
            (r#"null"#, 0),
            (r#""bad thing""#, 1),
            (r#"["a","b"]"#, 2),
            (
                r#"[{"type":"ERROR","code":"BR-KSA-40","category":"KSA","message":"m","status":"ERROR"}]"#,
                1,
            ),
            (
                r#"{"validationResults":{"errorMessages":[{"code":"X","message":"y"}],"warningMessages":[]}}"#,
                1,
            ),
        ];
        for (text, n) in shapes {
            let v: Value = serde_json::from_str(text).unwrap();
            assert_eq!(Messages::from_value(&v, "ERROR").0.len(), n, "{text}");
        }
    }

    #[test]
    fn response_round_trip_and_null_lists() {
        let r = SubmissionResponse {
            status: "Success".into(),
            invoice_number: Some("INV-1".into()),
            invoice: Some("PD94".into()),
            id: Some("u".into()),
            qr_code: Some("AQ==".into()),
            message: Some("ok".into()),
            warnings: Messages::default(),
            errors: Messages::default(),
        };
        let text = serde_json::to_string(&r).unwrap();
        assert!(text.contains(r#""errors":null"#));
        let back: SubmissionResponse = serde_json::from_str(&text).unwrap();
        assert_eq!(back, r);
        assert!(back.is_success());
    }

    #[test]
    fn non_json_failure_body_is_kept_as_text() {
        let f = FailureBody::parse(b"<html>502 Bad Gateway</html>");
        assert!(f.message.contains("502"));
    }
}
