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
}

// catalog lists every entry in catalog order.
var catalog = []Info{
	// A. Homogeneity and exact identities.
	{ID: "LL-B2a", Section: "A", Source: "LL Thm B.2", Claim: "Φ(cθ;x) = c^L Φ(θ;x)"},
	{ID: "LL-B2b", Section: "A", Source: "LL Thm B.2", Claim: "∇Φ(cθ;x) = c^{L−1} ∇Φ(θ;x)"},
	{ID: "LL-B3", Section: "A", Source: "LL Thm B.3", Claim: "Euler identity ⟨θ, ∇Φ⟩ = L·Φ, L from the architecture"},
	{ID: "LL-B3m", Section: "A", Source: "LL §4.4, App. G", Claim: "per block ⟨w_i, ∇_{w_i}Φ⟩ = k_i·Φ"},
	{ID: "ENG-grad", Section: "A", Source: "engine", Claim: "exact gradients equal central finite differences"},
	{ID: "LL-B4", Section: "A", Source: "LL Thm B.4, Cor E.6", Claim: "radial identity ⟨θ, −∇𝓛⟩ = L·ν"},
	{ID: "LL-A5", Section: "A", Source: "LL Lemma A.5", Claim: "γ̄ − g′(ξ) log N/ρ^L ≤ γ̃ ≤ γ̄ once separated"},
	{ID: "LL-C7", Section: "A", Source: "LL Lemma C.7", Claim: "(P) satisfies MFCQ at every feasible θ"},
	// B. Margin dynamics.
	{ID: "LL-5.1", Section: "B", Source: "LL Lemma 5.1, B.1", Claim: "pointwise flow inequality for d/dt log γ̃"},
	{ID: "LL-4.1", Section: "B", Source: "LL Thm 4.1, A.7", Claim: "γ̃ non-decreasing under gradient flow after separation"},
	{ID: "LL-4.2", Section: "B", Source: "LL Thm 4.2, E.2", Claim: "γ̂ non-decreasing under GD with small η (C² nets)"},
	{ID: "LL-4.3", Section: "B", Source: "LL Thm 4.3, A.10, E.5", Claim: "𝓛 = Θ(1/(T (log T)^{2−2/L})), ρ = Θ((log T)^{1/L})"},
	{ID: "LL-K1", Section: "B", Source: "LL App. K.1", Claim: "loss-based learning rate reaches log 𝓛 < −2000"},
	{ID: "LL-K2", Section: "B", Source: "LL App. K.2", Claim: "log-domain numerics keep γ̃, ρ, direction finite"},
	{ID: "LL-F", Section: "B", Source: "LL App. F", Claim: "cross-entropy γ̃ non-decreasing under flow"},
	{ID: "LL-G", Section: "B", Source: "LL Lemma G.2", Claim: "multi-homogeneous γ̃ non-decreasing under flow"},
	// C. Convergence to KKT points.
	{ID: "LL-4.4", Section: "C", Source: "LL Thm 4.4, A.8, E.3", Claim: "limit directions are KKT points of (P)"},
	{ID: "LL-C8", Section: "C", Source: "LL Lemma C.8", Claim: "KKT certificate ‖θ̃ − Σλh̃‖² = q^{−2/L}ρ²(2 − 2β)"},
	{ID: "LL-A9", Section: "C", Source: "LL Thm A.9, E.4", Claim: "(ε, δ)-KKT along training: 1 − β → 0"},
	{ID: "LL-C10", Section: "C", Source: "LL Cor C.10", Claim: "β bound between two times from γ̃ and ρ growth"},
	{ID: "LL-lin", Section: "C", Source: "LL (L = 1)", Claim: "linear direction → hard-margin SVM, angle O(1/log t)"},
	{ID: "LL-4.5", Section: "C", Source: "LL Cor 4.5", Claim: "limit direction is the SVM of the gradient-feature kernel"},
	{ID: "LL-I1", Section: "C", Source: "LL Thm I.1", Claim: "Mexican hat: direction keeps circling, γ̃ monotone"},
	// D. Generalized reweighting, regression.
	{ID: "ZD-T1", Section: "D", Source: "ZD Thm 1", Claim: "every GRW reaches the ERM interpolator"},
	{ID: "ZD-span", Section: "D", Source: "ZD Thm 1 (proof)", Claim: "θ(t) − θ₀ stays in span{x_i}"},
	{ID: "ZD-T2", Section: "D", Source: "ZD Thm 2", Claim: "Assumption 1 + small η ⇒ training risk → 0"},
	{ID: "ZD-T6lin", Section: "D", Source: "ZD Thm 6 (linear)", Claim: "L2-regularized GRW: gap to ERM is O(√ε)"},
	{ID: "ZD-P17", Section: "D", Source: "ZD Prop. 17", Claim: "eigenvalues of HQ in [min q λ_min, max q λ_max]"},
	{ID: "ZD-T10", Section: "D", Source: "ZD Thm 10", Claim: "f(x_T) ≤ f* + ‖x₀ − x*‖²/(ηT)"},
	{ID: "ZD-F1", Section: "D", Source: "ZD Fig. 1", Claim: "ERM, IW, Group DRO on six digits reach one point"},
	{ID: "ZD-GDRO", Section: "D", Source: "ZD §3", Claim: "Group DRO weights converge (Assumption 1)"},
	// E. GRW and importance weighting, classification.
	{ID: "ZD-T7", Section: "E", Source: "ZD Thm 7", Claim: "every GRW direction → hard-margin SVM (logistic)"},
	{ID: "ZD-T8", Section: "E", Source: "ZD Thm 8", Claim: "regularization path and GD direction agree"},
	{ID: "ZD-PT", Section: "E", Source: "ZD eq. 19, App. C", Claim: "polynomial tail: limit direction depends on weights"},
	{ID: "ZD-B", Section: "E", Source: "ZD App. B, eq. 20", Claim: "multi-class direction → multi-class max margin"},
	{ID: "XY-C1", Section: "E", Source: "XY Claim 1", Claim: "‖θ(t)(w)‖ → ∞ under weak regularization"},
	{ID: "XY-P1", Section: "E", Source: "XY Prop. 1", Claim: "every w → the SVM direction at rate 1/log t"},
	{ID: "XY-P2", Section: "E", Source: "XY Prop. 2", Claim: "non-separable: finite part depends on w, the rest does not"},
	{ID: "XY-P3", Section: "E", Source: "XY Prop. 3", Claim: "weakly regularized optima: γ̄ → γ* as λ → 0"},
	{ID: "XY-T1", Section: "E", Source: "XY Thm 1", Claim: "importance-weighted margin generalization bound"},
	{ID: "XY-S5", Section: "E", Source: "XY §5, Fig. 4", Claim: "learned weights concentrate; correlation rises then decays", Conjecture: true},
	// F. Wide networks.
	{ID: "ZD-L3", Section: "F", Source: "ZD Lemma 3", Claim: "NTK at init concentrates as width → ∞"},
	{ID: "ZD-T4/L5", Section: "F", Source: "ZD Thm 4, Lemma 5", Claim: "|f_GRW − f_ERM| = O(d̃^{−1/4})"},
	{ID: "ZD-T6", Section: "F", Source: "ZD Thm 6", Claim: "regularized GRW gap O(d̃^{−1/4} + √ε)"},
	{ID: "ZD-T9", Section: "F", Source: "ZD Thm 9", Claim: "regularized logistic GRW agrees in sign with f_MM"},
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
