"""The Python API against the real compiler, simulator and `systole` tool, on the bundled model."""
import glob
import os
import subprocess
import threading

import numpy as np
import pytest

import systole

MODELS = os.environ["SYSTOLE_TEST_MODELS"]
MODEL = os.path.join(MODELS, "tiny_cnn.onnx")
CALIB_DIR = os.path.join(MODELS, "tiny_cnn.calib")
BINARY = os.environ["SYSTOLE_BINARY"]


@pytest.fixture
def calibration():
    """The bundled calibration samples as one stacked array [8, 3, 16, 16]."""
    return np.concatenate([np.load(f) for f in sorted(glob.glob(os.path.join(CALIB_DIR, "*.npy")))])


@pytest.fixture
def image():
    return np.load(os.path.join(MODELS, "tiny_cnn.input.npy"))


@pytest.fixture
def cache_dir(tmp_path):
    return str(tmp_path / "cache")


def test_shipped_configs_and_overrides():
    assert {"default", "tiny", "os16", "large"} <= set(systole.shipped_configs())
    config = systole.load_config("default", {"array.rows": 32, "array.cols": 8})
    assert (config.array_rows, config.array_cols) == (32, 8)
    assert config.hash != systole.load_config("default").hash
    with pytest.raises(systole.Error, match="array.rows"):
        systole.load_config("default", {"array.rows": "many"})
    with pytest.raises(systole.Error):
        systole.load_config("no_such_config")
    # Every parameter by its expression name; int16 activations double the scratchpad row's bytes.
    wide = systole.load_config("default", {"types.activation": "int16"}).params
    assert (wide["activation.bits"], wide["scratchpad.row_bytes"]) == (16, 32)
    assert systole.load_config("default").params["scratchpad.rows"] == 2 * wide["scratchpad.rows"]


def test_compile_run_check_and_accuracy(calibration, image, cache_dir):
    model = systole.compile(MODEL, "tiny", calibration=calibration, cache_dir=cache_dir)
    assert model.inputs == {"input": (1, 3, 16, 16)} and model.outputs == ["output"]
    result = model.run(image, check=True)
    assert result.checked and result.mismatch is None
    out = result.outputs["output"]
    assert out.dtype == np.float32 and out.shape == np.load(os.path.join(MODELS, "tiny_cnn.output.npy")).shape
    assert result.cycles == result.npu_cycles + result.host_cycles + result.transfer_cycles > 0
    assert 0 < result.utilization <= 1
    assert result.layers and all(l.simulated_cycles > 0 and l.predicted_cycles > 0 for l in result.layers)
    assert sum(l.attributed_cycles for l in result.layers) == result.npu_cycles
    [accuracy] = result.accuracy
    assert accuracy.name == "output" and accuracy.cosine > 0.999 and accuracy.sqnr_db > 30
    assert result.stats["schema"].startswith("systole.stats/") and len(result.stats["layers"]) >= len(result.layers)
    assert result.host_jit_runs == 2 and result.host_interpreted_runs == 0  # the boundary QuantizeLinear and DequantizeLinear
    interpreted = model.run(image, host_jit=False)
    assert interpreted.host_jit_runs == 0 and np.array_equal(interpreted.outputs["output"], out)


def test_narrow_accumulator(calibration, image, cache_dir):
    config = systole.load_config("default", {"types.accumulator": "int16"})
    model = systole.compile(MODEL, config, calibration=calibration, cache_dir=cache_dir)
    assert model.accumulator_fit and all(channels > 0 for _, channels in model.accumulator_fit)
    assert {name for name, _ in model.accumulator_fit} <= {name for name, _ in model.weight_bits}
    result = model.run(image, check=True)
    assert result.checked and result.mismatch is None
    assert systole.compile(MODEL, "default", calibration=calibration, cache_dir=cache_dir).accumulator_fit == []


def test_weight_precision(calibration, image, cache_dir):
    int8 = systole.compile(MODEL, "default", calibration=calibration, cache_dir=cache_dir)
    assert int8.weight_bits and all(bits == 8 for _, bits in int8.weight_bits)
    int4 = systole.compile(MODEL, "default", calibration=calibration, cache_dir=cache_dir, precision="int4")
    assert [name for name, _ in int4.weight_bits] == [name for name, _ in int8.weight_bits]
    assert all(bits == 4 for _, bits in int4.weight_bits)
    result = int4.run(image, check=True)
    assert result.checked and result.mismatch is None
    assert result.stats["dma"]["bytes_read"] < int8.run(image).stats["dma"]["bytes_read"]
    with pytest.raises(systole.Error, match="does not offer it"):
        systole.compile(MODEL, "tiny", calibration=calibration, cache=False, precision="int4")
    with pytest.raises(systole.Error, match="bias_correction"):
        systole.compile(MODEL, "default", calibration=calibration, cache=False, bias_correction="sometimes")
    with pytest.raises(systole.Error, match="equalize"):
        systole.compile(MODEL, "default", calibration=calibration, cache=False, equalize="sometimes")
    with pytest.raises(systole.Error, match="smooth"):
        systole.compile(MODEL, "default", calibration=calibration, cache=False, smooth=1.0)
    with pytest.raises(systole.Error, match="search_samples"):
        systole.compile(MODEL, "default", calibration=calibration, cache=False, precision="auto", search_samples=0)


