// Package linalg holds the dense kernels the engine's hot loops call on flat
// row-major slices, without allocating.
//
// They are the only place where the engine multiplies matrices. The products
// run on FMA micro-kernels in assembly (AVX-512 where the CPU and OS have
// it, else AVX2+FMA; chosen at run time), with a portable pure-Go fallback
// (the only one with the purego build tag or off amd64).
//
// # Reproducibility
//
// Every implementation gives the same bits, whatever the CPU, the tiling,
// the blocking or the number of threads, because the summation order is
// fixed by the shape alone:
//
//   - chain order, for MulAB, MulAtB, and MulABt with n ≥ 2: each entry
//     is one fused-multiply-add chain over l = 0, 1, …, k−1, starting from
//     C (accumulate) or +0 (tileGeneric);
//   - lane order, for MulABt with n = 1 (a matrix times a vector): 8
//     interleaved fma chains and a fixed pairwise sum, then + C (dotGeneric).
//
// The order of an entry never depends on m, so a row of a product (a
// sample of a batch) has the same bits whatever the other rows.
//
// Threads split the entries of C, never a sum, so GOMAXPROCS changes the
// speed and not the result.
package linalg

import (
	"math"
	"sync"
)

// MulABt sets C = A·Bᵀ (+ C when accumulate), with A m×k (row stride lda),
// B n×k (stride ldb) and C m×n (stride ldc): C[i][j] = ⟨A_i, B_j⟩.
func MulABt(m, n, k int, a []float64, lda int, b []float64, ldb int, c []float64, ldc int, accumulate bool) {
	mulABt(m, n, k, a, lda, b, ldb, c, ldc, accumulate, epilogue{})
}

// MulABtReLU sets C = relu(A·Bᵀ) entrywise (relu(z) = z > 0 ? z : 0), the
// product in MulABt's order: the values of MulABt followed by ReLU, in one
// pass over C.
func MulABtReLU(m, n, k int, a []float64, lda int, b []float64, ldb int, c []float64, ldc int) {
	mulABt(m, n, k, a, lda, b, ldb, c, ldc, false, epilogue{kind: epiReLU})
}

func mulABt(m, n, k int, a []float64, lda int, b []float64, ldb int, c []float64, ldc int, accumulate bool, e epilogue) {
	if m <= 0 || n <= 0 {
		return
	}
	if k <= 0 {
		zeroUnless(m, n, c, ldc, accumulate)
		e.apply(c, ldc, 0, 0, m, n)
		return
	}
	ks := active()
	if n == 1 {
		ks.dot(k, a, lda, b, c, ldc, m, accumulate)
		e.apply(c, ldc, 0, 0, m, 1)
		return
	}
	if m == 1 {
		rowABt(n, k, a, b, ldb, c, accumulate)
		e.apply(c, ldc, 0, 0, 1, n)
		return
	}
	j := getJob(ks)
	if swapABt(ks, m, n, k) {
		// Cᵀ = B·Aᵀ: B's rows are the broadcast operand, Aᵀ (k×m) is
		// packed instead of Bᵀ, and Cᵀ goes through the buffer. The entries
		// are the same chains (fma(a, b, c) = fma(b, a, c) exactly).
		// Rows of Aᵀ padded to whole cache lines, so that a sliver's row
		// is never split over three of them (W5: m = 100, 800 bytes).
		ld := alignedLd(m)
		buf := j.grow(ld*k + m*n)
		at, ct := buf[:ld*k], buf[ld*k:]
		transpose(at, ld, a, lda, m, k)
		if accumulate {
			transpose(ct, m, c, ldc, m, n)
		}
		j.mul(n, m, k, b, ldb, 1, at, ld, ct, m, accumulate, e)
		transpose(c, ldc, ct, m, n, m)
		putJob(j)
		return
	}
	// Chain order needs B with unit column stride: pack Bᵀ (k×n).
	ld := alignedLd(n)
	bt := j.grow(k * ld)
	transpose(bt, ld, b, ldb, n, k)
	j.mul(m, n, k, a, lda, 1, bt, ld, c, ldc, accumulate, e)
	putJob(j)
}

