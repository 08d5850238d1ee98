package losses

import (
	"math"

	"github.com/implicitbias/implicitbias/internal/linalg"
)

// Batch is implemented by the losses that evaluate a whole batch in one call
// (BinaryLoss, whatever its margin loss, and CrossEntropy): the training
// objective's hot path, one call per step instead of several interface calls
// per sample, with the exponentials and logarithms of all samples batched on
// the vector kernels of internal/linalg (whose bits do not depend on the
// machine).
//
// The gradient comes as d log ℓ/ds: the objective keeps each sample's
// weighted share of the total loss, p_n = w_n ℓ_n/𝓛, as a number (the
// softmax of the log-losses), so that w_n ∂ℓ_n/∂s·e^{−log 𝓛} = p_n·d log ℓ_n/ds
// needs no second exponential and survives any ℓ_n (LL App. K's losses far
// below 1e-308). d log ℓ/ds is a moderate number for these losses (|·| ≤ 1
// for exp, logistic and cross-entropy), never a ratio of underflowed values.
type Batch interface {
	Loss
	// LogLosses sets, for the n = len(y) samples of the n×K scores s
	// (row-major, K the loss's number of scores, every score finite):
	//
	//	logLoss[i]     = log ℓ(s_i; y_i)
	//	q[i]           = the margin of sample i (y·s, or s_y − max_{j≠y} s_j)
	//	dlog[i·K + j]  = ∂ log ℓ(s_i; y_i)/∂s_{i,j}
	//
	// using work (len ≥ 2n) as scratch. A loss that overflows (a score
	// difference beyond MaxFloat64) gives logLoss[i] = +Inf.
	LogLosses(logLoss, q, dlog, s, y, work []float64)
}

// LogLosses evaluates the binary loss on a batch (see Batch): q = y·s,
// log ℓ(q) and d log ℓ/ds = −y·f′(q). The exponential and logistic losses
// run batched (logisticBatch); other margin losses call their methods per
// sample.
func (b BinaryLoss) LogLosses(logLoss, q, dlog, s, y, work []float64) {
	n := len(y)
	logLoss, q, dlog, s = logLoss[:n], q[:n], dlog[:n], s[:n]
	for i, v := range s {
		q[i] = y[i] * v
	}
	switch m := b.M.(type) {
	case Exponential:
		for i, v := range q {
			logLoss[i] = -v
			dlog[i] = -y[i]
		}
		return
	case Logistic:
		logisticBatch(logLoss, dlog, q)
	case PolyTail:
		for i, v := range q {
			logLoss[i], dlog[i] = m.logLossFPrime(v)
		}
	default:
		for i, v := range q {
			logLoss[i] = b.M.LogLoss(v)
			dlog[i] = b.M.FPrime(v)
		}
	}
	for i, fp := range dlog {
		dlog[i] = -y[i] * fp
	}
}

// logisticBatch sets logLoss[i] = log log(1 + e^{−q_i}) and fp[i] = f′(q_i)
// of the logistic loss (Logistic.LogLoss and Logistic.FPrime, in the same
// forms), with t = e^{−|q|}, a = log1p(t) and the softplus ℓ = a (q ≥ 0) or
// |q| + a (q < 0) computed once for both:
//
//	log ℓ = −q                      for q > 37 (LogLog1pExp's branch)
//	log ℓ = log ℓ                   otherwise
//	f′(q) = (t/a)/(1 + t)           for q ≥ 0 (1/(1 + t) when t ≤ 2⁻⁵³)
//	f′(q) = 1/((1 + t)·ℓ)           for q < 0
//
// fp doubles as the scratch of t.
func logisticBatch(logLoss, fp, q []float64) {
	n := len(q)
	logLoss, fp = logLoss[:n], fp[:n]
	for i, v := range q {
		fp[i] = -math.Abs(v)
	}
	linalg.Exp(fp, fp)        // t
	linalg.Log1p(logLoss, fp) // a
	for i, v := range q {
		t, a := fp[i], logLoss[i]
		if v >= 0 {
			r := 1.0
			if t > 0x1p-53 {
				r = t / a
			}
			fp[i] = r / (1 + t)
			continue
		}
		if v != v {
			fp[i] = v
			continue
		}
		l := -v + a
		logLoss[i] = l
		fp[i] = 1 / ((1 + t) * l)
	}
	linalg.Log(logLoss, logLoss)
	for i, v := range q {
		if v > 37 {
			logLoss[i] = -v
		}
	}
}

