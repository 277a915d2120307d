#!/usr/bin/python3
"""Export the models Systole's end-to-end tests compile, with a seeded input and PyTorch's output.

Run with Debian's interpreter (python3-torch, python3-torchvision, python3-onnx):

    /usr/bin/python3 tests/models/export_models.py --out build/default/models   # every model
    /usr/bin/python3 tests/models/export_models.py --bundled                     # tests/models/bundled/

For each model NAME it writes NAME.onnx, NAME.input.npy (float32, seeded) and NAME.output.npy
(PyTorch's output for that input). Offline: torchvision architectures with weights=None and
torch.manual_seed(0). A model whose three files already exist is skipped (the CMake fixture runs
this once per build tree); files are written to a temporary name and renamed, so an interrupted
run never leaves a half-written model behind.
"""
import argparse
import os
import sys
import tempfile

import numpy as np
import torch
import torch.nn as nn

HERE = os.path.dirname(os.path.abspath(__file__))
BUNDLED_DIR = os.path.join(HERE, "bundled")


class TinyCnn(nn.Module):
    """Conv 3x3 + BN + ReLU, MaxPool, Conv 3x3 + BN, residual Add + ReLU, GlobalAveragePool,
    Flatten, Gemm: every front-end fusion in a few kilobytes (input 1x3x16x16)."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(8)
        self.pool = nn.MaxPool2d(2)
        self.conv2 = nn.Conv2d(8, 8, 3, padding=1)
        self.bn2 = nn.BatchNorm2d(8)
        self.fc = nn.Linear(8, 10)

    def forward(self, x):
        x = self.pool(torch.relu(self.bn1(self.conv1(x))))
        x = torch.relu(x + self.bn2(self.conv2(x)))
        x = nn.functional.adaptive_avg_pool2d(x, 1)
        return self.fc(torch.flatten(x, 1))


def mlp():
    return nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 64), nn.ReLU(), nn.Linear(64, 10))


def transformer():
    return nn.TransformerEncoderLayer(d_model=64, nhead=4, dim_feedforward=128, batch_first=True, activation="gelu")


class DecoderBlock(nn.Module):
    """GPT-2's block: x + attn(ln1(x)) with a causal mask, then x + mlp(ln2(x))."""

    def __init__(self, d=256, heads=4, seq=128):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.attn = nn.MultiheadAttention(d, heads, dropout=0.0, batch_first=True)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))
        self.register_buffer("mask", torch.triu(torch.full((seq, seq), float("-inf")), diagonal=1))

    def forward(self, x):
        h = self.ln1(x)
        x = x + self.attn(h, h, h, attn_mask=self.mask, need_weights=False)[0]
        return x + self.mlp(self.ln2(x))


def vit(image=64, patch=8, layers=4, heads=3, d=192, mlp_dim=768):
    """torchvision's VisionTransformer (a class token, a position embedding, x[:, 0] to the head)."""
    from torchvision.models.vision_transformer import VisionTransformer

    model = VisionTransformer(image_size=image, patch_size=patch, num_layers=layers, num_heads=heads, hidden_dim=d,
                              mlp_dim=mlp_dim)
    nn.init.normal_(model.heads.head.weight, std=0.02)  # torchvision zeroes it: the logits would be the bias alone
    return model


def vision(name):
    import torchvision

    return getattr(torchvision.models, name)(weights=None)


