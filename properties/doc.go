// Package properties generates random cases with gopter — homogeneous
// networks, datasets, parameters — and binds them to the checks of package
// theorems: each catalog entry becomes an Entry with its claim and its
// negative controls. The package's tests (named by catalog ID, such as
// TestLL_B3_EulerIdentity) assert the claims and the controls; the CLI's
// verify command runs the same entries and reports.
//
// Cases are described by small integers and a seed, so that gopter shrinks a
// failing case to a readable one (a spec string and a seed) that reproduces
// it.
package properties
