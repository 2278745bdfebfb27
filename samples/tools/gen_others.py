"""Samples for QuickBooks Online (xlsx), Zoho Books (invoices and credit notes), Odoo, ERPNext, SAP Business One DTW (two
files), Sage 50, Tally (xlsx) and a legacy Arabic ERP (windows-1256, ';', decimal comma)."""
import datetime
import os
from decimal import Decimal as D
from common import SAMPLES, customer, money, r2, totals, write_csv

RATE = {"S15": ("S", "15"), "S5": ("S", "5"), "Z": ("Z", "0"), "E": ("E", "0"), "O": ("O", "0")}


def calc(lines, inclusive=False):
    return totals([dict(qty=l[2], price=l[3], disc=l[4] or "0", cat=RATE[l[5]][0], rate=RATE[l[5]][1]) for l in lines], inclusive)


def xlsx(name, headers, rows, date_cols=()):
    from openpyxl import Workbook
    wb = Workbook()
    ws = wb.active
    ws.title = "Sheet1"
    ws.append(headers)
    for r in rows:
        ws.append(r)
    for col in date_cols:
        for cell in ws[col][1:]:
            if isinstance(cell.value, datetime.date):
                cell.number_format = "dd/mm/yyyy"
    wb.save(os.path.join(SAMPLES, name))


def quickbooks():
    h = "InvoiceNo,Customer,InvoiceDate,DueDate,Terms,Location,Memo,Item(Product/Service),ItemDescription,ItemQuantity,ItemRate,ItemAmount,Taxable,TaxRate".split(",")
    tax = {"S15": "VAT 15%", "S5": "VAT 5%", "Z": "Zero-rated Export", "E": "Exempt"}
    invs = [
        ("1001", "Al Ofuq Trading Co.", datetime.date(2026, 11, 3), "Net 30", "Riyadh", "Office fit-out", [
            ("Desk", "Standing desk | مكتب قائم", "4", "1250.00", "", "S15"),
            ("Chair", "Ergonomic chair", "4", "675.50", "", "S15"),
            ("Export crate", "Crate shipped to Bahrain", "1", "300.00", "", "Z"),
        ]),
        ("1002", "Walk-in Customer", datetime.date(2026, 11, 15), "Due on receipt", "Jeddah", "", [
            ("Book", "كتاب | Book", "3", "45.00", "", "S5"),
            ("Insurance", "Warranty financing fee", "1", "80.00", "", "E"),
        ]),
        ("1003", "شركة الندى للمقاولات", datetime.date(2026, 11, 19), "Net 15", "Riyadh", "Cement order", [
            ("Cement", "أسمنت بورتلاندي | Portland cement", "120", "18.75", "", "S15"),
        ]),
    ]
    rows = []
    for no, cust, d, terms, loc, memo, lines in invs:
        per, _ = calc(lines)
        for (item, desc, q, p, _, t), (net, _, _) in zip(lines, per):
            # The first row writes the date as a typed date cell, later ones as text MM/DD/YYYY.
            rows.append([no, cust, d, (d + datetime.timedelta(days=30)).strftime("%m/%d/%Y"), terms, loc, memo, item, desc,
                         D(q), D(p), float(net), "Y" if t.startswith("S") else "N", tax[t]])
        rows[-1][2] = d.strftime("%m/%d/%Y")
    xlsx("quickbooks_invoices.xlsx", h, rows, date_cols=("C",))


