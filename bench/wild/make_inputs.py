#!/usr/bin/python3
"""Realistic inputs for the wild models (issue 31): rendered text, as the OCR models see it. Writes OUT/NAME.input.npy (the measured input) and OUT/NAME.calib/*.npy
(calibration samples drawn the same way, other texts), float32, in each model's own layout and
normalization.
usage: make_inputs.py KIND SHAPE OUT_DIR NAME     (KIND text_line | document; SHAPE NxCxHxW)"""
import os
import sys

import numpy as np
from PIL import Image, ImageDraw, ImageFont

FONTS = ["/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", "/usr/share/fonts/truetype/dejavu/DejaVuSerif-Bold.ttf",
         "/usr/share/fonts/truetype/lato/Lato-Medium.ttf"]
TEXTS = ["Systolic arrays", "INVOICE 2026-12-04", "Total: 1,234.56 EUR", "hello world 42", "The quick brown fox",
         "Order #A7-0093", "weight stationary", "Pay to the order of", "Room 101, Level 3", "tel +49 30 1234",
         "ONNX Runtime", "batch norm folded"]


def paddle_normalize(img):
    """PaddleOCR's preprocessing: RGB to CHW, x / 255, then (x - 0.5) / 0.5."""
    a = np.asarray(img.convert("RGB"), dtype=np.float32) / 255.0
    return ((a - 0.5) / 0.5).transpose(2, 0, 1)[None].astype(np.float32)


def text_line(h, w, i):
    """One line of text, dark on light, scaled to height h and padded on the right to width w."""
    font = ImageFont.truetype(FONTS[i % len(FONTS)], 32)
    text = TEXTS[i % len(TEXTS)]
    box = font.getbbox(text)
    img = Image.new("RGB", (box[2] + 8, box[3] + 8), (235 - 5 * i % 30, 235, 230))
    ImageDraw.Draw(img).text((4, 2), text, fill=(20, 20, 30 + 7 * i % 40), font=font)
    scaled = img.resize((min(w, max(1, round(img.width * h / img.height))), h))
    canvas = Image.new("RGB", (w, h), (235, 235, 230))
    canvas.paste(scaled, (0, 0))
    return paddle_normalize(canvas)


def document(h, w, i):
    """A page of a few text lines at different sizes."""
    img = Image.new("RGB", (w, h), (245, 243, 238))
    draw = ImageDraw.Draw(img)
    y = 8 + 3 * i
    for k in range(6):
        font = ImageFont.truetype(FONTS[(i + k) % len(FONTS)], 14 + 4 * ((i + k) % 4))
        draw.text((10 + 5 * k, y), TEXTS[(i + k) % len(TEXTS)], fill=(15, 15, 20), font=font)
        y += 20 + 4 * ((i + k) % 4) + 12
    return paddle_normalize(img)


def sample(kind, shape, i):
    _, _, h, w = shape
    return text_line(h, w, i) if kind == "text_line" else document(h, w, i)


def main():
    kind, shape_text, out, name = sys.argv[1:5]
    shape = [int(d) for d in shape_text.split("x")]
    os.makedirs(os.path.join(out, name + ".calib"), exist_ok=True)
    np.save(os.path.join(out, name + ".input.npy"), sample(kind, shape, 0))
    for i in range(1, 9):  # eight calibration samples, none of them the measured input
        np.save(os.path.join(out, name + ".calib", f"sample{i}.npy"), sample(kind, shape, i))


if __name__ == "__main__":
    main()
