//go:build !purego

package linalg

import (
	"os"
	"strings"
)

// The CPU features are read with CPUID and XGETBV directly (as the standard
// library's internal/cpu does, which other packages cannot import), so the
// module needs no dependency beyond the standard library for them.

//go:noescape
func cpuid(eaxArg, ecxArg uint32) (eax, ebx, ecx, edx uint32)

func xgetbv() (eax, edx uint32)

// detect returns the kernel sets this CPU and OS can run, fastest first,
// less those GODEBUG turns off (see dropOff).
func detect() []*kernelSet {
	return dropOff(detectCPU(nil), os.Getenv("GODEBUG"))
}

// dropOff removes from sets those the GODEBUG value turns off with the
// standard library's own options for these features (runtime and
// internal/cpu honour them too): cpu.avx512f=off leaves AVX2, cpu.avx2=off
// or cpu.fma=off the pure-Go kernels, cpu.all=off likewise. It is how the
// AVX2 path is measured on an AVX-512 machine (docs/speed.md):
//
//	GODEBUG=cpu.avx512f=off implicitbias bench --workload W2
func dropOff(sets []*kernelSet, godebug string) []*kernelSet {
	off := map[string]bool{}
	for _, kv := range strings.Split(godebug, ",") {
		if k, v, ok := strings.Cut(strings.TrimSpace(kv), "="); ok && v == "off" {
			off[k] = true
		}
	}
	kept := sets[:0:0]
	for _, ks := range sets {
		switch {
		case ks.name == "avx512" && (off["cpu.avx512f"] || off["cpu.all"]):
		case ks.name == "avx2" && (off["cpu.avx2"] || off["cpu.fma"] || off["cpu.all"]):
		default:
			kept = append(kept, ks)
		}
	}
	return kept
}

// detectCPU appends to sets the kernel sets this CPU and OS can run, fastest
// first.
func detectCPU(sets []*kernelSet) []*kernelSet {
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
