//go:build !purego

package linalg

// The CPU features are read with CPUID and XGETBV directly (as the standard
// library's internal/cpu does, which other packages cannot import), so the
// module needs no dependency beyond the standard library for them.

//go:noescape
func cpuid(eaxArg, ecxArg uint32) (eax, ebx, ecx, edx uint32)

func xgetbv() (eax, edx uint32)

// detect returns the kernel sets this CPU and OS can run, fastest first.
func detect() []*kernelSet {
	sets := []*kernelSet{}
	maxID, _, _, _ := cpuid(0, 0)
	if maxID < 7 {
		return append(sets, genericSet)
	}
	_, _, ecx1, _ := cpuid(1, 0)
	const (
		fma     = 1 << 12
		osxsave = 1 << 27
		avx     = 1 << 28
	)
	if ecx1&(fma|osxsave|avx) != fma|osxsave|avx {
		return append(sets, genericSet)
	}
	xcr0, _ := xgetbv()
	_, ebx7, _, _ := cpuid(7, 0)
	const (
		avx2    = 1 << 5
		avx512f = 1 << 16
		// XCR0: the OS saves SSE and AVX state (bits 1, 2) and the AVX-512
		// opmask and upper ZMM state (bits 5, 6, 7).
		ymmState = 1<<1 | 1<<2
		zmmState = ymmState | 1<<5 | 1<<6 | 1<<7
	)
	if ebx7&avx512f != 0 && xcr0&zmmState == zmmState {
		sets = append(sets, avx512Set)
	}
	if ebx7&avx2 != 0 && xcr0&ymmState == ymmState {
		sets = append(sets, avx2Set)
	}
	return append(sets, genericSet)
}
