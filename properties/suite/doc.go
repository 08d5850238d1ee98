// Package suite lists the entries of every claim family in catalog order
// (Entries, Select, ForLoss, LossEntryIDs): what `implicitbias verify`
// runs and what report's controls read. Its tests are those across
// entries: the power table of the fault controls (TestEntryFaults,
// TestTrustTableMatchesEntries, and TestFaultPowerInFamilies: each
// family's TestFaultPower measures its pairs), the declared rates of
// inconclusive cases (TestUndecidedRates), the planted linear faults, the
// soak findings kept as literal cases, the figures and the test names the
// docs give (TestDocsNameTests).
package suite
