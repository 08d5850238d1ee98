package bigref

// A memo of reference values, so that repeated runs of a test suite (a
// mutation run executes it once per mutant) need not recompute thousands of
// big-float references that do not depend on the code under test.
//
// The cache changes no assertion: a test asks for the reference of a named
// function at given float64 arguments and gets the same float64 whether it
// comes from the file or from the definition. Its use is chosen by the
// environment variable IMPLICITBIAS_BIGREF:
//
//	(unset)  compute every reference from its definition; if the cache file
//	         exists, every computed value is also compared with its entry and
//	         a difference fails the test (a stale file cannot go unnoticed)
//	cache    read the file; a reference missing from it is computed
//	record   compute every reference and rewrite the file (optionally with
//	         the sensitivity S of each point: see NewCache)
//
// A key is the label, which must name the function with every parameter
// its closure captures (e.g. "poly(2,0.5).GPrime"), followed by the bits of
// the arguments in hexadecimal.

import (
	"bufio"
	"fmt"
	"math"
	"math/big"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
)

// CacheEnv is the environment variable that selects the cache mode.
const CacheEnv = "IMPLICITBIAS_BIGREF"

// Cache is a file of reference values keyed by label and arguments.
type Cache struct {
	path      string
	recordSen bool

	once sync.Once
	mu   sync.Mutex
	mode string
	m    map[string]float64
	out  *os.File
	err  error
}

// NewCache returns a cache backed by the file at path (relative to the test's
// working directory, its package folder), opened on first use. With
// sensitivities, record mode also stores the sensitivity S at every point
// asked for with At or AtN (the tests of package losses compute S only when
// a result is off, which a mutant makes happen everywhere).
func NewCache(path string, sensitivities bool) *Cache {
	return &Cache{path: path, recordSen: sensitivities}
}

func (c *Cache) open() {
	c.mode = os.Getenv(CacheEnv)
	c.m = map[string]float64{}
	switch c.mode {
	case "", "cache":
		f, err := os.Open(c.path)
		if os.IsNotExist(err) {
			return
		}
		if err != nil {
			c.err = err
			return
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		for line := 1; sc.Scan(); line++ {
			k, v, ok := strings.Cut(sc.Text(), " = ")
			bits, err := strconv.ParseUint(v, 16, 64)
			if !ok || err != nil {
				c.err = fmt.Errorf("%s:%d: malformed entry %q", c.path, line, sc.Text())
				return
			}
			c.m[k] = math.Float64frombits(bits)
		}
		c.err = sc.Err()
	case "record":
		if err := os.MkdirAll(filepath.Dir(c.path), 0o755); err != nil {
			c.err = err
			return
		}
		c.out, c.err = os.Create(c.path)
	default:
		c.err = fmt.Errorf("%s=%q: want cache, record or nothing", CacheEnv, c.mode)
	}
}

func key(label string, x []float64) string {
	var b strings.Builder
	b.WriteString(label)
	for _, v := range x {
		fmt.Fprintf(&b, " %x", math.Float64bits(v))
	}
	return b.String()
}

// lookup returns the value of key, computing it with eval unless the cache
// mode allows the stored one.
func (c *Cache) lookup(k string, eval func() float64) float64 {
	c.once.Do(c.open)
	if c.err != nil {
		panic(fmt.Sprintf("bigref cache %s: %v", c.path, c.err))
	}
	c.mu.Lock()
	stored, ok := c.m[k]
	c.mu.Unlock()
	if ok && c.mode == "cache" {
		return stored
	}
	v := eval()
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case c.mode == "record":
		if _, dup := c.m[k]; !dup {
			c.m[k] = v
			if _, err := fmt.Fprintf(c.out, "%s = %x\n", k, math.Float64bits(v)); err != nil {
				panic(fmt.Sprintf("bigref cache %s: %v", c.path, err))
			}
		}
	case ok && !Same(stored, v):
		panic(fmt.Sprintf("bigref cache %s is stale: %s is %v, stored %v; rewrite it with %s=record",
			c.path, k, v, stored, CacheEnv))
	}
	return v
}

// At returns F(x) rounded to float64, as the function At does.
func (c *Cache) At(label string, F Func, x float64) float64 { return c.AtN(label, F.n(), x) }

// AtN returns F(x...) rounded to float64, as the function AtN does.
func (c *Cache) AtN(label string, F FuncN, x ...float64) float64 {
	v := c.lookup(key(label, x), func() float64 { return AtN(F, x...) })
	if c.mode == "record" && c.recordSen {
		c.SensitivityN(label, F, x...)
	}
	return v
}

// Value returns eval's reference, as the function Value does; x are the
// arguments that eval's closure captures.
func (c *Cache) Value(label string, eval func(r Ref) *big.Float, x ...float64) float64 {
	return c.lookup(key(label, x), func() float64 { return Value(eval) })
}

// Float memoizes any deterministic float64 reference eval of the arguments
// x (e.g. a brute-force quadrature), under the same modes.
func (c *Cache) Float(label string, eval func() float64, x ...float64) float64 {
	return c.lookup(key(label, x), eval)
}

// Sensitivity returns Sensitivity(F, x).
func (c *Cache) Sensitivity(label string, F Func, x float64) float64 {
	return c.SensitivityN(label, F.n(), x)
}

// SensitivityN returns SensitivityN(F, x...).
func (c *Cache) SensitivityN(label string, F FuncN, x ...float64) float64 {
	return c.lookup("S "+key(label, x), func() float64 { return SensitivityN(F, x...) })
}
