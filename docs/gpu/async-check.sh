#!/bin/bash
# The device check behind docs/BENCHMARKS.md, "GPU backend: the round trip
# overlapped with the iterative work". Build here, with OLD a checkout of
# the commit to compare against:
#   mkdir -p .gpubin && echo /.gpubin/ >> .git/info/exclude
#   go test -c -ldflags='-s -w' -o .gpubin/gpu-new.test ./optixbackend
#   go build -ldflags='-s -w' -o .gpubin/irtcd-new ./cmd/irtcd
#   R=$PWD; (cd OLD && go test -c -ldflags='-s -w' -o $R/.gpubin/gpu-old.test ./optixbackend && go build -ldflags='-s -w' -o $R/.gpubin/irtcd-old ./cmd/irtcd)
#   gzip -9 .gpubin/irtcd-old .gpubin/irtcd-new; cp docs/gpu/async-check.sh .gpubin/run.sh
# then on the GPU machine, in the repository's root, with OUT a folder for
# the outputs: bash .gpubin/run.sh
B=$PWD/.gpubin
cd $B && gunzip -f irtcd-old.gz irtcd-new.gz && chmod +x * && cd ..
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc; lscpu | grep 'Model name'
cd optixbackend
echo "== exactness (new, async)"
IRTCD_REQUIRE_GPU=1 $B/gpu-new.test -test.v -test.run 'TestNew|TestLayout|TestTraceMatchesTraceQuery|TestBackendMatchesCPU|TestPTXUpToDate|TestSeveral' > $OUT/exact.txt 2>&1; echo "rc $?"
grep -E '^(--- |ok|FAIL|PASS)' $OUT/exact.txt | head -40
echo "== BenchmarkStep"
for i in 1 2 3; do for v in old new; do
  $B/gpu-$v.test -test.run '^$' -test.bench 'Step/method=(standard|predictive)/trav=bvh/backend=(cpu|gpu)$' -test.benchtime 10x 2>&1 | grep '^Benchmark' | sed "s/^Benchmark/$v-Benchmark/"
done; done | tee $OUT/bench-step.txt
cd ..
echo "== tori"
for i in 1 2 3; do for v in old new; do
  $B/irtcd-$v bench -q -only tori -backend gpu -out /tmp/t-$v-$i.md >/dev/null 2>&1; echo "$v gpu: $(grep 'Timing runs' /tmp/t-$v-$i.md)"
done; $B/irtcd-new bench -q -only tori -backend cpu -out /tmp/t-cpu-$i.md >/dev/null 2>&1; echo "new cpu: $(grep 'Timing runs' /tmp/t-cpu-$i.md)"; done | tee $OUT/tori.txt
cp /tmp/t-new-1.md $OUT/tori-new-gpu.md
echo "== demo 2D"
for v in old new; do for be in gpu cpu; do
  echo "-- $v $be"; $B/irtcd-$v demo -steps 360 -backend $be -out /tmp/d-$v-$be.gif 2>/dev/null | grep -E 'narrow|rays|pairs|contact'
done; done | tee $OUT/demo.txt
