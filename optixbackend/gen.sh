#!/bin/sh
# Regenerates kernels.ptx from kernels.cu (run by go generate; needs nvcc,
# 11.8 or later). The PTX's first line records the source's SHA-256, which
# TestPTXUpToDate checks, so a kernels.cu changed without this step fails
# the tests.
set -eu
sum=$(sha256sum kernels.cu | cut -d' ' -f1)
nvcc -ptx -arch=compute_75 -fmad=false -o kernels.ptx.tmp kernels.cu
{ echo "// kernels.cu sha256 $sum"; cat kernels.ptx.tmp; } > kernels.ptx
rm kernels.ptx.tmp
