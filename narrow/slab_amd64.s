//go:build !purego

#include "textflag.h"

// func slab2(b *nodeBox, r *slabRay, lo, hi float64) (a0, e0, a1, e1 float64)
//
// slabRay layout: o [3][2]float64 at 0, inv [3][2]float64 at 48,
// near [3]uintptr at 96, far [3]uintptr at 120. Each plane of a nodeBox
// holds two float32 (child 0, child 1): one MOVSD loads both, CVTPS2PD
// widens them, and every lane then follows exactly the float64 arithmetic
// of slab2Go.
TEXT ·slab2(SB), NOSPLIT, $0-64
	MOVQ b+0(FP), SI
	MOVQ r+8(FP), DI

	MOVUPD 0(DI), X8   // ox, ox
	MOVUPD 16(DI), X9  // oy, oy
	MOVUPD 32(DI), X10 // oz, oz
	MOVUPD 48(DI), X11 // ix, ix
	MOVUPD 64(DI), X12 // iy, iy
	MOVUPD 80(DI), X13 // iz, iz

	// Entry: max(lo, near planes).
	MOVQ 96(DI), AX
	MOVSD (SI)(AX*1), X0
	CVTPS2PD X0, X0
	SUBPD X8, X0
	MULPD X11, X0
	MOVQ 104(DI), AX
	MOVSD (SI)(AX*1), X1
	CVTPS2PD X1, X1
	SUBPD X9, X1
	MULPD X12, X1
	MOVQ 112(DI), AX
	MOVSD (SI)(AX*1), X2
	CVTPS2PD X2, X2
	SUBPD X10, X2
	MULPD X13, X2
	MAXPD X1, X0
	MAXPD X2, X0
	MOVSD lo+16(FP), X3
	UNPCKLPD X3, X3
	MAXPD X3, X0

	// Exit: min(hi, far planes).
	MOVQ 120(DI), AX
	MOVSD (SI)(AX*1), X4
	CVTPS2PD X4, X4
	SUBPD X8, X4
	MULPD X11, X4
	MOVQ 128(DI), AX
	MOVSD (SI)(AX*1), X5
	CVTPS2PD X5, X5
	SUBPD X9, X5
	MULPD X12, X5
	MOVQ 136(DI), AX
	MOVSD (SI)(AX*1), X6
	CVTPS2PD X6, X6
	SUBPD X10, X6
	MULPD X13, X6
	MINPD X5, X4
	MINPD X6, X4
	MOVSD hi+24(FP), X7
	UNPCKLPD X7, X7
	MINPD X7, X4

	MOVSD X0, a0+32(FP)
	MOVSD X4, e0+40(FP)
	UNPCKHPD X0, X0
	UNPCKHPD X4, X4
	MOVSD X0, a1+48(FP)
	MOVSD X4, e1+56(FP)
	RET
