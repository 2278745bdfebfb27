//! `invoicedrop onboard --otp OTP --device-id ID`: register this device once (api.md 4.2) with the
//! organisation fields of the seller profile; the onboard_id is kept in the state folder (D9),
//! with the VAT number and invoice type `run` checks each document against (D7, D21).

use super::Status;
use super::api;
use super::json::{ErrorKind, Fatal};
use super::out::outln;
use crate::cli::*;
use crate::config::Config;
use crate::model::DeviceType;
use crate::submit::{self, ENV_API_URL, ENV_VAT_NUMBER, OnboardedDevice};
use anyhow::Context as _;

/// Run `invoicedrop onboard`.
pub fn onboard(args: OnboardArgs, cli: &Cli) -> anyhow::Result<Status> {
    // The OTP is for a real API: without one configured it is not sent anywhere (the built-in
    // sandbox would refuse it and have the user burn another one).
    if !api::api_configured() {
        return Err(Fatal::new(
            ErrorKind::Config,
            format!(
                "no API is configured ({ENV_API_URL} is not set): `onboard` registers a device with your API, \
                 and the OTP was not sent anywhere. Set {ENV_API_URL}, {ENV_VAT_NUMBER}, INVOICEDROP_USERNAME and \
                 INVOICEDROP_SECRET (or INVOICEDROP_SECRET_FILE), then onboard again with the same OTP. To try \
                 the built-in sandbox, onboarding is not needed: `invoicedrop run` without {ENV_API_URL} onboards \
                 its own sandbox device"
            ),
        )
        .into());
    }
    let config = Config::load(args.config.as_deref())?;
    let (seller, demo) = config.seller();
    let device_type = match args.invoice_type.as_str() {
        "standard" => DeviceType::Standard,
        "simplified" => DeviceType::Simplified,
        _ => DeviceType::Both,
    };
    let rt = api::runtime()?;
    let conn = api::connect(&rt, &args.api, &seller)?;
    seller_fits_the_account(&config, demo, seller.vat_number.as_deref(), &conn.settings.vat_number)?;
    let email = contact_email(args.email.as_deref(), demo)?;
    let category = business_category(args.business_category.as_deref(), demo)?;
    if demo {
        eprintln!(
            "note: no configuration: onboarding with the built-in demo seller, whose VAT number ({}) the API account \
             has; put your company in a [seller] table",
            conn.settings.vat_number
        );
    }
    let ledger = conn.ledger()?;
    let earlier = ledger.remembered_device()?.map(|d| d.onboard_id().to_string());
    let earlier_vat = match &earlier {
        Some(id) => ledger.device(id)?.map(|d| d.vat_number),
        None => None,
    };
    let request = api::onboarding_request(
        &seller,
        &conn.settings.vat_number,
        args.otp,
        &args.device_id,
        device_type,
        &email,
        &category,
    );
    let answer = rt
        .block_on(submit::onboard(&conn.settings, request))
        .context("onboarding failed")?;
    // The VAT number and type it was onboarded with, so that `run` checks every document against
    // them before sending it (D7, D21).
    ledger.remember_device(&OnboardedDevice {
        onboard_id: answer.onboard_id.clone(),
        vat_number: conn.settings.vat_number.clone(),
        invoice_type: device_type,
    })?;
    let replaced = earlier.filter(|id| *id != answer.onboard_id);
    if let Some(id) = &replaced {
        let vat = &conn.settings.vat_number;
        let numbers = match &earlier_vat {
            Some(was) if was != vat => format!(
                "it was onboarded for VAT {was}, this one for {vat}: the numbers it issued are that seller's and \
                 do not hold this one's"
            ),
            _ => "numbers the earlier device issued stay in the ledger and are not issued again through this one"
                .to_string(),
        };
        eprintln!(
            "note: this device replaces the device with onboard_id {id} in {}: `invoicedrop run` now sends \
             through the new one; {numbers}",
            conn.ledger_dir.display()
        );
    }
    if cli.json {
        super::json::emit(&serde_json::json!({
            "onboard_id": answer.onboard_id,
            "status": answer.status,
            "vat_number": conn.settings.vat_number,
            "invoice_type": device_type,
            "state": conn.ledger_dir,
            "replaced": replaced,
            "exit_code": 0,
            "error": null,
        }))?;
    } else if !cli.quiet {
        outln!(
            "device {} onboarded ({}) for {} documents under VAT {}; its onboard_id is kept in {} and used by `invoicedrop run`",
            args.device_id,
            answer.status,
            match device_type {
                DeviceType::Standard => "standard",
                DeviceType::Simplified => "simplified",
                DeviceType::Both => "standard and simplified",
            },
            conn.settings.vat_number,
            conn.ledger_dir.display()
        );
    }
    if let Some(s) = conn.sandbox {
        rt.block_on(s.shutdown());
    }
    Ok(Status::Success)
}

