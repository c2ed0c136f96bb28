#!/usr/bin/env python3
# Compares two junit XML results of llama.cpp's server suite (tools/server-suite.sh): serve's and
# llama-server's on the same fixtures. Prints the counts and every test whose outcome differs,
# with the first line of serve's failure, so each difference can be named in docs/server-suite.md.
import sys
import xml.etree.ElementTree as ET


def outcomes(path):
    result = {}
    for case in ET.parse(path).iter("testcase"):
        name = f'{case.get("classname")}::{case.get("name")}'
        outcome, message = "passed", ""
        for tag in ("failure", "error", "skipped"):
            node = case.find(tag)
            if node is not None:
                outcome = {"failure": "failed", "error": "error", "skipped": "skipped"}[tag]
                message = (node.get("message") or node.text or "").strip().splitlines()
                message = message[0][:160] if message else ""
                break
        result[name] = (outcome, message)
    return result


def main():
    serve, base = outcomes(sys.argv[1]), outcomes(sys.argv[2])
    names = sorted(set(serve) | set(base))
    table = {}
    for n in names:
        key = (serve.get(n, ("absent", ""))[0], base.get(n, ("absent", ""))[0])
        table.setdefault(key, []).append(n)
    print("outcomes, serve against llama-server (tests):")
    for (s, b), tests in sorted(table.items()):
        print(f"  serve {s:8} llama-server {b:8} {len(tests)}")
    bad = [n for n in names if serve.get(n, ("absent",))[0] in ("failed", "error", "absent")
           and base.get(n, ("absent",))[0] == "passed"]
    print(f"\nFail against serve, pass against llama-server: {len(bad)}")
    for n in bad:
        print(f"  {n}\n      {serve.get(n, ('absent', ''))[1]}")
    better = [n for n in names if serve.get(n, ("absent",))[0] == "passed"
              and base.get(n, ("absent",))[0] in ("failed", "error")]
    print(f"\nPass against serve, fail against llama-server: {len(better)}")
    for n in better:
        print(f"  {n}\n      {base.get(n, ('absent', ''))[1]}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