// rowABt sets c[j] = ⟨a, B_j⟩ (+ c[j] when accumulate) for j < n, each a
// chain over l = 0 … k−1 from +0 or c[j] (chain order, the bits of the
// packed path), reading B's rows in place: a row times Bᵀ needs no Bᵀ.
// Packing Bᵀ (n·k copies, a blocked transpose of a k-column matrix)
// cost 4× the product where k is a batch (the NTK's output layer, n = d̃,
// k = 6 samples: 7% of section F's CPU). Four rows at a time keep four
// independent chains in flight.
func rowABt(n, k int, a, b []float64, ldb int, c []float64, accumulate bool) {
	a, c = a[:k], c[:n]
	j := 0
	for ; j+4 <= n; j += 4 {
		b0, b1, b2, b3 := b[j*ldb:j*ldb+k], b[(j+1)*ldb:(j+1)*ldb+k], b[(j+2)*ldb:(j+2)*ldb+k], b[(j+3)*ldb:(j+3)*ldb+k]
		var s0, s1, s2, s3 float64
		if accumulate {
			s0, s1, s2, s3 = c[j], c[j+1], c[j+2], c[j+3]
		}
		for l, v := range a {
			s0 = math.FMA(v, b0[l], s0)
			s1 = math.FMA(v, b1[l], s1)
			s2 = math.FMA(v, b2[l], s2)
			s3 = math.FMA(v, b3[l], s3)
		}
		c[j], c[j+1], c[j+2], c[j+3] = s0, s1, s2, s3
	}
	for ; j < n; j++ {
		bj := b[j*ldb : j*ldb+k]
		var s float64
		if accumulate {
			s = c[j]
		}
		for l, v := range a {
			s = math.FMA(v, bj[l], s)
		}
		c[j] = s
	}
}

// swapABt reports whether MulABt should compute Cᵀ = B·Aᵀ rather than
// A·Bᵀ: when packing Aᵀ and moving Cᵀ through the buffer (m·k + 2·m·n
// copies, counting the load of C an accumulation adds as one of them)
// costs less than packing Bᵀ (n·k), and A has enough rows (m ≥ nr) to fill
// the tile's column slivers of Cᵀ. A dense layer's forward pass on a small
// batch is the case: for W5's 3136 → 1024 layer on 100 samples, 0.5 M
// copies instead of 3.2 M (25 MB of weights transposed at every step).
func swapABt(ks *kernelSet, m, n, k int) bool {
	return m >= ks.nr && float64(m)*float64(k+2*n) < float64(n)*float64(k)
}

// alignedLd is the row stride of a packed matrix of n columns: n rounded
// up to a whole number of 64-byte cache lines (8 doubles), so that the
// kernels' 8- and 16-column slivers of a row stay in one or two lines when
// the buffer starts on a line (Go's large allocations start on a page).
func alignedLd(n int) int { return (n + 7) &^ 7 }

// transposeBlock is the side of the square blocks transpose copies: 32×32
// doubles of source and destination (16 KiB) stay in L1 while a block is
// copied, where a row-by-row transpose of a large B misses the cache (and
// the TLB) on every write.
const transposeBlock = 32

// Transpose writes the transpose of the rows×cols matrix src (stride lds)
// into dst (cols×rows, stride ldd), block by block: a copy of the values.
func Transpose(dst []float64, ldd int, src []float64, lds, rows, cols int) {
	if rows <= 0 || cols <= 0 {
		return
	}
	if (rows-1)*lds+cols > len(src) || (cols-1)*ldd+rows > len(dst) {
		panic("linalg: Transpose past its operands")
	}
	transpose(dst, ldd, src, lds, rows, cols)
}

// transpose writes the transpose of the rows×cols matrix src (stride lds)
// into dst (cols×rows, stride ldd), block by block. It copies: the values,
// and so every product's bits, are those of a plain loop.
func transpose(dst []float64, ldd int, src []float64, lds, rows, cols int) {
	for i0 := 0; i0 < rows; i0 += transposeBlock {
		i1 := min(i0+transposeBlock, rows)
		for l0 := 0; l0 < cols; l0 += transposeBlock {
			l1 := min(l0+transposeBlock, cols)
			for i := i0; i < i1; i++ {
				for l, v := range src[i*lds+l0 : i*lds+l1] {
					dst[(l0+l)*ldd+i] = v
				}
			}
		}
	}
}

// MulAB sets C = A·B (+ C when accumulate), with A m×k (stride lda), B k×n
// (stride ldb) and C m×n (stride ldc).
func MulAB(m, n, k int, a []float64, lda int, b []float64, ldb int, c []float64, ldc int, accumulate bool) {
	mul(m, n, k, a, lda, 1, b, ldb, c, ldc, accumulate, epilogue{})
}