/// Refuse to register a seller other than the API account's: no `[seller]` table (the built-in
/// demo company, whose name and address would be registered under the account's VAT number;
/// allowed only for an account of the demo seller's own VAT number, a sandbox's), or a `[seller]
/// vat_number` that is not the account's (every document would then be refused).
fn seller_fits_the_account(
    config: &Config,
    demo: bool,
    seller_vat: Option<&str>,
    account_vat: &str,
) -> anyhow::Result<()> {
    let file = config.path.as_ref().map(|p| p.display().to_string());
    if demo && account_vat != crate::model::example::SELLER_VAT {
        let found = match &file {
            Some(f) => format!("{f} has no [seller] table"),
            None => "no configuration (./invoicedrop.toml not found)".to_string(),
        };
        return Err(Fatal::new(
            ErrorKind::Config,
            format!(
                "{found}: onboarding would register the built-in demo company's name and address under VAT \
                 {account_vat}, in the device's certificate. Add a [seller] table with your company (name, \
                 vat_number, address) to invoicedrop.toml, or give --config the file that has it; nothing was sent"
            ),
        )
        .into());
    }
    match seller_vat {
        Some(vat) if vat != account_vat => Err(Fatal::new(
            ErrorKind::Config,
            format!(
                "[seller] vat_number in {} is {vat}, and the API account's VAT number ({ENV_VAT_NUMBER}) is \
                 {account_vat}: the device would be registered for {account_vat} with this seller's name, and \
                 every document of {vat} refused. If {account_vat} is your VAT number, fix vat_number in the \
                 [seller] table; if {vat} is, set {ENV_VAT_NUMBER} (and the credentials) of that account; \
                 nothing was sent",
                file.as_deref().unwrap_or("the configuration")
            ),
        )
        .into()),
        _ => Ok(()),
    }
}

/// The demo seller's contact e-mail (the built-in demo company, with the sandbox's account).
const DEMO_EMAIL: &str = "einvoicing@example.com";

/// The contact e-mail to register: `--email`, which a company's own onboarding must give (an
/// example address would go into its registration), in the form name@domain.tld.
fn contact_email(given: Option<&str>, demo: bool) -> anyhow::Result<String> {
    let email = match (given.map(str::trim), demo) {
        (Some(e), _) => e,
        (None, true) => return Ok(DEMO_EMAIL.to_string()),
        (None, false) => {
            return Err(Fatal::usage(
                "--email is needed: the contact e-mail registered with this device for your company (for example \
                 your e-invoicing team's address: --email einvoicing@yourcompany.sa); nothing was sent",
            )
            .into());
        }
    };
    let fits = match email.split_once('@') {
        Some((name, domain)) => {
            !name.is_empty()
                && !domain.contains('@')
                && domain.split('.').count() >= 2
                && domain.split('.').all(|part| !part.is_empty())
                && !email.chars().any(|c| c.is_whitespace() || c.is_control())
        }
        None => false,
    };
    if fits {
        Ok(email.to_string())
    } else {
        Err(Fatal::usage(format!(
            "--email {email:?} is not an e-mail address (name@domain.tld); nothing was sent"
        ))
        .into())
    }
}

/// The demo seller's industry category.
const DEMO_CATEGORY: &str = "Retail";

