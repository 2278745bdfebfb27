"""Regenerate every sample export in samples/ (run: python3 samples/tools/make_samples.py).
Needs openpyxl for the .xlsx samples (pip install openpyxl)."""
import common
import gen_xero

common.write_customers()
gen_xero.main()