// MulABReLU sets C = relu(A·B) entrywise, the product in MulAB's order:
// the values of MulAB followed by ReLU, in one pass over C.
func MulABReLU(m, n, k int, a []float64, lda int, b []float64, ldb int, c []float64, ldc int) {
	mul(m, n, k, a, lda, 1, b, ldb, c, ldc, false, epilogue{kind: epiReLU})
}

// MulABMask sets C = (A·B) ⊙ [M > 0] entrywise, with M m×n (stride ldm):
// the values of MulAB followed by Mul with the 0/1 indicator of M > 0 (the
// backward pass of a ReLU whose output is M), in one pass over C.
func MulABMask(m, n, k int, a []float64, lda int, b []float64, ldb int, c []float64, ldc int, mask []float64, ldm int) {
	if m > 0 && n > 0 && (m-1)*ldm+n > len(mask) {
		panic("linalg: mask shorter than C")
	}
	mul(m, n, k, a, lda, 1, b, ldb, c, ldc, false, epilogue{kind: epiMask, m: mask, ldm: ldm})
}

// MulAtB sets C = Aᵀ·B (+ C when accumulate), with A k×m (stride lda), B k×n
// (stride ldb) and C m×n (stride ldc).
func MulAtB(m, n, k int, a []float64, lda int, b []float64, ldb int, c []float64, ldc int, accumulate bool) {
	mul(m, n, k, a, 1, lda, b, ldb, c, ldc, accumulate, epilogue{})
}

// mul sets C = e(op(A)·B (+ C)) in chain order, with op(A)[i][l] =
// a[i·rsa + l·csa].
func mul(m, n, k int, a []float64, rsa, csa int, b []float64, ldb int, c []float64, ldc int, accumulate bool, e epilogue) {
	if m <= 0 || n <= 0 {
		return
	}
	if k <= 0 {
		zeroUnless(m, n, c, ldc, accumulate)
		e.apply(c, ldc, 0, 0, m, n)
		return
	}
	j := getJob(active())
	j.mul(m, n, k, a, rsa, csa, b, ldb, c, ldc, accumulate, e)
	putJob(j)
}

// mul computes a chain-order product with m, n, k ≥ 1: one row at a time
// (m = 1) or by tiles.
func (j *job) mul(m, n, k int, a []float64, rsa, csa int, b []float64, ldb int, c []float64, ldc int, accumulate bool, e epilogue) {
	if ks := j.ks; m == 1 && ks.row != nil {
		for j0 := 0; j0 < n; j0 += ks.rowCols {
			ks.row(k, a, csa, b[j0:], ldb, c[j0:], min(ks.rowCols, n-j0), accumulate)
		}
		e.apply(c, ldc, 0, 0, 1, n)
		return
	}
	j.run(m, n, k, a, rsa, csa, b, ldb, c, ldc, accumulate, e)
}

func zeroUnless(m, n int, c []float64, ldc int, accumulate bool) {
	if accumulate {
		return
	}
	for i := 0; i < m; i++ {
		clear(c[i*ldc : i*ldc+n])
	}
}

const (
	// kc is the depth of a block of l: a tile's 12 rows of A (12 KiB) and
	// its 16-column sliver of B (16 KiB) then stay in a 48 KiB L1 cache.
	kc = 128
	// unitTiles bounds the row tiles of one unit of work, so that its block
	// of A (192 rows × kc, 192 KiB) stays in L2 (1 MiB a core on Zen 4, 2
	// MiB on Sapphire Rapids) while every column sliver passes.
	unitTiles = 16
	// packMin is the number of multiply-adds from which a set with a
	// packed kernel packs: below it (W1's and W4's products, 6 k–256 k),
	// the copies cost more than the strided reads they save (W4 17%
	// slower packed on AVX2, W1 11%).
	packMin = 1 << 20
	// parallelFLOPs is the size below which a product runs on the calling
	// goroutine alone: waking a worker costs a few µs, about what 2^20
	// flops take on one core.
	parallelFLOPs = 1 << 20
)

// job is one chain-order product and the scratch to run it, reused
// through jobs (no allocation per call once warm).
type job struct {
	ks              *kernelSet
	m, n, k         int
	a               []float64
	rsa, csa        int
	b               []float64
	ldb             int
	c               []float64
	ldc             int
	load            bool
	epi             epilogue
	unitRows, units int
	unitCols        int  // columns of a unit (a multiple of nr)
	pack            bool // the units run on packed operands (unitPacked)
	colGroups       int  // units per group of rows
	next            counter
	crew            crew
	own             scratch   // the caller's scratch
	buf             []float64 // packed Bᵀ of MulABt
}

