package linalg

// Packed operands for the kernel sets that read them (kernelSet.packed):
// one sliver of B as k×nr, contiguous, and, when A is stored transposed
// (MulAtB), A's rows of a unit as panels of mr rows, l-major within a
// panel. A tile then reads sequential streams, where in place it reads B's
// nr columns at their stride: a B sliver of W5's dense layer (kc rows 25
// KB apart) falls into 8 of the L1 cache's 64 sets, which hold 96 of its
// 128 lines, and touches one page per row; and a tile of a transposed A
// reads mr values per l at A's stride (W5's dense ∂W: 8 KB, one set).
// Packing copies values, so every entry is the same chain as in place.

const (
	// packKC is unitPacked's depth of a block of l: a 6×8 tile's panel of
	// A (12 KiB) and sliver of B (16 KiB) stay in L1, and C is loaded and
	// stored once per 256 values of l instead of 128.
	packKC = 256
	// packCols bounds the columns of B packed at a time: a block of
	// packKC×256 values (512 KiB) stays in L2 beside the unit's block of A
	// while the tiles read it, sliver by sliver.
	packCols = 256
	// streamMin is the number of entries of C from which a product written
	// in one pass (one block of l, no epilogue) stores C with non-temporal
	// stores: 8 MB, more than L2 holds, so that storing C does not first
	// read every line of it from memory (W5's dense ∂W, 25 MB a step).
	streamMin = 1 << 20
)

// unitPacked is unit for a set with a packed kernel: rows i0…i1−1 and
// columns c0…c1−1 of C. For each block of kc values of l, a transposed
// A's block is packed once, and B's block packCols columns at a time, read
// row by row (whole lines, where a sliver at a time reads one line per row
// and page); each packed sliver is reused by all the unit's row tiles. A
// row-major A is read in place but for its last, partial tile, packed with
// zero rows (no row computed twice).
//
// With A in place and more than one block of l, the blocks of columns are
// the outer loop: a block of C then stays in L2 across the blocks of l,
// where otherwise all of C would be loaded and stored once per block (W5's
// dense ∂x, 100×3136: 2.5 MB four times). Each entry's chain runs over the
// blocks of l in order either way.
func (j *job) unitPacked(i0, i1, c0, c1 int, s *scratch) {
	ks := j.ks
	mr := ks.mr
	tiles := (i1 - i0 + mr - 1) / mr
	full := (i1 - i0) / mr
	trans := j.rsa == 1 && j.csa != 1
	if !trans && j.k > packKC {
		// The last tile's A when partial: a zero-padded panel over all of
		// l, block pc at last[pc·mr:].
		var last []float64
		if full < tiles {
			last = s.lastPanel(mr * j.k)
			j.packA(last, i0+full*mr, i1, 0, j.k)
		}
		for cc := c0; cc < c1; cc += packCols {
			for pc := 0; pc < j.k; pc += packKC {
				kb := min(packKC, j.k-pc)
				l := last
				if l != nil {
					l = last[pc*mr:]
				}
				j.packedBlock(i0, i1, cc, min(packCols, c1-cc), c1, pc, kb, j.a[i0*j.rsa+pc*j.csa:], j.rsa, j.csa, mr*j.rsa, l, 1, mr, s)
			}
		}
		return
	}
	for pc := 0; pc < j.k; pc += packKC {
		kb := min(packKC, j.k-pc)
		// Tile t's A: a[t·astep:] with strides rsa, csa.
		a, rsa, csa, astep := j.a[i0*j.rsa+pc*j.csa:], j.rsa, j.csa, mr*j.rsa
		if trans {
			a = s.panels(tiles * mr * kb)
			rsa, csa, astep = 1, mr, mr*kb
			j.packA(a, i0, i1, pc, kb)
		}
		// The last tile's A when partial: always a zero-padded panel.
		last, lrsa, lcsa := a, rsa, csa
		if full < tiles {
			if trans {
				last = a[full*astep:]
			} else {
				last, lrsa, lcsa = s.lastPanel(mr*kb), 1, mr
				j.packA(last, i0+full*mr, i1, pc, kb)
			}
		}
		for cc := c0; cc < c1; cc += packCols {
			j.packedBlock(i0, i1, cc, min(packCols, c1-cc), c1, pc, kb, a, rsa, csa, astep, last, lrsa, lcsa, s)
		}
	}
}

