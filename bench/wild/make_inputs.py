#!/usr/bin/python3
"""Realistic inputs for the wild models (issue 31): rendered text, captchas, symbols and photos, and
synthetic speech, as each model sees them. Writes OUT/NAME.input.npy (the measured input) and OUT/NAME.calib/*.npy (calibration samples
drawn the same way, other texts), float32, in each model's own layout and normalization.
usage: make_inputs.py KIND SHAPE OUT_DIR NAME     (KIND: a SAMPLERS key, speech or mel_frames; SHAPE NxCxHxW, or the audio's)"""
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


def handwritten_symbol(h, w, i):
    """detypify's input: a symbol drawn in thin black strokes, centred in 32x32, 1 where the
    canvas is white and 0 where it was drawn on (as its JavaScript front end binarizes)."""
    symbols = "αβ∑∫→≤∞√πλ∂≠"
    img = Image.new("L", (w, h), 255)
    font = ImageFont.truetype(FONTS[i % 2], 22 + i % 4)
    ImageDraw.Draw(img).text((w // 2, h // 2), symbols[i % len(symbols)], fill=0, font=font, anchor="mm")
    return (np.asarray(img) == 255).astype(np.float32)[None, None]


def photo(h, w, i):
    """rembg's U2-Net input: a synthetic photo (a textured figure on a blurred, graded background),
    scaled by its maximum and normalized with ImageNet's mean and deviation."""
    rng = np.random.default_rng(200 + i)
    yy, xx = np.mgrid[0:h, 0:w] / max(h, w)
    bg = np.stack([90 + 80 * xx + 20 * rng.standard_normal((h, w)), 120 + 60 * yy, 150 - 50 * xx * yy], -1)
    img = Image.fromarray(np.clip(bg, 0, 255).astype(np.uint8), "RGB")
    draw = ImageDraw.Draw(img)
    cx, cy = w // 2 + int(rng.integers(-w // 8, w // 8)), h // 2
    color = tuple(int(v) for v in rng.integers(20, 230, 3))
    draw.ellipse([cx - w // 10, cy - h // 3, cx + w // 10, cy - h // 3 + h // 5], fill=(225, 180, 150))  # head
    draw.rounded_rectangle([cx - w // 6, cy - h // 8, cx + w // 6, cy + h // 3], radius=w // 20, fill=color)  # body
    a = np.asarray(img, dtype=np.float32)
    a = a / a.max()
    a = (a - np.array([0.485, 0.456, 0.406])) / np.array([0.229, 0.224, 0.225])
    return a.transpose(2, 0, 1)[None].astype(np.float32)


def speech(samples, i):
    """Synthetic voiced speech at 16 kHz (no TTS here): a gliding pitch with its
    harmonics shaped by two moving formants, syllable-rate amplitude and some noise, as int16
    sample values in float32 (what openWakeWord feeds its melspectrogram model)."""
    rng = np.random.default_rng(300 + i)
    t = np.arange(samples) / 16000.0
    f0 = (110 + 40 * i % 90) * (1 + 0.15 * np.sin(2 * np.pi * 1.5 * t))
    phase = 2 * np.pi * np.cumsum(f0) / 16000.0
    f1, f2 = 500 + 300 * np.sin(2 * np.pi * 3 * t + i), 1500 + 600 * np.sin(2 * np.pi * 2 * t)
    voice = sum(np.sin(k * phase) * (np.exp(-((k * f0 - f1) / 200) ** 2) + 0.5 * np.exp(-((k * f0 - f2) / 300) ** 2))
                for k in range(1, 30))
    envelope = 0.5 * (1 - np.cos(2 * np.pi * 4 * t)) * (t > 0.1) * (t < t[-1] - 0.1)
    x = voice * envelope + 0.02 * rng.standard_normal(samples)
    return (8000 * x / np.abs(x).max()).astype(np.float32)[None]


def mel_frames(frames, bins, i):
    """openWakeWord's embedding input: 76 frames of a 32-bin log-mel spectrogram of the speech
    above (n_fft 512, hop 160, power, 10 log10), scaled as openWakeWord does (x / 10 + 2)."""
    x = speech(16000, i)[0].astype(np.float64)
    window = np.hanning(512)
    spec = np.abs(np.fft.rfft(np.stack([x[k:k + 512] * window for k in range(0, len(x) - 512, 160)]), axis=1)) ** 2
    hz = np.linspace(0, 8000, spec.shape[1])
    mel = 2595 * np.log10(1 + hz / 700)
    edges = np.linspace(mel[1], mel[-1], bins + 2)
    bank = np.stack([np.clip(np.minimum((mel - edges[b]) / (edges[b + 1] - edges[b]),
                                        (edges[b + 2] - mel) / (edges[b + 2] - edges[b + 1])), 0, None) for b in range(bins)])
    logmel = 10 * np.log10(np.maximum(spec @ bank.T, 1e-10)) / 10 + 2
    return logmel[:frames, :, None][None].astype(np.float32)


def sample_audio(kind, shape, i):
    return speech(shape[1], i) if kind == "speech" else mel_frames(shape[1], shape[2], i)


SAMPLERS = {"text_line": text_line, "document": document, "captcha_text": captcha_text, "click_captcha": click_captcha,
            "handwritten_symbol": handwritten_symbol, "photo": photo}


def sample(kind, shape, i):
    if kind in ("speech", "mel_frames"):
        return sample_audio(kind, shape, i)
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
