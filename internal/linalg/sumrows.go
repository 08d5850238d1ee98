package linalg

// SumRows sets dst to the sum of the rows of m (rows×len(dst), row-major,
// no padding), or adds it to dst when accumulate: each entry is one sum
// over the rows in order, ((s + m[0][j]) + m[1][j]) + … from s = +0 or
// dst[j], the bits of adding the rows to dst one by one (a layer's bias
// gradient over a batch, block of samples by block). m must hold at least
// rows·len(dst) values.
func SumRows(dst, m []float64, rows int, accumulate bool) {
	cols := len(dst)
	if rows <= 0 || cols == 0 {
		if !accumulate {
			clear(dst)
		}
		return
	}
	m = m[:rows*cols]
	if ks := active(); ks.sumRows != nil {
		ks.sumRows(dst, m, rows, cols, accumulate)
		return
	}
	sumRowsGeneric(dst, m, rows, cols, accumulate)
}

// sumRowsGeneric is SumRows in Go over len(dst) columns of m with row
// stride ld: the definition the kernels reproduce (row by row, so that m
// is read in order).
func sumRowsGeneric(dst, m []float64, rows, ld int, acc bool) {
	if !acc {
		clear(dst)
	}
	for r := 0; r < rows; r++ {
		for j, v := range m[r*ld : r*ld+len(dst)] {
			dst[j] += v
		}
	}
}

// AddRows adds b to every row of m (rows×len(b), row-major, no padding):
// m[r][j] += b[j], one addition each (a layer's bias over a batch), then,
// when relu, ReLU's values (ReLU(m, nil, m)) in the same pass. m must hold
// at least rows·len(b) values.
func AddRows(m, b []float64, rows int, relu bool) {
	cols := len(b)
	if rows <= 0 || cols == 0 {
		return
	}
	m = m[:rows*cols]
	if ks := active(); ks.addRows != nil {
		ks.addRows(m, b, rows, cols, relu)
		return
	}
	addRowsGeneric(m, b, rows, cols, relu)
}

// addRowsGeneric is AddRows in Go over len(b) columns of m with row stride
// ld: the definition the kernels reproduce.
func addRowsGeneric(m, b []float64, rows, ld int, relu bool) {
	for r := 0; r < rows; r++ {
		row := m[r*ld : r*ld+len(b)]
		for j, v := range b {
			row[j] += v
		}
		if relu {
			reluGeneric(row, nil, row)
		}
	}
}