class SegmentationOut(nn.Module):
    """torchvision's segmentation models return a dict; export its "out" tensor."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, x):
        return self.model(x)["out"]


def lraspp():
    import torchvision

    return SegmentationOut(torchvision.models.segmentation.lraspp_mobilenet_v3_large(weights=None, weights_backbone=None))


def settle_batchnorm(model, shape, batches=4):
    """Run a few train-mode batches so BatchNorm's running statistics are the data's (an untrained
    mobilenet_v2 with the initial statistics outputs ~0)."""
    bns = [m for m in model.modules() if isinstance(m, nn.modules.batchnorm._BatchNorm)]
    for bn in bns:
        bn.reset_running_stats()
        bn.momentum = None  # cumulative average over the batches below
    model.train()
    gen = torch.Generator().manual_seed(1234)
    with torch.no_grad():
        for _ in range(batches):
            model(torch.randn(shape, generator=gen))
    for bn in bns:
        bn.momentum = 0.1


def mlp_wide():
    return nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 10))


class CnnPixels(nn.Module):
    """A small classifier over raw 0-255 pixels (no normalization layer in front)."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, padding=1)
        self.conv2 = nn.Conv2d(8, 16, 3, padding=1)
        self.fc = nn.Linear(16, 10)

    def forward(self, x):
        x = nn.functional.max_pool2d(torch.relu(self.conv1(x)), 2)
        x = torch.relu(self.conv2(x))
        return self.fc(torch.flatten(nn.functional.adaptive_avg_pool2d(x, 1), 1))


class UNet(nn.Module):
    """A small U-Net (input 1x3x64x64): two down steps (double 3x3 conv + BN + ReLU, max pool), a
    bottleneck, two up steps (ConvTranspose k=2 s=2, Concat with the skip, double conv) and a 1x1
    head with 2 classes."""

    @staticmethod
    def block(cin, cout):
        return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(),
                             nn.Conv2d(cout, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU())

    def __init__(self):
        super().__init__()
        self.down1, self.down2, self.mid = self.block(3, 16), self.block(16, 32), self.block(32, 64)
        self.up2, self.dec2 = nn.ConvTranspose2d(64, 32, 2, stride=2), self.block(64, 32)
        self.up1, self.dec1 = nn.ConvTranspose2d(32, 16, 2, stride=2), self.block(32, 16)
        self.head = nn.Conv2d(16, 2, 1)

    def forward(self, x):
        d1 = self.down1(x)
        d2 = self.down2(nn.functional.max_pool2d(d1, 2))
        m = self.mid(nn.functional.max_pool2d(d2, 2))
        u2 = self.dec2(torch.cat([self.up2(m), d2], 1))
        u1 = self.dec1(torch.cat([self.up1(u2), d1], 1))
        return self.head(u1)


class Upsamplers(nn.Module):
    """Every upsampling the compiler lowers, in one small model (input 1x4x6x7): ConvTranspose
    k=4 s=2 p=1, k=3 s=2 p=1 output_padding=1, k=3 s=2 p=1 (an odd output: a crop), k=3 s=3 p=0;
    nearest interpolation by 2; bilinear by 2 (half_pixel: on the NPU), to a size (a factor of 12/11)
    and with align_corners (on the host)."""

    def __init__(self):
        super().__init__()
        self.t4 = nn.ConvTranspose2d(4, 4, 4, stride=2, padding=1)
        self.t3 = nn.ConvTranspose2d(4, 4, 3, stride=2, padding=1, output_padding=1)
        self.t3odd = nn.ConvTranspose2d(4, 4, 3, stride=2, padding=1)
        self.t33 = nn.ConvTranspose2d(4, 4, 3, stride=3)
        self.conv = nn.Conv2d(20, 4, 3, padding=1)

    def forward(self, x):
        f = nn.functional
        a = torch.relu(self.t4(x))                                          # 12 x 14
        b = torch.relu(self.t3(x))                                          # 12 x 14
        c = f.interpolate(torch.relu(self.t3odd(x)), size=(12, 14), mode="bilinear", align_corners=False)  # 11 x 13 -> 12 x 14
        d = f.interpolate(x, scale_factor=2, mode="nearest")                # 12 x 14
        g = f.interpolate(x, scale_factor=2, mode="bilinear", align_corners=False)  # 12 x 14
        y = self.conv(torch.cat([a, b, c, d, g], 1))
        e = f.interpolate(torch.relu(self.t33(y)), scale_factor=0.5, mode="bilinear", align_corners=True)   # 36 x 42 -> 18 x 21
        return e


