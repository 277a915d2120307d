"""Systole: compile ONNX models for a systolic-array NPU described by one YAML file, simulate them
cycle-approximately and bit-exactly, and read where the cycles went.

    import numpy as np, systole
    model = systole.compile("resnet18.onnx", "default", calibration=np.load("calib.npy"))
    result = model.run(np.load("image.npy"), check=True)
    print(result.cycles, result.accuracy[0].sqnr_db, result.outputs["output"].argmax())
"""
from pathlib import Path as _Path

from ._systole import (Accuracy, Config, Error, HostStep, Layer, Model, RunResult, compile, config_dir, load,
                       shipped_configs)
from . import _systole
from ._systole import _set_config_dir


def _find_config_dir():
    # PREFIX/share/systole/configs of an install, or of the build tree: the first one above this
    # package's directory. $SYSTOLE_CONFIG_DIR still overrides it (systole.config_dir()).
    for parent in _Path(_systole.__file__).absolute().parents:
        candidate = parent / "share" / "systole" / "configs"
        if candidate.is_dir():
            return str(candidate)
    return ""


_set_config_dir(_find_config_dir())


def load_config(name_or_path="default", overrides=None):
    """A shipped config by name or a YAML file, with overrides such as {"array.rows": 32}."""
    return Config.load(name_or_path, overrides)


__all__ = ["Accuracy", "Config", "Error", "HostStep", "Layer", "Model", "RunResult", "compile", "config_dir", "load", "load_config",
           "shipped_configs"]
