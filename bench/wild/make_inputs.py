#!/usr/bin/python3
"""Realistic inputs for the wild models (issue 31): rendered text, as the OCR and captcha models see
it. Writes OUT/NAME.input.npy (the measured input) and OUT/NAME.calib/*.npy (calibration samples
drawn the same way, other texts), float32, in each model's own layout and normalization.
usage: make_inputs.py KIND SHAPE OUT_DIR NAME     (KIND one of SAMPLERS' keys; SHAPE NxCxHxW)"""
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


def captcha_text(h, w, i):
    """ddddocr's OCR input: a noisy grey captcha of 4-6 characters, height h, (x / 255 - 0.5) / 0.5."""
    rng = np.random.default_rng(i)
    img = Image.new("L", (w, h), int(rng.integers(190, 250)))
    draw = ImageDraw.Draw(img)
    for _ in range(6):  # interference lines
        draw.line([tuple(rng.integers(0, (w, h))) for _ in range(2)], fill=int(rng.integers(60, 160)), width=2)
    text = "".join(rng.choice(list("ABCDEFGHJKMNPQRSTUVWXYZ23456789"), size=4 + i % 3))
    font = ImageFont.truetype(FONTS[i % len(FONTS)], int(h * 0.7))
    x = 4
    for ch in text:
        draw.text((x, int(rng.integers(0, h // 6))), ch, fill=int(rng.integers(0, 80)), font=font)
        x += int(font.getlength(ch)) + int(rng.integers(0, 6))
    a = np.asarray(img, dtype=np.float32) / 255.0
    return ((a - 0.5) / 0.5)[None, None].astype(np.float32)


def click_captcha(h, w, i):
    """ddddocr's detector input: a click captcha, large characters scattered on a textured
    background, raw RGB values 0..255 in CHW (ddddocr does not normalize)."""
    rng = np.random.default_rng(100 + i)
    ramp = np.linspace(0, 1, w, dtype=np.float32)[None, :, None] * rng.uniform(40, 120, 3)
    noise = rng.normal(0, 12, (h, w, 3))
    img = Image.fromarray(np.clip(120 + ramp + noise, 0, 255).astype(np.uint8), "RGB")
    draw = ImageDraw.Draw(img)
    for k in range(3 + i % 3):
        font = ImageFont.truetype(FONTS[(i + k) % len(FONTS)], int(rng.integers(h // 10, h // 6)))
        xy = tuple(int(v) for v in rng.integers(10, (w - w // 6, h - h // 6)))
        draw.text(xy, str(rng.choice(list("ABCDEFGHJKMNPQRSTUVWXYZ"))), fill=tuple(int(v) for v in rng.integers(0, 255, 3)),
                  font=font, stroke_width=2, stroke_fill=(255, 255, 255))
    return np.asarray(img, dtype=np.float32).transpose(2, 0, 1)[None].copy()


SAMPLERS = {"text_line": text_line, "document": document, "captcha_text": captcha_text, "click_captcha": click_captcha}


def sample(kind, shape, i):
    _, _, h, w = shape
    return SAMPLERS[kind](h, w, i)


def main():
    kind, shape_text, out, name = sys.argv[1:5]
    shape = [int(d) for d in shape_text.split("x")]
    os.makedirs(os.path.join(out, name + ".calib"), exist_ok=True)
    np.save(os.path.join(out, name + ".input.npy"), sample(kind, shape, 0))
    for i in range(1, 9):  # eight calibration samples, none of them the measured input
        np.save(os.path.join(out, name + ".calib", f"sample{i}.npy"), sample(kind, shape, i))


if __name__ == "__main__":
    main()
