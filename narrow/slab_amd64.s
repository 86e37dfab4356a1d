//go:build !purego

#include "textflag.h"

// func bvhNext(fat []fatNode, r *slabRay, st *travState) (first, count int32)
//
// bvhNextGo in SSE2 assembly: the whole descent runs in registers, so a
// node costs no call. Layouts (pinned by TestSlabRayLayout):
//   slabRay: o [3]float64 at 0, inv [3]float64 at 24,
//            near [3]uintptr at 48, far [3]uintptr at 72;
//   fatNode: box at 0 (each plane two float32: child 0, child 1),
//            child [2]int32 at 48, count [2]int32 at 56; 64 bytes;
//   travState: lo at 0, hi at 8, sp at 16, stack at 32, 16-byte entries
//            {ref int32, count int32, t0 float64}.
// Every lane follows exactly the float64 arithmetic of slab2Go: one MOVSD
// loads both children's float32 plane values and CVTPS2PD widens them.
//
// Registers: SI fat, BX st, CX sp, AX cur, DX count (then scratch), DI
// node address; R8-R10 near and R11-R13 far plane offsets; X8-X10 origin,
// X11-X13 inverse direction (each broadcast to both lanes), X14 lo, X7 hi (both lanes); X0-X6 scratch.
TEXT ·bvhNext(SB), NOSPLIT, $0-48
	MOVQ fat+0(FP), SI
	MOVQ r+24(FP), DI
	MOVQ st+32(FP), BX

	MOVSD 0(DI), X8
	UNPCKLPD X8, X8
	MOVSD 8(DI), X9
	UNPCKLPD X9, X9
	MOVSD 16(DI), X10
	UNPCKLPD X10, X10
	MOVSD 24(DI), X11
	UNPCKLPD X11, X11
	MOVSD 32(DI), X12
	UNPCKLPD X12, X12
	MOVSD 40(DI), X13
	UNPCKLPD X13, X13
	MOVQ 48(DI), R8
	MOVQ 56(DI), R9
	MOVQ 64(DI), R10
	MOVQ 72(DI), R11
	MOVQ 80(DI), R12
	MOVQ 88(DI), R13

	MOVSD 0(BX), X14
	UNPCKLPD X14, X14
	MOVSD 8(BX), X7
	UNPCKLPD X7, X7
	MOVQ 16(BX), CX

pop:
	// Pop the next deferred subtree whose entry is not past hi.
	TESTQ CX, CX
	JZ done
	DECQ CX
	MOVQ CX, DX
	SHLQ $4, DX
	ADDQ BX, DX
	MOVSD 40(DX), X0
	UCOMISD X7, X0
	JHI pop
	MOVL 32(DX), AX
	MOVL 36(DX), DX

check:
	TESTL DX, DX
	JNZ leaf

	// Interior node: slab test of both children.
	MOVQ AX, DI
	SHLQ $6, DI
	ADDQ SI, DI

	MOVSD (DI)(R8*1), X0
	CVTPS2PD X0, X0
	SUBPD X8, X0
	MULPD X11, X0
	MOVSD (DI)(R9*1), X1
	CVTPS2PD X1, X1
	SUBPD X9, X1
	MULPD X12, X1
	MOVSD (DI)(R10*1), X2
	CVTPS2PD X2, X2
	SUBPD X10, X2
	MULPD X13, X2
	MAXPD X1, X0
	MAXPD X2, X0
	MAXPD X14, X0

	MOVSD (DI)(R11*1), X4
	CVTPS2PD X4, X4
	SUBPD X8, X4
	MULPD X11, X4
	MOVSD (DI)(R12*1), X5
	CVTPS2PD X5, X5
	SUBPD X9, X5
	MULPD X12, X5
	MOVSD (DI)(R13*1), X6
	CVTPS2PD X6, X6
	SUBPD X10, X6
	MULPD X13, X6
	MINPD X5, X4
	MINPD X6, X4
	MINPD X7, X4

	// X0 = entries (a0, a1), X4 = exits (e0, e1); bit k of DX: a_k <= e_k.
	MOVAPD X0, X1
	CMPPD X4, X1, $2
	MOVMSKPD X1, DX
	CMPQ DX, $3
	JEQ both
	CMPQ DX, $1
	JEQ only0
	CMPQ DX, $2
	JEQ only1
	JMP pop

only0:
	MOVL 48(DI), AX
	MOVL 56(DI), DX
	JMP check

only1:
	MOVL 52(DI), AX
	MOVL 60(DI), DX
	JMP check

both:
	// Go to the nearer child (child 0 on a tie), defer the other.
	MOVAPD X0, X2
	UNPCKHPD X2, X2
	MOVQ CX, DX
	SHLQ $4, DX
	ADDQ BX, DX
	INCQ CX
	UCOMISD X0, X2
	JCS near1
	MOVL 52(DI), AX
	MOVL AX, 32(DX)
	MOVL 60(DI), AX
	MOVL AX, 36(DX)
	MOVSD X2, 40(DX)
	MOVL 48(DI), AX
	MOVL 56(DI), DX
	JMP check

near1:
	MOVL 48(DI), AX
	MOVL AX, 32(DX)
	MOVL 56(DI), AX
	MOVL AX, 36(DX)
	MOVSD X0, 40(DX)
	MOVL 52(DI), AX
	MOVL 60(DI), DX
	JMP check

leaf:
	MOVQ CX, 16(BX)
	MOVL AX, first+40(FP)
	MOVL DX, count+44(FP)
	RET

done:
	MOVQ $0, 16(BX)
	MOVL $0, first+40(FP)
	MOVL $0, count+44(FP)
	RET
