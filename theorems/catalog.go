package theorems

// Info describes one catalog entry of ../shared/THEOREMS.md.
type Info struct {
	ID      string
	Section string // A…F as in the catalog
	Source  string // paper and theorem
	Claim   string // the claim in one line
	// Conjecture marks claims the papers state as observations: the suite
	// reports how often they were supported and never asserts them.
	Conjecture bool
	// Loss, for the claims whose hypotheses are about the loss, is what
	// they need of a user's loss (`implicitbias loss FORMULA`,
	// lossapplies.go); nil for the others. It is the catalog's, not a
	// result's: left out of the JSON of a Result.
	Loss *LossNeeds `json:"-"`
}

// The catalog IDs, in catalog order. Each ID's string is written here and
// in its entry literal (properties/section_*.go), nowhere else in the
// non-test code (TestIDSites): other code names a claim by its constant,
// so that "go to definition" lands on the catalog row.
const (
	LL_B2a   = "LL-B2a"
	LL_B2b   = "LL-B2b"
	LL_B3    = "LL-B3"
	LL_B3m   = "LL-B3m"
	ENG_grad = "ENG-grad"
	LL_B4    = "LL-B4"
	LL_A5    = "LL-A5"
	LL_C7    = "LL-C7"
	LL_5_1   = "LL-5.1"
	LL_4_1   = "LL-4.1"
	LL_4_2   = "LL-4.2"
	LL_4_3   = "LL-4.3"
	LL_K1    = "LL-K1"
	LL_K2    = "LL-K2"
	LL_F     = "LL-F"
	LL_G     = "LL-G"
	LL_4_4   = "LL-4.4"
	LL_C8    = "LL-C8"
	LL_A9    = "LL-A9"
	LL_C10   = "LL-C10"
	LL_lin   = "LL-lin"
	LL_4_5   = "LL-4.5"
	LL_I1    = "LL-I1"
	ZD_T1    = "ZD-T1"
	ZD_span  = "ZD-span"
	ZD_T2    = "ZD-T2"
	ZD_T6lin = "ZD-T6lin"
	ZD_P17   = "ZD-P17"
	ZD_T10   = "ZD-T10"
	ZD_F1    = "ZD-F1"
	ZD_GDRO  = "ZD-GDRO"
	ZD_T7    = "ZD-T7"
	ZD_T8    = "ZD-T8"
	ZD_PT    = "ZD-PT"
	ZD_B     = "ZD-B"
	XY_C1    = "XY-C1"
	XY_P1    = "XY-P1"
	XY_P2    = "XY-P2"
	XY_P3    = "XY-P3"
	XY_T1    = "XY-T1"
	XY_S5    = "XY-S5"
	ZD_L3    = "ZD-L3"
	ZD_T4_L5 = "ZD-T4/L5"
	ZD_T6    = "ZD-T6"
	ZD_T9    = "ZD-T9"
)

