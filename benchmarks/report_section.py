"""One section of benchmarks/REPORT.md, written again by the benchmark that measures it.

    replace_section(heading, text)   # the section that opens with `heading` (to the next "## " or the end) is
                                     # dropped and `text` put at the end of the report
    publish(heading, text, write)    # print it, and with `write` put it in the report; 0, the command's status
"""

from __future__ import annotations

import re
from pathlib import Path

REPORT = Path(__file__).resolve().parent / "REPORT.md"


def replace_section(heading: str, text: str) -> None:
    report = REPORT.read_text()
    kept = re.sub(rf"\n{re.escape(heading)}\n.*?(?=\n## |\Z)", "", report, flags=re.S)
    REPORT.write_text(kept.rstrip("\n") + "\n\n" + text)


def publish(heading: str, text: str, write: bool) -> int:
    print(text)
    if write:
        replace_section(heading, text)
    return 0