def zoho():
    h = "Invoice Date,Invoice ID,Invoice Number,Invoice Status,Customer Name,Is Inclusive Tax,Due Date,Currency Code,Exchange Rate,Discount Type,Is Discount Before Tax,Entity Discount Percent,Entity Discount Amount,Item Name,Item Desc,Quantity,Usage unit,Item Price,Discount,Discount Amount,Item Tax,Item Tax %,Item Tax Amount,Item Tax Type,Item Tax Exemption Reason,Item Total,SubTotal,Total,Balance,Reference Invoice#,Reference Invoice Date,Notes,Billing Address,Billing City,Billing Country,Billing Code,CF.Sales Person,Template Name".split(",")
    tax = {"S15": ("VAT 15", "15"), "S5": ("VAT 5", "5"), "Z": ("Zero Rate", "0"), "E": ("Exempt", "0")}
    invs = [
        ("2026-11-04", "INV-000201", "Sent", "Gulf Medical Supplies LLC", False, [
            ("Syringes", "Box of 100", "10", "85.00", "10.00", "S15", ""),
            ("Insulin", "أنسولين | Insulin vials", "25", "60.00", "", "Z", "Medicines | أدوية"),
        ]),
        ("2026-11-12", "INV-000202", "Paid", "محمد العتيبي", True, [
            ("Perfume", "عطر عود | Oud perfume", "2", "230.00", "", "S15", ""),
            ("Gift box", "Gift wrapping", "1", "17.25", "", "S15", ""),
        ]),
        ("2026-11-13", "INV-000203", "Draft", "Walk-in Customer", False, [
            ("Perfume", "عطر عود | Oud perfume", "1", "200.00", "", "S15", ""),
        ]),
        ("2026-11-17", "INV-000204", "Overdue", "Al Ofuq Trading Co.", False, [
            ("Consulting", "IT consulting hours", "12.5", "400.00", "", "S15", ""),
            ("Loan fee", "Administration fee on financing", "1", "150.00", "", "E", "Financial services | خدمات مالية"),
        ]),
    ]
    rows = []
    for d, no, status, cust, incl, lines in invs:
        c = customer(cust)
        items = []
        for (name, desc, q, p, disc_amt, t, reason) in lines:
            q, p, a = D(q), D(p), D(disc_amt or "0")
            rate = D(tax[t][1])
            if incl:
                gross = r2(q * p - a)
                net = r2(gross / (1 + rate / 100))
                vat = gross - net
                item_total = gross
            else:
                net = r2(q * p) - r2(a)
                vat = r2(net * rate / 100)
                item_total = net
            items.append((name, desc, q, p, a, t, reason, net, vat, item_total))
        cats = {}
        for it in items:
            cats[it[5]] = cats.get(it[5], D(0)) + it[7]
        sub = sum((it[7] for it in items), D(0))
        vat_total = sum((r2(v * D(tax[k][1]) / 100) for k, v in cats.items()), D(0))
        if incl:
            # Inclusive lines keep the line totals the buyer saw: total = sum of gross lines.
            total = sum((it[9] for it in items), D(0))
        else:
            total = sub + vat_total
        for name, desc, q, p, a, t, reason, net, vat, item_total in items:
            row = dict.fromkeys(h, "")
            row.update({"Invoice Date": d, "Invoice ID": "4600000" + no[-3:], "Invoice Number": no, "Invoice Status": status,
                        "Customer Name": cust, "Is Inclusive Tax": "true" if incl else "false", "Due Date": d,
                        "Currency Code": "SAR", "Exchange Rate": "1.00", "Discount Type": "item_level",
                        "Is Discount Before Tax": "true", "Entity Discount Percent": "0.00", "Entity Discount Amount": "0.00",
                        "Item Name": name, "Item Desc": desc, "Quantity": f"{q}", "Usage unit": "pcs", "Item Price": f"{p:.2f}",
                        "Discount": f"{a:.2f}" if a else "0.00", "Discount Amount": f"{a:.2f}" if a else "0.00",
                        "Item Tax": tax[t][0], "Item Tax %": tax[t][1], "Item Tax Amount": money(vat),
                        "Item Tax Type": "ItemAmount", "Item Tax Exemption Reason": reason, "Item Total": money(item_total),
                        "SubTotal": money(sub), "Total": money(total), "Balance": "0.00" if status == "Paid" else money(total),
                        "Billing Address": c["street"], "Billing City": c["city"], "Billing Country": "Saudi Arabia" if c["country"] else "",
                        "Billing Code": c["postal_zone"], "CF.Sales Person": "Reem", "Template Name": "Standard Template"})
            rows.append([row[k] for k in h])
    # Zoho's column order varies between exports: shuffle a few columns deterministically.
    order = list(range(len(h)))
    order[0], order[2] = order[2], order[0]
    order[13], order[20] = order[20], order[13]
    write_csv("zoho_invoices.csv", [h[i] for i in order], [[r[i] for i in order] for r in rows])

