#!/usr/bin/python3
"""Renders an HTML report in headless Chromium and checks what a person would see.

usage: render_check.py PAGE.html SCREENSHOT.png

Passes when Chromium (a) parses the page into as many <svg>, <circle> and <rect> elements as the
file holds (nothing dropped by a malformed document), (b) logs no console error or failed
resource, and (c) paints the charts: the screenshot holds a real number of pixels of the
report's first two series colours (#0072B2 and #E69F00) and is not blank. Exits 77 (skipped)
when no headless Chromium is installed.
"""
import re
import shutil
import subprocess
import sys

from PIL import Image

page, shot = sys.argv[1], sys.argv[2]
browser = shutil.which("chromium-headless-shell") or shutil.which("chromium")
if not browser:
    print("skipped: no chromium-headless-shell or chromium on PATH")
    sys.exit(77)
flags = ["--no-sandbox", "--headless", "--disable-gpu", "--enable-logging=stderr", "--v=0"]
url = "file://" + page

dom = subprocess.run([browser, *flags, "--dump-dom", url], capture_output=True, text=True, timeout=120)
if dom.returncode != 0:
    sys.exit(f"chromium failed ({dom.returncode}): {dom.stderr[-2000:]}")
source = open(page, encoding="utf-8").read()
for tag in ("svg", "circle", "rect", "table"):
    want, got = len(re.findall(f"<{tag}[ >]", source)), len(re.findall(f"<{tag}[ >]", dom.stdout))
    if want == 0 or got != want:
        sys.exit(f"<{tag}>: the file has {want}, Chromium's DOM {got}")
errors = [l for l in dom.stderr.splitlines() if re.search(r"CONSOLE|Uncaught|Failed to load|ERR_", l)]
if errors:
    sys.exit("console errors:\n" + "\n".join(errors[:10]))

run = subprocess.run([browser, *flags, f"--screenshot={shot}", "--window-size=1280,3000", url], capture_output=True, text=True, timeout=120)
if run.returncode != 0:
    sys.exit(f"chromium screenshot failed ({run.returncode}): {run.stderr[-2000:]}")
image = Image.open(shot).convert("RGB")
colors = image.getcolors(maxcolors=1 << 24)
counts = {rgb: n for n, rgb in colors}
blue, orange = counts.get((0x00, 0x72, 0xB2), 0), counts.get((0xE6, 0x9F, 0x00), 0)
print(f"{image.size[0]}x{image.size[1]} screenshot, {len(colors)} colours; series pixels: blue {blue}, orange {orange}")
if len(colors) < 8:
    sys.exit("the screenshot is blank")
if blue < 500 or orange < 100:
    sys.exit("the charts' series colours are (almost) missing from the screenshot")
print("rendered: every element parsed, no console error, charts painted")
