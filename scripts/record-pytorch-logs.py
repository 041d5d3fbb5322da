#!/usr/bin/env python3
"""Records cuDNN API logs of torchvision networks run by PyTorch on an NVIDIA GPU.

How the logs under bench/logs/ were made (an H200, cuDNN 9 as PyTorch ships it). Each workload
runs in its own process, with cuDNN's API logging on and PyTorch's defaults otherwise, so the
convolutions go through cuDNN's graph (backend) API as users' programs do; TF32 is disabled so
the convolutions ask for FMA math, as in the shared logs.

    python3 scripts/record-pytorch-logs.py OUTDIR            # every workload, in parallel
    python3 scripts/record-pytorch-logs.py OUTDIR NAME       # one (run by the line above)

Each NAME writes OUTDIR/NAME.log (cuDNN's log) and prints one line of what ran.
Needs PyTorch, torchvision and a CUDA GPU; nothing in the project's build or tests runs it.
"""
import os
import subprocess
import sys

# name: (torchvision model, batch, input side, train step?, channels-last?, dtype)
WORKLOADS = {
    "densenet121-eval-b2-fp32": ("densenet121", 2, 224, False, False, "float32"),
    "resnext50-train-b2-fp32": ("resnext50_32x4d", 2, 160, True, False, "float32"),
    "inceptionv3-eval-b2-fp32": ("inception_v3", 2, 299, False, False, "float32"),
    "convnext-tiny-eval-b2-fp32": ("convnext_tiny", 2, 224, False, False, "float32"),
    "regnety800mf-train-b4-fp32-nhwc": ("regnet_y_800mf", 4, 160, True, True, "float32"),
    "shufflenetv2-eval-b8-fp16-nhwc": ("shufflenet_v2_x1_0", 8, 224, False, True, "float16"),
    "vgg11bn-train-b2-fp32": ("vgg11_bn", 2, 128, True, False, "float32"),
}


def run_one(outdir, name):
    import torch
    import torchvision

    model_name, batch, side, train, channels_last, dtype = WORKLOADS[name]
    torch.manual_seed(0)
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.benchmark = False
    kwargs = {"aux_logits": False, "init_weights": False} if model_name == "inception_v3" else {}
    model = getattr(torchvision.models, model_name)(weights=None, **kwargs)
    dt = getattr(torch, dtype)
    model = model.to("cuda", dtype=dt)
    x = torch.randn(batch, 3, side, side, device="cuda", dtype=dt)
    if channels_last:
        model = model.to(memory_format=torch.channels_last)
        x = x.contiguous(memory_format=torch.channels_last)
    if train:
        model.train()
        x.requires_grad_(False)
        out = model(x)
        out.float().sum().backward()
    else:
        model.eval()
        with torch.no_grad():
            out = model(x)
    torch.cuda.synchronize()
    print(f"{name}: {model_name} batch {batch} {side}x{side} {'train' if train else 'eval'} "
          f"{dtype}{' channels-last' if channels_last else ''} torch {torch.__version__} "
          f"cudnn {torch.backends.cudnn.version()} out {tuple(out.shape)}", flush=True)


def main():
    outdir = sys.argv[1]
    os.makedirs(outdir, exist_ok=True)
    if len(sys.argv) > 2:
        run_one(outdir, sys.argv[2])
        return
    procs = []
    for name in WORKLOADS:
        env = dict(os.environ)
        env.pop("TORCH_CUDNN_V8_API_DISABLED", None)
        env.update({"CUDNN_LOGLEVEL_DBG": "3", "CUDNN_LOGDEST_DBG": os.path.join(outdir, name + ".log")})
        procs.append((name, subprocess.Popen([sys.executable, __file__, outdir, name], env=env)))
    failed = [name for name, p in procs if p.wait() != 0]
    if failed:
        sys.exit("failed: " + ", ".join(failed))


if __name__ == "__main__":
    main()