def zoho_credit_notes():
    """Zoho exports credit notes apart from invoices (Credit_Note.csv): two corrections of the
    invoices of zoho_invoices.csv, and a draft (skipped)."""
    h = "Credit Note Date,CreditNotes ID,Credit Note Number,Credit Note Status,Customer Name,Is Inclusive Tax,Currency Code,Exchange Rate,Item Name,Item Desc,Quantity,Usage unit,Item Price,Discount Amount,Item Tax,Item Tax %,Item Tax Amount,Item Tax Exemption Reason,Item Total,SubTotal,Total,Balance,Reference Invoice#,Reference Invoice Date,Reason,Notes,Billing Address,Billing City,Billing Country,Billing Code".split(",")
    tax = {"S15": ("VAT 15", "15"), "Z": ("Zero Rate", "0")}
    notes = [
        ("2026-11-18", "CN-00011", "Open", "Gulf Medical Supplies LLC", False, "INV-000201", "2026-11-04",
         "Damaged in transit | تالف أثناء الشحن", [
             ("Syringes", "Box of 100", "2", "85.00", "S15", ""),
             ("Insulin", "أنسولين | Insulin vials", "5", "60.00", "Z", "Medicines | أدوية"),
         ]),
        ("2026-11-19", "CN-00012", "Closed", "محمد العتيبي", True, "INV-000202", "2026-11-12",
         "Returned unused | مرتجع غير مستخدم", [
             ("Gift box", "Gift wrapping", "1", "17.25", "S15", ""),
         ]),
        ("2026-11-20", "CN-00013", "Draft", "Gulf Medical Supplies LLC", False, "INV-000201", "2026-11-04", "Draft", [
            ("Syringes", "Box of 100", "1", "85.00", "S15", ""),
        ]),
    ]
    rows = []
    for d, no, status, cust, incl, orig, orig_date, reason, lines in notes:
        c = customer(cust)
        items = []
        for name, desc, q, p, t, exempt in lines:
            q, p = D(q), D(p)
            rate = D(tax[t][1])
            gross_or_net = r2(q * p)
            net = r2(gross_or_net / (1 + rate / 100)) if incl else gross_or_net
            vat = gross_or_net - net if incl else r2(net * rate / 100)
            items.append((name, desc, q, p, t, exempt, net, vat, gross_or_net))
        sub = sum((it[6] for it in items), D(0))
        total = sum((it[8] for it in items), D(0)) if incl else sub + sum((it[7] for it in items), D(0))
        for name, desc, q, p, t, exempt, net, vat, item_total in items:
            row = dict.fromkeys(h, "")
            row.update({"Credit Note Date": d, "CreditNotes ID": "47000000" + no[-2:], "Credit Note Number": no,
                        "Credit Note Status": status, "Customer Name": cust, "Is Inclusive Tax": "true" if incl else "false",
                        "Currency Code": "SAR", "Exchange Rate": "1.00", "Item Name": name, "Item Desc": desc,
                        "Quantity": f"{q}", "Usage unit": "pcs", "Item Price": f"{p:.2f}", "Discount Amount": "0.00",
                        "Item Tax": tax[t][0], "Item Tax %": tax[t][1], "Item Tax Amount": money(vat),
                        "Item Tax Exemption Reason": exempt, "Item Total": money(item_total), "SubTotal": money(sub),
                        "Total": money(total), "Balance": "0.00" if status == "Closed" else money(total),
                        "Reference Invoice#": orig, "Reference Invoice Date": orig_date, "Reason": reason,
                        "Billing Address": c["street"], "Billing City": c["city"],
                        "Billing Country": "Saudi Arabia" if c["country"] else "", "Billing Code": c["postal_zone"]})
            rows.append([row[k] for k in h])
    write_csv("zoho_credit_notes.csv", h, rows)


