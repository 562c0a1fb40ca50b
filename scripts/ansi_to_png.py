#!/usr/bin/env python3
"""Turns `tmux capture-pane -e -p` output into a PNG, cell by cell.

pyte replays the escape sequences into a screen of cells; Pillow draws each
cell with DejaVu Sans Mono, falling back to WenQuanYi Zen Hei for CJK. Wide
characters take two cells, as they do in the terminal.

Box-drawing characters are drawn as lines so frames join up between rows.

usage: ansi_to_png.py CAPTURE.ansi OUT.png COLUMNS ROWS
"""
import os
import sys

import pyte
from PIL import Image, ImageDraw, ImageFont
from wcwidth import wcwidth

MONO = "/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf"
MONO_BOLD = "/usr/share/fonts/truetype/dejavu/DejaVuSansMono-Bold.ttf"
CJK = "/usr/share/fonts/truetype/wqy/wqy-zenhei.ttc"
SYMBOLS = "/usr/share/fonts/truetype/ancient-scripts/Symbola_hint.ttf"  # emoji, in outline (fonts-symbola)
SIZE = 16
CELL_W, CELL_H = 10, 21

# A dark palette close to common terminal themes (Tango-ish).
PALETTE = {
    "black": (46, 52, 54), "red": (239, 80, 80), "green": (115, 210, 22), "brown": (237, 212, 0),
    "yellow": (237, 212, 0), "blue": (38, 79, 120), "magenta": (200, 130, 200), "cyan": (52, 226, 226),
    "white": (211, 215, 207), "default_fg": (220, 223, 228), "default_bg": (24, 26, 31),
}


def color(name, default):
    if name == "default":
        return default
    if name in PALETTE:
        return PALETTE[name]
    if isinstance(name, str) and len(name) == 6:
        try:
            return tuple(int(name[i:i + 2], 16) for i in (0, 2, 4))
        except ValueError:
            pass
    return default


BOX = set("─│╭╮╰╯")


def box(draw, char, left, top, fg):
    """Draws a box-drawing cell edge to edge, so lines meet across cells."""
    cx, cy = left + CELL_W // 2, top + CELL_H // 2
    right, bottom = left + CELL_W - 1, top + CELL_H - 1
    segments = {
        "─": [(left, cy, right, cy)],
        "│": [(cx, top, cx, bottom)],
        "╭": [(cx, cy, right, cy), (cx, cy, cx, bottom)],
        "╮": [(left, cy, cx, cy), (cx, cy, cx, bottom)],
        "╰": [(cx, cy, right, cy), (cx, top, cx, cy)],
        "╯": [(left, cy, cx, cy), (cx, top, cx, cy)],
    }[char]
    for segment in segments:
        draw.line(segment, fill=fg, width=1)


class DimScreen(pyte.Screen):
    """pyte ignores SGR 2 (dim); draw dim default-coloured text grey instead."""

    def select_graphic_rendition(self, *attrs, private=False):
        attrs = list(attrs)
        dim = 2 in attrs
        if dim:
            attrs.remove(2)
        super().select_graphic_rendition(*attrs)
        if dim and self.cursor.attrs.fg == "default":
            self.cursor.attrs = self.cursor.attrs._replace(fg="80868f")


def main():
    capture, out, columns, rows = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    screen = DimScreen(columns, rows)
    stream = pyte.ByteStream(screen)
    # No newline after the last row: it would scroll the screen up by one.
    data = open(capture, "rb").read().rstrip(b"\n").replace(b"\n", b"\r\n")
    stream.feed(data)

    mono = ImageFont.truetype(MONO, SIZE)
    bold = ImageFont.truetype(MONO_BOLD, SIZE)
    cjk = ImageFont.truetype(CJK, SIZE + 3)
    symbols = ImageFont.truetype(SYMBOLS, SIZE) if os.path.exists(SYMBOLS) else cjk
    pad = 12
    image = Image.new("RGB", (columns * CELL_W + 2 * pad, rows * CELL_H + 2 * pad), PALETTE["default_bg"])
    draw = ImageDraw.Draw(image)
    for y in range(rows):
        line = screen.buffer[y]
        x = 0
        while x < columns:
            cell = line[x]
            char = cell.data or " "
            width = max(1, wcwidth(char[0]) if char else 1)
            fg = color(cell.fg, PALETTE["default_fg"])
            bg = color(cell.bg, PALETTE["default_bg"])
            if cell.bold and cell.fg in PALETTE and cell.fg not in ("default",):
                fg = tuple(min(255, c + 30) for c in fg)
            if cell.reverse:
                fg, bg = bg, fg
            left, top = pad + x * CELL_W, pad + y * CELL_H
            draw.rectangle([left, top, left + width * CELL_W - 1, top + CELL_H - 1], fill=bg)
            if char in BOX:
                box(draw, char, left, top, fg)
            elif char.strip():
                code = ord(char[0])
                if code >= 0x1F000:
                    font = symbols
                elif width == 2 or code > 0x2E7F:
                    font = cjk
                else:
                    font = bold if cell.bold else mono
                draw.text((left, top + (0 if font is cjk else 2)), char, font=font, fill=fg)
            if cell.underscore:
                draw.line([left, top + CELL_H - 2, left + width * CELL_W - 1, top + CELL_H - 2], fill=fg)
            x += width
    image.save(out)


if __name__ == "__main__":
    main()
