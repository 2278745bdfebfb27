//! Tests of `schedule.rs`.
use super::*;

fn key(t: InvoiceType, d: u32, h: u32) -> Option<SortKey> {
    Some(SortKey {
        invoice_type: t,
        issued: (
            NaiveDate::from_ymd_opt(2026, 11, d).unwrap(),
            NaiveTime::from_hms_opt(h, 0, 0).unwrap(),
        ),
    })
}

#[test]
fn simplified_oldest_first_then_standard_in_input_order() {
    use InvoiceType::*;
    let keys = [
        key(Standard, 1, 9),
        key(Simplified, 3, 9),
        key(Simplified, 2, 11),
        None,
        key(Standard, 1, 8),
        key(Simplified, 2, 10),
    ];
    assert_eq!(dispatch_order(&keys), vec![5, 2, 1, 0, 4]);
}

#[tokio::test]
async fn join_all_runs_side_by_side() {
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    let waits = async move {
        rx.await.unwrap();
    };
    let sends = async move {
        tx.send(()).unwrap();
    };
    // The first future can only finish because the second runs alongside it.
    let futures: Vec<Pin<Box<dyn Future<Output = ()> + Send>>> = vec![Box::pin(waits), Box::pin(sends)];
    join_all(futures).await;
}
