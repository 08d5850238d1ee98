//go:build !purego

package linalg

import "unsafe"

//go:generate go run gen_amd64.go

// The assembly kernels (kernels_amd64.s, written by gen_amd64.go). Pointers
// point into Go slices; the wrappers below check what the kernels will read
// and write, so that a wrong call panics in Go instead of corrupting memory.

//go:noescape
func gemm12x16(k int, a *float64, rsa, csa int, b *float64, ldb int, c *float64, ldc int, mr int, masks uint64, flags int, m *float64, ldm int, tiles int, skip int)

//go:noescape
func gemm12x8(k int, a *float64, rsa, csa int, b *float64, ldb int, c *float64, ldc int, mr int, masks uint64, flags int, m *float64, ldm int, tiles int, skip int)

//go:noescape
func gemm8x16(k int, a *float64, rsa, csa int, b *float64, ldb int, c *float64, ldc int, mr int, masks uint64, flags int, m *float64, ldm int, tiles int, skip int)

//go:noescape
func gemm8x8(k int, a *float64, rsa, csa int, b *float64, ldb int, c *float64, ldc int, mr int, masks uint64, flags int, m *float64, ldm int, tiles int, skip int)

//go:noescape
func gemm4x16(k int, a *float64, rsa, csa int, b *float64, ldb int, c *float64, ldc int, mr int, masks uint64, flags int, m *float64, ldm int, tiles int, skip int)

//go:noescape
func gemm4x8(k int, a *float64, rsa, csa int, b *float64, ldb int, c *float64, ldc int, mr int, masks uint64, flags int, m *float64, ldm int, tiles int, skip int)

//go:noescape
func gemm1x56(k int, a *float64, csa int, b *float64, ldb int, c *float64, masks uint64, load int)

//go:noescape
func gemm6x8(k int, a *float64, rsa, csa int, b *float64, ldb int, c *float64, ldc int, mr int, flags int, skip int, m *float64, ldm int, tiles int, astep int)

//go:noescape
func dot512(kc int, x *float64, ldx int, y *float64, out *float64, inc int, rows int, tail uint64, load int)

//go:noescape
func dot256(kc int, x *float64, ldx int, y *float64, out *float64, inc int, rows int, tail *int64, load int)

func fmaPeak512(n int)
func fmaPeak256(n int)

// peakFMA runs n iterations of the set's register-only FMA loop and returns
// the flops done (nil for sets without one).
var peakFMA = map[string]func(n int) float64{
	"avx512": func(n int) float64 { fmaPeak512(n); return float64(n) * 24 * 16 },
	"avx2":   func(n int) float64 { fmaPeak256(n); return float64(n) * 12 * 8 },
}

//go:noescape
func relu512(dst, dd, z *float64, n int)

//go:noescape
func relu256(dst, dd, z *float64, n int)

//go:noescape
func mul512(dst, x, y *float64, n int)

//go:noescape
func reluOnly512(dst, z *float64, n int)

//go:noescape
func add512(dst, x *float64, n int)

//go:noescape
func max4x512(y, arg, p0, p1, p2, p3 *float64, n int, tail uint64)

//go:noescape
func unpool4x512(q0, q1, q2, q3, grad, arg *float64, n int, tail uint64)

//go:noescape
func mulPos512(dst, x, m *float64, n int)

//go:noescape
func mul256(dst, x, y *float64, n int)

//go:noescape
func reluOnly256(dst, z *float64, n int)

//go:noescape
func mulPos256(dst, x, m *float64, n int)

var avx512Set = &kernelSet{
	name: "avx512", mr: 12, nr: 16, masked: true, fused: true, wholeA: true,
	tile: tile512, row: row512, rowCols: 56,
	dot: func(k int, x []float64, ldx int, y []float64, out []float64, inc, rows int, load bool) {
		checkDot(k, x, ldx, y, out, inc, rows)
		if rows == 0 {
			return
		}
		dot512(k/8, ptr(x), ldx, ptr(y), &out[0], inc, rows, 1<<(k%8)-1, b2i(load))
	},
	relu:        func(dst, dd, z []float64) { relu512(ptr(dst), ptr(dd), ptr(z), len(z)) },
	reluOnly:    func(dst, z []float64) { reluOnly512(ptr(dst), ptr(z), len(z)) },
	mul:         func(dst, x, y []float64) { mul512(ptr(dst), ptr(x), ptr(y), len(x)) },
	mulPos:      func(dst, x, m []float64) { mulPos512(ptr(dst), ptr(x), ptr(m), len(x)) },
	add:         func(dst, x []float64) { add512(ptr(dst), ptr(x), len(x)) },
	sumRows:     sumRowsAVX2, // AVX2 instructions, which every AVX-512 CPU has
	unpool4ReLU: unpool4ReLUAVX2,
	posBits:     positiveBitsAVX2, // AVX2 instructions, as sumRows
	addRows:     addRowsAVX2,
	vec:         8,
	max4: func(y, arg, p0, p1, p2, p3 []float64) {
		max4x512(ptr(y), ptr(arg), ptr(p0), ptr(p1), ptr(p2), ptr(p3), len(y), 1<<(len(y)%8)-1)
	},
	unpool4: func(q0, q1, q2, q3, g, arg []float64) {
		unpool4x512(ptr(q0), ptr(q1), ptr(q2), ptr(q3), ptr(g), ptr(arg), len(g), 1<<(len(g)%8)-1)
	},
}

