package narrow

// Operands of FusesMultiplyAdd's probe, in variables so that the compiler
// cannot fold the expression: x·y = 1 − 2⁻⁶⁰ exactly, which rounds to 1 in
// float64, so x·y + (−1) is 0 when the product is rounded first and −2⁻⁶⁰
// when the multiply-add is fused (rounded once).
var fmaX, fmaY, fmaZ = 1 + 0x1p-30, 1 - 0x1p-30, -1.0

// FusesMultiplyAdd reports whether this build of irtcd fuses a
// multiplication and an addition (x*y + z) into one instruction that
// rounds once. The Go specification allows it, and the compiler does it
// on arm64, ppc64le, s390x, riscv64 and loong64 among others, and on
// amd64 from GOAMD64=v3. A fused build's results differ from an unfused
// one's in their last bits, and a simulation's trajectories then part.
//
// Peers that must agree bit for bit (lockstep or rollback networking,
// replays recorded on one machine and played on another) should build
// without fusing:
//
//	GSHS_LOGFILE=/dev/null go build -gcflags=all=-d=fmahash=n
//
// -d=fmahash=n is a debugging switch of the Go compiler that turns fusing
// off everywhere, the standard library and every dependency included
// (GSHS_LOGFILE silences the line it prints for each expression it leaves
// unfused). Built so, amd64 at GOAMD64=v1 and v3 and arm64 compute the
// same trajectories, bit for bit, as WebAssembly does (.ci/crossbuild
// checks it). Peers can
// compare FusesMultiplyAdd when they connect. See docs/DESIGN.md,
// "Determinism across machines".
func FusesMultiplyAdd() bool {
	return fmaProbe(fmaX, fmaY, fmaZ) != 0
}

//go:noinline
func fmaProbe(x, y, z float64) float64 { return x*y + z }
