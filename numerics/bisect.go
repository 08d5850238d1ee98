package numerics

import "math"

// BisectSign returns the point where u changes sign between a < b
// (u(a)·u(b) < 0), to adjacent floats: it halves [a, b] until the midpoint
// rounds onto an end (at most 200 halvings, enough for any pair of finite
// float64s) and returns a point where u is exactly 0 if it meets one, else
// the end with the smaller |u|. With no sign change in [a, b] it returns
// an end all the same: the caller states the bracket.
func BisectSign(u func(float64) float64, a, b float64) float64 {
	ua := u(a)
	for i := 0; i < 200; i++ {
		m := a + (b-a)/2
		if m <= a || m >= b {
			break
		}
		um := u(m)
		if um == 0 {
			return m
		}
		if (um < 0) == (ua < 0) {
			a, ua = m, um
		} else {
			b = m
		}
	}
	if math.Abs(u(b)) < math.Abs(ua) {
		return b
	}
	return a
}