class Crnn(nn.Module):
    """A small text recognizer as captcha OCRs build it (ddddocr): convolutions over a 1x32x48 grey
    image, the height folded into the features, a bidirectional two-layer LSTM over the 24
    columns (on the host) and a per-column classifier."""

    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                                      nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d((4, 1)))
        self.rnn = nn.LSTM(32 * 4, 48, num_layers=2, bidirectional=True)
        self.fc = nn.Linear(96, 20)

    def forward(self, x):
        f = self.features(x)                                   # [1, 32, 4, 24]
        n, c, h, w = f.shape
        y, _ = self.rnn(f.reshape(n, c * h, w).permute(2, 0, 1))  # [24, 1, 128] -> [24, 1, 96]
        return self.fc(y)


# Models whose inputs live far outside [-1, 1]: name -> how to draw an input. Their input and
# NAME.calib/ (8 calibration samples, another seed) come from that distribution, so a test can show
# that synthetic calibration fails them and real calibration does not. Bundled models get a
# NAME.calib/ of N(0, 1) samples, the distribution their input comes from.
REAL_DATA = {
    "mlp_wide": lambda shape, gen: torch.rand(shape, generator=gen) * 100 - 50,
    "cnn_pixels": lambda shape, gen: torch.floor(torch.rand(shape, generator=gen) * 256),
}
CALIBRATION_SAMPLES = 8

# name -> (constructor, input shape, keep BatchNormalization nodes in the export, settle BN[, opset])
MODELS = {
    "mlp": (mlp, (2, 64), False, False),
    "squeezenet1_1": (lambda: vision("squeezenet1_1"), (1, 3, 224, 224), False, False),
    "resnet18": (lambda: vision("resnet18"), (1, 3, 224, 224), False, False),
    "mobilenet_v2": (lambda: vision("mobilenet_v2"), (1, 3, 224, 224), True, True),
    "resnet50": (lambda: vision("resnet50"), (1, 3, 224, 224), False, False),
    "transformer": (transformer, (1, 16, 64), False, False),
    # Issue 32's transformer families, small: a GPT-2 block (causal mask, sequence 16) and a ViT of
    # 17 tokens (16 patches and a class token: Softmax rows that are not whole vector tiles).
    "gpt_block": (lambda: DecoderBlock(64, 4, 16), (1, 16, 64), False, False),
    "vit_small": (lambda: vit(32, 8, 2, 2, 64, 128), (1, 3, 32, 32), False, False),
    # The oldest and newest opsets the importer takes (attribute-style Split/Clip/Slice/Unsqueeze at
    # 9; native LayerNormalization at 17).
    "tiny_cnn_opset9": (TinyCnn, (1, 3, 16, 16), True, True, 9),
    "transformer_opset9": (transformer, (1, 16, 64), False, False, 9),
    "transformer_opset17": (transformer, (1, 16, 64), False, False, 17),
    "resnet18_b4": (lambda: vision("resnet18"), (4, 3, 224, 224), False, False),
    # Modern blocks (hard-swish, SiLU, squeeze-and-excitation).
    "mobilenet_v3_large": (lambda: vision("mobilenet_v3_large"), (1, 3, 224, 224), False, True),
    "efficientnet_b0": (lambda: vision("efficientnet_b0"), (1, 3, 224, 224), False, True),
    "mlp_wide": (mlp_wide, (1, 32), False, False),
    "cnn_pixels": (CnnPixels, (1, 3, 16, 16), False, False),
    # Segmentation: ConvTranspose (sub-pixel Conv + DepthToSpace), nearest and bilinear Resize.
    "unet": (UNet, (1, 3, 64, 64), False, True),
    "upsamplers": (Upsamplers, (1, 4, 6, 7), False, False),
    # Segmentation with bilinear upsampling by 2 and by 8 (resize-linear-to-conv).
    "lraspp": (lraspp, (1, 3, 224, 224), False, True),
    # A recurrence: a bidirectional LSTM between convolutions and a classifier (LSTM on the host).
    "crnn": (Crnn, (1, 1, 32, 48), False, False),
}
BUNDLED = {"tiny_cnn": (TinyCnn, (1, 3, 16, 16), True, True)}


