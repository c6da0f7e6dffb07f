"""Screenshots of the page for the docs: the lobby and a table in play, on a desktop (1280x800) and a
phone (390x844), written to docs/img/ (issue 26 item 5).

    .venv/bin/python scripts/screenshots.py [--out docs/img] [--chromium /usr/bin/chromium]

It starts `pontoon serve --memory` on a free loopback port, plays through the page in Debian's
chromium (Playwright), and stops the server. The PNGs are the viewport (not the whole page) and, where
Pillow is installed, reduced to a 128-colour palette to keep them small.
"""

from __future__ import annotations

import argparse
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
VIEWPORTS = {"desktop": {"width": 1280, "height": 800}, "phone": {"width": 390, "height": 844}}
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_server(port: int) -> subprocess.Popen[bytes]:
    exe = Path(sys.executable).with_name("pontoon")
    cmd = [str(exe), "serve", "--memory", "--host", "127.0.0.1", "--port", str(port)]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    end = time.monotonic() + 30
    while time.monotonic() < end:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/api/tables", timeout=1).read()
            return proc
        except OSError:
            time.sleep(0.2)
    proc.terminate()
    raise SystemExit("error: pontoon serve did not start on loopback within 30 s")


def shrink(path: Path) -> None:
    try:
        from PIL import Image
    except ImportError:
        return
    with Image.open(path) as im:
        small = im.convert("RGB").quantize(colors=128)
    small.save(path, optimize=True)


def shoot(browser: object, url: str, name: str, viewport: dict[str, int], out: Path) -> list[Path]:
    phone = viewport["width"] < 600
    ctx = browser.new_context(viewport=viewport, is_mobile=phone, has_touch=phone, reduced_motion="reduce")  # type: ignore[attr-defined]
    page = ctx.new_page()
    page.set_default_timeout(20_000)
    page.goto(url + "/")
    page.fill("#account-name", name)
    page.click("#account-create")
    page.wait_for_selector("#account-info:not([hidden])")
    page.select_option("#preset", "mbs")
    page.wait_for_timeout(500)  # the lobby's list of the tables already there
    before = set(page.locator("#table-list tbody tr").evaluate_all("rs => rs.map(r => r.dataset.table)"))
    page.click("#create-table")
    row = page.locator("#table-list tbody tr").last
    page.wait_for_function(f"() => document.querySelectorAll('#table-list tbody tr').length > {len(before)}")
    tid = next(t for t in row.evaluate_all("rs => rs.map(r => r.dataset.table)") if t not in before)
    row = page.locator(f'#table-list tbody tr[data-table="{tid}"]')
    kind = "phone" if phone else "desktop"
    shots = [out / f"lobby-{kind}.png", out / f"table-{kind}.png"]
    page.screenshot(path=str(shots[0]))
    page.fill("#buy-in", "300")  # the buy-in asked on joining
    row.locator("button.join-sit").click()
    page.wait_for_selector("#table:not([hidden])")
    for _ in range(12):  # rounds until one has ended (for "Last rounds") and the next is in play
        page.fill("#amount", "10")
        page.click('#actions button[data-verb="bet"][data-kind="main"]')
        page.wait_for_selector('#actions button[data-verb="stand"], #actions button[data-verb="bet"]')
        if page.locator("#history details.round").count() and page.locator('[data-verb="stand"]').count():
            break
        while page.locator('#actions button[data-verb="stand"]').count():
            page.keyboard.press("s")  # stand (the page's key)
            page.wait_for_timeout(300)
        page.wait_for_selector("#history details.round")
    page.locator("#history details.round").first.click()
    page.wait_for_timeout(300)
    page.evaluate("() => window.scrollTo(0, 0)")
    page.screenshot(path=str(shots[1]), full_page=phone)  # the phone: the whole column, "Last rounds" below
    ctx.close()
    return shots


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=str(ROOT / "docs" / "img"))
    ap.add_argument("--chromium", default="/usr/bin/chromium")
    a = ap.parse_args(argv)
    if not Path(a.chromium).exists():
        print(f"error: no chromium at {a.chromium} (apt-get install chromium, or give --chromium PATH)")
        return 2
    from playwright.sync_api import sync_playwright

    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    port = free_port()
    server = start_server(port)
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=a.chromium, args=ARGS, headless=True)
            try:
                for (kind, vp), name in zip(VIEWPORTS.items(), ("Ann", "Bob"), strict=True):
                    for path in shoot(browser, f"http://127.0.0.1:{port}", name, vp, out):
                        shrink(path)
                        print(
                            f"{kind}: {path.relative_to(ROOT) if path.is_relative_to(ROOT) else path} "
                            f"({path.stat().st_size // 1024} KiB)"
                        )
            finally:
                browser.close()
    finally:
        server.terminate()
        server.wait(10)
    return 0


if __name__ == "__main__":
    sys.exit(main())