def odoo():
    h = "name,move_type,partner_id,invoice_date,invoice_date_due,ref,currency_id,invoice_line_ids/name,invoice_line_ids/product_id,invoice_line_ids/quantity,invoice_line_ids/price_unit,invoice_line_ids/discount,invoice_line_ids/tax_ids".split(",")
    tax = {"S15": "15%", "S5": "VAT 5%", "Z": "0% Exports", "E": "Exempt", "O": "Not Subject"}
    invs = [
        ("INV/2026/00031", "out_invoice", "Al Ofuq Trading Co.", "2026-11-05", "", [
            ("[SRV-01] Cloud hosting (November)", "Cloud hosting", "1", "4200.00", "", "S15"),
            ("[LIC-02] Software licence", "Software licence", "15", "99.90", "10", "S15"),
            ("[EXP-03] Hardware shipped to Oman", "Export hardware", "2", "1800.00", "", "Z"),
        ]),
        ("INV/2026/00032", "out_invoice", "Walk-in Customer", "2026-11-11", "", [
            ("[CAF-01] قهوة عربية | Arabic coffee", "Arabic coffee", "6", "35.00", "", "S15"),
            ("[DON-01] Charity box", "Donation", "1", "50.00", "", "O"),
        ]),
        ("RINV/2026/00004", "out_refund", "Al Ofuq Trading Co.", "2026-11-16", "INV/2026/00031", [
            ("[LIC-02] Software licence (refund)", "Software licence", "5", "99.90", "10", "S15"),
        ]),
    ]
    rows = []
    for name, mt, partner, d, ref, lines in invs:
        for i, (lname, prod, q, p, disc, t) in enumerate(lines):
            if i == 0:
                rows.append([name, mt, partner, d, d, ref, "SAR", lname, prod, q, p, disc or "0", tax[t]])
            else:
                rows.append(["", "", "", "", "", "", "", lname, prod, q, p, disc or "0", tax[t]])
    write_csv("odoo_account_move.csv", h, rows, encoding="utf-8", trailing_blank=1)


def erpnext():
    h = ["ID", "Customer", "Posting Date", "Due Date", "Currency", "Is Return (Credit Note)", "Return Against",
         "Item Code (Sales Invoice Item)", "Item Name (Sales Invoice Item)", "Quantity (Sales Invoice Item)",
         "Rate (Sales Invoice Item)", "Amount (Sales Invoice Item)", "Item Tax Template (Sales Invoice Item)"]
    tax = {"S15": "KSA VAT 15% - ACME", "Z": "KSA VAT Zero - ACME", "E": "KSA VAT Exempted - ACME"}
    invs = [
        ("ACC-SINV-2026-00011", "Gulf Medical Supplies LLC", "06-11-2026", "0", "", [
            ("MASK-N95", "N95 masks (box) | كمامات", "30", "42.00", "S15"),
            ("MED-INH", "Inhaler | بخاخ", "10", "31.50", "Z"),
        ]),
        ("ACC-SINV-2026-00012", "شركة الندى للمقاولات", "09-11-2026", "0", "", [
            ("STEEL-12", "Steel rebar 12mm | حديد تسليح", "2.5", "3150.00", "S15"),
            ("SRV-FIN", "Deferred payment fee", "1", "420.00", "E"),
            ("TRN-01", "Delivery to site | توصيل", "1", "250.00", "S15"),
        ]),
        ("ACC-SINV-2026-00013-RET", "شركة الندى للمقاولات", "17-11-2026", "1", "ACC-SINV-2026-00012", [
            ("STEEL-12", "Steel rebar 12mm | حديد تسليح", "-0.5", "3150.00", "S15"),
        ]),
    ]
    rows = []
    for id_, cust, d, ret, against, lines in invs:
        for i, (code, name, q, p, t) in enumerate(lines):
            amount = money(D(q) * D(p))
            child = [code, name, q, p, amount, tax[t]]
            if i == 0:
                rows.append([id_, cust, d, d, "SAR", ret, against] + child)
            else:
                rows.append(["", "", "", "", "", "", ""] + child)
    write_csv("erpnext_sales_invoice.csv", h, rows)