// packedBlock runs unitPacked's tiles for rows i0…i1−1, columns
// cc…cc+ccols−1 (c1 the unit's end) and values pc…pc+kb−1 of l: it packs
// B's block and runs every row tile on every sliver of it, tile t's A at
// a[t·astep:] (strides rsa, csa), the partial last tile's at last (strides
// lrsa, lcsa).
func (j *job) packedBlock(i0, i1, cc, ccols, c1, pc, kb int, a []float64, rsa, csa, astep int, last []float64, lrsa, lcsa int, s *scratch) {
	ks := j.ks
	mr, nr := ks.mr, ks.nr
	tiles := (i1 - i0 + mr - 1) / mr
	full := (i1 - i0) / mr
	load := j.load || pc > 0
	// The epilogue goes with the last block of l, on the final values.
	var e epilogue
	if pc+kb == j.k {
		e = j.epi
		if e.kind == epiNone && pc == 0 && !j.load && float64(j.m)*float64(j.n) >= streamMin {
			e.kind = epiStream
		}
	}
	pb := j.packB(s, pc, kb, cc, ccols)
	for j0 := cc; j0 < cc+ccols; j0 += nr {
		cols := min(nr, c1-j0)
		b := pb[(j0-cc)*kb:]
		for t := 0; t < tiles; {
			i := i0 + t*mr
			n, rows, ta, tr, tc := full-t, mr, a[t*astep:], rsa, csa
			if t >= full {
				n, rows, ta, tr, tc = 1, i1-i, last, lrsa, lcsa
			}
			if cols < nr {
				// A narrow edge: one tile at a time, through s.c.
				n = 1
				j.narrow(kb, ta, tr, tc, b, i, j0, rows, cols, load, e, s)
			} else {
				ks.packed(kb, ta, tr, tc, astep, b, j.c[i*j.ldc+j0:], j.ldc, rows, load, e.at(i, j0), n)
			}
			t += n
		}
	}
}

// narrow computes one tile of C with cols < nr columns through s.c.
func (j *job) narrow(kb int, a []float64, rsa, csa int, pb []float64, i, j0, rows, cols int, load bool, e epilogue, s *scratch) {
	nr := j.ks.nr
	c, tc := j.c[i*j.ldc+j0:], s.c[:rows*nr]
	if load {
		for r := 0; r < rows; r++ {
			copy(tc[r*nr:r*nr+cols], c[r*j.ldc:r*j.ldc+cols])
		}
	}
	j.ks.packed(kb, a, rsa, csa, 0, pb, tc, nr, rows, load, epilogue{}, 1)
	for r := 0; r < rows; r++ {
		copy(c[r*j.ldc:r*j.ldc+cols], tc[r*nr:r*nr+cols])
	}
	e.apply(c, j.ldc, i, j0, rows, cols)
}

// at is e for the block of C from row i, column j0 on.
func (e epilogue) at(i, j0 int) epilogue {
	if e.kind == epiMask {
		e.m = e.m[i*e.ldm+j0:]
	}
	return e
}

// lastPanel returns the scratch for a partial tile's panel, length n.
func (s *scratch) lastPanel(n int) []float64 {
	if cap(s.pl) < n {
		s.pl = make([]float64, n)
	}
	return s.pl[:n]
}

// panels returns the scratch for packed A with length n.
func (s *scratch) panels(n int) []float64 {
	if cap(s.pa) < n {
		s.pa = make([]float64, n)
	}
	return s.pa[:n]
}

// packA writes rows i0…i1−1, values pc…pc+kb−1 of l of op(A) into dst as
// panels of mr rows: panel t at dst[t·mr·kb:], row r and l at l·mr + r;
// rows past i1 are zeros.
func (j *job) packA(dst []float64, i0, i1, pc, kb int) {
	mr := j.ks.mr
	for t := 0; t < (i1-i0+mr-1)/mr; t++ {
		p := dst[t*mr*kb : (t+1)*mr*kb]
		r0 := i0 + t*mr
		rows := min(mr, i1-r0)
		if rows == mr && j.rsa == 1 {
			// A stored k×m: a panel's values of one l are contiguous.
			j.ks.copyRows(p, j.a[pc*j.csa+r0:], j.csa, kb, mr)
			continue
		}
		clear(p)
		for r := 0; r < rows; r++ {
			o := (r0+r)*j.rsa + pc*j.csa
			for l := 0; l < kb; l++ {
				p[l*mr+r] = j.a[o+l*j.csa]
			}
		}
	}
}

// packB packs rows pc…pc+kb−1, columns cc…cc+cols−1 of B into s.pb as
// slivers of kb×nr (sliver q at q·kb·nr, zero columns past cols) and
// returns them.
func (j *job) packB(s *scratch, pc, kb, cc, cols int) []float64 {
	nr := j.ks.nr
	slivers := (cols + nr - 1) / nr
	if cap(s.pb) < slivers*kb*nr {
		s.pb = make([]float64, slivers*kb*nr)
	}
	dst := s.pb[:slivers*kb*nr]
	b := j.b[pc*j.ldb+cc:]
	whole := cols / nr
	j.ks.packB(dst, b, j.ldb, kb, whole, kb*nr)
	if whole < slivers {
		d, w := dst[whole*kb*nr:], cols-whole*nr
		for l := 0; l < kb; l++ {
			row := d[l*nr : (l+1)*nr]
			copy(row, b[l*j.ldb+whole*nr:l*j.ldb+cols])
			clear(row[w:])
		}
	}
	return dst
}

// copyRowsGeneric copies rows rows of w values at stride ld from src into
// dst (rows×w).
func copyRowsGeneric(dst, src []float64, ld, rows, w int) {
	for r := 0; r < rows; r++ {
		copy(dst[r*w:(r+1)*w], src[r*ld:r*ld+w])
	}
}