def test_same_program_as_the_cli(calibration, image, cache_dir, tmp_path):
    """In-memory calibration arrays compile the program `systole run --calib DIR` compiles."""
    np.save(tmp_path / "image.npy", image)
    out_dir = tmp_path / "out"
    cli = subprocess.run([BINARY, "run", MODEL, "--isa", "tiny", "--calib", CALIB_DIR, "--input", f"input={tmp_path / 'image.npy'}",
                          "--output-dir", str(out_dir), "--no-cache", "--quiet"], capture_output=True, text=True, check=True)
    result = systole.compile(MODEL, "tiny", calibration=calibration, cache_dir=cache_dir).run({"input": image})
    assert np.array_equal(result.outputs["output"], np.load(out_dir / "output.npy"))
    assert f"total cycles: {result.cycles} " in cli.stdout


def test_second_compile_hits_the_cache(calibration, image, cache_dir):
    first = systole.compile(MODEL, "tiny", calibration=calibration, cache_dir=cache_dir)
    second = systole.compile(MODEL, "tiny", calibration=calibration, cache_dir=cache_dir)
    assert not first.from_cache and second.from_cache and second.cache_entry == first.cache_entry
    assert np.array_equal(first.run(image).outputs["output"], second.run(image).outputs["output"])
    other = systole.compile(MODEL, "tiny", calibration=calibration[:4], cache_dir=cache_dir)
    assert not other.from_cache and other.cache_entry != first.cache_entry
    assert not systole.compile(MODEL, "tiny", calibration=calibration, cache=False).from_cache


def test_timing_only_keeps_the_cycles(calibration, image, cache_dir):
    model = systole.compile(MODEL, "tiny", calibration=calibration, cache_dir=cache_dir)
    full, timing = model.run(image), model.run(image, timing_only=True)
    assert timing.npu_cycles == full.npu_cycles and timing.outputs == {} and timing.accuracy == []
    assert "timing-only" in timing.accuracy_note


def test_save_and_load(calibration, image, cache_dir, tmp_path):
    model = systole.compile(MODEL, "tiny", calibration=calibration, cache_dir=cache_dir)
    path = str(tmp_path / "tiny_cnn.sbin")
    model.save(path)
    loaded = systole.load(path)
    assert loaded.config.name == "tiny"
    a, b = model.run(image), loaded.run(image, check=True)
    assert np.array_equal(a.outputs["output"], b.outputs["output"]) and a.cycles == b.cycles and b.checked
    assert b.accuracy == [] and "float model" in b.accuracy_note


def test_bad_input_raises_clear_errors(calibration, cache_dir, tmp_path):
    model = systole.compile(MODEL, "tiny", calibration=calibration, cache_dir=cache_dir)
    with pytest.raises(systole.Error, match=r"input 'input' has shape \[1,3,8,8\]"):
        model.run(np.zeros((1, 3, 8, 8), np.float32))
    with pytest.raises(systole.Error, match="no input named 'x'"):
        model.run({"x": np.zeros((1, 3, 16, 16))})
    with pytest.raises(systole.Error, match="missing.onnx"):
        systole.compile(str(tmp_path / "missing.onnx"), "tiny")
    with pytest.raises(systole.Error, match="does not match input 'input'"):
        systole.compile(MODEL, "tiny", calibration=np.zeros((2, 3, 4, 4)), cache=False)
    broken = tmp_path / "broken.sbin"
    broken.write_bytes(b"SBIN" + bytes(60))
    with pytest.raises(systole.Error, match="broken.sbin"):
        systole.load(str(broken), "tiny")


def test_the_gil_is_released_while_compiling_and_simulating(calibration, image):
    """Another Python thread runs while a compile and runs are in progress, and runs from several
    threads at once are safe (the simulator is one SystemC kernel per process)."""
    done = threading.Event()
    results = []

    def work():
        try:
            model = systole.compile(MODEL, "tiny", calibration=calibration, cache=False, jobs=1)
            results.extend(model.run(image) for _ in range(3))
        finally:
            done.set()

    workers = [threading.Thread(target=work) for _ in range(2)]
    for w in workers:
        w.start()
    ticks = 0
    while not done.is_set():
        ticks += 1
    for w in workers:
        w.join()
    assert ticks > 1000
    assert len(results) == 6 and all(np.array_equal(r.outputs["output"], results[0].outputs["output"]) for r in results)
