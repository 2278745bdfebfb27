//! `invoicedrop onboard --otp OTP --device-id ID`: register this device once (api.md 4.2) with the
//! organisation fields of the seller profile; the onboard_id is kept in the state folder (D9),
//! with the VAT number and invoice type `run` checks each document against (D7, D21).

use super::Status;
use super::api;
use super::out::outln;
use crate::cli::*;
use crate::config::Config;
use crate::model::DeviceType;
use crate::submit::{self, Ledger, OnboardedDevice};
use anyhow::Context as _;

/// Run `invoicedrop onboard`.
pub fn onboard(args: OnboardArgs, cli: &Cli) -> anyhow::Result<Status> {
    let config = Config::load(args.config.as_deref())?;
    let (seller, demo) = config.seller();
    if demo {
        eprintln!(
            "note: no configuration: onboarding with the built-in demo seller; put your company in a [seller] table"
        );
    }
    let device_type = match args.invoice_type.as_str() {
        "standard" => DeviceType::Standard,
        "simplified" => DeviceType::Simplified,
        _ => DeviceType::Both,
    };
    let rt = api::runtime()?;
    let conn = api::connect(&rt, &args.api, &seller)?;
    let ledger = Ledger::open(&conn.ledger_dir)?;
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
        &args.email,
        &args.business_category,
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