def save_atomic(path, write):
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), prefix=".tmp-")
    os.close(fd)
    try:
        write(tmp)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def write_calibration(directory, draw, shape):
    """CALIBRATION_SAMPLES inputs from the model's data, one .npy each, written to a temporary
    directory that is renamed into place."""
    tmp = tempfile.mkdtemp(dir=os.path.dirname(directory), prefix=".tmp-calib-")
    gen = torch.Generator().manual_seed(7)
    for i in range(CALIBRATION_SAMPLES):
        np.save(os.path.join(tmp, f"sample{i}.npy"), draw(shape, gen).numpy().astype(np.float32))
    if os.path.isdir(directory):
        import shutil
        shutil.rmtree(directory)
    os.replace(tmp, directory)


def export(name, spec, out_dir, opset, force, calibration=False):
    ctor, shape, keep_bn, settle = spec[:4]
    if len(spec) > 4:
        opset = spec[4]
    paths = {k: os.path.join(out_dir, f"{name}{k}") for k in (".onnx", ".input.npy", ".output.npy")}
    calibration = calibration or name in REAL_DATA
    if calibration:
        paths[".calib"] = os.path.join(out_dir, f"{name}.calib")
    if not force and all(os.path.exists(p) for p in paths.values()):
        print(f"{name}: up to date")
        return
    torch.manual_seed(0)
    model = ctor()
    if settle:
        batch = (4,) + tuple(shape[1:])
        settle_batchnorm(model, batch)
    model.eval()
    draw = REAL_DATA.get(name, lambda s, gen: torch.randn(s, generator=gen))
    # Seed 0 drives the weight initialisation too: a real-data input drawn from that stream would
    # align with the first layer's weights, so it takes its own seed.
    x = draw(shape, torch.Generator().manual_seed(100 if name in REAL_DATA else 0))
    with torch.no_grad():
        y = model(x)
    mode = torch.onnx.TrainingMode.PRESERVE if keep_bn else torch.onnx.TrainingMode.EVAL

    def write_onnx(tmp):
        torch.onnx.export(model, x, tmp, opset_version=opset, training=mode, input_names=["input"], output_names=["output"],
                          do_constant_folding=True)
        if opset >= 17 and "transformer" in name:
            import onnx
            ops = {n.op_type for n in onnx.load(tmp).graph.node}
            print(f"{name}: LayerNormalization {'exported natively' if 'LayerNormalization' in ops else 'decomposed'}")

    save_atomic(paths[".onnx"], write_onnx)
    for key, tensor in ((".input.npy", x), (".output.npy", y)):
        array = tensor.detach().numpy().astype(np.float32)
        save_atomic(paths[key], lambda tmp, a=array: np.save(open(tmp, "wb"), a))
    if calibration:
        write_calibration(paths[".calib"], draw, shape)
    print(f"{name}: {os.path.getsize(paths['.onnx'])} bytes, output {tuple(y.shape)}, max |y| {y.abs().max().item():.4g}")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", default=None, help="output directory (default: tests/models/bundled with --bundled)")
    p.add_argument("--bundled", action="store_true", help="export the small bundled model(s) instead")
    p.add_argument("--opset", type=int, default=14)
    p.add_argument("--force", action="store_true", help="re-export even if the files exist")
    p.add_argument("--calib", action="store_true",
                   help="also write NAME.calib/: calibration samples from the input's distribution (another seed)")
    p.add_argument("models", nargs="*", help="names to export (default: all)")
    args = p.parse_args()
    table = BUNDLED if args.bundled else MODELS
    out = args.out or (BUNDLED_DIR if args.bundled else None)
    if out is None:
        p.error("--out is required unless --bundled")
    os.makedirs(out, exist_ok=True)
    names = args.models or list(table)
    for n in names:
        if n not in table:
            p.error(f"unknown model '{n}' (known: {', '.join(table)})")
    torch.set_num_threads(max(1, min(2, os.cpu_count() or 1)))
    for n in names:
        export(n, table[n], out, args.opset, args.force, calibration=args.bundled or args.calib)
    return 0


if __name__ == "__main__":
    sys.exit(main())
