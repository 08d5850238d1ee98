package main

import "github.com/implicitbias/implicitbias/properties/suite"

// registeredChecks lists the catalog IDs that have a check, so that the
// summary of a selection (--only, --shard) counts the checks it left out
// apart from the catalog entries that have none.
func registeredChecks() []string {
	var ids []string
	for _, e := range suite.Entries() {
		ids = append(ids, e.ID)
	}
	return ids
}