// Idle jobs (with their grown buffers) wait in jobs, a sync.Pool: a
// per-P cache, so that the verify suite's goroutines, each running tiny
// products back to back on its own core, take and put back jobs without
// an atomic write to a shared cache line (the single shared slot and
// channel this replaces cost 15% of verify's CPU time on 2 cores, more
// than the products of a few hundred multiply-adds they dispatched). A
// garbage collection moves idle jobs to the pool's victim cache, from
// which the next getJob takes them back, so a job in steady use is not
// re-allocated: only one idle through two collections is dropped.
var jobs = sync.Pool{New: func() any { return new(job) }}

func getJob(ks *kernelSet) *job {
	j := jobs.Get().(*job)
	j.ks = ks
	return j
}

func putJob(j *job) {
	j.a, j.b, j.c, j.epi = nil, nil, nil, epilogue{}
	jobs.Put(j)
}

// grow returns the job's buffer with length n.
func (j *job) grow(n int) []float64 {
	if cap(j.buf) < n {
		j.buf = make([]float64, n)
	}
	return j.buf[:n]
}

// scratch is a worker's space for padded edges: A rows below the last full
// tile, and (for kernels without masks) B columns and C entries right of the
// last full tile.
type scratch struct {
	a  [kc * 16]float64
	b  [kc * 16]float64
	c  [16 * 16]float64
	pa []float64 // packed A (unitPacked)
	pb []float64 // packed B (unitPacked)
	pl []float64 // a partial tile's packed A (unitPacked)
}

// run computes the product, on several goroutines when it is large enough.
// Units of work are blocks of C (groups of row tiles, maybe of column
// slivers); which goroutine runs a unit does not change any entry's
// summation order.
func (j *job) run(m, n, k int, a []float64, rsa, csa int, b []float64, ldb int, c []float64, ldc int, load bool, e epilogue) {
	j.m, j.n, j.k = m, n, k
	j.epi = e
	j.a, j.rsa, j.csa = a, rsa, csa
	j.b, j.ldb = b, ldb
	j.c, j.ldc = c, ldc
	j.load = load
	j.pack = j.ks.packed != nil && float64(m)*float64(n)*float64(k) >= packMin
	mr := j.ks.mr
	tiles := (m + mr - 1) / mr
	slivers := (n + j.ks.nr - 1) / j.ks.nr
	t := 1
	if tiles*slivers >= 2 && 2*float64(m)*float64(n)*float64(k) >= parallelFLOPs {
		t = threads()
	}
	// Units: groups of row tiles, as few as keep a unit's block of A in L2
	// (every row unit streams the columns of B it covers once more; W5's
	// dense layers have 100 rows: one unit, not 96 rows and then 4), of
	// balanced sizes; and, when the rows give fewer than 8 units per
	// goroutine, groups of column slivers too (so that, e.g., 9 row tiles
	// split evenly over 2 goroutines).
	ut := unitTiles
	if j.ks.unitTiles > 0 {
		ut = j.ks.unitTiles
	}
	rowUnits := (tiles + ut - 1) / ut
	j.unitRows = (tiles + rowUnits - 1) / rowUnits * mr
	rowUnits = (m + j.unitRows - 1) / j.unitRows
	j.colGroups = 1
	if t > 1 && rowUnits < 8*t {
		j.colGroups = min(slivers, (8*t+rowUnits-1)/rowUnits)
	}
	j.unitCols = (slivers + j.colGroups - 1) / j.colGroups * j.ks.nr
	j.colGroups = (n + j.unitCols - 1) / j.unitCols
	j.units = rowUnits * j.colGroups
	t = min(t, j.units)
	if t == 1 {
		for u := 0; u < j.units; u++ {
			j.unit(u, &j.own)
		}
		return
	}
	parallelProducts.Add(1)
	j.next.set(0)
	j.crew.open()
	for w := 1; w < t; w++ {
		workers.send(j)
	}
	j.work(&j.own)
	// Wait only for helpers that joined: one that has not started yet (its
	// core busy with other work) finds the job closed and leaves it.
	j.crew.close()
}

// work runs units until none is left.
func (j *job) work(s *scratch) {
	for {
		u := j.next.add() - 1
		if u >= j.units {
			return
		}
		j.unit(u, s)
	}
}

