"""The table page's address as a QR code (SVG), for the players' phones to open the page.

segno draws it; it is imported with the first code asked for (the operator's tab), so the
controller starts and runs without it (its import: 10-25 ms and 1.9 MB of RSS on an x86
Python 3.11; a code: 2 ms).
"""
from __future__ import annotations

from functools import lru_cache


@lru_cache(maxsize=4)  # a server has one address: drawn once
def qr_svg(text: str) -> str:
    import segno  # lazily: see above

    code = segno.make(text, error="m", boost_error=False)
    return code.svg_inline(svgclass="qr", lineclass=None, omitsize=True, title=text)
