"""Shared helpers for the sample generators: the customers master data and the totals
arithmetic of src/compute.rs (decimal, half away from zero), so the ERP's own total columns
in the samples agree with what invoicedrop computes."""
import csv
import os
from decimal import Decimal as D, ROUND_HALF_UP

HERE = os.path.dirname(os.path.abspath(__file__))
SAMPLES = os.path.dirname(HERE)


def r2(x):
    return D(x).quantize(D("0.01"), rounding=ROUND_HALF_UP)


def money(x):
    return f"{r2(x):.2f}"


# Customers: name (as the ERPs write it), account code, and the authority's fields the exports lack.
CUSTOMERS = [
    dict(name="Al Ofuq Trading Co.", account="OFUQ001", vat_number="310122393500003", id_scheme="CRN", id="1010123456",
         street="King Fahd Road | طريق الملك فهد", building_number="7421", plot="3344", district="Al Olaya | العليا",
         city="Riyadh", postal_zone="12211", country="SA"),
    dict(name="شركة الندى للمقاولات", account="NADA002", vat_number="300055566600003", id_scheme="CRN", id="4030111222",
         street="شارع التحلية", building_number="2856", plot="7788", district="الروضة", city="جدة", postal_zone="23434",
         country="SA"),
    dict(name="Gulf Medical Supplies LLC", account="GULF003", vat_number="311111111100003", id_scheme="CRN", id="2050987654",
         street="Prince Mohammed bin Fahd Road", building_number="3120", plot="1010", district="Al Faisaliyah",
         city="Dammam", postal_zone="32272", country="SA"),
    dict(name="محمد العتيبي", account="CASH004", vat_number="", id_scheme="", id="", street="", building_number="",
         plot="", district="", city="", postal_zone="", country=""),
    dict(name="Walk-in Customer", account="CASH005", vat_number="", id_scheme="", id="", street="", building_number="",
         plot="", district="", city="", postal_zone="", country=""),
]


def customer(name):
    return next(c for c in CUSTOMERS if c["name"] == name)


def write_customers():
    path = os.path.join(SAMPLES, "customers.csv")
    cols = list(CUSTOMERS[0].keys())
    with open(path, "w", newline="", encoding="utf-8-sig") as f:
        w = csv.writer(f, lineterminator="\r\n")
        w.writerow(cols)
        for c in CUSTOMERS:
            w.writerow([c[k] for k in cols])


def totals(lines, inclusive=False):
    """lines: dicts with qty, price, disc (percent), rate. Returns per-line (net, vat, gross)
    and document (net, vat, total) as invoicedrop computes them (VAT per category total)."""
    out = []
    cats = {}
    for l in lines:
        q, p, d, rate = D(l["qty"]), D(l["price"]), D(l.get("disc", "0")), D(l["rate"])
        if inclusive:
            gross = r2(q * p * (100 - d) / 100)
            net = r2(gross / (1 + rate / 100))
        else:
            net = r2(q * p * (100 - d) / 100)
        vat = r2(net * rate / 100)
        out.append((net, vat, (gross if inclusive else net + vat)))
        key = (l.get("cat", "S"), rate)
        cats[key] = cats.get(key, D(0)) + net
    doc_net = sum((n for n, _, _ in out), D(0))
    doc_vat = sum((r2(t * k[1] / 100) for k, t in cats.items()), D(0))
    return out, (doc_net, doc_vat, doc_net + doc_vat)


def write_csv(name, headers, rows, delimiter=",", encoding="utf-8-sig", trailing_blank=0):
    path = os.path.join(SAMPLES, name)
    with open(path, "w", newline="", encoding=encoding) as f:
        w = csv.writer(f, delimiter=delimiter, lineterminator="\r\n")
        for h in headers if isinstance(headers[0], list) else [headers]:
            w.writerow(h)
        for r in rows:
            w.writerow(r)
        width = len(headers[0]) if isinstance(headers[0], list) else len(headers)
        for _ in range(trailing_blank):
            w.writerow([""] * width)
    return path


# Credit notes whose export does not name the invoice they correct (Sage, Tally): a side table.
CREDIT_NOTES = [
    dict(number="SCN-2001", original_number="SI-1001", original_date="2026-11-03", reason="Damaged goods returned | إرجاع بضاعة تالفة"),
    dict(number="TCN/7", original_number="TS/101", original_date="2026-11-04", reason="Price correction | تصحيح السعر"),
]


def write_credit_notes():
    path = os.path.join(SAMPLES, "credit_notes.csv")
    cols = list(CREDIT_NOTES[0].keys())
    with open(path, "w", newline="", encoding="utf-8-sig") as f:
        w = csv.writer(f, lineterminator="\r\n")
        w.writerow(cols)
        for c in CREDIT_NOTES:
            w.writerow([c[k] for k in cols])
