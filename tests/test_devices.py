"""torchferry.device() and the doctor's diagnosis."""

from __future__ import annotations

import copy

import pytest
import torch

import torchferry as tf
from torchferry import devices, doctor


@pytest.fixture(autouse=True)
def clean_env(monkeypatch):
    monkeypatch.delenv("TORCHFERRY_DEVICE", raising=False)
    monkeypatch.delenv("LOCAL_RANK", raising=False)


@pytest.fixture
def fake_cuda(monkeypatch):
    """Pretend torch sees ``n`` CUDA devices; records set_device calls."""
    calls = []

    def install(n=2):
        monkeypatch.setattr(torch.cuda, "is_available", lambda: n > 0)
        monkeypatch.setattr(torch.cuda, "device_count", lambda: n)
        monkeypatch.setattr(torch.cuda, "set_device", lambda d: calls.append(torch.device(d)))
        return calls

    return install


def test_default_on_this_machine_is_cpu():
    if not torch.cuda.is_available():
        assert tf.device() == torch.device("cpu")


def test_prefer_wins_over_env(monkeypatch):
    monkeypatch.setenv("TORCHFERRY_DEVICE", "gpu0")
    assert tf.device("cpu") == torch.device("cpu")
    assert tf.device(torch.device("meta")) == torch.device("meta")


def test_env_var(monkeypatch):
    monkeypatch.setenv("TORCHFERRY_DEVICE", " cpu ")
    assert tf.device() == torch.device("cpu")


def test_malformed_env_name_is_a_clear_error(monkeypatch):
    monkeypatch.setenv("TORCHFERRY_DEVICE", "gpu0")
    with pytest.raises(tf.DeviceUnavailableError) as info:
        tf.device()
    msg = str(info.value)
    assert "'gpu0'" in msg and "TORCHFERRY_DEVICE" in msg and "not a device name" in msg
    assert "available here: cpu" in msg
    assert isinstance(info.value, RuntimeError)


@pytest.mark.skipif(torch.cuda.is_available(), reason="needs a machine without CUDA")
def test_missing_cuda_says_what_who_and_what_is_available():
    with pytest.raises(tf.DeviceUnavailableError) as info:
        tf.device("cuda")
    msg = str(info.value)
    assert "'cuda'" in msg and "prefer argument" in msg and "is_available() is False" in msg
    assert "available here: cpu" in msg


def test_missing_mps_message():
    if devices._is_available("mps"):
        pytest.skip("mps present")
    with pytest.raises(tf.DeviceUnavailableError, match="mps.is_available"):
        tf.device("mps")


def test_index_past_count(fake_cuda):
    fake_cuda(2)
    assert tf.device("cuda:1") == torch.device("cuda:1")
    with pytest.raises(tf.DeviceUnavailableError, match="only 2 cuda devices are visible"):
        tf.device("cuda:3")


def test_auto_prefers_cuda_without_index(fake_cuda):
    fake_cuda(2)
    assert tf.device() == torch.device("cuda")


def test_local_rank_picks_and_sets_the_ranks_device(fake_cuda, monkeypatch):
    calls = fake_cuda(4)
    monkeypatch.setenv("LOCAL_RANK", "5")
    assert tf.device() == torch.device("cuda:1")
    assert calls == [torch.device("cuda:1")]


def test_local_rank_without_accelerator_is_cpu(monkeypatch):
    monkeypatch.setattr(devices, "_first_accelerator", lambda: None)
    monkeypatch.setenv("LOCAL_RANK", "3")
    assert tf.device() == torch.device("cpu")


def test_local_rank_malformed(fake_cuda, monkeypatch):
    fake_cuda(2)
    monkeypatch.setenv("LOCAL_RANK", "zero")
    with pytest.raises(tf.DeviceUnavailableError, match="LOCAL_RANK='zero' is not an integer"):
        tf.device()


def test_preference_order_xpu_then_mps(monkeypatch):
    avail = {"cuda": False, "xpu": True, "mps": True}
    monkeypatch.setattr(devices, "_is_available", lambda k: avail.get(k, k == "cpu"))
    assert tf.device() == torch.device("xpu")
    avail["xpu"] = False
    assert tf.device() == torch.device("mps")


def test_is_available_that_raises_counts_as_unavailable(monkeypatch):
    def broken():
        raise RuntimeError("driver exploded")

    monkeypatch.setattr(torch.cuda, "is_available", broken)
    assert devices._is_available("cuda") is False


def test_available_devices_lists_cpu_last(fake_cuda):
    fake_cuda(2)
    assert devices.available_devices()[-1] == "cpu"
    assert devices.available_devices()[:2] == ["cuda:0", "cuda:1"]


