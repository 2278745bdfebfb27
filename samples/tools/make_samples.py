"""Regenerate every sample export in samples/ (run: python3 samples/tools/make_samples.py).
Needs openpyxl for the .xlsx samples (pip install openpyxl)."""
import common
import gen_others
import gen_xero

common.write_customers()
common.write_credit_notes()
gen_xero.main()
gen_others.main()
