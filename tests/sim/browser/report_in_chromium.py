#!/usr/bin/python3
"""Opens a `qm simulate --report` HTML file in headless Chromium and checks it is drawn.

Usage: report_in_chromium.py REPORT.html [--charts N] [--overlay-runs N] [--screenshot OUT.png]
                             [--chromium PATH]

Checks:
  DOM (chromium --dump-dom): every <figure class="chart"> holds one <svg> with drawn marks
  (<path> with data, <rect> or <polyline>) inside its <g class="marks">; --charts N, when given,
  is the exact number of charts; at least one <table> with rows. With --overlay-runs N (a comparison
  of N runs), the page has overlay charts (id overlay-*: wait CDFs per team, accelerators held,
  preemptions so far), each drawing at least one line per run, one per colour of the palette's
  first N, and the wait CDFs have the logarithmic time axis (a "1h" or "10min" tick label).
  Screenshot (chromium --screenshot, 1280x2400): the PNG is decoded here (zlib, scanline filters)
  and must not be blank: enough non-white pixels, many distinct colours, and the fill colours the
  chart marks use must appear as pixels (so the charts were painted, not just parsed).

Exit codes: 0 pass, 1 a check failed, 2 usage or browser error, 77 Chromium is not installed
(CTest SKIP_RETURN_CODE). Under CI=true a missing Chromium is a failure (exit 1), not a skip: a green
CI run must mean the report was drawn. Standard library only.
"""

import argparse
import html.parser
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib

SKIP = 77
WIDTH, HEIGHT = 1280, 2400
BROWSERS = ("chromium", "chromium-browser", "google-chrome")


def find_browser(explicit):
    if explicit:
        return explicit if os.access(explicit, os.X_OK) else None
    for name in BROWSERS:
        path = shutil.which(name)
        if path:
            return path
    return None


def run_browser(browser, profile, args, timeout=180):
    # No sandbox: tests run as root in containers. The resolver rule keeps the page off the
    # network even if it tried to reach it.
    cmd = [browser, "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
           "--disable-extensions", "--hide-scrollbars", "--user-data-dir=" + profile,
           "--host-resolver-rules=MAP * ~NOTFOUND", "--window-size=%d,%d" % (WIDTH, HEIGHT)] + args
    result = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout)
    if result.returncode != 0:
        sys.stderr.write(result.stderr.decode("utf-8", "replace")[-2000:])
        raise RuntimeError("%s exited with %d" % (cmd[0], result.returncode))
    return result.stdout


class ReportDom(html.parser.HTMLParser):
    """Collects each chart figure's marks and fills, and the tables' rows."""

    def __init__(self):
        super().__init__()
        self.charts = []  # per figure: {"id", "svgs", "marks", "fills", "strokes", "texts"}
        self.tables = 0
        self.table_rows = 0
        self._stack = []
        self._in_marks = 0

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self._stack.append(tag)
        if tag == "figure" and "chart" in (a.get("class") or "").split():
            self.charts.append({"id": a.get("id", "?"), "svgs": 0, "marks": 0, "fills": set(),
                                "strokes": set(), "texts": []})
        elif not self.charts or "figure" not in self._stack:
            pass
        elif tag == "svg":
            self.charts[-1]["svgs"] += 1
        elif tag == "g" and a.get("class") == "marks":
            self._in_marks = len(self._stack)
        elif self._in_marks and tag in ("path", "rect", "polyline"):
            if tag == "path" and len(a.get("d") or "") < 4:
                return
            self.charts[-1]["marks"] += 1
            fill = (a.get("fill") or "").lower()
            if re.fullmatch(r"#[0-9a-f]{6}", fill):
                self.charts[-1]["fills"].add(fill)
            stroke = (a.get("stroke") or "").lower()
            if tag == "path" and re.fullmatch(r"#[0-9a-f]{6}", stroke):
                self.charts[-1]["strokes"].add(stroke)
        if tag == "table":
            self.tables += 1
        elif tag == "tr":
            self.table_rows += 1

    def handle_data(self, data):
        if self.charts and "figure" in self._stack and "text" in self._stack:
            self.charts[-1]["texts"].append(data.strip())

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        self.handle_endtag(tag)

    def handle_endtag(self, tag):
        while self._stack:
            top = self._stack.pop()
            if self._in_marks and len(self._stack) < self._in_marks:
                self._in_marks = 0
            if top == tag:
                break


def paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    if pa <= pb and pa <= pc:
        return a
    return b if pb <= pc else c


def decode_png(data):
    """Returns (width, height, channels, rows) for an 8-bit RGB/RGBA non-interlaced PNG."""
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG file")
    pos, idat, header = 8, [], None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
        elif kind == b"IEND":
            break
    width, height, depth, color, _, _, interlace = header
    if depth != 8 or color not in (2, 6) or interlace != 0:
        raise ValueError("unsupported PNG: depth %d colour type %d interlace %d" % (depth, color, interlace))
    channels = 3 if color == 2 else 4
    raw = zlib.decompress(b"".join(idat))
    stride = width * channels
    rows, prev = [], bytearray(stride)
    for y in range(height):
        start = y * (stride + 1)
        kind = raw[start]
        line = bytearray(raw[start + 1:start + 1 + stride])
        if kind == 1:
            for i in range(channels, stride):
                line[i] = (line[i] + line[i - channels]) & 0xFF
        elif kind == 2:
            line = bytearray((x + p) & 0xFF for x, p in zip(line, prev))
        elif kind == 3:
            for i in range(stride):
                left = line[i - channels] if i >= channels else 0
                line[i] = (line[i] + ((left + prev[i]) >> 1)) & 0xFF
        elif kind == 4:
            for i in range(stride):
                left = line[i - channels] if i >= channels else 0
                up_left = prev[i - channels] if i >= channels else 0
                line[i] = (line[i] + paeth(left, prev[i], up_left)) & 0xFF
        elif kind != 0:
            raise ValueError("bad PNG filter %d on row %d" % (kind, y))
        rows.append(bytes(line))
        prev = line
    return width, height, channels, rows


def check_overlays(parser, runs):
    problems = []
    overlays = [c for c in parser.charts if c["id"].startswith("overlay-")]
    ids = [c["id"] for c in overlays]
    for wanted in ("overlay-wait-cdf-1", "overlay-accelerators", "overlay-preemptions"):
        if wanted not in ids:
            problems.append("the comparison has no %s chart" % wanted)
    complete_cdfs = 0
    for chart in overlays:
        cdf = chart["id"].startswith("overlay-wait-cdf")
        # A team may be missing from some runs (a policy's own queues): its CDF has fewer lines.
        if cdf:
            complete_cdfs += chart["marks"] >= runs and len(chart["strokes"]) >= runs
            if chart["marks"] == 0:
                problems.append("overlay chart %s draws no line" % chart["id"])
        elif chart["marks"] < runs or len(chart["strokes"]) < runs:
            problems.append("overlay chart %s draws %d lines in %d colours for %d runs"
                            % (chart["id"], chart["marks"], len(chart["strokes"]), runs))
        if cdf and not {"1h", "10min", "1min"} & set(chart["texts"]):
            problems.append("overlay chart %s has no logarithmic time axis" % chart["id"])
    if overlays and complete_cdfs == 0:
        problems.append("no overlay wait CDF draws a line for each of the %d runs" % runs)
    return problems


