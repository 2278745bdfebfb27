//! The API's URLs as configured, and as shown. `INVOICEDROP_API_URL` may carry a user name and
//! password (`https://svc:PASSWORD@host`): they are sent as configured, but every message, log
//! line, `--json` document, status or result file shows the URL through [`ApiUrl`]'s `Display`
//! (or `Debug`), which replaces the whole user-info with `***`. The user name goes too: some
//! services take a token in its place (`https://TOKEN@host`), and the host and path are enough to
//! say which API was meant. Text the tool did not write (a transport error) goes through
//! [`scrub_user_info`].

use std::borrow::Cow;
use std::fmt;

/// What the user-info of a URL is replaced with wherever it is shown.
pub const HIDDEN_USER_INFO: &str = "***";

/// A URL of the API: the text as configured, to send to ([`ApiUrl::to_send`]), shown with its
/// user-info replaced by `***` (`Display`, `Debug`). An error or log field holding an `ApiUrl`
/// cannot show the password, whatever its message says.
#[derive(Clone, PartialEq, Eq)]
pub struct ApiUrl(String);

impl ApiUrl {
    /// The URL `text`, as configured.
    pub fn new(text: impl Into<String>) -> ApiUrl {
        ApiUrl(text.into())
    }

    /// The URL to send requests to, user-info included. For the HTTP client only: never put it
    /// in a message (format the `ApiUrl` itself).
    pub(crate) fn to_send(&self) -> &str {
        &self.0
    }

    /// The URL as shown: its user-info, if any, replaced by `***`.
    pub fn shown(&self) -> Cow<'_, str> {
        hide_user_info(&self.0)
    }
}

impl fmt::Display for ApiUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.shown())
    }
}

impl fmt::Debug for ApiUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ApiUrl({:?})", self.shown())
    }
}

impl From<String> for ApiUrl {
    fn from(text: String) -> ApiUrl {
        ApiUrl(text)
    }
}

impl From<&str> for ApiUrl {
    fn from(text: &str) -> ApiUrl {
        ApiUrl(text.to_string())
    }
}

impl From<&String> for ApiUrl {
    fn from(text: &String) -> ApiUrl {
        ApiUrl(text.clone())
    }
}

/// One URL as written by someone (it may not even parse): everything between `scheme://` (or the
/// start) and the last `@` is user-info, replaced by `***`. A `@` later in a path is hidden
/// with it, which costs only some of what is shown; a password holding `/`, `?`, `#` or `@`
/// unencoded is hidden whole.
fn hide_user_info(text: &str) -> Cow<'_, str> {
    let Some(at) = text.rfind('@') else {
        return Cow::Borrowed(text);
    };
    let start = text.find("://").map(|i| i + 3).filter(|s| *s <= at).unwrap_or(0);
    Cow::Owned(format!("{}{HIDDEN_USER_INFO}{}", &text[..start], &text[at..]))
}

/// Free text that may quote URLs (a transport error from the HTTP stack): the user-info of each
/// `scheme://user:password@host` in it replaced by `***`. A URL's authority ends at `/`, `?`,
/// `#`, white space or a closing quote or bracket, as the URLs of such messages are written
/// (percent-encoded).
pub(crate) fn scrub_user_info(text: &str) -> Cow<'_, str> {
    if !text.contains('@') || !text.contains("://") {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find("://") {
        let (head, tail) = rest.split_at(i + 3);
        out.push_str(head);
        let end = tail
            .find(|c: char| {
                matches!(c, '/' | '?' | '#' | '"' | '\'' | ')' | ']' | '>' | '<' | '(') || c.is_whitespace()
            })
            .unwrap_or(tail.len());
        let authority = &tail[..end];
        match authority.rfind('@') {
            Some(at) => {
                out.push_str(HIDDEN_USER_INFO);
                out.push_str(&authority[at..]);
            }
            None => out.push_str(authority),
        }
        rest = &tail[end..];
    }
    out.push_str(rest);
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_user_info_is_hidden_in_display_and_debug() {
        let url = ApiUrl::new("http://svc:TopSecretPw@127.0.0.1:19999/v1/e-invoicing/auth");
        assert_eq!(url.to_string(), "http://***@127.0.0.1:19999/v1/e-invoicing/auth");
        assert_eq!(
            format!("{url:?}"),
            r#"ApiUrl("http://***@127.0.0.1:19999/v1/e-invoicing/auth")"#
        );
        assert_eq!(
            url.to_send(),
            "http://svc:TopSecretPw@127.0.0.1:19999/v1/e-invoicing/auth",
            "sent as configured"
        );
        // A user name alone may be a token: hidden too.
        assert_eq!(ApiUrl::new("https://tok123@h").to_string(), "https://***@h");
        // Nothing to hide: shown as given.
        let plain = ApiUrl::new("https://api.example.com/v1");
        assert_eq!(plain.to_string(), "https://api.example.com/v1");
        assert!(matches!(plain.shown(), Cow::Borrowed(_)));
    }

    #[test]
    fn urls_that_do_not_parse_are_hidden_all_the_same() {
        for (given, shown) in [
            ("svc:pw@host:9", "***@host:9"),
            ("http://svc:p/w@host", "http://***@host"),
            ("http://svc:p#w?x@host/", "http://***@host/"),
            ("http://svc:p@w@host", "http://***@host"),
            ("https://u:p w@h", "https://***@h"),
            ("user:pw@http://host", "***@http://host"),
        ] {
            let text = ApiUrl::new(given).to_string();
            assert_eq!(text, shown, "{given}");
        }
    }

    #[test]
    fn urls_in_free_text_lose_their_user_info() {
        let e = "error sending request for url (http://svc:Pw1@127.0.0.1:9/v1/auth): proxy http://u:Pw2@proxy:3128 \
                 refused; see https://example.com/a@b";
        let scrubbed = scrub_user_info(e);
        assert!(!scrubbed.contains("Pw1") && !scrubbed.contains("Pw2"), "{scrubbed}");
        assert_eq!(
            scrubbed,
            "error sending request for url (http://***@127.0.0.1:9/v1/auth): proxy http://***@proxy:3128 \
             refused; see https://example.com/a@b"
        );
        assert!(matches!(scrub_user_info("connection refused"), Cow::Borrowed(_)));
        assert_eq!(scrub_user_info("mail a@b via http://h/"), "mail a@b via http://h/");
    }
}
