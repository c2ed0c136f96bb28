#!/usr/bin/env python3
"""Fill translations/shoehorn_zh_CN.ts from translations/zh_CN.json.

Workflow after changing strings: run lupdate (cmake --build build --target update_translations),
add the new strings to zh_CN.json, run this script. It exits 1 and lists what is missing, so
a string never ships untranslated. Plural forms are given as a list in the JSON.
"""
import json
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

root = Path(__file__).resolve().parents[2]
ts_path = root / "translations" / "shoehorn_zh_CN.ts"
table = json.loads((root / "translations" / "zh_CN.json").read_text(encoding="utf-8"))

tree = ET.parse(ts_path)
missing = []
for message in tree.getroot().iter("message"):
    source = message.find("source").text or ""
    tr = message.find("translation")
    if tr is None:
        tr = ET.SubElement(message, "translation")
    if source not in table:
        missing.append(source)
        continue
    value = table[source]
    tr.attrib.pop("type", None)
    for child in list(tr):
        tr.remove(child)
    if message.get("numerus") == "yes":
        tr.text = None
        for form in value if isinstance(value, list) else [value]:
            ET.SubElement(tr, "numerusform").text = form
    else:
        tr.text = value

ET.indent(tree)
with open(ts_path, "wb") as f:
    f.write(b'<?xml version="1.0" encoding="utf-8"?>\n<!DOCTYPE TS>\n')
    tree.write(f, encoding="utf-8", xml_declaration=False)
    f.write(b"\n")

# English needs only its plural forms: "%n layer(s)" -> "%n layer" / "%n layers".
en_path = root / "translations" / "shoehorn_en.ts"
en = ET.parse(en_path)
for message in en.getroot().iter("message"):
    if message.get("numerus") != "yes":
        continue
    source = message.find("source").text or ""
    tr = message.find("translation")
    if tr is None:
        tr = ET.SubElement(message, "translation")
    tr.attrib.pop("type", None)
    for child in list(tr):
        tr.remove(child)
    tr.text = None
    one = source.replace("(s)", "").replace(" were ", " was ")
    many = source.replace("(s)", "s")
    ET.SubElement(tr, "numerusform").text = one
    ET.SubElement(tr, "numerusform").text = many
ET.indent(en)
with open(en_path, "wb") as f:
    f.write(b'<?xml version="1.0" encoding="utf-8"?>\n<!DOCTYPE TS>\n')
    en.write(f, encoding="utf-8", xml_declaration=False)
    f.write(b"\n")

if missing:
    print("untranslated:", *missing, sep="\n  ")
    sys.exit(1)
print(f"{ts_path.name}: complete")