var avx2Set = &kernelSet{
	name: "avx2", mr: 6, nr: 8, masked: false, fused: true, wholeA: true,
	tile: tile256, packed: packed256, copyRows: copyRows256, packB: packB256, unitTiles: 32,
	row: row256, rowCols: 48,
	dot: func(k int, x []float64, ldx int, y []float64, out []float64, inc, rows int, load bool) {
		checkDot(k, x, ldx, y, out, inc, rows)
		if rows == 0 {
			return
		}
		dot256(k/8, ptr(x), ldx, ptr(y), &out[0], inc, rows, &laneMasks[k%8][0], b2i(load))
	},
	relu:     func(dst, dd, z []float64) { relu256(ptr(dst), ptr(dd), ptr(z), len(z)) },
	reluOnly: func(dst, z []float64) { reluOnly256(ptr(dst), ptr(z), len(z)) },
	mul:      func(dst, x, y []float64) { mul256(ptr(dst), ptr(x), ptr(y), len(x)) },
	mulPos:   func(dst, x, m []float64) { mulPos256(ptr(dst), ptr(x), ptr(m), len(x)) },
	add:      func(dst, x []float64) { add256(ptr(dst), ptr(x), len(x)) },
	sumRows:  sumRowsAVX2,
	posBits:  positiveBitsAVX2,
	addRows:  addRowsAVX2,
	vec:      4,
	max4: func(y, arg, p0, p1, p2, p3 []float64) {
		v := len(y) &^ 3
		max4x256(ptr(y), ptr(arg), ptr(p0), ptr(p1), ptr(p2), ptr(p3), v)
		max4Generic(y[v:], arg[v:], p0[v:], p1[v:], p2[v:], p3[v:])
	},
	unpool4: func(q0, q1, q2, q3, g, arg []float64) {
		v := len(g) &^ 3
		unpool4x256(ptr(q0), ptr(q1), ptr(q2), ptr(q3), ptr(g), ptr(arg), v)
		unpool4Generic(q0[v:], q1[v:], q2[v:], q3[v:], g[v:], arg[v:])
	},
	unpool4ReLU: unpool4ReLUAVX2,
}

//go:noescape
func unpool4pos256(q0, q1, q2, q3, grad, arg, p0, p1, p2, p3 *float64, n int)

// unpool4ReLUAVX2 is kernelSet.unpool4ReLU: 4 values a step, the last
// len mod 4 in Go.
func unpool4ReLUAVX2(q0, q1, q2, q3, g, arg, p0, p1, p2, p3 []float64) {
	v := len(g) &^ 3
	unpool4pos256(ptr(q0), ptr(q1), ptr(q2), ptr(q3), ptr(g), ptr(arg), ptr(p0), ptr(p1), ptr(p2), ptr(p3), v)
	unpool4ReLUGeneric(q0[v:], q1[v:], q2[v:], q3[v:], g[v:], arg[v:], p0[v:], p1[v:], p2[v:], p3[v:])
}

//go:noescape
func max4x256(y, arg, p0, p1, p2, p3 *float64, n int)

//go:noescape
func unpool4x256(q0, q1, q2, q3, grad, arg *float64, n int)

//go:noescape
func add256(dst, x *float64, n int)

//go:noescape
func sumRows256x4(dst, m *float64, ld, rows, load int)

//go:noescape
func sumRows256x1(dst, m *float64, ld, rows, load int)

// sumRowsAVX2 is kernelSet.sumRows: 16 columns at a time, then 4, then
// the last cols mod 4 in Go.
func sumRowsAVX2(dst, m []float64, rows, cols int, acc bool) {
	j := 0
	for ; j+16 <= cols; j += 16 {
		sumRows256x4(&dst[j], &m[j], cols, rows, b2i(acc))
	}
	for ; j+4 <= cols; j += 4 {
		sumRows256x1(&dst[j], &m[j], cols, rows, b2i(acc))
	}
	sumRowsGeneric(dst[j:cols], m[j:], rows, cols, acc)
}

