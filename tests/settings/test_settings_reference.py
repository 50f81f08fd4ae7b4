"""docs/settings.md is the settings' declarations, written out: it cannot fall behind them."""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import ROOT


def test_the_settings_page_is_what_the_declarations_write() -> None:
    checked = subprocess.run(
        [sys.executable, "scripts/settings_reference.py", "--check"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert checked.returncode == 0, checked.stderr