// unit computes the block of C of unit u (unitRows rows, unitCols columns):
// for each block of kc values of l, for each column sliver, for each row
// tile.
func (j *job) unit(u int, s *scratch) {
	ks := j.ks
	mr, nr := ks.mr, ks.nr
	i0 := u / j.colGroups * j.unitRows
	i1 := min(j.m, i0+j.unitRows)
	c0 := u % j.colGroups * j.unitCols
	c1 := min(j.n, c0+j.unitCols)
	if j.pack {
		j.unitPacked(i0, i1, c0, c1, s)
		return
	}
	// The last tile is partial when i1−i0 is not a multiple of mr. Kernels
	// that read whole tiles of A shift it up over the previous rows (which
	// they compute again and drop); when C has fewer than mr rows they read
	// its rows from s.a, copied and zero-padded as a kc×mr sliver.
	full := i0 + (i1-i0)/mr*mr
	pad := ks.wholeA && full < i1 && i1 < mr
	for pc := 0; pc < j.k; pc += kc {
		kb := min(kc, j.k-pc)
		load := j.load || pc > 0
		// The epilogue goes with the last block of l, on the final values.
		var e epilogue
		if pc+kb == j.k {
			e = j.epi
		}
		if pad {
			p := s.a[:kb*mr]
			if r := i1 - full; j.rsa == 1 {
				// Aᵀ·B (the backward pass's gOutᵀ·A): the tile's rows
				// are contiguous for each l, a row copy each.
				for l := 0; l < kb; l++ {
					d := p[l*mr : (l+1)*mr]
					copy(d, j.a[(pc+l)*j.csa+full:][:r])
					clear(d[r:])
				}
			} else {
				clear(p)
				for i := full; i < i1; i++ {
					for l := 0; l < kb; l++ {
						p[l*mr+i-full] = j.a[i*j.rsa+(pc+l)*j.csa]
					}
				}
			}
		}
		for j0 := c0; j0 < c1; j0 += nr {
			cols := min(nr, c1-j0)
			b := j.b[pc*j.ldb+j0:]
			ldb := j.ldb
			padded := cols < nr && !ks.masked
			if padded {
				// Pad B's sliver with zero columns; the tiles go through s.c.
				pb := s.b[:kb*nr]
				clear(pb)
				for l := 0; l < kb; l++ {
					copy(pb[l*nr:l*nr+cols], b[l*ldb:l*ldb+cols])
				}
				b, ldb = pb, nr
			}
			for i := i0; i < i1; {
				// The full tiles in one call, then the last tile: rows
				// ci+skip … ci+rows−1 of C are written.
				ci, rows, tiles, skip := i, mr, (full-i)/mr, 0
				if i >= full {
					tiles, rows = 1, i1-i
					if ks.wholeA && !pad {
						ci, rows, skip = i1-mr, mr, mr-(i1-i)
					}
				}
				a, rsa, csa := j.a[ci*j.rsa+pc*j.csa:], j.rsa, j.csa
				if pad && i >= full {
					a, rsa, csa = s.a[:kb*mr], 1, mr
				}
				if padded {
					tiles = 1
				}
				c := j.c[ci*j.ldc+j0:]
				switch {
				case padded:
					tc := s.c[:rows*nr]
					if load {
						for r := skip; r < rows; r++ {
							copy(tc[r*nr:r*nr+cols], c[r*j.ldc:r*j.ldc+cols])
						}
					}
					ks.tile(kb, a, rsa, csa, b, ldb, tc, nr, rows, nr, load, epilogue{}, 1, skip)
					for r := skip; r < rows; r++ {
						copy(c[r*j.ldc:r*j.ldc+cols], tc[r*nr:r*nr+cols])
					}
				case ks.fused:
					te := e
					if e.kind == epiMask {
						te.m = e.m[ci*e.ldm+j0:]
					}
					ks.tile(kb, a, rsa, csa, b, ldb, c, j.ldc, rows, cols, load, te, tiles, skip)
				default:
					ks.tile(kb, a, rsa, csa, b, ldb, c, j.ldc, rows, cols, load, epilogue{}, tiles, skip)
				}
				end := ci + (tiles-1)*mr + rows
				if !ks.fused || padded {
					// A padded tile went through s.c without its epilogue.
					e.apply(j.c[i*j.ldc+j0:], j.ldc, i, j0, end-i, cols)
				}
				i = end
			}
		}
	}
}