// laneMasks[t] selects the first t of 8 lanes (VMASKMOVPD reads sign bits).
var laneMasks = func() (m [8][8]int64) {
	for t := range m {
		for q := 0; q < t; q++ {
			m[t][q] = -1
		}
	}
	return m
}()

func tile512(k int, a []float64, rsa, csa int, b []float64, ldb int, c []float64, ldc int, rows, cols int, load bool, e epilogue, tiles, skip int) {
	// An edge tile shifted up over rows its neighbour computes (skip ≥ 4)
	// runs on the 8- or 4-row kernel from the first multiple of 4 rows it
	// keeps: the same chains, up to 8 rows fewer of them computed and
	// dropped (W5's 100-sample batch: 8 rows of 12 in its last tile).
	kr := 12
	if tiles == 1 && skip >= 4 {
		drop := skip / 4 * 4
		kr -= drop
		a, c = a[drop*rsa:], c[drop*ldc:]
		if e.kind == epiMask {
			e.m = e.m[drop*e.ldm:]
		}
		rows, skip = rows-drop, skip-drop
	}
	checkTile(k, a, rsa, csa, kr, b, ldb, c, ldc, rows, cols, tiles)
	flags := b2i(load)
	var m *float64
	switch e.kind {
	case epiReLU:
		flags |= 2
	case epiMask:
		if ((tiles-1)*kr+rows-1)*e.ldm+cols > len(e.m) {
			panic("linalg: tile reads past its mask")
		}
		flags |= 4
		m = &e.m[0]
	}
	masks := uint64(1)<<cols - 1 // cols ≤ 16: byte q holds the lanes of register q
	pa, pb, pc := ptr(a), ptrK(b, k), &c[0]
	switch {
	case kr == 12 && cols > 8:
		gemm12x16(k, pa, rsa, csa, pb, ldb, pc, ldc, rows, masks, flags, m, e.ldm, tiles, skip)
	case kr == 12:
		gemm12x8(k, pa, rsa, csa, pb, ldb, pc, ldc, rows, masks, flags, m, e.ldm, tiles, skip)
	case kr == 8 && cols > 8:
		gemm8x16(k, pa, rsa, csa, pb, ldb, pc, ldc, rows, masks, flags, m, e.ldm, tiles, skip)
	case kr == 8:
		gemm8x8(k, pa, rsa, csa, pb, ldb, pc, ldc, rows, masks, flags, m, e.ldm, tiles, skip)
	case cols > 8:
		gemm4x16(k, pa, rsa, csa, pb, ldb, pc, ldc, rows, masks, flags, m, e.ldm, tiles, skip)
	default:
		gemm4x8(k, pa, rsa, csa, pb, ldb, pc, ldc, rows, masks, flags, m, e.ldm, tiles, skip)
	}
}

func row512(k int, a []float64, csa int, b []float64, ldb int, c []float64, cols int, load bool) {
	checkTile(k, a, 0, csa, 1, b, ldb, c, 0, 1, cols, 1)
	masks := uint64(1)<<cols - 1 // cols ≤ 56
	gemm1x56(k, ptr(a), csa, ptrK(b, k), ldb, &c[0], masks, b2i(load))
}

func tile256(k int, a []float64, rsa, csa int, b []float64, ldb int, c []float64, ldc int, rows, cols int, load bool, e epilogue, tiles, skip int) {
	if cols != 8 {
		panic("linalg: avx2 tile needs 8 columns")
	}
	checkTile(k, a, rsa, csa, 6, b, ldb, c, ldc, rows, cols, tiles)
	gemm256(k, a, rsa, csa, b, ldb, c, ldc, rows, load, e, tiles, skip, 6*rsa)
}

// packed256 is tile256 on a packed B (kernelSet.packed).
func packed256(k int, a []float64, rsa, csa, astep int, b, c []float64, ldc, rows int, load bool, e epilogue, tiles int) {
	checkPacked(k, a, rsa, csa, astep, 6, b, 8, c, ldc, rows, tiles)
	gemm256(k, a, rsa, csa, b, 8, c, ldc, rows, load, e, tiles, 0, astep)
}

//go:noescape
func packB8x256(dst, src *float64, ld, k, slivers, sstride int)

//go:noescape
func pack6x256(dst, src *float64, ld, k int)

// copyRows256 is kernelSet.copyRows.
func copyRows256(dst, src []float64, ld, rows, w int) {
	if rows <= 0 {
		return
	}
	if (rows-1)*ld+w > len(src) || rows*w > len(dst) {
		panic("linalg: copyRows past its operands")
	}
	if w != 6 {
		copyRowsGeneric(dst, src, ld, rows, w)
		return
	}
	pack6x256(&dst[0], &src[0], ld, rows)
}