// LogLosses evaluates the cross-entropy on a batch (see Batch). Per sample,
// with c = y_i, m = max_{j≠c} (s_j − s_c) (at j = k) and e_j = e^{s_j − s_c − m}:
//
//	z = m + log1p(Σ_{j≠c,k} e_j)    (ceLogit),   log ℓ = log log(1 + e^z)
//	∂ log ℓ/∂s_j = e_j/(1 + Σ_{j≠c,k} e_j) · f′(−z)   (j ≠ c),   ∂ log ℓ/∂s_c = −Σ_{j≠c} of those
//
// with f′ the logistic loss's: softmax_j/ℓ = e^{s_j − s_c − z}·e^z/((1 + e^z)·log(1 + e^z)),
// and e^{s_j − s_c − z} = e_j/(1 + Σ). The exponentials of the loss serve
// the gradient: one per score, batched over the whole batch.
func (CrossEntropy) LogLosses(logLoss, q, dlog, s, y, work []float64) {
	n := len(y)
	if n == 0 {
		return
	}
	k := len(s) / n
	logLoss, q, dlog = logLoss[:n], q[:n], dlog[:n*k]
	sums, lz := work[n:2*n], work[:n]
	for i := range n {
		row, d := s[i*k:(i+1)*k], dlog[i*k:(i+1)*k]
		c := int(y[i])
		best := ceBest(row, c)
		q[i] = row[c] - best
		m := best - row[c]
		if math.IsInf(m, 0) {
			clear(d) // an overflowing difference: see below
			continue
		}
		for j, v := range row {
			d[j] = v - row[c] - m
		}
		d[c] = math.Inf(-1)
	}
	linalg.Exp(dlog, dlog)
	for i := range n {
		row, d := s[i*k:(i+1)*k], dlog[i*k:(i+1)*k]
		c := int(y[i])
		// The first maximum's term is 1; ceLogit leaves it out of the sum.
		top := ceTop(row, c)
		var sum float64
		for j, e := range d {
			if j != c && j != top {
				sum += e
			}
		}
		sums[i] = sum
	}
	linalg.Log1p(lz, sums)
	for i := range n {
		d := dlog[i*k : (i+1)*k]
		inv := 1 / (1 + sums[i])
		for j := range d {
			d[j] *= inv
		}
		lz[i] = q[i] - lz[i] // −z
	}
	logisticBatch(logLoss, sums, lz)
	for i := range n {
		d := dlog[i*k : (i+1)*k]
		c := int(y[i])
		if math.IsInf(q[i], 0) {
			// s_c − max_{j≠c} s_j beyond ±MaxFloat64: ℓ = +Inf (q = −Inf,
			// the objective reports it) or 0 (q = +Inf, no gradient), as
			// ceLogit gives.
			logLoss[i] = -q[i]
			clear(d)
			continue
		}
		var tot float64
		for j := range d {
			if j != c {
				d[j] *= sums[i]
				tot += d[j]
			}
		}
		d[c] = -tot
	}
}

// ceBest returns max_{j≠c} s_j.
func ceBest(s []float64, c int) float64 {
	best := math.Inf(-1)
	for j, v := range s {
		if j != c && v > best {
			best = v
		}
	}
	return best
}

// ceTop returns the first j ≠ c where s_j − s_c is largest (ceLogit's k).
func ceTop(s []float64, c int) int {
	m, top := math.Inf(-1), -1
	for j, v := range s {
		if j != c && v-s[c] > m {
			m, top = v-s[c], j
		}
	}
	return top
}