# ------------------------------------------------------------------ doctor
HEALTHY = {
    "python": "3.11.7", "platform": "Linux x86_64", "torch": "2.13.0+cu130",
    "build": {"kind": "cuda", "cuda": "13.0", "hip": None, "xpu": None, "cudnn": 91000,
              "arch_list": ["sm_80", "sm_90", "sm_100"]},
    "cuda_available": True, "cuda_init_warnings": [],
    "accelerators": [{"device": "cuda:0", "name": "NVIDIA H200", "memory_gib": 139.8,
                      "capability": "9.0"}],
    "driver": {"present": True, "version": "580.159.03", "cuda": "13.0",
               "gpus": ["NVIDIA H200, 143771 MiB"], "source": "nvidia-smi"},
    "cuda_visible_devices": None, "mps": {"built": False, "available": False},
    "selected_device": "cuda", "selected_because": "first available of cuda, xpu, mps",
}


def facts(**changes):
    f = copy.deepcopy(HEALTHY)
    for key, value in changes.items():
        if isinstance(value, dict) and isinstance(f.get(key), dict):
            f[key].update(value)
        else:
            f[key] = value
    return f


def ids(f):
    return [p["id"] for p in doctor.analyze(f)]


def test_healthy_gpu_machine_has_no_problems():
    assert doctor.analyze(facts()) == []


def test_cpu_only_wheel_on_gpu_machine():
    f = facts(build={"kind": "cpu-only", "cuda": None, "arch_list": []}, cuda_available=False,
              accelerators=[], selected_device="cpu")
    problems = doctor.analyze(f)
    assert [p["id"] for p in problems] == ["cpu-only-wheel"]
    assert "CPU-only build" in problems[0]["problem"] and "580.159.03" in problems[0]["problem"]
    assert "whl/cu130" in problems[0]["fix"]


def test_driver_older_than_wheel():
    f = facts(driver={"cuda": "12.4", "version": "550.54"}, cuda_available=False, accelerators=[])
    problems = doctor.analyze(f)
    assert [p["id"] for p in problems] == ["driver-too-old"]
    assert "CUDA 13.0" in problems[0]["problem"] and "12.4" in problems[0]["problem"]
    assert "whl/cu124" in problems[0]["fix"]


@pytest.mark.parametrize("cvd", ["", "-1", "7"])
def test_cuda_visible_devices_hiding_every_gpu(cvd):
    f = facts(cuda_visible_devices=cvd, cuda_available=False, accelerators=[])
    problems = doctor.analyze(f)
    assert [p["id"] for p in problems] == ["cuda-visible-devices"]
    assert repr(cvd) in problems[0]["problem"] and "unset CUDA_VISIBLE_DEVICES" in problems[0]["fix"]


def test_visible_devices_that_show_a_gpu_are_fine():
    assert ids(facts(cuda_visible_devices="0")) == []


def test_cuda_init_failure_reports_torchs_reason():
    f = facts(cuda_available=False, accelerators=[],
              cuda_init_warnings=["CUDA initialization: CUDA driver initialization failed"])
    problems = doctor.analyze(f)
    assert [p["id"] for p in problems] == ["cuda-init-failed"]
    assert "CUDA driver initialization failed" in problems[0]["problem"]


def test_gpu_architecture_missing_from_build():
    f = facts(build={"arch_list": ["sm_50", "sm_60"]},
              accelerators=[{"device": "cuda:0", "name": "NVIDIA H200", "memory_gib": 1,
                             "capability": "9.0"}])
    assert ids(f) == ["arch-not-supported"]
    f["build"]["arch_list"] = ["sm_80", "compute_80"]  # PTX for an older arch JIT-compiles
    assert ids(f) == []


def test_cpu_machine_without_driver_is_consistent():
    f = facts(build={"kind": "cpu-only", "cuda": None, "arch_list": []}, cuda_available=False,
              accelerators=[], driver={"present": False, "version": None, "cuda": None, "gpus": []})
    assert ids(f) == []


def test_bad_override_is_a_problem(monkeypatch):
    monkeypatch.setenv("TORCHFERRY_DEVICE", "gpu0")
    report = doctor.examine()
    assert [p["id"] for p in report["problems"]][-1] == "device-override"


def test_real_diagnosis_has_the_contract_keys():
    report = doctor.examine()
    for key in ("python", "torch", "build", "accelerators", "driver", "selected_device", "problems"):
        assert key in report
    text = doctor.format_report(report)
    assert "torch" in text and "selected" in text