// packB256 is kernelSet.packB with nr = 8.
func packB256(dst, src []float64, ld, k, slivers, sstride int) {
	if k <= 0 || slivers <= 0 {
		return
	}
	if (k-1)*ld+slivers*8 > len(src) || (slivers-1)*sstride+k*8 > len(dst) || sstride < k*8 {
		panic("linalg: packB past its operands")
	}
	packB8x256(&dst[0], &src[0], ld, k, slivers, sstride)
}

func gemm256(k int, a []float64, rsa, csa int, b []float64, ldb int, c []float64, ldc int, rows int, load bool, e epilogue, tiles, skip, astep int) {
	flags := b2i(load)
	switch e.kind {
	case epiStream:
		// VMOVNTPD needs every row's 32-byte halves aligned.
		if uintptr(unsafe.Pointer(&c[0]))%32 == 0 && ldc%4 == 0 {
			flags |= 8
		}
	case epiReLU:
		flags |= 2
	case epiMask:
		if ((tiles-1)*6+rows-1)*e.ldm+8 > len(e.m) {
			panic("linalg: tile reads past its mask")
		}
		flags |= 4
	}
	var m *float64
	if e.kind == epiMask {
		m = &e.m[0]
	}
	gemm6x8(k, ptr(a), rsa, csa, ptrK(b, k), ldb, &c[0], ldc, rows, flags, skip, m, e.ldm, tiles, astep)
}

// checkPacked panics unless a packed kernel's reads of A (tiles tiles of
// mr rows, astep values apart), B (k×nr) and its accesses to C stay inside
// the slices.
func checkPacked(k int, a []float64, rsa, csa, astep, mr int, b []float64, nr int, c []float64, ldc, rows, tiles int) {
	if rows < 1 || rows > mr || k < 1 || tiles < 1 || (tiles > 1 && rows != mr) {
		panic("linalg: empty or ragged packed tiles")
	}
	if (tiles-1)*astep+(mr-1)*rsa+(k-1)*csa >= len(a) || k*nr > len(b) {
		panic("linalg: packed tile reads past its operands")
	}
	if ((tiles-1)*mr+rows-1)*ldc+nr > len(c) {
		panic("linalg: tile writes past C")
	}
}

// checkTile panics unless the kernel's reads of A (allRows rows per tile)
// and B and its accesses to C, over tiles tiles of allRows rows, stay
// inside the slices.
func checkTile(k int, a []float64, rsa, csa, allRows int, b []float64, ldb int, c []float64, ldc int, rows, cols, tiles int) {
	if rows < 1 || cols < 1 || k < 0 || tiles < 1 || (tiles > 1 && rows != allRows) {
		panic("linalg: empty or ragged tiles")
	}
	if k > 0 && ((tiles*allRows-1)*rsa+(k-1)*csa >= len(a) || (k-1)*ldb+cols > len(b)) {
		panic("linalg: tile reads past its operands")
	}
	if ((tiles-1)*allRows+rows-1)*ldc+cols > len(c) {
		panic("linalg: tile writes past C")
	}
}

func checkDot(k int, x []float64, ldx int, y []float64, out []float64, inc, rows int) {
	if rows > 0 && ((rows-1)*ldx+k > len(x) || k > len(y) || (rows-1)*inc >= len(out)) {
		panic("linalg: dot product past its operands")
	}
}

// ptr returns &s[0], or nil for an empty slice (the kernels then read
// nothing from it).
func ptr(s []float64) *float64 {
	if len(s) == 0 {
		return nil
	}
	return &s[0]
}

// ptrK is ptr for an operand read only when k > 0.
func ptrK(s []float64, k int) *float64 {
	if k == 0 {
		return nil
	}
	return &s[0]
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

//go:noescape
func positiveBits256(dst *byte, y *float64, bytes int)

// positiveBitsAVX2 is kernelSet.posBits.
func positiveBitsAVX2(dst []byte, y []float64) {
	if len(dst) == 0 {
		return
	}
	if len(y) < 8*len(dst) {
		panic("linalg: PositiveBits past y")
	}
	positiveBits256(&dst[0], &y[0], len(dst))
}

//go:noescape
func addRows256(m, b *float64, ld, rows, quads, relu int)

// addRowsAVX2 is kernelSet.addRows: the kernel on whole quads of columns,
// Go on the rest.
func addRowsAVX2(m, b []float64, rows, cols int, relu bool) {
	q := cols / 4
	addRows256(&m[0], &b[0], cols, rows, q, b2i(relu))
	if q*4 < cols {
		for r := 0; r < rows; r++ {
			addRowsGeneric(m[r*cols+4*q:], b[4*q:cols], 1, cols, relu)
		}
	}
}
