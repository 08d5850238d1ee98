//go:build !purego

package linalg

// The AVX2 row kernels (gen_amd64.go's row256): one row of C, 4q columns
// for q = 1 … 12, the m = 1 products (W3's gradient) that the 6×8 tile
// would compute on a zero-padded copy of A, five rows in six wasted.

//go:noescape
func row256x1(k int, a *float64, csa int, b *float64, ldb int, c *float64, load int)

//go:noescape
func row256x2(k int, a *float64, csa int, b *float64, ldb int, c *float64, load int)

//go:noescape
func row256x3(k int, a *float64, csa int, b *float64, ldb int, c *float64, load int)

//go:noescape
func row256x4(k int, a *float64, csa int, b *float64, ldb int, c *float64, load int)

//go:noescape
func row256x5(k int, a *float64, csa int, b *float64, ldb int, c *float64, load int)

//go:noescape
func row256x6(k int, a *float64, csa int, b *float64, ldb int, c *float64, load int)

//go:noescape
func row256x7(k int, a *float64, csa int, b *float64, ldb int, c *float64, load int)

//go:noescape
func row256x8(k int, a *float64, csa int, b *float64, ldb int, c *float64, load int)

//go:noescape
func row256x9(k int, a *float64, csa int, b *float64, ldb int, c *float64, load int)

//go:noescape
func row256x10(k int, a *float64, csa int, b *float64, ldb int, c *float64, load int)

//go:noescape
func row256x11(k int, a *float64, csa int, b *float64, ldb int, c *float64, load int)

//go:noescape
func row256x12(k int, a *float64, csa int, b *float64, ldb int, c *float64, load int)

// row256 computes one row of C in chain order, up to 48 columns: the
// multiples of 4 on the kernel for their count, the last cols mod 4 by
// tileGeneric (the same chains).
func row256(k int, a []float64, csa int, b []float64, ldb int, c []float64, cols int, load bool) {
	checkTile(k, a, 0, csa, 1, b, ldb, c, 0, 1, cols, 1)
	v := cols / 4 * 4
	if v > 0 {
		pa, pb, pc, l := ptrK(a, k), ptrK(b, k), &c[0], b2i(load)
		switch v / 4 {
		case 1:
			row256x1(k, pa, csa, pb, ldb, pc, l)
		case 2:
			row256x2(k, pa, csa, pb, ldb, pc, l)
		case 3:
			row256x3(k, pa, csa, pb, ldb, pc, l)
		case 4:
			row256x4(k, pa, csa, pb, ldb, pc, l)
		case 5:
			row256x5(k, pa, csa, pb, ldb, pc, l)
		case 6:
			row256x6(k, pa, csa, pb, ldb, pc, l)
		case 7:
			row256x7(k, pa, csa, pb, ldb, pc, l)
		case 8:
			row256x8(k, pa, csa, pb, ldb, pc, l)
		case 9:
			row256x9(k, pa, csa, pb, ldb, pc, l)
		case 10:
			row256x10(k, pa, csa, pb, ldb, pc, l)
		case 11:
			row256x11(k, pa, csa, pb, ldb, pc, l)
		case 12:
			row256x12(k, pa, csa, pb, ldb, pc, l)
		}
	}
	if v < cols {
		var bt []float64
		if k > 0 {
			bt = b[v:]
		}
		tileGeneric(k, a, 0, csa, bt, ldb, c[v:], 0, 1, cols-v, load)
	}
}
