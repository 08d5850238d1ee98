// Package symbolic turns a loss formula in the margin q into the functions the
// implicit-bias theorems are stated for (LL App. A.1):
//
//	ℓ(q) = e^{−f(q)},  f = −log ℓ,  g = f⁻¹ on [b_f, ∞),
//
// with f, f′, f″, ℓ′, ℓ″ derived symbolically and rewritten into forms that
// stay accurate for huge margins, and with interval extensions of every
// function so that sign conditions can be certified.
//
// # Formulas
//
// A formula is an expression in q with numbers, + − × ÷ ^ (also the Unicode
// −, ×, ÷, ·), unary minus, parentheses, the functions exp, log, log1p, expm1,
// sqrt, abs, the constants e and pi, and piecewise definitions
//
//	if q < b then A else B          (also <=, >, >=, and b < q)
//
// where b is a constant expression. Numbers (and e, pi) stand for the
// float64 values nearest them; constant subexpressions are folded only where
// the result is exact, otherwise kept and enclosed by interval arithmetic.
// Parse errors carry the 1-based character position of the problem
// (ParseError), and so do constant parts that are undefined (1/0, log(−1)).
// A formula that is undefined for some q (log(q), 1/(q+1)) parses: its
// guards (Formula.Pieces[i].Guards) say where it needs what.
//
// # Stable forms
//
// f = −log ℓ is never computed as the log of ℓ (which underflows at
// q ≈ 745): the log is pushed through the formula (Log):
//
//	log(exp(a))          = a
//	log(a·b), log(a/b)   = log a ± log b,   log(a^c) = c·log a
//	log(1 + X), log1p(X) = softplus(log X)        for X > 0
//	log(log(1 + X))      = logsoftplus(log X)
//	log(1 + R)           = log1p(R)               (relative precision where ℓ ≈ 1)
//	softplus(x) − log c  = lae(x − log(c−1), (c−1)/c),  lae(x,k) = log(1 − k + k·eˣ)
//	log(Σ positive)      = logaddexp of the logs
//
// so that ℓ = e^{−1e6} gives log ℓ = −1e6 exactly, and f′, f″ are the
// derivatives of that stable form, built from primitives (softplus, sigmoid,
// logsoftplus, its derivative dlogsoftplus, lae, logaddexp, logexpm1) that
// are accurate on all of ℝ. g and g′ come from safeguarded Newton
// (bracketing, then Newton steps that fall back to bisection) on f, f′.
//
// # Evaluation
//
// Expressions are compiled to stack programs (Program) that evaluate without
// allocating, in float64 (Eval) and in interval arithmetic with outward
// rounding (EvalInterval): every inexact bound of + − × ÷ moves one step
// outward with math.Nextafter, and every library function's bound moves by
// its error bound in ulps (see interval.go), so that the true value of the
// function on the interval lies inside the result.
package symbolic
