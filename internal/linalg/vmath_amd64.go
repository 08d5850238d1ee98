//go:build !purego

package linalg

//go:generate go run gen_vmath_amd64.go

// The batched elementary functions' assembly (vmath_amd64.s, written by
// gen_vmath_amd64.go): n is a multiple of the lanes, 4 or 8.

//go:noescape
func exp256(dst, x *float64, n int)

//go:noescape
func exp512(dst, x *float64, n int)

//go:noescape
func log256(dst, x *float64, n int)

//go:noescape
func log512(dst, x *float64, n int)

//go:noescape
func log1p256(dst, x *float64, n int)

//go:noescape
func log1p512(dst, x *float64, n int)

//go:noescape
func tanh256(dst, x *float64, n int)

//go:noescape
func tanh512(dst, x *float64, n int)

func init() {
	avx512Set.vm = vm512
	avx2Set.vm = vm256
}

// vmExp runs kernel k's Exp on x (len(x) a multiple of its lanes).
func vmExp(k vmKind, dst, x []float64) {
	if len(x) == 0 {
		return
	}
	_ = dst[len(x)-1]
	switch k {
	case vm256:
		exp256(&dst[0], &x[0], len(x))
	case vm512:
		exp512(&dst[0], &x[0], len(x))
	}
}

// vmLog runs kernel k's Log on x (len(x) a multiple of its lanes).
func vmLog(k vmKind, dst, x []float64) {
	if len(x) == 0 {
		return
	}
	_ = dst[len(x)-1]
	switch k {
	case vm256:
		log256(&dst[0], &x[0], len(x))
	case vm512:
		log512(&dst[0], &x[0], len(x))
	}
}

// vmLog1p runs kernel k's Log1p on x (len(x) a multiple of its lanes).
func vmLog1p(k vmKind, dst, x []float64) {
	if len(x) == 0 {
		return
	}
	_ = dst[len(x)-1]
	switch k {
	case vm256:
		log1p256(&dst[0], &x[0], len(x))
	case vm512:
		log1p512(&dst[0], &x[0], len(x))
	}
}

// vmTanh runs kernel k's Tanh on x (len(x) a multiple of its lanes).
func vmTanh(k vmKind, dst, x []float64) {
	if len(x) == 0 {
		return
	}
	_ = dst[len(x)-1]
	switch k {
	case vm256:
		tanh256(&dst[0], &x[0], len(x))
	case vm512:
		tanh512(&dst[0], &x[0], len(x))
	}
}