def sap():
    hdr = [["RecordKey", "DocNum", "DocDate", "DocDueDate", "CardCode", "CardName", "NumAtCard", "DocCurrency"],
           ["DocNum", "DocNum", "DocDate", "DocDueDate", "CardCode", "CardName", "NumAtCard", "DocCur"]]
    lines_h = [["ParentKey", "LineNum", "ItemCode", "ItemDescription", "Quantity", "Price", "Currency", "DiscountPercent", "TaxCode", "LineTotal"],
               ["DocNum", "LineNum", "ItemCode", "Dscription", "Quantity", "Price", "Currency", "DiscPrcnt", "TaxCode", "LineTotal"]]
    code = {"S15": "S15", "S5": "S5", "Z": "Z0EXP", "E": "E0FIN"}
    docs = [
        ("1", "500101", "20261107", "C-OFUQ", "Al Ofuq Trading Co.", "PO-7781", [
            ("A-100", "Printer toner | حبر طابعة", "12", "210.00", "", "S15"),
            ("A-200", "A4 paper (carton)", "40", "95.25", "7.5", "S15"),
        ]),
        ("2", "500102", "20261113", "C-GULF", "Gulf Medical Supplies LLC", "GM-9912", [
            ("M-300", "Blood pressure monitor", "5", "480.00", "", "Z"),
            ("F-010", "Late payment finance charge", "1", "75.00", "", "E"),
            ("A-100", "Printer toner | حبر طابعة", "2", "210.00", "", "S15"),
        ]),
    ]
    hrows, lrows = [], []
    for key, num, d, cc, name, ref, lines in docs:
        hrows.append([key, num, d, d, cc, name, ref, "SAR"])
        per, _ = calc(lines)
        for i, ((item, desc, q, p, disc, t), (net, _, _)) in enumerate(zip(lines, per)):
            lrows.append([key, str(i), item, desc, q, p, "SAR", disc or "0", code[t], money(net)])
    write_csv("SAP_B1_OINV_Documents.txt", hdr, hrows, delimiter="\t", encoding="utf-8")
    write_csv("SAP_B1_OINV_Document_Lines.txt", lines_h, lrows, delimiter="\t", encoding="utf-8")


def sage():
    h = "INVOICE_NUMBER,ACCOUNT_REF,INVOICE_DATE,STOCK_CODE,DESCRIPTION,NOMINAL_CODE,DEPT_NUMBER,TAX_CODE,QTY_ORDER,UNIT_PRICE,NET_AMOUNT,TAX_AMOUNT".split(",")
    code = {"S15": "T1", "S5": "T5", "Z": "T0", "E": "T2", "O": "T9"}
    invs = [
        ("SI-1001", "OFUQ001", "03/11/2026", [
            ("PRN-01", "Laser printer", "2", "1,150.00", "S15"),
            ("SRV-02", "On-site setup", "1", "350.00", "S15"),
        ], 1),
        ("SI-1002", "CASH005", "08/11/2026", [
            ("BK-12", "Notebook A5 | دفتر", "20", "7.50", "S15"),
            ("EXP-9", "Parcel to Kuwait (export)", "1", "60.00", "Z"),
        ], 1),
        ("SCN-2001", "OFUQ001", "12/11/2026", [
            ("PRN-01", "Laser printer returned", "1", "1,150.00", "S15"),
        ], -1),
    ]
    rows = []
    for no, acc, d, lines, sign in invs:
        calc_lines = [(a, b, q, p.replace(",", ""), "", t) for a, b, q, p, t in lines]
        per, _ = calc(calc_lines)
        for (stock, desc, q, p, t), (net, vat, _) in zip(lines, per):
            rows.append([no, acc, d, stock, desc, "4000", "1", code[t], q, p, money(sign * net), money(sign * vat)])
    write_csv("sage50_invoices.csv", h, rows, trailing_blank=2)


