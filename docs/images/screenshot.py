"""Take docs/images/neovim-diagnostics.png: Neovim (in xterm, on a virtual X display)
attached to ``ferry server``, showing the findings of examples/train_with_mistakes.py.

    python docs/images/screenshot.py            # needs: apt-get install xvfb xterm x11-apps neovim

Xvfb gives the display, xterm the terminal, Neovim's own LSP client the diagnostics (the
configuration written below: the same calls as in docs/editor.md); ``xwd`` dumps the
screen once Neovim has the findings, and Pillow writes the PNG.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OUT = Path(__file__).with_name("neovim-diagnostics.png")
EXAMPLE = ROOT / "examples" / "train_with_mistakes.py"
DISPLAY = ":97"

INIT = """
vim.o.number = true
vim.o.signcolumn = "yes"
local function shown()
  if #vim.diagnostic.get(0) == 0 then
    vim.defer_fn(shown, 100)
    return
  end
  vim.api.nvim_win_set_cursor(0, { 37, 24 })  -- on `labels`: its finding in full
  vim.defer_fn(function()
    vim.diagnostic.open_float({ close_events = {} })
    vim.defer_fn(function()
      vim.fn.writefile({ tostring(#vim.diagnostic.get(0)) }, %(marker)r)
    end, 500)
  end, 300)
end
vim.api.nvim_create_autocmd("VimEnter", { callback = function()
  local id = vim.lsp.start_client({
    name = "ferry", cmd = { %(python)r, "-m", "torchferry", "server" }, root_dir = %(root)r,
  })
  vim.lsp.buf_attach_client(0, id)
  shown()
end })
"""


def xwd_to_png(xwd: bytes, png: Path) -> None:
    """An ``xwd`` dump (ZPixmap, 24 or 32 bits a pixel) as a PNG."""
    import struct

    from PIL import Image

    fields = struct.unpack(">25I", xwd[:100])
    header_size, width, height = fields[0], fields[4], fields[5]
    bits_per_pixel, bytes_per_line, ncolors = fields[11], fields[12], fields[19]
    if fields[2] != 2 or bits_per_pixel not in (24, 32):
        raise SystemExit(f"unexpected xwd format {fields[2]} / {bits_per_pixel} bits")
    start = header_size + ncolors * 12
    raw = xwd[start:start + bytes_per_line * height]
    lsb_first = fields[7] == 0  # the byte order
    if bits_per_pixel == 32:
        order = "BGRX" if lsb_first else "XRGB"
    else:
        order = "BGR" if lsb_first else "RGB"
    image = Image.frombytes("RGB", (width, height), raw, "raw", order, bytes_per_line)
    image.crop(image.getbbox()).save(png)  # the terminal, without the empty screen around it


def main() -> int:
    for tool in ("Xvfb", "xterm", "xwd", "nvim"):
        if shutil.which(tool) is None:
            print(f"screenshot: {tool} is not installed", file=sys.stderr)
            return 2
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        script = work / "train.py"
        script.write_text(EXAMPLE.read_text())
        marker = work / "ready"
        (work / "init.lua").write_text(INIT % {
            "python": sys.executable, "root": str(work), "marker": str(marker)})
        xvfb = subprocess.Popen(["Xvfb", DISPLAY, "-screen", "0", "1100x760x24", "-nolisten",
                                 "tcp"], stderr=subprocess.DEVNULL)
        env = dict(os.environ, DISPLAY=DISPLAY, XDG_STATE_HOME=str(work / "state"),
                   XDG_DATA_HOME=str(work / "data"))
        term = None
        try:
            time.sleep(1)  # the display comes up
            term = subprocess.Popen(
                ["xterm", "-geometry", "120x40+0+0", "-fa", "DejaVu Sans Mono", "-fs", "10",
                 "-bg", "white", "-fg", "black", "-e", "nvim", "--clean", "-u",
                 str(work / "init.lua"), str(script)], env=env, cwd=work)
            deadline = time.monotonic() + 120
            while not marker.exists() and time.monotonic() < deadline:
                time.sleep(0.2)
            if not marker.exists():
                print("screenshot: Neovim got no diagnostics", file=sys.stderr)
                return 1
            time.sleep(1.5)  # the last redraw
            dump = subprocess.run(["xwd", "-root", "-silent", "-display", DISPLAY],
                                  check=True, capture_output=True).stdout
            xwd_to_png(dump, OUT)
        finally:
            if term is not None:
                term.kill()
            xvfb.kill()
    print(f"wrote {OUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
