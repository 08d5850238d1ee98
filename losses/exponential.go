package losses

// Exponential is the exponential loss ℓ(q) = e^{−q} (LL Remark A.1):
//
//	f(q) = q,  f′(q) = 1,  g(u) = u,  g′(u) = 1,  b_f = 0,  ℓ(b_f) = 1.
type Exponential struct{}

// Name returns "exp".
func (Exponential) Name() string { return "exp" }

// LogLoss returns −q.
func (Exponential) LogLoss(q float64) float64 { return -q }

// DLogLoss returns −1.
func (Exponential) DLogLoss(q float64) float64 { return -1 }

// F returns q.
func (Exponential) F(q float64) float64 { return q }

// FPrime returns 1.
func (Exponential) FPrime(q float64) float64 { return 1 }

// G returns u.
func (Exponential) G(u float64) float64 { return u }

// GPrime returns 1.
func (Exponential) GPrime(u float64) float64 { return 1 }

// BF returns 0.
func (Exponential) BF() float64 { return 0 }
