"""samples/xero_sales_invoices.csv: a Xero Sales → Export of invoices and a credit note."""
import csv
import os
from common import SAMPLES, customer, money, totals

HEADERS = "ContactName,EmailAddress,POAddressLine1,POAddressLine2,POAddressLine3,POAddressLine4,POCity,PORegion,POPostalCode,POCountry,SAAddressLine1,SAAddressLine2,SAAddressLine3,SAAddressLine4,SACity,SARegion,SAPostalCode,SACountry,InvoiceNumber,Reference,InvoiceDate,DueDate,PlannedDate,Total,TaxTotal,InvoiceAmountPaid,InvoiceAmountDue,InventoryItemCode,Description,Quantity,UnitAmount,Discount,LineAmount,AccountCode,TaxType,TaxAmount,TrackingName1,TrackingOption1,TrackingName2,TrackingOption2,Currency,Type,Sent,Status".split(",")

RATES = {"15% Output VAT": ("S", "15"), "5% Output VAT": ("S", "5"), "Zero Rated Medicines": ("Z", "0"),
         "Exempt Sales": ("E", "0"), "No VAT": ("O", "0")}

INVOICES = [
    ("INV-0101", "PO-5521", "02/11/2026", "Al Ofuq Trading Co.", "Sales Invoice", "Paid", [
        ("LAP-14", "Laptop 14 inch | حاسوب محمول", "2", "3450.00", "5", "15% Output VAT"),
        ("MSE-01", "Wireless mouse | فأرة لاسلكية", "10", " 45.50 ", "", "15% Output VAT"),
        ("SVC-IN", "Installation service", "3", "120.00", "12.5", "15% Output VAT"),
    ]),
    ("INV-0102", "", "10/11/2026", "Walk-in Customer", "Sales Invoice", "Paid", [
        ("BK-101", "كتاب تعليمي | Textbook", "4", "57.50", "", "5% Output VAT"),
        ("PEN-12", "Pencils (box of 12)", "33", "3.33", "", "15% Output VAT"),
    ]),
    ("INV-0103", "", "11/11/2026", "Al Ofuq Trading Co.", "Sales Invoice", "Voided", [
        ("LAP-14", "Laptop 14 inch | حاسوب محمول", "1", "3450.00", "", "15% Output VAT"),
    ]),
    ("INV-0104", "", "12/11/2026", "Gulf Medical Supplies LLC", "Sales Invoice", "Draft", [
        ("MED-55", "Insulin pens | أقلام الأنسولين", "50", "38.00", "", "Zero Rated Medicines"),
    ]),
    ("INV-0105", "Contract 88", "14/11/2026", "Gulf Medical Supplies LLC", "Sales Invoice", "Awaiting Payment", [
        ("MED-55", "Insulin pens | أقلام الأنسولين", "120", "38.00", "2", "Zero Rated Medicines"),
        ("FIN-01", "Financing fee | رسوم تمويل", "1", "250.00", "", "Exempt Sales"),
        ("DON-01", "Donation collected | تبرع", "1", "100.00", "", "No VAT"),
        ("GLV-10", "Nitrile gloves | قفازات", "40", "12.75", "", "15% Output VAT"),
    ]),
    ("CN-0006", "INV-0101", "16/11/2026", "Al Ofuq Trading Co.", "Sales Credit Note", "Paid", [
        ("MSE-01", "Wireless mouse returned | إرجاع فأرة", "2", "45.50", "", "15% Output VAT"),
    ]),
    ("INV-0107", "", "18/11/2026", "محمد العتيبي", "Sales Invoice", "Paid", [
        ("CHR-01", "Office chair | كرسي مكتب", "1", "899.00", "10", "15% Output VAT"),
        ("DSK-02", "Desk lamp | مصباح مكتب", "2", "149.99", "", "15% Output VAT"),
    ]),
]


def main():
    path = os.path.join(SAMPLES, "xero_sales_invoices.csv")
    with open(path, "w", newline="", encoding="utf-8-sig") as f:
        w = csv.writer(f, lineterminator="\r\n")
        w.writerow(HEADERS)
        for number, ref, date, name, typ, status, lines in INVOICES:
            c = customer(name)
            calc = [dict(qty=q, price=p.strip(), disc=d or "0", cat=RATES[t][0], rate=RATES[t][1]) for _, _, q, p, d, t in lines]
            per_line, (net, vat, total) = totals(calc)
            for (code, desc, q, p, d, t), (lnet, lvat, _) in zip(lines, per_line):
                row = dict.fromkeys(HEADERS, "")
                row.update(ContactName=name, EmailAddress="accounts@example.sa" if c["vat_number"] else "",
                           POAddressLine1=c["street"], POCity=c["city"], POPostalCode=c["postal_zone"],
                           POCountry="Saudi Arabia" if c["country"] else "", InvoiceNumber=number, Reference=ref,
                           InvoiceDate=date, DueDate=date, Total=money(total), TaxTotal=money(vat),
                           InvoiceAmountPaid=money(total) if status == "Paid" else "0.00",
                           InvoiceAmountDue="0.00" if status == "Paid" else money(total), InventoryItemCode=code,
                           Description=desc, Quantity=q, UnitAmount=p, Discount=d, LineAmount=money(lnet),
                           AccountCode="200", TaxType=t, TaxAmount=money(lvat), Currency="SAR", Type=typ,
                           Sent="Sent", Status=status)
                w.writerow([row[h] for h in HEADERS])
        # What Excel leaves behind after editing: empty trailing rows.
        w.writerow([""] * len(HEADERS))
        w.writerow([""] * len(HEADERS))


if __name__ == "__main__":
    main()