// catalog lists every entry in catalog order.
var catalog = []Info{
	// A. Homogeneity and exact identities.
	{ID: LL_B2a, Section: "A", Source: "LL Thm B.2", Claim: "Φ(cθ;x) = c^L Φ(θ;x)"},
	{ID: LL_B2b, Section: "A", Source: "LL Thm B.2", Claim: "∇Φ(cθ;x) = c^{L−1} ∇Φ(θ;x)"},
	{ID: LL_B3, Section: "A", Source: "LL Thm B.3", Claim: "Euler identity ⟨θ, ∇Φ⟩ = L·Φ, L from the architecture"},
	{ID: LL_B3m, Section: "A", Source: "LL §4.4, App. G", Claim: "per block ⟨w_i, ∇_{w_i}Φ⟩ = k_i·Φ"},
	{ID: ENG_grad, Section: "A", Source: "engine", Claim: "exact gradients equal central finite differences"},
	{ID: LL_B4, Section: "A", Source: "LL Thm B.4, Cor E.6", Claim: "radial identity ⟨θ, −∇𝓛⟩ = L·ν",
		Loss: &LossNeeds{Note: "radial identity ⟨θ, −∇𝓛⟩ = L·ν (Euler's identity): holds for any ℓ = e^{−f} at points where ℓ is differentiable at every margin"}},
	{ID: LL_A5, Section: "A", Source: "LL Lemma A.5", Claim: "γ̄ − g′(ξ) log N/ρ^L ≤ γ̃ ≤ γ̄ once separated",
		Loss: &LossNeeds{Requires: []string{HypB31, HypB32, HypB33, HypB4}, Note: "LL Lemma A.5 ((B3.4) not needed, footnote 3)"}},
	{ID: LL_C7, Section: "A", Source: "LL Lemma C.7", Claim: "(P) satisfies MFCQ at every feasible θ"},
	// B. Margin dynamics.
	{ID: LL_5_1, Section: "B", Source: "LL Lemma 5.1, B.1", Claim: "pointwise flow inequality for d/dt log γ̃",
		Loss: &LossNeeds{Requires: []string{HypB31, HypB32, HypB33, HypB4}, Note: "LL Lemma 5.1 / B.1"}},
	{ID: LL_4_1, Section: "B", Source: "LL Thm 4.1, A.7", Claim: "γ̃ non-decreasing under gradient flow after separation",
		Loss: &LossNeeds{Requires: []string{HypB31, HypB32, HypB33, HypB4}, Note: "margin monotonicity under gradient flow, LL Thm A.7 ((B3.4) not needed, footnote 4)"}},
	{ID: LL_4_2, Section: "B", Source: "LL Thm 4.2, E.2", Claim: "γ̂ non-decreasing under GD with small η (C² nets)",
		Loss: &LossNeeds{Requires: []string{ReqExp}, Note: "LL's gradient-descent theorems (App. E) are stated for the exponential loss"}},
	{ID: LL_4_3, Section: "B", Source: "LL Thm 4.3, A.10, E.5", Claim: "𝓛 = Θ(1/(T (log T)^{2−2/L})), ρ = Θ((log T)^{1/L})",
		Loss: &LossNeeds{Requires: b3b4, Note: "rates for a general loss, LL Thm A.10: 𝓛 = Θ(g(log T)^{2/L}/(T (log T)²)), ρ = Θ(g(log T)^{1/L})"}},
	{ID: LL_K1, Section: "B", Source: "LL App. K.1", Claim: "loss-based learning rate reaches log 𝓛 < −2000"},
	{ID: LL_K2, Section: "B", Source: "LL App. K.2", Claim: "log-domain numerics keep γ̃, ρ, direction finite"},
	{ID: LL_F, Section: "B", Source: "LL App. F", Claim: "cross-entropy γ̃ non-decreasing under flow"},
	{ID: LL_G, Section: "B", Source: "LL Lemma G.2", Claim: "multi-homogeneous γ̃ non-decreasing under flow"},
	// C. Convergence to KKT points.
	{ID: LL_4_4, Section: "C", Source: "LL Thm 4.4, A.8, E.3", Claim: "limit directions are KKT points of (P)",
		Loss: &LossNeeds{Requires: b3b4, Note: "KKT convergence under gradient flow, LL Thm A.8"}},
	{ID: LL_C8, Section: "C", Source: "LL Lemma C.8", Claim: "KKT certificate ‖θ̃ − Σλh̃‖² = q^{−2/L}ρ²(2 − 2β)"},
	{ID: LL_A9, Section: "C", Source: "LL Thm A.9, E.4", Claim: "(ε, δ)-KKT along training: 1 − β → 0",
		Loss: &LossNeeds{Requires: b3b4, Note: "(ε, δ)-KKT points along the flow, LL Thm A.9"}},
	{ID: LL_C10, Section: "C", Source: "LL Cor C.10", Claim: "β bound between two times from γ̃ and ρ growth",
		Loss: &LossNeeds{Requires: b3b4, Note: "LL Cor C.10"}},
	{ID: LL_lin, Section: "C", Source: "LL (L = 1)", Claim: "linear direction → hard-margin SVM, angle O(1/log t)",
		Loss: &LossNeeds{Requires: b3b4, Note: "linear model: the KKT point of (P) is the hard-margin SVM (LL Thm A.8 with L = 1)"}},
	{ID: LL_4_5, Section: "C", Source: "LL Cor 4.5", Claim: "limit direction is the SVM of the gradient-feature kernel"},
	{ID: LL_I1, Section: "C", Source: "LL Thm I.1", Claim: "Mexican hat: direction keeps circling, γ̃ monotone"},
	// D. Generalized reweighting, regression.
	{ID: ZD_T1, Section: "D", Source: "ZD Thm 1", Claim: "every GRW reaches the ERM interpolator"},
	{ID: ZD_span, Section: "D", Source: "ZD Thm 1 (proof)", Claim: "θ(t) − θ₀ stays in span{x_i}"},
	{ID: ZD_T2, Section: "D", Source: "ZD Thm 2", Claim: "Assumption 1 + small η ⇒ training risk → 0"},
	{ID: ZD_T6lin, Section: "D", Source: "ZD Thm 6 (linear)", Claim: "L2-regularized GRW: gap to ERM is O(√ε)"},
	{ID: ZD_P17, Section: "D", Source: "ZD Prop. 17", Claim: "eigenvalues of HQ in [min q λ_min, max q λ_max]"},
	{ID: ZD_T10, Section: "D", Source: "ZD Thm 10", Claim: "f(x_T) ≤ f* + ‖x₀ − x*‖²/(ηT)"},
	{ID: ZD_F1, Section: "D", Source: "ZD Fig. 1", Claim: "ERM, IW, Group DRO on six digits reach one point"},
	{ID: ZD_GDRO, Section: "D", Source: "ZD §3", Claim: "Group DRO weights converge (Assumption 1)"},
	// E. GRW and importance weighting, classification.
	{ID: ZD_T7, Section: "E", Source: "ZD Thm 7", Claim: "every GRW direction → hard-margin SVM (logistic)",
		Loss: &LossNeeds{Requires: []string{HypConvex, HypSmooth, HypDecrease, HypTightTail}, Note: "GRW-direction independence (→ SVM for every weighting): ZD states it for the logistic loss; it follows from ZD Thm 8 when lim θ_R/R is the SVM direction, which the tight exponential tail gives (ZD App. D.5.3's argument)"}},
	{ID: ZD_T8, Section: "E", Source: "ZD Thm 8", Claim: "regularization path and GD direction agree",
		Loss: &LossNeeds{Requires: []string{HypConvex, HypSmooth, HypDecrease}, Note: "GRW direction = lim θ_R/R (ZD Thm 8, linear model)"}},
	{ID: ZD_PT, Section: "E", Source: "ZD eq. 19, App. C", Claim: "polynomial tail: limit direction depends on weights",
		Loss: &LossNeeds{Requires: []string{ReqPolyTail}, Note: "polynomial tail: the GRW limit direction depends on the weights (ZD eq. 19, App. C)"}},
	{ID: ZD_B, Section: "E", Source: "ZD App. B, eq. 20", Claim: "multi-class direction → multi-class max margin"},
	{ID: XY_C1, Section: "E", Source: "XY Claim 1", Claim: "‖θ(t)(w)‖ → ∞ under weak regularization",
		Loss: &LossNeeds{Requires: []string{HypB31, ReqFPrimeNonNeg, HypB33}, Note: "XY's exponential-tail class (C1, App. A.1.1) is LL's (B3.1), (B3.3) with f′ ≥ 0"}},
	{ID: XY_P1, Section: "E", Source: "XY Prop. 1", Claim: "every w → the SVM direction at rate 1/log t",
		Loss: &LossNeeds{Requires: []string{ReqExp}, Note: "XY Prop. 1 is stated for the exponential loss"}},
	{ID: XY_P2, Section: "E", Source: "XY Prop. 2", Claim: "non-separable: finite part depends on w, the rest does not"},
	{ID: XY_P3, Section: "E", Source: "XY Prop. 3", Claim: "weakly regularized optima: γ̄ → γ* as λ → 0"},
	{ID: XY_T1, Section: "E", Source: "XY Thm 1", Claim: "importance-weighted margin generalization bound"},
	{ID: XY_S5, Section: "E", Source: "XY §5, Fig. 4", Claim: "learned weights concentrate; correlation rises then decays", Conjecture: true},
	// F. Wide networks.
	{ID: ZD_L3, Section: "F", Source: "ZD Lemma 3", Claim: "NTK at init concentrates as width → ∞"},
	{ID: ZD_T4_L5, Section: "F", Source: "ZD Thm 4, Lemma 5", Claim: "|f_GRW − f_ERM| = O(d̃^{−1/4})"},
	{ID: ZD_T6, Section: "F", Source: "ZD Thm 6", Claim: "regularized GRW gap O(d̃^{−1/4} + √ε)"},
	{ID: ZD_T9, Section: "F", Source: "ZD Thm 9", Claim: "regularized logistic GRW agrees in sign with f_MM"},
}

// Catalog returns every entry, in catalog order.
func Catalog() []Info { return append([]Info(nil), catalog...) }

// Lookup returns the entry with the given ID.
func Lookup(id string) (Info, bool) {
	for _, e := range catalog {
		if e.ID == id {
			return e, true
		}
	}
	return Info{}, false
}
