#!/usr/bin/env python3
"""Write a large Xero-layout export for memory and speed measurements (see BENCHMARKS.md).

    python3 scripts/gen_xero.py ROWS OUT.csv     # e.g. 1000000 /tmp/big/xero_big.csv

About 5 lines per invoice (1 to 9), the columns of samples/xero_sales_invoices.csv, mixed tax
rates, a voided invoice every 50, a credit note every 40. Deterministic (seeded)."""
import csv
import random
import sys
from decimal import Decimal as D, ROUND_HALF_UP

HEADERS = "ContactName,EmailAddress,POAddressLine1,POAddressLine2,POAddressLine3,POAddressLine4,POCity,PORegion,POPostalCode,POCountry,SAAddressLine1,SAAddressLine2,SAAddressLine3,SAAddressLine4,SACity,SARegion,SAPostalCode,SACountry,InvoiceNumber,Reference,InvoiceDate,DueDate,PlannedDate,Total,TaxTotal,InvoiceAmountPaid,InvoiceAmountDue,InventoryItemCode,Description,Quantity,UnitAmount,Discount,LineAmount,AccountCode,TaxType,TaxAmount,TrackingName1,TrackingOption1,TrackingName2,TrackingOption2,Currency,Type,Sent,Status".split(",")
TAXES = [("15% Output VAT", D(15)), ("15% Output VAT", D(15)), ("15% Output VAT", D(15)), ("5% Output VAT", D(5)),
         ("Zero Rated Medicines", D(0)), ("Exempt Sales", D(0))]
NAMES = ["Walk-in Customer", "محمد العتيبي", "Sara Al-Harbi", "عبدالله القحطاني", "Noura Stores"]


def r2(x):
    return x.quantize(D("0.01"), rounding=ROUND_HALF_UP)


def main():
    rows, out = int(sys.argv[1]), sys.argv[2]
    rnd = random.Random(42)
    written = 0
    n = 0
    with open(out, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(HEADERS)
        while written < rows:
            n += 1
            k = min(rnd.randint(1, 9), rows - written)
            credit = n % 40 == 0
            status = "Voided" if n % 50 == 0 else "Paid"
            day = 1 + n % 19
            lines = []
            cats = {}
            for i in range(k):
                tax, rate = TAXES[rnd.randrange(len(TAXES))]
                q = D(rnd.randint(1, 20))
                p = D(rnd.randint(100, 99999)) / 100
                disc = D(rnd.choice([0, 0, 0, 5, 10]))
                net = r2(q * p * (100 - disc) / 100)
                lines.append((tax, rate, q, p, disc, net, r2(net * rate / 100)))
                cats[(tax, rate)] = cats.get((tax, rate), D(0)) + net
            net_total = sum(l[5] for l in lines)
            vat_total = sum(r2(t * k2[1] / 100) for k2, t in cats.items())
            total = net_total + vat_total
            for i, (tax, rate, q, p, disc, net, vat) in enumerate(lines):
                row = dict.fromkeys(HEADERS, "")
                row.update(ContactName=NAMES[n % len(NAMES)], InvoiceNumber=f"{'CN' if credit else 'INV'}-{n:07d}",
                           Reference=f"INV-{n - 1:07d}" if credit else "", InvoiceDate=f"{day:02d}/11/2026",
                           DueDate=f"{day:02d}/12/2026", Total=f"{total}", TaxTotal=f"{vat_total}",
                           InventoryItemCode=f"ITEM-{rnd.randint(1, 500)}", Description=f"Item {i + 1} | صنف",
                           Quantity=f"{q}", UnitAmount=f"{p}", Discount=f"{disc}" if disc else "", LineAmount=f"{net}",
                           AccountCode="200", TaxType=tax, TaxAmount=f"{vat}", Currency="SAR",
                           Type="Sales Credit Note" if credit else "Sales Invoice", Sent="Sent", Status=status)
                w.writerow([row[h] for h in HEADERS])
            written += k


if __name__ == "__main__":
    main()