def tally():
    h = ["Date", "Voucher Number", "Voucher Type", "Party Name", "Item Name", "Quantity", "Rate", "Amount", "Narration"]
    invs = [
        (datetime.date(2026, 11, 4), "TS/101", "Sales", "شركة الندى للمقاولات", [
            ("Safety helmets | خوذ سلامة", "25", "38.00"),
            ("Reflective vests", "25", "22.40"),
        ], "Site delivery, Jeddah"),
        ("10-Nov-2026", "TS/102", "Sales", "Walk-in Customer", [
            ("Hand drill", "1", "289.00"),
        ], "Cash sale"),
        ("14-11-2026", "TCN/7", "Credit Note", "شركة الندى للمقاولات", [
            ("Reflective vests (price correction)", "25", "2.40"),
        ], "Against TS/101"),
    ]
    rows = []
    for d, no, vt, party, lines, narr in invs:
        for item, q, rate in lines:
            rows.append([d, no, vt, party, item, D(q), D(rate), D(q) * D(rate), narr])
    xlsx("tally_sales_register.xlsx", h, rows, date_cols=("A",))


def legacy_arabic():
    h = ["رقم الفاتورة", "نوع المستند", "التاريخ", "الوقت", "اسم العميل", "الرقم الضريبي", "الشارع", "رقم المبنى", "الحي",
         "المدينة", "الرمز البريدي", "كود الصنف", "اسم الصنف", "الكمية", "سعر الوحدة", "نسبة الخصم", "نوع الضريبة",
         "قيمة الضريبة", "الإجمالي", "مرجع الفاتورة", "سبب الإشعار"]
    tax = {"S15": "خاضع 15%", "S5": "خاضع 5%", "Z": "صفري - تصدير", "E": "معفى - خدمات مالية"}
    docs = [
        ("ف-2026-055", "فاتورة ضريبية", "08/11/2026", "10:45", "Al Ofuq Trading Co.", [
            ("ت-1", "تمر سكري فاخر", "150", "1250", "", "S15"),
            ("ت-2", "تمر مجدول", "40", "85,5", "5", "S15"),
            ("ش-9", "شحنة تمور إلى الإمارات", "1", "3200", "", "Z"),
        ], "", ""),
        ("ف-2026-056", "فاتورة ضريبية مبسطة", "15/11/2026", "18:20", "محمد العتيبي", [
            ("ق-3", "قهوة مختصة", "2", "64,9", "", "S15"),
        ], "", ""),
        ("إ-2026-009", "إشعار دائن", "18/11/2026", "09:05", "Al Ofuq Trading Co.", [
            ("ت-2", "تمر مجدول (مرتجع)", "10", "85,5", "5", "S15"),
        ], "ف-2026-055", "إرجاع بضاعة تالفة"),
    ]
    rows = []
    for no, kind, d, t, cust, lines, ref, reason in docs:
        c = customer(cust)
        per, (net, vat, total) = calc([(a, b, q, p.replace(",", "."), disc, tx) for a, b, q, p, disc, tx in lines])
        for (code, name, q, p, disc, tx), (lnet, lvat, lgross) in zip(lines, per):
            rows.append([no, kind, d, t, cust, c["vat_number"], c["street"], c["building_number"], c["district"], c["city"],
                         c["postal_zone"], code, name, q, p, (disc + "%") if disc else "", tax[tx],
                         f"{lvat:,.2f}".replace(",", " ").replace(".", ",").replace(" ", "."),
                         f"{lgross:,.2f}".replace(",", " ").replace(".", ",").replace(" ", "."), ref, reason])
    write_csv("legacy_arabic_erp.csv", h, rows, delimiter=";", encoding="cp1256")


def main():
    quickbooks()
    zoho()
    zoho_credit_notes()
    odoo()
    erpnext()
    sap()
    sage()
    tally()
    legacy_arabic()


if __name__ == "__main__":
    main()