/// The industry category to register: `--business-category`, which a company's own onboarding
/// must give (a default would register every company as retail), not blank and without control
/// characters.
fn business_category(given: Option<&str>, demo: bool) -> anyhow::Result<String> {
    let category = match (given.map(str::trim), demo) {
        (Some(c), _) => c,
        (None, true) => return Ok(DEMO_CATEGORY.to_string()),
        (None, false) => {
            return Err(Fatal::usage(
                "--business-category is needed: the industry your company is registered in, which goes into this \
                 device's registration (for example --business-category \"Wholesale trade\" or IT); nothing was sent",
            )
            .into());
        }
    };
    if category.is_empty() || category.chars().any(char::is_control) {
        return Err(Fatal::usage(format!(
            "--business-category {category:?}: write the industry in words (for example Retail or IT), without \
             control characters; nothing was sent"
        ))
        .into());
    }
    Ok(category.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(toml: Option<&str>) -> Config {
        match toml {
            Some(t) => Config::from_toml(t, std::path::Path::new("acme.toml")).unwrap(),
            None => Config::default(),
        }
    }

    const SELLER: &str = "[seller]\nname = \"Acme\"\nvat_number = \"312345678900003\"\n";

    #[test]
    fn a_company_gives_its_contact_email_and_the_demo_seller_has_one() {
        assert_eq!(contact_email(None, true).unwrap(), DEMO_EMAIL);
        let e = format!("{:#}", contact_email(None, false).unwrap_err());
        assert!(
            e.starts_with("--email is needed") && e.contains("nothing was sent"),
            "{e}"
        );
        assert_eq!(
            contact_email(Some(" finance@acme.sa "), false).unwrap(),
            "finance@acme.sa"
        );
        assert_eq!(contact_email(Some("it@acme.com.sa"), true).unwrap(), "it@acme.com.sa");
        for bad in [
            "acme.sa",
            "@acme.sa",
            "finance@acme",
            "finance@@acme.sa",
            "fin ance@acme.sa",
            "finance@acme..sa",
            "finance@.sa",
        ] {
            let e = format!("{:#}", contact_email(Some(bad), false).unwrap_err());
            assert!(e.contains("is not an e-mail address"), "{bad}: {e}");
        }
    }

    #[test]
    fn a_company_gives_its_business_category_and_the_demo_seller_has_one() {
        assert_eq!(business_category(None, true).unwrap(), DEMO_CATEGORY);
        let e = format!("{:#}", business_category(None, false).unwrap_err());
        assert!(
            e.starts_with("--business-category is needed") && e.contains("nothing was sent"),
            "{e}"
        );
        assert_eq!(business_category(Some(" IT "), false).unwrap(), "IT");
        assert_eq!(business_category(Some("Wholesale"), true).unwrap(), "Wholesale");
        for bad in ["", "  ", "Retail\u{7}", "IT\nRetail"] {
            let e = format!("{:#}", business_category(Some(bad), false).unwrap_err());
            assert!(e.contains("write the industry in words"), "{bad:?}: {e}");
        }
    }

    #[test]
    fn the_demo_seller_is_refused_for_an_account_of_another_vat_number() {
        for (c, named) in [
            (config(None), "./invoicedrop.toml not found"),
            (config(Some("lookups_dir = \"l\"\n")), "acme.toml has no [seller] table"),
        ] {
            let e = seller_fits_the_account(&c, true, Some("399999999900003"), "312345678900003")
                .unwrap_err()
                .to_string();
            assert!(
                e.contains(named) && e.contains("demo company") && e.contains("--config"),
                "{e}"
            );
        }
        // The demo seller's own number: a sandbox's account.
        assert!(seller_fits_the_account(&config(None), true, Some("399999999900003"), "399999999900003").is_ok());
    }

    #[test]
    fn a_seller_vat_number_other_than_the_accounts_is_refused_naming_both() {
        let c = config(Some(SELLER));
        let e = seller_fits_the_account(&c, false, Some("312345678900003"), "300000000000003")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("acme.toml is 312345678900003")
                && e.contains("(INVOICEDROP_VAT_NUMBER) is 300000000000003")
                && e.contains("fix vat_number"),
            "{e}"
        );
        assert!(seller_fits_the_account(&c, false, Some("312345678900003"), "312345678900003").is_ok());
    }
}