def check_dom(dom, expected_charts, overlay_runs=None):
    problems = []
    parser = ReportDom()
    parser.feed(dom)
    if overlay_runs:
        problems += check_overlays(parser, overlay_runs)
    if expected_charts is not None and len(parser.charts) != expected_charts:
        problems.append("expected %d charts, the page has %d" % (expected_charts, len(parser.charts)))
    if not parser.charts:
        problems.append("no <figure class=\"chart\"> on the page")
    for chart in parser.charts:
        if chart["svgs"] != 1:
            problems.append("chart %s holds %d <svg> elements" % (chart["id"], chart["svgs"]))
        if chart["marks"] == 0:
            problems.append("chart %s draws no marks" % chart["id"])
    if parser.tables == 0 or parser.table_rows < 3:
        problems.append("the summary tables are missing (%d tables, %d rows)" % (parser.tables, parser.table_rows))
    fills = set()
    for chart in parser.charts:
        fills |= chart["fills"]
    return problems, parser, fills


def check_image(png, fills):
    problems = []
    width, height, channels, rows = decode_png(png)
    if (width, height) != (WIDTH, HEIGHT):
        problems.append("screenshot is %dx%d, expected %dx%d" % (width, height, WIDTH, HEIGHT))
    colours, non_white, sampled = set(), 0, 0
    for y in range(0, height, 2):
        row = rows[y]
        for x in range(0, width * channels, channels):
            rgb = row[x:x + 3]
            colours.add(rgb)
            sampled += 1
            if rgb != b"\xff\xff\xff":
                non_white += 1
    painted = []
    for fill in sorted(fills):
        want = bytes.fromhex(fill[1:])
        if any(all(abs(c[i] - want[i]) <= 2 for i in range(3)) for c in colours):
            painted.append(fill)
    share = non_white / max(sampled, 1)
    if share < 0.03:
        problems.append("the screenshot is almost blank (%.2f%% non-white pixels)" % (100 * share))
    if len(colours) < 50:
        problems.append("the screenshot has only %d distinct colours" % len(colours))
    needed = min(3, len(fills))
    if len(painted) < needed:
        problems.append("only %d of the charts' %d fill colours appear on screen (%s)"
                        % (len(painted), len(fills), ", ".join(painted) or "none"))
    return problems, {"non_white_percent": 100 * share, "colours": len(colours),
                      "fills_painted": len(painted), "fills": len(fills)}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("report")
    ap.add_argument("--charts", type=int, help="exact number of charts expected")
    ap.add_argument("--overlay-runs", type=int, help="a comparison of this many runs: check its overlay charts")
    ap.add_argument("--screenshot", help="keep the screenshot here")
    ap.add_argument("--chromium", help="browser binary (default: chromium on PATH)")
    args = ap.parse_args()

    browser = find_browser(args.chromium)
    if not browser:
        if os.environ.get("CI") == "true":
            print("FAIL: Chromium is not installed (Debian: apt-get install chromium), and under "
                  "CI=true a missing tool fails the test instead of skipping it")
            return 1
        print("SKIP: Chromium is not installed (Debian: apt-get install chromium); "
              "the report was not checked in a browser")
        return SKIP
    if not os.path.isfile(args.report):
        print("error: %s: no such file" % args.report)
        return 2
    url = "file://" + os.path.abspath(args.report)
    with tempfile.TemporaryDirectory(prefix="qm-report-") as tmp:
        shot = args.screenshot or os.path.join(tmp, "report.png")
        try:
            dom = run_browser(browser, os.path.join(tmp, "profile-dom"), ["--dump-dom", url]).decode("utf-8")
            run_browser(browser, os.path.join(tmp, "profile-shot"), ["--screenshot=" + shot, url])
            with open(shot, "rb") as f:
                png = f.read()
        except (RuntimeError, OSError, subprocess.TimeoutExpired) as e:
            print("error: %s" % e)
            return 2
        problems, parser, fills = check_dom(dom, args.charts, args.overlay_runs)
        image_problems, stats = check_image(png, fills)
        problems += image_problems
    print("%s: %d charts, %d tables (%d rows); screenshot %.1f%% non-white, %d colours, "
          "%d of %d chart fill colours painted"
          % (args.report, len(parser.charts), parser.tables, parser.table_rows,
             stats["non_white_percent"], stats["colours"], stats["fills_painted"], stats["fills"]))
    for p in problems:
        print("FAIL: " + p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
